// GET / (spec 06 §5.12): the dashboard page with its security headers (web.headers go on top).
// The page comes from src/web/ui/page.ts (the UI's module); while it does not exist a placeholder
// is served, and also when the built assets are missing.
import type { WebDeps } from '../deps.ts';
import { placeholderHtml } from '../placeholder.ts';
import type { Routes } from '../router.ts';

export const DASHBOARD_SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; object-src 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

interface PageModule {
  dashboardHtml?: () => string | Promise<string>;
}

let page: Promise<() => string | Promise<string>> | null = null;

function loadPage(version: string): Promise<() => string | Promise<string>> {
  page ??= (async () => {
    const html = placeholderHtml(version);
    try {
      const mod = (await import('../ui/page.ts')) as PageModule;
      const render = mod.dashboardHtml;
      if (typeof render === 'function') {
        // Assets missing (a source checkout that was never built): the placeholder says so.
        return async () => {
          try {
            return await render();
          } catch {
            return html;
          }
        };
      }
    } catch {
      // no dashboard in this build
    }
    return () => html;
  })();
  return page;
}

export function dashboardRoute(r: Routes, d: WebDeps): void {
  r.get('/', async () => {
    const render = await loadPage(d.ctx.version);
    const html = await render();
    return new Response(html, {
      headers: {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-cache',
        ...DASHBOARD_SECURITY_HEADERS,
      },
    });
  });
}

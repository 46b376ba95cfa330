// GET / (spec 06 §5.12): the dashboard page with its security headers (web.headers go on top).
// The page is src/web/page.ts with the bundle every build writes; without it (a source tree
// that was never built) the route answers 503 saying to run the build, and the error is logged.
import type { Hono } from 'hono';
import type { ApiDeps } from '../../api/deps.ts';
import { type SharedBody, textBody } from '../../api/shared-body.ts';
import { errorText } from '../../util/errors.ts';
import { serveCacheable } from '../conditional.ts';
import { dashboardHtml } from '../page.ts';
import { jsonError, type WebEnv } from '../respond.ts';

export const DASHBOARD_SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; object-src 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

/** `render` is the page builder (the UI module's; tests pass a failing one). */
export function dashboardRoute(
  app: Hono<WebEnv>,
  d: Pick<ApiDeps, 'log'>,
  render: () => string | Promise<string> = dashboardHtml,
): void {
  let reported = false;
  let page: { html: string; body: SharedBody } | null = null;
  app.get('/', async (c) => {
    let html: string;
    try {
      html = await render();
    } catch (e) {
      // A source tree whose UI was never built (npm run build and npm run dev build it).
      const message = errorText(e);
      if (!reported) d.log.error(`web: ${message}`);
      reported = true;
      return jsonError(503, message);
    }
    // The page changes only with the build: tagged and compressed once (spec 10 §4.10), revalidated
    // on every load (no-cache) with the same list matcher the JSON routes use (its Do better).
    if (page?.html !== html) page = { html, body: textBody(html) };
    return serveCacheable(page.body, {
      contentType: 'text/html; charset=utf-8',
      ifNoneMatch: c.req.header('if-none-match'),
      acceptEncoding: c.req.header('accept-encoding'),
      minGzip: 0,
      headers: { 'cache-control': 'no-cache', ...DASHBOARD_SECURITY_HEADERS },
    });
  });
}

// Where `web.headers` go (spec 06 §2.3): every 2xx and 304, plus the answers a handler marks
// (start/cancel 409, schedule 400); never 401/404/other errors. A Content-Type among them is ignored
// on every route (spec 10 §4.9): a route's body and its type go together. `.ics` feeds get
// Content-Disposition after the operator's headers; elsewhere the operator wins.
import type { MiddlewareHandler } from 'hono';
import type { WebEnv } from './respond.ts';

export const ICS_DISPOSITION = 'inline; filename="cronstable.ics"';

export function customHeaders(
  headers: Record<string, string> | null | undefined,
  exempt: readonly string[] = [],
): MiddlewareHandler<WebEnv> {
  const entries = Object.entries(headers ?? {});
  return async (c, next) => {
    await next();
    if (entries.length === 0 || exempt.includes(c.req.path)) return;
    const res = c.res;
    const placed = (res.status >= 200 && res.status < 300) || res.status === 304;
    if (!placed && c.get('customHeaders') !== true) return;
    const path = c.req.path;
    for (const [k, v] of entries) if (k.toLowerCase() !== 'content-type') res.headers.set(k, v);
    if (path.endsWith('/calendar.ics') && res.status === 200)
      res.headers.set('content-disposition', ICS_DISPOSITION);
  };
}

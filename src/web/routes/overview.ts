// /summary, /activity and POST /shutdown (spec 10 §4.3, §4.4, §4.7). The payloads come from
// api/summary.ts and api/activity.ts; the default `/activity` body is the shared one.
import type { Hono } from 'hono';
import { ACTIVITY_MAX_RUNS, activityBody } from '../../api/activity.ts';
import type { ApiDeps } from '../../api/deps.ts';
import { jsonBody } from '../../api/shared-body.ts';
import { summaryBody } from '../../api/summary.ts';
import { serveJson } from '../conditional.ts';
import { errorWithHeaders, intParam, json, jsonError, type WebEnv } from '../respond.ts';

export const SHUTDOWN_NEEDS_TOKEN =
  'POST /shutdown requires bearer-token authentication: configure web.authToken (or a web.authTokens entry whose scopes include `control`) and present it on this request';

export function overviewRoutes(app: Hono<WebEnv>, d: ApiDeps, opts: { auth: boolean }): void {
  const { ctx } = d;

  app.get('/summary', () => json(summaryBody(ctx)));

  app.get('/activity', (c) => {
    const limit = intParam(c.req.query('limit'), ACTIVITY_MAX_RUNS, 1, ACTIVITY_MAX_RUNS);
    const body = limit === ACTIVITY_MAX_RUNS ? d.bodies.activity.get() : jsonBody(activityBody(ctx, limit));
    return serveJson(c, body);
  });

  // The auth layer has already refused anonymous callers and tokens without `control` (spec 10 §2.3);
  // without any token there is no auth layer, and a shutdown is never granted to whoever connects.
  app.post('/shutdown', (c) => {
    if (!opts.auth) return errorWithHeaders(c, 403, SHUTDOWN_NEEDS_TOKEN);
    if (!ctx.requestShutdown)
      return jsonError(503, 'this server does not own its process and cannot shut it down');
    const label = c.get('caller')?.label ?? 'unknown';
    d.log.info(`shutdown requested via POST /shutdown (token '${label}')`);
    ctx.requestShutdown();
    return json({ shuttingDown: true });
  });
}

// /schedule/preview, /pressure, /duplicates, /suggest, /why (spec 06 §5.11), answered by
// ../api/schedule.ts (which the MCP schedule tools call too). A 400 here still carries `web.headers`
// (§2.3).
import type { Hono } from 'hono';
import type { ApiDeps } from '../../api/deps.ts';
import {
  scheduleDuplicates,
  schedulePressure,
  schedulePreview,
  scheduleSuggest,
  scheduleWhy,
} from '../../api/schedule.ts';
import type { ApiResult } from '../../api/types.ts';
import { parseIsoInstant } from '../../util/instant.ts';
import { answer, type Ctx, errorWithHeaders, intParam, json, limitParam, type WebEnv } from '../respond.ts';

/** A schedule answer: a 400 keeps `web.headers` (spec 06 §2.3), other errors are plain. */
function reply<T>(c: Ctx, r: ApiResult<T>): Response {
  return !r.ok && r.status === 400 ? errorWithHeaders(c, 400, r.error) : answer(r);
}

export function scheduleRoutes(app: Hono<WebEnv>, d: ApiDeps): void {
  const { ctx } = d;

  app.get('/schedule/preview', (c) => {
    const q = c.req.query();
    // `count` (and the older `n`) are the legacy names of `limit`.
    const count = limitParam(c, q.count === undefined ? 'n' : 'count', 12, 1, 60);
    const result = schedulePreview(ctx, {
      expr: q.expr,
      tz: q.tz,
      count,
      seed: q.seed,
      dstRepeated: q.dst_repeated,
      dstSkipped: q.dst_skipped,
    });
    if (result.status === 400) c.set('customHeaders', true);
    return json(result.body, result.status);
  });

  app.get('/schedule/pressure', async (c) =>
    reply(c, await schedulePressure(ctx, intParam(c.req.query('hours'), 24, 1, 168), c.req.query('tz'))),
  );

  app.get('/schedule/duplicates', () => json(scheduleDuplicates(ctx)));

  app.get('/schedule/suggest', async (c) =>
    reply(c, await scheduleSuggest(ctx, c.req.query('period') ?? 'hourly', c.req.query('tz'))),
  );

  app.get('/schedule/why', (c) => {
    const name = c.req.query('job');
    const atText = c.req.query('at');
    if (!name || !atText) return errorWithHeaders(c, 400, 'missing ?job= or ?at= query parameter');
    return reply(c, scheduleWhy(ctx, name, parseIsoInstant(atText), atText));
  });
}

// /schedule/preview, /pressure, /duplicates, /suggest, /why (spec 06 §5.11). A 400 here still
// carries `web.headers` (§2.3). Pressure walks every fire of every job, so it is cached briefly.
import type { Hono } from 'hono';
import { isSupportedInstant } from '../../schedule/index.ts';
import { parseIsoInstant } from '../../util/instant.ts';
import {
  allEntries,
  analyzedEntries,
  BadRequest,
  duplicates,
  frameOfParam,
  type Pressure,
  pressure,
  preview,
  suggest,
  why,
} from '../analysis.ts';
import type { WebDeps } from '../deps.ts';
import { type Ctx, errorWithHeaders, intParam, json, type WebEnv } from '../respond.ts';
import { jobNotFound } from './jobs.ts';

const PRESSURE_TTL_MS = 15_000;

export function scheduleRoutes(app: Hono<WebEnv>, d: WebDeps): void {
  const { ctx } = d;
  const cache = new Map<string, { at: number; value: Promise<Pressure> }>();

  /** Concurrent requests for the same window share one walk; results are kept PRESSURE_TTL_MS. */
  const pressureFor = (hours: number, tz: string | undefined): Promise<Pressure> => {
    const frame = frameOfParam(tz);
    const now = ctx.clock.now();
    const key = `${hours}|${tz ?? ''}|${ctx.jobSetId()}|${ctx.config().dags.length}`;
    const hit = cache.get(key);
    if (hit && now - hit.at < PRESSURE_TTL_MS && now >= hit.at) return hit.value;
    const value = pressure(analyzedEntries(ctx), now, hours, frame, tz && tz !== '' ? tz : 'UTC');
    if (cache.size > 16) cache.clear();
    cache.set(key, { at: now, value });
    value.catch(() => cache.delete(key));
    return value;
  };

  const badRequest = (c: Ctx, e: unknown): Response => {
    if (e instanceof BadRequest) return errorWithHeaders(c, 400, e.message);
    throw e;
  };

  app.get('/schedule/preview', (c) => {
    const q = c.req.query();
    const count = intParam(q.count ?? q.n, 12, 1, 60);
    const result = preview(
      { expr: q.expr, tz: q.tz, count, seed: q.seed, dstRepeated: q.dst_repeated, dstSkipped: q.dst_skipped },
      ctx.clock.now(),
    );
    if (result.status === 400) c.set('customHeaders', true);
    return json(result.body, result.status);
  });

  app.get('/schedule/pressure', async (c) => {
    try {
      return json(await pressureFor(intParam(c.req.query('hours'), 24, 1, 168), c.req.query('tz')));
    } catch (e) {
      return badRequest(c, e);
    }
  });

  app.get('/schedule/duplicates', () => json(duplicates(analyzedEntries(ctx))));

  app.get('/schedule/suggest', async (c) => {
    const period = c.req.query('period') ?? 'hourly';
    if (period !== 'hourly' && period !== 'daily')
      return errorWithHeaders(c, 400, `period must be 'hourly' or 'daily', got '${period}'`);
    try {
      return json(suggest(await pressureFor(24, c.req.query('tz')), period));
    } catch (e) {
      return badRequest(c, e);
    }
  });

  app.get('/schedule/why', (c) => {
    const name = c.req.query('job');
    const atText = c.req.query('at');
    if (!name || !atText) return errorWithHeaders(c, 400, 'missing ?job= or ?at= query parameter');
    const at = parseIsoInstant(atText);
    // Outside the engine's calendar (1970-2099) is a bad request, not a 500 from the engine.
    if (at === null || !isSupportedInstant(at)) return errorWithHeaders(c, 400, `bad timestamp: ${atText}`);
    const entry = allEntries(ctx).find((e) => e.name === name);
    if (!entry) return jobNotFound(name);
    const job = ctx.scheduler.job(name);
    const dag = name.startsWith('dag:') ? ctx.config().dags.find((x) => `dag:${x.name}` === name) : undefined;
    const notes = (job?.findings ?? dag?.findings ?? []).map((f) => ({
      code: f.code,
      level: f.level,
      message: f.message,
    }));
    return json(why(entry, at, notes));
  });
}

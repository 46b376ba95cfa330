// The schedule analysis answers (spec 06 §5.11) that `/schedule/*` and the MCP schedule tools share:
// preview, pressure, duplicates, suggest, why. The engine work is in ../analysis.ts, ../pressure.ts and ../why.ts; this module
// decides what a request means (defaults, zones, lookups); ./schedule.schema.ts, what the 200 bodies look like.

import { isSupportedInstant } from '../schedule/index.ts';
import {
  allEntries,
  analyzedEntries,
  BadRequest,
  duplicates,
  frameOfParam,
  preview,
  suggest,
} from './analysis.ts';
import type { WebContext } from './context.ts';
import { pausedNote } from './pause-record.ts';
import { type Pressure, pressure } from './pressure.ts';
import { type ApiResult, fail, ok } from './types.ts';
import { why } from './why.ts';
import type { ApiSuggest, Duplicates } from './wire/schedule.schema.ts';

const PRESSURE_TTL_MS = 15_000;

const caches = new WeakMap<WebContext, Map<string, { at: number; value: Promise<Pressure> }>>();

/**
 * The pressure of the next `hours` in zone `tz`. Walking every fire of every job is the heaviest read
 * the daemon serves: concurrent callers (routes and tools alike) share one walk, its result is kept
 * PRESSURE_TTL_MS, and the walk itself yields to the event loop between slices (../pressure.ts).
 * Throws BadRequest for an unknown zone.
 */
export function pressureFor(ctx: WebContext, hours: number, tz: string | undefined): Promise<Pressure> {
  const frame = frameOfParam(tz);
  let cache = caches.get(ctx);
  if (!cache) {
    cache = new Map();
    caches.set(ctx, cache);
  }
  const now = ctx.clock.now();
  const key = `${hours}|${tz ?? ''}|${ctx.jobSetId()}|${ctx.config().dags.length}`;
  const hit = cache.get(key);
  if (hit && now - hit.at < PRESSURE_TTL_MS && now >= hit.at) return hit.value;
  const value = pressure(analyzedEntries(ctx), now, hours, frame, tz && tz !== '' ? tz : 'UTC');
  if (cache.size > 16) cache.clear();
  const entries = cache;
  entries.set(key, { at: now, value });
  value.catch(() => entries.delete(key));
  return value;
}

export type PreviewParams = Parameters<typeof preview>[0];

/**
 * `GET /schedule/preview`: status 200 with the preview, or 400 with either `{error}` (missing
 * expression, bad zone or DST policy) or the invalid-expression body `{expression, timezone, valid: false, error}`.
 */
export function schedulePreview(
  ctx: WebContext,
  params: PreviewParams,
): { status: 200 | 400; body: Record<string, unknown> } {
  return preview(params, ctx.clock.now());
}

/** `GET /schedule/pressure`: `hours` already clamped to 1-168. */
export async function schedulePressure(
  ctx: WebContext,
  hours: number,
  tz: string | undefined,
): Promise<ApiResult<Pressure>> {
  try {
    return ok(await pressureFor(ctx, hours, tz));
  } catch (e) {
    if (e instanceof BadRequest) return fail(400, e.message);
    throw e;
  }
}

export function scheduleDuplicates(ctx: WebContext): Duplicates {
  return duplicates(analyzedEntries(ctx)) as Duplicates;
}

export const periodError = (period: string) => `period must be 'hourly' or 'daily', got '${period}'`;

/** `GET /schedule/suggest`: the least-loaded slot of the next 24 h. */
export async function scheduleSuggest(
  ctx: WebContext,
  period: string,
  tz: string | undefined,
): Promise<ApiResult<ApiSuggest>> {
  if (period !== 'hourly' && period !== 'daily') return fail(400, periodError(period));
  const p = await schedulePressure(ctx, 24, tz);
  return p.ok ? ok(suggest(p.body, period)) : p;
}

/** The 404 of `/schedule/why` and `/jobs/{name}/calendar.ics` (spec 10 §4.9): jobs and DAGs share the name space. */
export const noScheduleText = (name: string) => `no job or DAG schedule named '${name}'`;

/**
 * `GET /schedule/why`: did `name` (a job or `dag:<name>`) fire at `at` (null: `atText` did not parse)?
 * 400 for a bad instant, 404 for an unknown name.
 */
export function scheduleWhy(
  ctx: WebContext,
  name: string,
  at: number | null,
  atText: string,
): ApiResult<Record<string, unknown>> {
  // Outside the engine's calendar (1970-2099) is a bad request, not a 500 from the engine.
  if (at === null || !isSupportedInstant(at)) return fail(400, `bad timestamp: ${atText}`);
  const entry = allEntries(ctx).find((e) => e.name === name);
  if (!entry) return fail(404, noScheduleText(name));
  const job = ctx.scheduler.job(name);
  const dag = name.startsWith('dag:') ? ctx.config().dags.find((x) => `dag:${x.name}` === name) : undefined;
  const notes = (job?.findings ?? dag?.findings ?? []).map((f) => ({
    code: f.code,
    level: f.level,
    message: f.message,
  }));
  const paused = job ? ctx.scheduler.pauses.active(name) : null;
  if (paused) notes.push(pausedNote(paused));
  return ok(why(entry, at, notes));
}

/** The schedule `why` reads for `name` (a job or `dag:<name>`), or null when there is none. */
export function scheduleEntry(ctx: WebContext, name: string) {
  return allEntries(ctx).find((e) => e.name === name) ?? null;
}

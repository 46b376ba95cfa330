// The schedule analysis answers (spec 06 §5.11) that `/schedule/*` and the MCP schedule tools share:
// preview, pressure, duplicates, suggest, why. The engine work is in ../analysis.ts; this module
// decides what a request means (defaults, zones, lookups) and what the 200 bodies look like.
import { z } from 'zod';
import { isSupportedInstant } from '../../schedule/index.ts';
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
import type { WebContext } from '../context.ts';
import { type ApiResult, fail, ok, type RouteDoc } from './types.ts';

const PRESSURE_TTL_MS = 15_000;

const caches = new WeakMap<WebContext, Map<string, { at: number; value: Promise<Pressure> }>>();

/**
 * The pressure of the next `hours` in zone `tz`. Walking every fire of every job is the heaviest read
 * the daemon serves: concurrent callers (routes and tools alike) share one walk, its result is kept
 * PRESSURE_TTL_MS, and the walk itself yields to the event loop between slices (analysis.ts).
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
): Promise<ApiResult<Record<string, unknown>>> {
  if (period !== 'hourly' && period !== 'daily') return fail(400, periodError(period));
  const p = await schedulePressure(ctx, 24, tz);
  return p.ok ? ok(suggest(p.body, period)) : p;
}

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
  if (!entry) return fail(404, `job '${name}' not found`);
  const job = ctx.scheduler.job(name);
  const dag = name.startsWith('dag:') ? ctx.config().dags.find((x) => `dag:${x.name}` === name) : undefined;
  const notes = (job?.findings ?? dag?.findings ?? []).map((f) => ({
    code: f.code,
    level: f.level,
    message: f.message,
  }));
  return ok(why(entry, at, notes));
}

/** The schedule `why` reads for `name` (a job or `dag:<name>`), or null when there is none. */
export function scheduleEntry(ctx: WebContext, name: string) {
  return allEntries(ctx).find((e) => e.name === name) ?? null;
}

// ---------------------------------------------------------------------------------------------
// 200 bodies

const finding = z.object({ code: z.string(), level: z.string(), message: z.string() });
const dstPolicy = z.object({
  repeated: z.enum(['first', 'last', 'both']),
  skipped: z.enum(['shift', 'skip']),
});

export const previewSchema = z.object({
  expression: z.string(),
  timezone: z.string(),
  seed: z.string().optional(),
  dst: dstPolicy.optional().describe('the DST policy the fires were computed under (absent for @reboot)'),
  valid: z.boolean(),
  reboot: z.boolean().optional(),
  normalized: z.string().optional(),
  resolved: z.string().optional().describe('the expression with H resolved, when it differs'),
  description: z.string().optional(),
  fires: z.array(z.string()).optional().describe("ISO instants with the zone's offset"),
  never_fires: z.boolean().optional(),
  lint: z.array(finding).optional(),
  error: z.string().optional().describe('why the expression is invalid (valid: false)'),
});

export const pressureSchema = z.object({
  start: z.string(),
  hours: z.number().int(),
  timezone: z.string(),
  jobs: z.number().int(),
  total_fires: z.number().int(),
  grid: z.array(z.array(z.number().int())).describe('24 hours x 60 minutes of fire counts'),
  by_minute_fires: z.array(z.number().int()),
  by_minute_jobs: z.array(z.number().int()),
  by_hour: z.array(z.number().int()),
  busiest_minute: z.object({ minute: z.number().int(), jobs: z.number().int(), fires: z.number().int() }),
  empty_minutes: z.array(z.number().int()),
  top_cells: z.array(
    z.object({
      hour: z.number().int(),
      minute: z.number().int(),
      fires: z.number().int(),
      jobs: z.array(z.string()),
    }),
  ),
  excluded: z.object({ disabled: z.number().int(), reboot: z.number().int() }),
});

export const duplicatesSchema = z.object({
  jobs: z.number().int(),
  groups: z.array(
    z.object({
      expression: z.string(),
      description: z.string(),
      timezone: z.string(),
      count: z.number().int(),
      jobs: z.array(z.string()),
    }),
  ),
});
export type Duplicates = z.infer<typeof duplicatesSchema>;

const slot = z.object({
  minute: z.number().int(),
  hour: z.number().int().optional(),
  expression: z.string(),
  fires_in_window: z.number().int(),
});

export const suggestSchema = z.object({
  period: z.enum(['hourly', 'daily']),
  timezone: z.string(),
  based_on: z.object({ jobs: z.number().int(), start: z.string(), hours: z.number().int() }),
  minute: z.number().int(),
  hour: z.number().int().optional(),
  expression: z.string(),
  fires_in_window: z.number().int(),
  busiest: z
    .object({
      minute: z.number().int(),
      hour: z.number().int().optional(),
      jobs: z.number().int(),
      fires: z.number().int(),
    })
    .nullable(),
  alternatives: z.array(slot),
  hash_hint: z.string(),
});

export const whySchema = z.object({
  job: z.string(),
  enabled: z.boolean(),
  timezone: z.string(),
  at: z.string(),
  at_in_zone: z.string(),
  expression: z.string(),
  reboot: z.boolean(),
  description: z.string(),
  resolved: z.string().optional(),
  matches: z.boolean(),
  checks: z.array(
    z.object({
      field: z.string(),
      value: z.number().int(),
      label: z.string(),
      allowed: z.string(),
      matched: z.boolean(),
    }),
  ),
  failed: z.array(z.string()),
  notes: z.array(finding),
  previous_fire: z.string().nullable(),
  next_fire: z.string().nullable(),
});

const q = {
  tz: z.string().describe("IANA zone, 'local', or UTC (default)"),
};

export const docs: RouteDoc[] = [
  {
    method: 'get',
    path: '/schedule/preview',
    summary: 'Validate a cron expression and list its next fires',
    query: {
      expr: z.string(),
      ...q,
      count: z.number().int().min(1).max(60).describe('fires to list, default 12'),
      seed: z.string().describe('hash key for H'),
      dst_repeated: z.enum(['first', 'last', 'both']),
      dst_skipped: z.enum(['shift', 'skip']),
    },
    response: previewSchema,
    errors: [400],
  },
  {
    method: 'get',
    path: '/schedule/pressure',
    summary: 'Fires per hour and minute over the next hours, every enabled schedule',
    query: { hours: z.number().int().min(1).max(168).describe('default 24'), ...q },
    response: pressureSchema,
    errors: [400],
  },
  {
    method: 'get',
    path: '/schedule/duplicates',
    summary: 'Groups of enabled jobs that fire at exactly the same instants',
    response: duplicatesSchema,
  },
  {
    method: 'get',
    path: '/schedule/suggest',
    summary: 'The least-loaded hourly or daily slot of the next 24 hours',
    query: { period: z.enum(['hourly', 'daily']), ...q },
    response: suggestSchema,
    errors: [400],
  },
  {
    method: 'get',
    path: '/schedule/why',
    summary: 'Whether a job or dag:<name> schedule fires at an instant, field by field',
    query: { job: z.string(), at: z.string().describe('ISO-8601 instant') },
    response: whySchema,
    errors: [400, 404],
  },
];

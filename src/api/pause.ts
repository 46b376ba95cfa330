// Pause and resume (spec 10 §1.1-§1.2), shared by the REST routes and the MCP tools: the body's
// checks in the spec's order, except that the job is looked up first (its Do better), and the
// record as `/jobs`, the responses and MCP show it.
import type { PauseChannel } from '../scheduler/pauses.ts';
import { parseIsoInstant } from '../util/instant.ts';
import type { ApiDeps } from './deps.ts';
import { type PauseRecord, pauseRecord } from './pause-record.ts';
import { type ApiResult, fail, ok } from './types.ts';

export const MAX_PAUSE_SECONDS = 2_592_000;
const DEFAULT_PAUSE_SECONDS = 3600;

/** A body as the route read it: absent/empty text, or its JSON (`undefined` = not JSON). */
export type PauseBody = { text: string } | { value: unknown };

function parsed(body: PauseBody): ApiResult<Record<string, unknown>> {
  let value: unknown;
  if ('text' in body) {
    if (body.text.trim() === '') return ok({});
    try {
      value = JSON.parse(body.text);
    } catch {
      return fail(400, 'request body is not valid JSON');
    }
  } else value = body.value;
  if (value === null || value === undefined) return ok({});
  if (typeof value !== 'object' || Array.isArray(value))
    return fail(400, 'request body must be a JSON object');
  // `null` means absent for every key.
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = v;
  return ok(out);
}

/** A job `/jobs` lists and a pause can hold (never a `dag:<name>` schedule job). */
function pausable(d: ApiDeps, name: string): boolean {
  return d.ctx.scheduler.job(name) !== undefined && !name.startsWith('dag:');
}

/** The job looked up first (404), then the body read (spec 10 §1.2 Do better). */
function lookedUp(d: ApiDeps, name: string, body: PauseBody): ApiResult<Record<string, unknown>> {
  if (!pausable(d, name)) return fail(404, `job '${name}' not found`);
  return parsed(body);
}

interface PauseArgs {
  durationSeconds?: unknown;
  until?: unknown;
  note?: unknown;
  by?: unknown;
}

/** The §1.2 checks after the lookup; the window it asks for, or the first failure. */
export function pauseWindow(
  b: PauseArgs,
  now: number,
): ApiResult<{ untilMs: number; note: string; by: string }> {
  const dur = b.durationSeconds;
  if (dur !== undefined && (typeof dur !== 'number' || !Number.isInteger(dur)))
    return fail(400, 'durationSeconds must be an integer');
  let untilMs: number | null = null;
  if (b.until !== undefined) {
    if (typeof b.until !== 'string') return fail(400, 'until must be an ISO-8601 timestamp string');
    untilMs = parseIsoInstant(b.until);
    if (untilMs === null) return fail(400, 'until is not a valid ISO-8601 timestamp');
  }
  if (b.note !== undefined && typeof b.note !== 'string') return fail(400, 'note must be a string');
  if (b.by !== undefined && typeof b.by !== 'string') return fail(400, 'by must be a string');
  if (dur !== undefined && untilMs !== null) return fail(400, 'give durationSeconds or until, not both');
  if (dur !== undefined && ((dur as number) < 1 || (dur as number) > MAX_PAUSE_SECONDS))
    return fail(400, `durationSeconds must be between 1 and ${MAX_PAUSE_SECONDS}`);
  if (untilMs !== null && untilMs <= now) return fail(400, 'until is in the past');
  if (untilMs !== null && untilMs - now > MAX_PAUSE_SECONDS * 1000)
    return fail(400, `until is more than ${MAX_PAUSE_SECONDS} seconds away`);
  const note = (b.note as string | undefined) ?? '';
  if (note.length > 500) return fail(400, 'note is longer than 500 characters');
  const by = (b.by as string | undefined) ?? '';
  if (by.length > 100) return fail(400, 'by is longer than 100 characters');
  const end = untilMs ?? now + ((dur as number | undefined) ?? DEFAULT_PAUSE_SECONDS) * 1000;
  return ok({ untilMs: end, note, by });
}

/** `POST /jobs/{name}/pause`. */
type PauseAction<T> = (d: ApiDeps, name: string, body: PauseBody, channel?: PauseChannel) => ApiResult<T>;

export const pauseJob: PauseAction<{ paused: PauseRecord }> = (d, name, body, channel = 'api') => {
  const b = lookedUp(d, name, body);
  if (!b.ok) return b;
  const now = d.ctx.clock.now();
  const w = pauseWindow(b.body, now);
  if (!w.ok) return w;
  const by = w.body.by || (channel === 'mcp' ? 'mcp' : 'api');
  if (d.ctx.scheduler.job(name)?.enabled === false)
    d.log.warning(`Job ${name} is disabled; the pause has no effect until it is enabled again`);
  const p = d.ctx.scheduler.pauses.pause(name, {
    sinceMs: now,
    untilMs: w.body.untilMs,
    note: w.body.note,
    by,
    channel,
  });
  d.status.invalidate();
  return ok({ paused: pauseRecord(p) });
};

/** `POST /jobs/{name}/resume`: never fails on a job that is not paused. */
export const resumeJob: PauseAction<{ paused: null }> = (d, name, body, channel = 'api') => {
  const b = lookedUp(d, name, body);
  if (!b.ok) return b;
  const by = b.body.by;
  if (by !== undefined && typeof by !== 'string') return fail(400, 'by must be a string');
  d.ctx.scheduler.pauses.resume(name, (by as string | undefined) || channel, channel);
  d.status.invalidate();
  return ok({ paused: null });
};

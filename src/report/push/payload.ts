// What a phone alert says (spec 10 §6.3): the plaintext built from a report's context, fitted to
// what one sealed box may carry, and its collapse id. Pure: no I/O, the instant is given.
import { createHash } from 'node:crypto';
import type { ReportContext } from '../types.ts';
import type { AlertKind, PushPlaintext } from './plaintext.ts';

export type { AlertKind, PushPlaintext };

/** 3000 base64 characters hold 2250 bytes; the sealed box adds 48 (ephemeral key and MAC). */
export const MAX_PLAINTEXT_BYTES = 2202;
export const LOG_TAIL_LINES = 40;
/** A halved text never gets shorter than this. */
const HALVE_FLOOR = 64;

/** UTC ISO-8601 with whole seconds. */
export function isoSeconds(ms: number): string {
  return `${new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)}Z`;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The last `LOG_TAIL_LINES` lines of stderr, else of stdout; undefined when both are empty. */
export function logTail(stderr: string | null, stdout: string | null): string | undefined {
  const source = text(stderr?.replace(/\n+$/, '')) ?? text(stdout?.replace(/\n+$/, ''));
  if (source === undefined) return undefined;
  return source.split('\n').slice(-LOG_TAIL_LINES).join('\n');
}

/** The plaintext of a job, SLA or event report (spec 10 §6.3), before fitting. */
export function alertFromContext(ctx: ReportContext, includeLogTail: boolean, nowMs: number): PushPlaintext {
  const extra = ctx.extra ?? {};
  const event = text(extra.event);
  const kind: AlertKind = event ? 'event' : ctx.sla ? 'sla' : ctx.success ? 'success' : 'failure';
  const out: PushPlaintext = {
    v: 1,
    kind,
    name: ctx.name,
    success: ctx.success,
    host: ctx.host ?? text(extra.host) ?? '',
    ts: isoSeconds(nowMs),
  };
  const runId = text(ctx.run_id) ?? text(extra.run_id);
  if (runId) out.run_id = runId;
  if (text(ctx.schedule)) out.schedule = ctx.schedule;
  if (text(ctx.started_at)) out.started_at = ctx.started_at as string;
  if (ctx.exit_code !== null && ctx.exit_code !== undefined) out.exit_code = ctx.exit_code;
  if (event) {
    out.event = event;
    for (const key of ['subject', 'message', 'dag', 'run_key', 'taskkey', 'role', 'leader'] as const) {
      const v = text(extra[key]);
      if (v !== undefined) out[key] = v;
    }
    return out;
  }
  if (text(ctx.fail_reason)) out.fail_reason = ctx.fail_reason as string;
  if (ctx.sla) {
    out.sla_check = ctx.sla.check;
    out.threshold_seconds = ctx.sla.thresholdSeconds;
    out.observed_seconds = ctx.sla.observedSeconds;
    if (ctx.sla.lastSuccessAt) out.last_success_at = ctx.sla.lastSuccessAt;
    return out;
  }
  if (includeLogTail) {
    const tail = logTail(ctx.stderr, ctx.stdout);
    if (tail !== undefined) out.log_tail = tail;
  }
  return out;
}

/** The plaintext of `POST /push/devices/{id}/test`. */
export function testAlert(host: string, nowMs: number): PushPlaintext {
  return {
    v: 1,
    kind: 'test',
    name: 'test',
    success: true,
    host,
    ts: isoSeconds(nowMs),
    message: 'test alert from cronstable',
  };
}

export function plaintextBytes(p: PushPlaintext): number {
  return Buffer.byteLength(JSON.stringify(p), 'utf8');
}

/** The first half of a text (whole code points), never shorter than the floor. */
function halved(s: string): string {
  const chars = Array.from(s);
  return chars.slice(0, Math.max(HALVE_FLOOR, Math.ceil(chars.length / 2))).join('');
}

/** Keeps the newest lines of `log_tail` that fit: the fewest oldest lines dropped (binary search). */
function fitLogTail(p: PushPlaintext, limit: number): void {
  if (p.log_tail === undefined) return;
  const lines = p.log_tail.split('\n');
  const fitsFrom = (k: number) => plaintextBytes({ ...p, log_tail: lines.slice(k).join('\n') }) <= limit;
  // Dropping more lines only shrinks the JSON, so the smallest k that fits is found by bisection.
  let lo = 0;
  let hi = lines.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (fitsFrom(mid)) hi = mid;
    else lo = mid + 1;
  }
  if (lo >= lines.length) delete p.log_tail;
  else p.log_tail = lines.slice(lo).join('\n');
}

/**
 * The plaintext made to fit `limit` bytes of compact UTF-8 JSON, in the spec's order: the oldest
 * log lines, then halving the long texts, then the optional run facts. `name`, `kind` and `host`
 * are never cut, so the result can still be too big (`fits` false) when they alone are.
 */
export function fitPlaintext(
  input: PushPlaintext,
  limit = MAX_PLAINTEXT_BYTES,
): { plaintext: PushPlaintext; fits: boolean } {
  const p: PushPlaintext = { ...input };
  const fits = () => plaintextBytes(p) <= limit;
  if (fits()) return { plaintext: p, fits: true };
  fitLogTail(p, limit);
  for (const key of ['message', 'fail_reason', 'subject'] as const) {
    while (!fits()) {
      const v = p[key];
      if (v === undefined || Array.from(v).length <= HALVE_FLOOR) break;
      p[key] = halved(v);
    }
  }
  for (const key of ['schedule', 'started_at', 'run_id'] as const) {
    if (fits()) break;
    delete p[key];
  }
  return { plaintext: p, fits: fits() };
}

const COLLAPSE_KEYS = ['kind', 'name', 'run_id', 'event', 'dag', 'run_key', 'taskkey', 'sla_check'] as const;

/** First 32 hex of SHA-256(salt NUL sorted-key compact JSON of the non-empty identifying fields). */
export function collapseId(salt: string, p: PushPlaintext): string {
  const picked: Record<string, unknown> = {};
  for (const key of [...COLLAPSE_KEYS].sort()) {
    const v = p[key];
    if (v !== undefined && v !== '') picked[key] = v;
  }
  return createHash('sha256')
    .update(`${salt}\0${JSON.stringify(picked)}`)
    .digest('hex')
    .slice(0, 32);
}

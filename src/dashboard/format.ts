// Text formatting for times and durations (pure; the browser and the unit tests share it), and the text of
// a thrown value (util/errors.ts), which the browser app reaches through the model.

export { errorText } from '../util/errors.ts';

import type { JobSetIdBody } from '../api/wire/core.schema.ts';

/**
 * Epoch ms of an API timestamp (`2026-07-05T09:00:01.123456+00:00`, `...Z`, or no offset = UTC), or null.
 * Fractions beyond milliseconds are cut, since not every engine accepts them.
 */
export function parseIso(text: string | null | undefined): number | null {
  if (!text) return null;
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:?\d{2})?$/.exec(text.trim());
  if (m === null) {
    const t = Date.parse(text);
    return Number.isNaN(t) ? null : t;
  }
  const frac = m[2] ? `.${m[2].slice(0, 3).padEnd(3, '0')}` : '';
  let zone = m[3] ?? 'Z';
  if (zone !== 'Z' && zone.length === 5) zone = `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const t = Date.parse(`${m[1]}${frac}${zone}`);
  return Number.isNaN(t) ? null : t;
}

const pad2 = (n: number): string => (n < 10 ? '0' : '') + n;

/**
 * Time left until a fire, for the Next column. `seconds` = the job has a seconds field (7-field cron): it keeps
 * second resolution at every scale ("1m 05s"). Other jobs show seconds only in the last minute, then whole
 * minutes, hours (< 48 h) or days. Seconds are rounded up so a countdown reads "1s" until the fire is due.
 */
export function formatCountdown(ms: number, seconds = false): string {
  if (ms <= 0) return 'due';
  // spec 08 Q23: a fire under a second away is neither "0s" nor a second it is not
  if (ms < 1000) return '<1s';
  const s = Math.ceil(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (seconds) {
    if (m < 60) return `${m}m ${pad2(s % 60)}s`;
    const h = Math.floor(m / 60);
    if (h < 48) return `${h}h ${pad2(m % 60)}m`;
    return `${Math.floor(h / 24)}d ${h % 24}h`;
  }
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h`;
  return `${Math.floor(h / 24)}d`;
}

/** Relative age of a past instant: "12s ago", "4m ago", "3h ago", "2d ago" ("just now" under a second). */
export function formatAge(ms: number): string {
  if (ms < 1000) return 'just now';
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s ago`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ago`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h ago`;
  return `${Math.floor(h / 24)}d ago`;
}

/** Relative label of a future instant for lists: "in 3h", "in 2d" (coarse). */
export function formatIn(ms: number): string {
  return ms <= 0 ? 'now' : `in ${formatCountdown(ms)}`;
}

/** A run duration in seconds: "418ms", "2.32s", "29.0s", "4m 12s", "1h 20m". */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return '—';
  if (seconds < 1) return `${Math.round(seconds * 1000)}ms`;
  if (seconds < 10) return `${seconds.toFixed(2)}s`;
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const s = Math.round(seconds);
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${pad2(s % 60)}s`;
  return `${Math.floor(m / 60)}h ${pad2(m % 60)}m`;
}

/** `HH:MM:SS` of an instant in UTC. */
export function formatUtcClock(ms: number): string {
  const d = new Date(ms);
  return `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}`;
}

/** `MM-DD HH:MM` of an instant in the viewer's own time zone (the host's, for the terminal). */
export function formatLocalStamp(ms: number): string {
  const d = new Date(ms);
  return `${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ${pad2(d.getHours())}:${pad2(d.getMinutes())}`;
}

/** `YYYY-MM-DD HH:MM[:SS]` of a civil time given as "local ms read as if UTC". */
export function formatCivil(civilMs: number, withSeconds = false): string {
  const d = new Date(civilMs);
  const date = `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}`;
  const time = `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}`;
  return withSeconds ? `${date} ${time}:${pad2(d.getUTCSeconds())}` : `${date} ${time}`;
}

/** `YYYY-MM-DD` of a civil time ("local ms read as if UTC"). */
export function formatCivilDate(civilMs: number): string {
  return formatCivil(civilMs).slice(0, 10);
}

/** A load reading already in percent (spec 08 §3.6): one decimal under 10, else whole: `6.2%`, `29%`, or `—`. */
export function formatLoad(percent: number | null | undefined): string {
  if (percent === null || percent === undefined || !Number.isFinite(percent)) return '—';
  return percent < 10 ? `${percent.toFixed(1)}%` : `${Math.round(percent)}%`;
}

/** Percentage with no decimals, or "—". */
export function formatPercent(ratio: number | null | undefined): string {
  if (ratio === null || ratio === undefined || !Number.isFinite(ratio)) return '—';
  return `${Math.round(ratio * 100)}%`;
}

/** Upper-cases the first letter (engine descriptions are lower-case fragments). */
export function capitalize(text: string): string {
  return text.length === 0 ? text : text[0]!.toUpperCase() + text.slice(1);
}

/** `v1:5f0c…` -> `5f0c…` first 12 hex. */
export function shortJobSetId(id: string): string {
  return id.replace(/^v\d+:/, '').slice(0, 12);
}

/** The body of `/job-set-id`: JSON (`{"job_set_id": …}`) when asked for it, the bare id from older daemons. */
export function parseJobSetId(body: string): string | null {
  try {
    const parsed = JSON.parse(body) as Partial<JobSetIdBody>;
    return parsed.job_set_id ?? null;
  } catch {
    return body.trim() || null;
  }
}

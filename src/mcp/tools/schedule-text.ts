// The one-line summaries of the schedule tools (spec 07 §4.4) and the reading of `at` for
// cron_why_no_run. Pure: payload in, sentence out.

import { resolveCivil } from '../../schedule/dst.ts';
import { DAY_LONG, joinAnd, MONTH_LONG } from '../../schedule/english.ts';
import type { CronSchedule, Frame } from '../../schedule/index.ts';
import { frameZone } from '../../schedule/zone.ts';
import { parseIsoInstant } from '../../util/instant.ts';

const MM = (m: number) => String(m).padStart(2, '0');

export function pressureText(p: {
  total_fires: number;
  jobs: number;
  hours: number;
  busiest_minute: { minute: number; jobs: number };
  empty_minutes: number[];
}): string {
  return (
    `${p.total_fires} fire(s) from ${p.jobs} job(s) in the next ${p.hours}h; busiest minute ` +
    `:${MM(p.busiest_minute.minute)} (${p.busiest_minute.jobs} job(s)), ${p.empty_minutes.length} minute(s) empty`
  );
}

export function duplicatesText(d: { jobs: number; groups: { count: number; expression: string }[] }): string {
  const head = `${d.groups.length} duplicate group(s) across ${d.jobs} scheduled job(s)`;
  const big = d.groups[0];
  return big ? `${head}; biggest: ${big.count} job(s) sharing '${big.expression}'` : head;
}

export function suggestText(s: { period: string; expression: string; fires_in_window: number }): string {
  return `least-loaded ${s.period} slot: '${s.expression}' (${s.fires_in_window} fire(s) already there in 24h)`;
}

/** validate / explain: `INVALID: …`, the @reboot sentence, or `valid: <description>` and its notes. */
export function previewText(p: {
  valid: boolean;
  error?: string;
  reboot?: boolean;
  description?: string;
  fires?: string[];
  never_fires?: boolean;
  lint?: { level: string }[];
}): string {
  if (!p.valid) return `INVALID: ${p.error ?? 'not a cron expression'}`;
  if (p.reboot) return 'valid: @reboot runs once, when the daemon starts, and has no scheduled instants';
  const parts = [`valid: ${p.description ?? ''}`];
  if (p.never_fires) parts.push('WARNING: never fires (no date matches every field)');
  const lint = p.lint ?? [];
  if (lint.length > 0) {
    const warnings = lint.filter((l) => l.level === 'warning').length;
    parts.push(`${warnings} lint warning(s), ${lint.length - warnings} note(s)`);
  }
  const first = p.fires?.[0];
  if (first) parts.push(`first fire ${first}`);
  return parts.join('; ');
}

/** The values a why check allows, in words where the field has names (days, months). */
function allowedWords(cron: CronSchedule | null, field: string, text: string): string {
  if (cron === null) return text;
  if (field === 'day-of-week' && cron.dowForms === null) {
    const days = DAY_LONG.filter((_, d) => (cron.dowPlain & (1 << d)) !== 0);
    if (days.length > 0 && days.length < 7) return joinAnd(days);
  }
  if (field === 'month') {
    const months = MONTH_LONG.filter((_, i) => (cron.months & (1 << (i + 1))) !== 0);
    if (months.length > 0 && months.length < 12) return joinAnd(months);
  }
  return `'${text}'`;
}

function labelWords(field: string, value: number, label: string): string {
  if (field === 'day-of-week') return DAY_LONG[value] ?? label;
  if (field === 'month') return MONTH_LONG[value - 1] ?? label;
  return label;
}

export interface WhyBody {
  job: string;
  enabled: boolean;
  at_in_zone: string;
  reboot: boolean;
  matches: boolean;
  checks: { field: string; value: number; label: string; allowed: string; matched: boolean }[];
  notes: { code: string; message: string }[];
}

/** why_no_run: YES / NO with the reason, field by field. */
export function whyText(w: WhyBody, cron: CronSchedule | null): string {
  const job = `'${w.job}'`;
  if (w.reboot)
    return `${job} is an @reboot job: it runs once when the daemon starts and never fires at a scheduled instant`;
  const disabled = w.enabled ? '' : `; note: ${job} is disabled, so it does not run at all`;
  if (w.matches) {
    let s = `YES: the schedule of ${job} fires at ${w.at_in_zone}`;
    for (const n of w.notes) if (n.code.startsWith('dst-')) s += `; BUT ${n.message}`;
    if (!w.enabled) return `${s}; but ${job} is disabled, so nothing ran`;
    return (
      `${s}; whether it ran: see cron_list_runs (daemon downtime, concurrencyPolicy or cluster ` +
      'leadership can still stop a fire)'
    );
  }
  let s = `NO: the schedule of ${job} does not fire at ${w.at_in_zone}`;
  const matched = w.checks.filter((c) => c.matched).map((c) => c.field);
  if (matched.length > 0) s += `: ${matched.join(', ')} matched`;
  for (const c of w.checks)
    if (!c.matched)
      s += `; ${c.field} ${labelWords(c.field, c.value, c.label)} is not in ${allowedWords(cron, c.field, c.allowed)}`;
  return s + disabled;
}

// An offset or Z after a time of day: the instant is absolute, otherwise it is a wall time.
const AWARE = /\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?\s*(?:[Zz]|[+-]\d{2}:?\d{2})$/;

export const AT_ERROR =
  "at must be an ISO 8601 instant: a wall time in the job's zone such as 2026-03-08T02:30:00, or an " +
  'absolute one such as 2026-03-08T07:30:00Z or 2026-03-08T02:30:00-05:00';

/**
 * `at` of cron_why_no_run: an offset or `Z` makes it absolute; without one it is a wall time in the
 * job's zone (a wall time a DST jump repeats means its first occurrence, a skipped one its shifted
 * instant). Null when it does not parse.
 */
export function instantOf(at: string, frame: Frame): number | null {
  const ms = parseIsoInstant(at);
  if (ms === null || frame.kind === 'utc' || AWARE.test(at.trim())) return ms;
  return resolveCivil(frameZone(frame), ms).first;
}

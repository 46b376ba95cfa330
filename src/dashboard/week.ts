// The week calendar model (spec 06 §9.2 "◫ week"): 7 local days from a local midnight, every job's fires from
// the engine placed in the viewer's zone; jobs firing too often to chart go to a "background hum" strip.
import type { ApiDag } from './dag.ts';
import { type CompiledJob, compileJob, fromCivil, occurrences, toCivil } from './engine.ts';
import type { ApiJob } from './types.ts';

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/** A job firing more than this many times a day is background hum, not chips (the calendar feed uses it too). */
export const HUM_FIRES_PER_DAY = 8;
/** More fires than this in the 7-day window and a job is background hum. */
export const HUM_THRESHOLD = HUM_FIRES_PER_DAY * 7;
/** At most this many chips per day column; the rest are counted as "+N more". */
export const MAX_CHIPS_PER_DAY = 80;
/** Chips in the same 15-minute bucket share its width. */
export const BUCKET_MINUTES = 15;

export interface WeekJob {
  name: string;
  enabled: boolean;
  compiled: CompiledJob;
}

export interface WeekChip {
  name: string;
  /** fire instant, epoch ms */
  at: number;
  /** minutes after the day's local midnight (0-1439) */
  minute: number;
  /** position in its 15-minute bucket and the bucket's size (for width splitting) */
  slot: number;
  slots: number;
  hue: number;
  past: boolean;
}

export interface WeekDay {
  /** local midnight, epoch ms */
  start: number;
  /** YYYY-MM-DD in the viewer's zone */
  date: string;
  /** 0 = Sunday */
  weekday: number;
  today: boolean;
  chips: WeekChip[];
  /** fires beyond MAX_CHIPS_PER_DAY */
  more: number;
}

export interface HumJob {
  name: string;
  description: string;
  hue: number;
}

export interface WeekModel {
  zone: string;
  start: number;
  end: number;
  days: WeekDay[];
  hum: HumJob[];
  /** charted fires (including the ones folded into "+N more") */
  fires: number;
}

/**
 * What the week charts: every job, and every scheduled DAG as `dag:<name>` (spec 08 §4.12, as the pressure
 * view counts them). A DAG's schedule is read in UTC (`/dags` carries no zone) with the daemon's hash key for
 * it, `dag:<name>`, so an `H` field lands on the minute the daemon fires.
 */
export function weekJobs(jobs: readonly ApiJob[], dags: readonly ApiDag[] = []): WeekJob[] {
  const out: WeekJob[] = jobs.map((j) => ({ name: j.name, enabled: j.enabled, compiled: compileJob(j) }));
  for (const d of dags) {
    if (!d.scheduled || d.schedule === undefined) continue;
    const name = `dag:${d.name}`;
    out.push({
      name,
      enabled: d.enabled,
      compiled: compileJob({ name, schedule: d.schedule, timezone: null, utc: true }),
    });
  }
  return out;
}

/** Stable hue (0-359) for a job name (FNV-1a). */
export function hueOf(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % 360;
}

/** Local midnight (epoch ms) of the day `offsetDays` after the day containing `nowMs`, in `zone`. */
export function localMidnight(zone: string, nowMs: number, offsetDays = 0): number {
  const civil = toCivil(zone, nowMs);
  const dayStart = Math.floor(civil / DAY_MS) * DAY_MS;
  return fromCivil(zone, dayStart + offsetDays * DAY_MS);
}

/** Whether a job fires more than HUM_THRESHOLD times in [start, end). */
export function isBackgroundHum(
  c: CompiledJob,
  start: number,
  end: number,
  threshold = HUM_THRESHOLD,
): boolean {
  if (c.sched === null) return false;
  return (
    occurrences(c.sched, c.frame, start - 1, { untilMs: end - 1, limit: threshold + 1, dst: c.dst }).length >
    threshold
  );
}

/**
 * Builds the 7-day grid starting at the local midnight `weekOffset` weeks from today. Disabled, `@reboot` and
 * unreadable jobs are left out. Day columns follow the zone's civil days, so a 23- or 25-hour DST day is still
 * one column and every fire lands on the date the engine produced in the viewer's zone.
 */
export function buildWeek(
  jobs: readonly WeekJob[],
  opts: { nowMs: number; zone: string; weekOffset?: number },
): WeekModel {
  const { nowMs, zone } = opts;
  const firstDay = (opts.weekOffset ?? 0) * 7;
  const todayStart = localMidnight(zone, nowMs);
  const startCivil = Math.floor(toCivil(zone, nowMs) / DAY_MS) * DAY_MS + firstDay * DAY_MS;
  const days: WeekDay[] = [];
  for (let i = 0; i < 7; i++) {
    const civil = startCivil + i * DAY_MS;
    const start = fromCivil(zone, civil);
    const d = new Date(civil);
    days.push({
      start,
      date: d.toISOString().slice(0, 10),
      weekday: d.getUTCDay(),
      today: start === todayStart,
      chips: [],
      more: 0,
    });
  }
  const start = days[0]!.start;
  const end = fromCivil(zone, startCivil + 7 * DAY_MS);
  const hum: HumJob[] = [];
  let fires = 0;
  const buckets = new Map<number, WeekChip[]>();
  for (const job of jobs) {
    const c = job.compiled;
    if (!job.enabled || c.sched === null) continue;
    const at = occurrences(c.sched, c.frame, start - 1, {
      untilMs: end - 1,
      limit: HUM_THRESHOLD + 1,
      dst: c.dst,
    });
    if (at.length > HUM_THRESHOLD) {
      hum.push({ name: job.name, description: c.description, hue: hueOf(job.name) });
      continue;
    }
    const hue = hueOf(job.name);
    for (const t of at) {
      const civil = toCivil(zone, t);
      const dayIndex = Math.floor((civil - startCivil) / DAY_MS);
      const day = days[dayIndex];
      if (day === undefined) continue;
      fires++;
      const minute = Math.floor((civil - (startCivil + dayIndex * DAY_MS)) / MINUTE_MS);
      if (day.chips.length >= MAX_CHIPS_PER_DAY) {
        day.more++;
        continue;
      }
      const chip: WeekChip = { name: job.name, at: t, minute, slot: 0, slots: 1, hue, past: t < nowMs };
      day.chips.push(chip);
      const key = dayIndex * 10_000 + Math.floor(minute / BUCKET_MINUTES);
      const bucket = buckets.get(key);
      if (bucket === undefined) buckets.set(key, [chip]);
      else bucket.push(chip);
    }
  }
  for (const bucket of buckets.values()) {
    bucket.sort((a, b) => a.at - b.at || (a.name < b.name ? -1 : 1));
    bucket.forEach((chip, i) => {
      chip.slot = i;
      chip.slots = bucket.length;
    });
  }
  for (const day of days) day.chips.sort((a, b) => a.at - b.at || (a.name < b.name ? -1 : 1));
  hum.sort((a, b) => (a.name < b.name ? -1 : 1));
  return { zone, start, end, days, hum, fires };
}

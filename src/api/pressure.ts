// The pressure walk behind `/schedule/pressure` (spec 06 §5.11): every fire of every analyzed job in
// the next hours, counted per hour-and-minute cell of the viewer's frame. The shape it answers is the wire
// contract's (`ApiPressure`, inferred in ./wire/schedule.schema.ts), which the dashboard reads too.

import { hasBit60 } from '../schedule/bits.ts';
import { type CronSchedule, type Frame, nextFire, occurrences } from '../schedule/index.ts';
import type { Analyzed } from './analysis.ts';
import { hourMinuteInFrame, isoUtc } from './timefmt.ts';
import type { ApiPressure } from './wire/schedule.schema.ts';

export type Pressure = ApiPressure;

const MINUTE_MS = 60_000;

/** Fires of a seconds field in seconds fromSecond..toSecond of one minute (both included). */
function secondsFrom(cron: CronSchedule, fromSecond: number, toSecond = 59): number {
  let n = 0;
  for (let s = fromSecond; s <= toSecond; s++) if (hasBit60(cron.secLo, cron.secHi, s)) n++;
  return n;
}

/**
 * Calls `visit(instant, fires)` once per minute holding fires in (from, until]; second-level
 * schedules are walked a minute at a time (`fires` = the fires in that minute).
 */
export function walkMinutes(
  cron: CronSchedule,
  frame: Frame,
  from: number,
  until: number,
  visit: (at: number, fires: number) => void,
): void {
  if (!cron.hasSeconds) {
    for (const at of occurrences(cron, frame, from, { untilMs: until })) visit(at, 1);
    return;
  }
  let at = nextFire(cron, frame, from);
  while (at !== null && at <= until) {
    const minuteEnd = Math.floor(at / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
    // The window's last minute is cut at `until`: count the fires up to it, not the seconds.
    const last = minuteEnd - 1 > until ? Math.floor((until % MINUTE_MS) / 1000) : 59;
    const fires = secondsFrom(cron, Math.floor((at % MINUTE_MS) / 1000), last);
    visit(at, Math.max(1, fires));
    at = nextFire(cron, frame, minuteEnd - 1);
  }
}

/** Yields to the event loop when the current slice has run this long (keeps /status probes fast). */
const SLICE_MS = 8;

export async function pressure(
  analyzed: Analyzed,
  now: number,
  hours: number,
  frame: Frame,
  timezone: string,
): Promise<ApiPressure> {
  const grid = Array.from({ length: 24 }, () => new Array<number>(60).fill(0));
  const byMinuteFires = new Array<number>(60).fill(0);
  const byMinuteJobs = new Array<number>(60).fill(0);
  const byHour = new Array<number>(24).fill(0);
  const cellJobs = new Map<number, Set<number>>();
  const until = now + hours * 3_600_000;
  let total = 0;
  let slice = performance.now();
  for (let idx = 0; idx < analyzed.entries.length; idx++) {
    if (performance.now() - slice > SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      slice = performance.now();
    }
    const e = analyzed.entries[idx]!;
    const minutesSeen = new Set<number>();
    walkMinutes(e.cron, e.frame, now, until, (at, fires) => {
      const [h, m] = hourMinuteInFrame(at, frame);
      grid[h]![m]! += fires;
      byMinuteFires[m]! += fires;
      byHour[h]! += fires;
      total += fires;
      minutesSeen.add(m);
      const cell = h * 60 + m;
      let set = cellJobs.get(cell);
      if (!set) {
        set = new Set();
        cellJobs.set(cell, set);
      }
      set.add(idx);
    });
    for (const m of minutesSeen) byMinuteJobs[m]!++;
  }
  let busiest = 0;
  for (let m = 1; m < 60; m++) if (byMinuteFires[m]! > byMinuteFires[busiest]!) busiest = m;
  const cells: { hour: number; minute: number; fires: number; jobs: string[] }[] = [];
  for (const [cell, set] of cellJobs) {
    const names = [...set].map((i) => analyzed.entries[i]!.name).sort();
    cells.push({
      hour: Math.floor(cell / 60),
      minute: cell % 60,
      fires: grid[Math.floor(cell / 60)]![cell % 60]!,
      jobs: names,
    });
  }
  cells.sort(
    (a, b) => b.fires - a.fires || b.jobs.length - a.jobs.length || a.hour - b.hour || a.minute - b.minute,
  );
  return {
    start: isoUtc(now),
    hours,
    timezone,
    jobs: analyzed.entries.length,
    total_fires: total,
    grid,
    by_minute_fires: byMinuteFires,
    by_minute_jobs: byMinuteJobs,
    by_hour: byHour,
    busiest_minute: { minute: busiest, jobs: byMinuteJobs[busiest]!, fires: byMinuteFires[busiest]! },
    empty_minutes: byMinuteFires.flatMap((f, m) => (f === 0 ? [m] : [])),
    top_cells: cells.slice(0, 10).map((c) => ({ ...c, jobs: c.jobs.slice(0, 10) })),
    excluded: analyzed.excluded,
  };
}

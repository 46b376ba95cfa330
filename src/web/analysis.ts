// Schedule analysis behind `/schedule/*` (spec 06 §5.11, spec 01 §6.4): preview, pressure,
// duplicates, suggest, why. Every fire comes from our engine, in each job's own frame.

import { hasBit60 } from '../schedule/bits.ts';
import { matchingDays } from '../schedule/days.ts';
import { DAY_NAMES, Kind, MONTH_NAMES } from '../schedule/fields.ts';
import {
  type CronSchedule,
  DST_REPEATED_VALUES,
  DST_SKIPPED_VALUES,
  type DstPolicy,
  describeSchedule,
  type Frame,
  frameName,
  isKnownTimezone,
  isReboot,
  lintSchedule,
  matchesInstant,
  nextFire,
  occurrences,
  parseCron,
  prevFire,
  resolveFrame,
  ScheduleError,
  semanticKey,
} from '../schedule/index.ts';
import { frameZone } from '../schedule/zone.ts';
import type { WebContext } from './context.ts';
import { hourMinuteInFrame, isoInFrame, isoUtc } from './timefmt.ts';

/** One schedule the analysis looks at: a job, or a DAG's synthetic schedule job `dag:<name>`. */
export interface ScheduleEntry {
  name: string;
  enabled: boolean;
  reboot: boolean;
  cron: CronSchedule | null;
  frame: Frame;
  /** The job's or DAG's DST policy (issue 15). */
  dst: DstPolicy;
}

/** Every job (config order) plus every scheduled DAG. */
export function allEntries(ctx: WebContext): ScheduleEntry[] {
  const out: ScheduleEntry[] = [];
  for (const st of ctx.scheduler.status()) {
    const j = ctx.scheduler.job(st.name);
    if (j)
      out.push({
        name: j.name,
        enabled: j.enabled,
        reboot: j.reboot,
        cron: j.cron,
        frame: j.frame,
        dst: j.dst,
      });
  }
  for (const d of ctx.config().dags) {
    if (d.scheduleText === null) continue;
    out.push({
      name: `dag:${d.name}`,
      enabled: d.enabled,
      reboot: false,
      cron: d.cron,
      frame: d.frame,
      dst: d.dst,
    });
  }
  return out;
}

/** The analyzed set (enabled, cron-scheduled) and what was left out. */
export function analyzedEntries(ctx: WebContext): {
  entries: (ScheduleEntry & { cron: CronSchedule })[];
  excluded: { disabled: number; reboot: number };
} {
  const entries: (ScheduleEntry & { cron: CronSchedule })[] = [];
  let disabled = 0;
  let reboot = 0;
  for (const e of allEntries(ctx)) {
    if (!e.enabled) disabled++;
    else if (e.reboot || e.cron === null) reboot++;
    else entries.push(e as ScheduleEntry & { cron: CronSchedule });
  }
  return { entries, excluded: { disabled, reboot } };
}

export class BadRequest extends Error {}

/** `tz` query parameter: default UTC, `local` = the host zone, else an exact IANA name. */
export function frameOfParam(tz: string | undefined): Frame {
  if (tz === undefined || tz === '' || tz === 'UTC') return resolveFrame({ utc: true });
  if (tz === 'local') return resolveFrame({ utc: false });
  if (!isKnownTimezone(tz)) throw new BadRequest(`unknown timezone: ${tz}`);
  return resolveFrame({ timezone: tz });
}

function timezoneLabel(frame: Frame): string {
  return frame.kind === 'local' ? 'local' : frameName(frame);
}

const findings = (s: CronSchedule, frame: Frame, now: number, dst?: DstPolicy) =>
  lintSchedule(s, frame, now, dst).map((f) => ({ code: f.code, level: f.level, message: f.message }));

// ---------------------------------------------------------------------------------------------
// preview

/** `dst_repeated` / `dst_skipped` query parameters (issue 15): absent means the default policy. */
export function dstOfParams(repeated: string | undefined, skipped: string | undefined): DstPolicy {
  const r = repeated === undefined || repeated === '' ? 'first' : repeated;
  const s = skipped === undefined || skipped === '' ? 'shift' : skipped;
  if (!(DST_REPEATED_VALUES as readonly string[]).includes(r))
    throw new BadRequest(`invalid dst_repeated '${r}': expected one of ${DST_REPEATED_VALUES.join(', ')}`);
  if (!(DST_SKIPPED_VALUES as readonly string[]).includes(s))
    throw new BadRequest(`invalid dst_skipped '${s}': expected one of ${DST_SKIPPED_VALUES.join(', ')}`);
  return { repeated: r as DstPolicy['repeated'], skipped: s as DstPolicy['skipped'] };
}

export function preview(
  params: {
    expr?: string;
    tz?: string;
    count: number;
    seed?: string;
    dstRepeated?: string;
    dstSkipped?: string;
  },
  now: number,
): { status: 200 | 400; body: Record<string, unknown> } {
  const expr = (params.expr ?? '').trim();
  if (expr === '') return { status: 400, body: { error: 'missing ?expr= query parameter' } };
  let dst: DstPolicy;
  try {
    dst = dstOfParams(params.dstRepeated, params.dstSkipped);
  } catch (e) {
    return { status: 400, body: { error: (e as Error).message } };
  }
  let frame: Frame;
  try {
    frame = frameOfParam(params.tz);
  } catch (e) {
    return { status: 400, body: { error: (e as Error).message } };
  }
  const timezone = params.tz && params.tz !== '' ? params.tz : 'UTC';
  const base: Record<string, unknown> = { expression: expr, timezone };
  if (params.seed !== undefined) base.seed = params.seed;
  if (isReboot(expr)) {
    return {
      status: 200,
      body: {
        ...base,
        valid: true,
        reboot: true,
        normalized: '@reboot',
        description: 'once, when the daemon starts',
        fires: [],
        never_fires: false,
        lint: [],
      },
    };
  }
  let cron: CronSchedule;
  try {
    cron = parseCron(expr, { hashKey: params.seed ?? '' });
  } catch (e) {
    if (!(e instanceof ScheduleError)) throw e;
    return { status: 400, body: { ...base, valid: false, error: e.message } };
  }
  const fires = occurrences(cron, frame, now, { limit: params.count, dst }).map((ms) =>
    isoInFrame(ms, frame),
  );
  const body: Record<string, unknown> = {
    ...base,
    dst,
    valid: true,
    reboot: false,
    normalized: cron.source,
    description: describeSchedule(cron),
    fires,
    never_fires: fires.length === 0,
    lint: findings(cron, frame, now, dst),
  };
  if (cron.resolved !== cron.source) body.resolved = cron.resolved;
  return { status: 200, body };
}

// ---------------------------------------------------------------------------------------------
// pressure

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

export interface Pressure {
  start: string;
  hours: number;
  timezone: string;
  jobs: number;
  total_fires: number;
  grid: number[][];
  by_minute_fires: number[];
  by_minute_jobs: number[];
  by_hour: number[];
  busiest_minute: { minute: number; jobs: number; fires: number };
  empty_minutes: number[];
  top_cells: { hour: number; minute: number; fires: number; jobs: string[] }[];
  excluded: { disabled: number; reboot: number };
}

/** Yields to the event loop when the current slice has run this long (keeps /status probes fast). */
const SLICE_MS = 8;

export async function pressure(
  analyzed: ReturnType<typeof analyzedEntries>,
  now: number,
  hours: number,
  frame: Frame,
  timezone: string,
): Promise<Pressure> {
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

// ---------------------------------------------------------------------------------------------
// duplicates (spec 01 §6.4)

function mostCommon(values: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best = values[0]!;
  for (const [v, n] of counts) {
    const bn = counts.get(best)!;
    if (n > bn || (n === bn && v < best)) best = v;
  }
  return best;
}

export function duplicates(analyzed: ReturnType<typeof analyzedEntries>): Record<string, unknown> {
  const groups = new Map<string, (ScheduleEntry & { cron: CronSchedule })[]>();
  for (const e of analyzed.entries) {
    const key = `${semanticKey(e.cron)}|${frameName(e.frame)}`;
    let g = groups.get(key);
    if (!g) {
      g = [];
      groups.set(key, g);
    }
    g.push(e);
  }
  const out: { expression: string; description: string; timezone: string; count: number; jobs: string[] }[] =
    [];
  for (const members of groups.values()) {
    if (members.length < 2) continue;
    const resolved = mostCommon(members.map((m) => m.cron.resolved));
    const sample = members.find((m) => m.cron.resolved === resolved)!;
    out.push({
      expression: mostCommon(members.map((m) => m.cron.source)),
      description: describeSchedule(sample.cron),
      timezone: timezoneLabel(sample.frame),
      count: members.length,
      jobs: members.map((m) => m.name).sort(),
    });
  }
  out.sort(
    (a, b) => b.count - a.count || (a.expression < b.expression ? -1 : a.expression > b.expression ? 1 : 0),
  );
  return { jobs: analyzed.entries.length, groups: out };
}

// ---------------------------------------------------------------------------------------------
// suggest

export function suggest(p: Pressure, period: 'hourly' | 'daily'): Record<string, unknown> {
  const basedOn = { jobs: p.jobs, start: p.start, hours: 24 };
  if (period === 'hourly') {
    const order = [...Array(60).keys()].sort(
      (a, b) =>
        p.by_minute_fires[a]! - p.by_minute_fires[b]! || p.by_minute_jobs[a]! - p.by_minute_jobs[b]! || a - b,
    );
    const slot = (m: number) => ({
      minute: m,
      expression: `${m} * * * *`,
      fires_in_window: p.by_minute_fires[m]!,
    });
    const best = order[0]!;
    return {
      period,
      timezone: p.timezone,
      based_on: basedOn,
      ...slot(best),
      busiest: p.busiest_minute,
      alternatives: order.slice(1, 3).map(slot),
      hash_hint: "or write 'H * * * *' to let cronstable pick a stable minute from the job's name",
    };
  }
  const cells: [number, number][] = [];
  for (let h = 0; h < 24; h++) for (let m = 0; m < 60; m++) cells.push([h, m]);
  cells.sort((a, b) => p.grid[a[0]]![a[1]]! - p.grid[b[0]]![b[1]]! || a[0] - b[0] || a[1] - b[1]);
  const slot = ([h, m]: [number, number]) => ({
    minute: m,
    hour: h,
    expression: `${m} ${h} * * *`,
    fires_in_window: p.grid[h]![m]!,
  });
  const top = p.top_cells[0];
  return {
    period,
    timezone: p.timezone,
    based_on: basedOn,
    ...slot(cells[0]!),
    busiest: top ? { hour: top.hour, minute: top.minute, fires: top.fires, jobs: top.jobs.length } : null,
    alternatives: cells.slice(1, 3).map(slot),
    hash_hint: "or write 'H H * * *' to let cronstable pick a stable time from the job's name",
  };
}

// ---------------------------------------------------------------------------------------------
// why

export function why(entry: ScheduleEntry, at: number, notes: unknown[]): Record<string, unknown> {
  const frame = entry.frame;
  const base: Record<string, unknown> = {
    job: entry.name,
    enabled: entry.enabled,
    timezone: timezoneLabel(frame),
    at: isoUtc(at),
    at_in_zone: isoInFrame(at, frame),
  };
  const cron = entry.cron;
  if (entry.reboot || cron === null) {
    return {
      ...base,
      expression: '@reboot',
      reboot: true,
      description: 'once, when the daemon starts',
      matches: false,
      checks: [],
      failed: [],
      notes,
      previous_fire: null,
      next_fire: null,
    };
  }
  const local = frame.kind === 'utc' ? at : at + frameZone(frame).offset(at);
  const d = new Date(local);
  const y = d.getUTCFullYear();
  const mo = d.getUTCMonth() + 1;
  const day = d.getUTCDate();
  const wd = d.getUTCDay();
  const dayRule = (matchingDays(cron, y, mo) & (1 << day)) !== 0;
  const texts = cron.fieldTexts;
  const allowed = (k: Kind, fallback: string) => texts[k] ?? fallback;
  const checks: { field: string; value: number; label: string; allowed: string; matched: boolean }[] = [];
  if (cron.hasSeconds)
    checks.push({
      field: 'second',
      value: d.getUTCSeconds(),
      label: String(d.getUTCSeconds()).padStart(2, '0'),
      allowed: allowed(Kind.Second, '0'),
      matched: hasBit60(cron.secLo, cron.secHi, d.getUTCSeconds()),
    });
  const mi = d.getUTCMinutes();
  const h = d.getUTCHours();
  checks.push(
    {
      field: 'minute',
      value: mi,
      label: String(mi).padStart(2, '0'),
      allowed: allowed(Kind.Minute, '*'),
      matched: hasBit60(cron.minLo, cron.minHi, mi),
    },
    {
      field: 'hour',
      value: h,
      label: String(h).padStart(2, '0'),
      allowed: allowed(Kind.Hour, '*'),
      matched: (cron.hours & (1 << h)) !== 0,
    },
    {
      field: 'day-of-month',
      value: day,
      label: String(day),
      allowed: allowed(Kind.DayOfMonth, '*'),
      matched: (cron.domPlain & (1 << day)) !== 0 || (cron.domForms !== null && dayRule),
    },
    {
      field: 'month',
      value: mo,
      label: MONTH_NAMES[mo - 1]!,
      allowed: allowed(Kind.Month, '*'),
      matched: (cron.months & (1 << mo)) !== 0,
    },
    {
      field: 'day-of-week',
      value: wd,
      label: DAY_NAMES[wd]!,
      allowed: allowed(Kind.DayOfWeek, '*'),
      matched: (cron.dowPlain & (1 << wd)) !== 0 || (cron.dowForms !== null && dayRule),
    },
  );
  if (cron.years !== null)
    checks.push({
      field: 'year',
      value: y,
      label: String(y),
      allowed: allowed(Kind.Year, '*'),
      matched: y >= 1970 && y <= 2099 && cron.years[y - 1970] === 1,
    });
  const matches = matchesInstant(cron, frame, at);
  // The neighbouring fires under the job's DST policy (the default policy is the plain search).
  const prev = prevFire(cron, frame, at, entry.dst);
  const next = nextFire(cron, frame, at, entry.dst);
  const body: Record<string, unknown> = {
    ...base,
    expression: cron.source,
    reboot: false,
    description: describeSchedule(cron),
    matches,
    checks,
    failed: checks.filter((c) => !c.matched).map((c) => c.field),
    notes,
    previous_fire: prev === null ? null : isoInFrame(prev, frame),
    next_fire: next === null ? null : isoInFrame(next, frame),
  };
  if (cron.resolved !== cron.source) body.resolved = cron.resolved;
  return body;
}

// Schedule analysis behind `/schedule/*` (spec 06 §5.11, spec 01 §6.4): the analyzed set, preview,
// duplicates, suggest; the pressure walk is ./pressure.ts and `why` is ./why.ts. Every fire comes from
// our engine, in each job's own frame; the answer shapes are the wire contract's (./wire/schedule.schema.ts).

import {
  type CronSchedule,
  DEFAULT_DST_POLICY,
  type DstPolicy,
  describeSchedule,
  dstPolicyOf,
  type Frame,
  frameName,
  isKnownTimezone,
  previewExpression,
  REBOOT_DESCRIPTION,
  resolveFrame,
  semanticKey,
} from '../schedule/index.ts';
import { errorText } from '../util/errors.ts';
import type { WebContext } from './context.ts';
import { isoInFrame } from './timefmt.ts';
import type { ApiDuplicates, ApiPressure, ApiSuggest } from './wire/schedule.schema.ts';

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
  for (const name of ctx.scheduler.jobNames()) {
    const j = ctx.scheduler.job(name);
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
export interface Analyzed {
  entries: (ScheduleEntry & { cron: CronSchedule })[];
  excluded: { disabled: number; reboot: number };
}

export function analyzedEntries(ctx: WebContext): Analyzed {
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

export function timezoneLabel(frame: Frame): string {
  return frame.kind === 'local' ? 'local' : frameName(frame);
}

// ---------------------------------------------------------------------------------------------
// preview

/** `dst_repeated` / `dst_skipped` query parameters (issue 15): absent means the default policy. */
export function dstOfParams(repeated: string | undefined, skipped: string | undefined): DstPolicy {
  const p = dstPolicyOf({ repeated, skipped }, DEFAULT_DST_POLICY, (f) => `dst_${f}`);
  if ('error' in p) throw new BadRequest(p.error);
  return p;
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
    return { status: 400, body: { error: errorText(e) } };
  }
  let frame: Frame;
  try {
    frame = frameOfParam(params.tz);
  } catch (e) {
    return { status: 400, body: { error: errorText(e) } };
  }
  const timezone = params.tz && params.tz !== '' ? params.tz : 'UTC';
  const base: Record<string, unknown> = { expression: expr, timezone };
  if (params.seed !== undefined) base.seed = params.seed;
  const p = previewExpression(expr, frame, now, {
    count: params.count,
    dst,
    ...(params.seed === undefined ? {} : { seed: params.seed }),
  });
  if (p.kind === 'reboot' || p.kind === 'empty') {
    return {
      status: 200,
      body: {
        ...base,
        valid: true,
        reboot: true,
        normalized: '@reboot',
        description: REBOOT_DESCRIPTION,
        fires: [],
        never_fires: false,
        lint: [],
      },
    };
  }
  if (p.kind === 'error') return { status: 400, body: { ...base, valid: false, error: p.error } };
  const { cron } = p;
  const fires = p.fires.map((ms) => isoInFrame(ms, frame));
  const body: Record<string, unknown> = {
    ...base,
    dst,
    valid: true,
    reboot: false,
    normalized: cron.source,
    description: describeSchedule(cron),
    fires,
    never_fires: fires.length === 0,
    lint: p.findings,
  };
  if (cron.resolved !== cron.source) body.resolved = cron.resolved;
  return { status: 200, body };
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

export function duplicates(analyzed: Analyzed): ApiDuplicates {
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
  const out: ApiDuplicates['groups'] = [];
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

export function suggest(p: ApiPressure, period: 'hourly' | 'daily'): ApiSuggest {
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

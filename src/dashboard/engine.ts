// The daemon's own cron engine (src/schedule), compiled per job for the browser: one engine, no drift between
// what the scheduler fires and what the dashboard draws.
import {
  type CronSchedule,
  civilInFrame,
  DEFAULT_DST_POLICY,
  type DstPolicy,
  describeSchedule,
  type Frame,
  isReboot,
  lintSchedule,
  nextFire,
  occurrences,
  parseCron,
  resolveFrame,
  type ScheduleFinding,
  UTC_FRAME,
} from '../schedule/index.ts';
import { zoneInfo } from '../schedule/zone.ts';
import { errorText } from '../util/errors.ts';
import { capitalize } from './format.ts';
import type { ApiJob } from './types.ts';

export type { CronSchedule, Frame };
export { civilInFrame, describeSchedule, nextFire, occurrences };

/** A job's schedule as the engine sees it. `sched` is null for `@reboot` and for text the engine rejects. */
export interface CompiledJob {
  readonly sched: CronSchedule | null;
  readonly frame: Frame;
  /** `UTC`, an IANA zone, or `local (<browser zone>)` for daemon-local jobs */
  readonly frameLabel: string;
  readonly reboot: boolean;
  /** plain-English description ("Every 5 minutes"), or the parse error */
  readonly description: string;
  readonly error: string | null;
  /** 7-field schedule (per-second resolution) */
  readonly hasSeconds: boolean;
  /** the hour field does not cover all 24 hours */
  readonly hourRestricted: boolean;
  /** the job's DST policy (the scheduler's, so the drawn fires are the fired ones) */
  readonly dst: DstPolicy;
}

type ScheduleFields = Pick<ApiJob, 'name' | 'schedule' | 'timezone' | 'utc' | 'schedule_resolved' | 'dst'>;

const cache = new Map<string, CompiledJob>();
const CACHE_LIMIT = 20_000;

/** Browser (or test process) zone name. */
export function viewerZone(): string {
  try {
    return new Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

/**
 * The frame of a job from its API fields: `timezone` names the zone (`"UTC"` for default UTC jobs); null means
 * the daemon's local zone, which the browser cannot know, so the viewer's zone stands in for it.
 */
export function frameOf(job: Pick<ApiJob, 'timezone' | 'utc'>): { frame: Frame; label: string } {
  const tz = job.timezone;
  if (tz === null || tz === undefined) {
    if (job.utc !== false) return { frame: UTC_FRAME, label: 'UTC' };
    const zone = viewerZone();
    return { frame: resolveFrame({ utc: false }), label: `daemon local (drawn in ${zone})` };
  }
  if (tz === 'UTC') return { frame: UTC_FRAME, label: 'UTC' };
  try {
    return { frame: resolveFrame({ timezone: tz }), label: tz };
  } catch {
    return { frame: UTC_FRAME, label: `${tz} (unknown here, drawn in UTC)` };
  }
}

/** Compiles (memoised) a job's schedule in its frame. Never throws. */
export function compileJob(job: ScheduleFields): CompiledJob {
  const dst = job.dst ?? DEFAULT_DST_POLICY;
  const key = `${job.name}\u0000${job.schedule_resolved ?? job.schedule}\u0000${job.timezone}\u0000${job.utc}\u0000${dst.repeated}/${dst.skipped}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const { frame, label } = frameOf(job);
  let compiled: CompiledJob;
  if (isReboot(job.schedule.trim())) {
    compiled = {
      sched: null,
      frame,
      frameLabel: label,
      reboot: true,
      description: 'Once, when the daemon starts',
      error: null,
      hasSeconds: false,
      hourRestricted: false,
      dst,
    };
  } else {
    try {
      const sched =
        job.schedule_resolved !== undefined
          ? parseCron(job.schedule_resolved)
          : parseCron(job.schedule, { hashKey: job.name });
      compiled = {
        sched,
        frame,
        frameLabel: label,
        reboot: false,
        description: capitalize(describeSchedule(sched)),
        error: null,
        hasSeconds: sched.hasSeconds,
        hourRestricted: (sched.hours & 0xffffff) !== 0xffffff,
        dst,
      };
    } catch (err) {
      const message = errorText(err);
      compiled = {
        sched: null,
        frame,
        frameLabel: label,
        reboot: false,
        description: 'Unreadable schedule',
        error: message,
        hasSeconds: false,
        hourRestricted: false,
        dst,
      };
    }
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, compiled);
  return compiled;
}

/** Next fire strictly after `afterMs`, or null (reboot, unreadable or dead schedule). */
export function nextFireOf(c: CompiledJob, afterMs: number): number | null {
  return c.sched === null ? null : nextFire(c.sched, c.frame, afterMs, c.dst);
}

const lintMemo = new WeakMap<CompiledJob, { minute: number; findings: ScheduleFinding[] }>();

/** The daemon's linter run here, for a daemon that sent no `schedule_findings` (memoised per minute). */
export function lintJob(c: CompiledJob, nowMs: number): ScheduleFinding[] {
  if (!c.sched) return [];
  const minute = Math.floor(nowMs / 60_000);
  const hit = lintMemo.get(c);
  if (hit?.minute === minute) return hit.findings;
  const findings = lintSchedule(c.sched, c.frame, nowMs, c.dst);
  lintMemo.set(c, { minute, findings });
  return findings;
}

/** Up to `limit` fires strictly after `afterMs`. */
export function nextFiresOf(c: CompiledJob, afterMs: number, limit: number): number[] {
  return c.sched === null ? [] : occurrences(c.sched, c.frame, afterMs, { limit, dst: c.dst });
}

/** UTC offset (ms) of an IANA zone at an instant. */
export function zoneOffset(zone: string, atMs: number): number {
  return zoneInfo(zone).offset(atMs);
}

/** Civil time ("local ms read as if UTC") of an instant in a zone. */
export function toCivil(zone: string, atMs: number): number {
  return zoneInfo(zone).render(atMs);
}

/** Instant of a civil time in a zone (a skipped time lands after the jump, a repeated one on its first pass). */
export function fromCivil(zone: string, civilMs: number): number {
  return zoneInfo(zone).resolve(civilMs);
}

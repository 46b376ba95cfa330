// JSON shapes of jobs and runs (spec 06 §5.4-§5.6): `/jobs`, `/jobs/{name}/runs`, `/trends`, `/resources`.

import type { JobConfig } from '../config/types.ts';
import type { HistoryRow, RunRecord, SkipRow } from '../scheduler/history.ts';
import type { JobStatus } from '../scheduler/scheduler.ts';
import type { ClusterView, WebContext } from './context.ts';
import { type PauseRecord, pauseRecord } from './pause-record.ts';
import { isoUtc, isoUtcOrNull } from './timefmt.ts';
import type { ApiResourceStats, ApiRunStats, JobSla } from './wire/jobs.schema.ts';

export function commandText(command: string | string[]): string {
  return typeof command === 'string' ? command : command.join(' ');
}

/** `"UTC"` for UTC jobs, the IANA name for zoned ones, null for daemon-local time. */
export function timezoneOf(job: { frame: JobConfig['frame'] }): string | null {
  return job.frame.kind === 'utc' ? 'UTC' : job.frame.kind === 'zone' ? job.frame.zone : null;
}

export function runObject(run: RunRecord): Record<string, unknown> {
  const finished = isoUtc(run.finishedAt);
  return {
    outcome: run.outcome,
    exit_code: run.exitCode,
    started_at: isoUtcOrNull(run.startedAt),
    finished_at: finished,
    ranAt: finished,
    duration: run.durationSeconds,
    fail_reason: run.failReason,
    skip_reason: null,
    resources: null,
  };
}

/** A slot a pause held, as a `/runs` row (spec 10 §1.3): nothing started, so no `ranAt`. */
export function skipObject(skip: SkipRow): Record<string, unknown> {
  return {
    outcome: 'skipped',
    exit_code: null,
    started_at: null,
    finished_at: isoUtc(skip.finishedAt),
    duration: null,
    fail_reason: null,
    skip_reason: skip.reason,
    resources: null,
  };
}

export const rowObject = (row: HistoryRow): Record<string, unknown> =>
  'run' in row ? runObject(row.run) : skipObject(row.skip);

/** The `stats` block of `/jobs/{name}/runs`: the wire contract's two shapes, so the two cannot drift. */
export type RunStatsJson = ApiRunStats & ApiResourceStats;

export function runStats(runs: readonly RunRecord[]): RunStatsJson {
  let success = 0;
  let failure = 0;
  let cancelled = 0;
  let unknown = 0;
  let sum = 0;
  let n = 0;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  let last: number | null = null;
  for (const r of runs) {
    if (r.outcome === 'success') success++;
    else if (r.outcome === 'failure') failure++;
    else if (r.outcome === 'cancelled') cancelled++;
    else unknown++;
    const d = r.durationSeconds;
    if (d !== null) {
      sum += d;
      n++;
      if (d < min) min = d;
      if (d > max) max = d;
      last = d;
    }
  }
  return {
    total: runs.length,
    success,
    failure,
    cancelled,
    unknown,
    success_rate: success + failure > 0 ? success / (success + failure) : null,
    avg_duration: n > 0 ? sum / n : null,
    min_duration: n > 0 ? min : null,
    max_duration: n > 0 ? max : null,
    last_duration: last,
    avg_cpu_seconds: null,
    max_cpu_seconds: null,
    last_cpu_seconds: null,
    avg_rss_bytes: null,
    max_rss_bytes: null,
    last_rss_bytes: null,
  };
}

/** The parts of a `/jobs` entry that only change with the config (computed once per JobConfig). */
interface StaticJob {
  name: string;
  enabled: boolean;
  schedule: string;
  command: string;
  captureStdout: boolean;
  captureStderr: boolean;
  utc: boolean;
  timezone: string | null;
  reboot: boolean;
  findings: { code: string; level: string; message: string }[];
  resolved: string | null;
  clusterScope: boolean;
  clusterPolicy: JobConfig['clusterPolicy'];
  priority: JobConfig['priority'];
  /** A non-default DST policy (issue 15), or null. */
  dst: JobConfig['dst'] | null;
}

const staticCache = new WeakMap<JobConfig, StaticJob>();

function staticOf(job: JobConfig): StaticJob {
  let s = staticCache.get(job);
  if (!s) {
    s = {
      name: job.name,
      enabled: job.enabled,
      schedule: job.scheduleText,
      command: commandText(job.command),
      captureStdout: job.captureStdout,
      captureStderr: job.captureStderr,
      utc: job.utc,
      timezone: timezoneOf(job),
      reboot: job.reboot,
      findings: job.findings.map((f) => ({ code: f.code, level: f.level, message: f.message })),
      resolved: job.cron && job.cron.resolved !== job.cron.source ? job.cron.resolved : null,
      clusterScope: job.concurrencyScope === 'cluster',
      clusterPolicy: job.clusterPolicy,
      priority: job.priority,
      dst: job.dst.repeated === 'first' && job.dst.skipped === 'shift' ? null : { ...job.dst },
    };
    staticCache.set(job, s);
  }
  return s;
}

function pausedRecord(ctx: WebContext, name: string): PauseRecord | null {
  const p = ctx.scheduler.pauses.active(name);
  return p ? pauseRecord(p) : null;
}

export function jobObject(
  ctx: WebContext,
  job: JobConfig,
  st: JobStatus | undefined,
  now: number,
  /** The cluster view when election is configured (spec 05 §12.2), else null. */
  election: ClusterView | null,
): Record<string, unknown> {
  const j = staticOf(job);
  const h = ctx.scheduler.history(j.name);
  // `last_run` stays on the last real run; skipped slots show in `history` (spec 10 §1.7 Do better).
  const last = h?.lastRun() ?? null;
  const rows = h?.recentRows() ?? [];
  const running = st?.status === 'running';
  let scheduledIn: number | null = null;
  if (j.enabled && !running && !j.reboot && st?.nextFire != null)
    scheduledIn = Math.round(Math.max(0, st.nextFire - now)) / 1000;
  const history: { outcome: string; duration: number | null }[] = [];
  for (let i = Math.max(0, rows.length - 20); i < rows.length; i++) {
    const row = rows[i]!;
    history.push(
      'run' in row
        ? { outcome: row.run.outcome, duration: row.run.durationSeconds }
        : { outcome: 'skipped', duration: null },
    );
  }
  const out: Record<string, unknown> = {
    name: j.name,
    enabled: j.enabled,
    schedule: j.schedule,
    command: j.command,
    captureStdout: j.captureStdout,
    captureStderr: j.captureStderr,
    utc: j.utc,
    timezone: j.timezone,
    running,
    pids: st?.pids ?? [],
    scheduled_in: scheduledIn,
    never_fires: st?.neverFires ?? false,
    schedule_findings: j.findings,
    last_run: last ? runObject(last) : null,
    history,
    paused: pausedRecord(ctx, j.name),
  };
  if (j.resolved !== null) out.schedule_resolved = j.resolved;
  if (j.dst !== null) out.dst = j.dst;
  if (j.priority !== 'normal') out.priority = j.priority;
  const sla = slaObject(ctx, j.name);
  if (sla) out.sla = sla;
  if (st?.retry) {
    out.retry = {
      attempt: st.retry.attempt,
      maxAttempts: st.retry.maxAttempts,
      nextRetryAt: isoUtcOrNull(st.retry.nextRetryAt),
      delaySeconds: st.retry.delaySeconds,
    };
  }
  if (j.clusterScope) {
    out.concurrencyScope = 'cluster';
    out.slot = { held: running, holder: running ? ctx.hostname : null, refs: st?.pids.length ?? 0 };
  }
  if (election) {
    out.clusterPolicy = j.clusterPolicy;
    if (j.clusterPolicy !== 'EveryNode') {
      const owner = election.ownerOf?.(j.name, j.clusterPolicy);
      if (owner !== undefined) out.clusterOwner = owner;
    }
  }
  return out;
}

/** The job's `sla` object (spec 09 §2.8); null for a job without thresholds (no `sla` key). */
function slaObject(ctx: WebContext, name: string): JobSla | null {
  const v = ctx.sla?.()?.view(name);
  if (!v) return null;
  return {
    thresholds: v.thresholds,
    state: v.state,
    breaches: v.breaches.map((b) => ({
      check: b.check,
      since: isoUtc(b.since),
      observed_seconds: b.observedSeconds,
      threshold_seconds: b.thresholdSeconds,
    })),
  };
}

/**
 * Every job in config order (spec 06 §5.4); with `only`, just that job's row (or none). `fires`, when
 * given, receives each row's absolute next fire (the `/jobs` entity tag hashes it, not the countdown).
 */
export function jobsList(
  ctx: WebContext,
  only?: string,
  fires?: (number | null)[],
): Record<string, unknown>[] {
  const now = ctx.clock.now();
  const view = ctx.cluster();
  const election = view.electLeader ? view : null;
  const out: Record<string, unknown>[] = [];
  for (const st of ctx.scheduler.status()) {
    if (only !== undefined && st.name !== only) continue;
    const job = ctx.scheduler.job(st.name);
    if (!job) continue;
    out.push(jobObject(ctx, job, st, now, election));
    fires?.push(st.nextFire);
  }
  return out;
}

const WINDOWS: [string, number][] = [
  ['1h', 3_600_000],
  ['24h', 86_400_000],
  ['7d', 7 * 86_400_000],
  ['30d', 30 * 86_400_000],
];

/** `/jobs/{name}/trends`: stats over time windows of the in-memory history. */
export function trends(ctx: WebContext, name: string): Record<string, unknown> {
  const now = ctx.clock.now();
  const runs = ctx.scheduler.history(name)?.recentRuns() ?? [];
  const windows: Record<string, RunStatsJson> = {};
  for (const [label, span] of WINDOWS)
    windows[label] = runStats(runs.filter((r) => r.finishedAt >= now - span));
  windows.all = runStats(runs);
  return { name, source: 'memory', generated_at: isoUtc(now), windows };
}

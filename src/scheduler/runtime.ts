// Per-job state the scheduler keeps between fires, and the pure mappings of a job to what
// exec launches and what /status shows.

import { randomBytes } from 'node:crypto';
import { niceOf } from '../config/launch-place.ts';
import type { JobConfig } from '../config/types.ts';
import type { CancelReason, LaunchSpec, RunHandle } from '../exec/types.ts';
import { frameName, semanticKey } from '../schedule/index.ts';
import type { Clock } from '../util/clock.ts';
import type { Logger } from '../util/log.ts';
import type { AdmissionEnv, Fire } from './admission.ts';
import { type DurableControl, type FireClaims, LOCAL_CLAIMS } from './control.ts';
import type { DstNote } from './dst-notes.ts';
import { type ClusterGate, RUN_HERE } from './gate.ts';
import { JobHistory, type RunTrigger, type SlotRecord } from './history.ts';
import type { RetryLadder } from './ladder.ts';
import type { PauseBook } from './pauses.ts';
import type { JobStatus, RunningRun } from './view.ts';

/** A fire as the scheduler tracks it: its admission state plus its slot record once it has one. */
export interface PendingFire extends Fire {
  slot: SlotRecord | null;
  /** How often admission deferred it so far. */
  deferrals: number;
}

export interface RunInstance {
  id: string;
  handle: RunHandle;
  trigger: RunTrigger;
  attempt: number;
  ladder: RetryLadder | null;
  scheduledAt: number | null;
  slot: SlotRecord | null;
  cancelReason: CancelReason | null;
  /** Its staged secret values (redacted from what leaves the daemon, e.g. MCP log tails). */
  secrets: readonly string[];
  /** Releases the job-API identity, then what admission acquired (the cluster slot). */
  release: () => Promise<void>;
  /**
   * When the scheduler learned the run ended, stamped as it leaves `running`: the release may wait
   * on the store, and a fire that Forbid then lets through must not start before the recorded finish.
   */
  endedAt?: number;
  /** Settles once the run's completion handling (record, reports, retry) is done. */
  reaped: Promise<void>;
}

export class JobRuntime {
  nextFire: number | null = null;
  /** Bumped whenever the job is re-seeded, so stale heap entries are ignored. */
  gen = 0;
  /**
   * Bumped on every (re)seed only. A dropped DST slot's note can lie past the next fire (a
   * half-hour gap shifts a wall time beyond a real one), so it must outlive that fire's `gen` bump.
   */
  seedGen = 0;
  /** The latest `dst.skipped: skip` slot already filed, so overlapping scans file each once. */
  dstSkippedThrough = Number.NEGATIVE_INFINITY;
  running: RunInstance[] = [];
  /** Admitted launches waiting for the pacer (they count as running for concurrency). */
  waitingLaunches = 0;
  ladder: RetryLadder | null = null;
  lastScheduledAt: number | null = null;
  lastOutcome: 'success' | 'failure' | null = null;
  removed = false;
  reapChain: Promise<void> = Promise.resolve();
  backfillChain: Promise<void> = Promise.resolve();
  readonly history = new JobHistory();
  constructor(
    public config: JobConfig,
    public index: number,
  ) {}
}

export interface HeapEntry {
  rt: JobRuntime;
  /** For a fire: the runtime's `gen`; for a DST note: its `seedGen`. */
  gen: number;
  /** A slot the job's DST policy drops (issue 15): recorded when its instant passes, nothing fires. */
  note?: DstNote;
}

export function scheduleIdentity(job: JobConfig): string {
  if (job.reboot || !job.cron) return '@reboot';
  return `${semanticKey(job.cron)}|${frameName(job.frame)}|${job.dst.repeated}/${job.dst.skipped}`;
}

/**
 * A reload's diff (spec 02 §10): a job kept by name keeps its runtime (history, ladder, running
 * instances) with the new config; new jobs get a fresh runtime; removed ones are marked so their
 * pending timers and retries stand down. `changed` = the runtimes whose fire times must be re-seeded.
 */
export function reloadRuntimes(
  prev: ReadonlyMap<string, JobRuntime>,
  configs: readonly JobConfig[],
): { next: Map<string, JobRuntime>; changed: JobRuntime[] } {
  const next = new Map<string, JobRuntime>();
  const changed: JobRuntime[] = [];
  configs.forEach((config, index) => {
    const old = prev.get(config.name);
    if (old && !next.has(config.name)) {
      const same =
        scheduleIdentity(old.config) === scheduleIdentity(config) && old.config.enabled === config.enabled;
      old.config = config;
      old.index = index;
      next.set(config.name, old);
      if (!same) changed.push(old);
    } else {
      const rt = new JobRuntime(config, index);
      next.set(config.name, rt);
      changed.push(rt);
    }
  });
  for (const [name, rt] of prev) {
    if (next.get(name) !== rt) {
      rt.removed = true;
      rt.gen++;
    }
  }
  return { next, changed };
}

export function launchSpecOf(job: JobConfig): LaunchSpec {
  return {
    name: job.name,
    command: job.command,
    shell: job.shell,
    captureStdout: job.captureStdout,
    captureStderr: job.captureStderr,
    saveLimit: job.saveLimit,
    maxLineLength: job.maxLineLength,
    streamPrefix: job.streamPrefix,
    failsWhen: job.failsWhen,
    executionTimeout: job.executionTimeout,
    killTimeout: job.killTimeout,
    environment: job.effectiveEnvironment,
    hasEnvFile: job.env_file !== null,
    runAs: job.runAs,
    workingDirectory: job.workingDirectory,
    nice: niceOf(job.priority),
  };
}

export const newRunId = () => randomBytes(16).toString('hex');

export function statusOf(rt: JobRuntime, started: boolean): JobStatus {
  const c = rt.config;
  const ladder = rt.ladder && !rt.ladder.cancelled && rt.ladder.count > 0 ? rt.ladder : null;
  return {
    name: c.name,
    status: rt.running.length > 0 ? 'running' : c.enabled ? 'scheduled' : 'disabled',
    pids: rt.running.map((r) => r.handle.pid).filter((p): p is number => p !== null),
    nextFire: rt.nextFire,
    reboot: c.reboot,
    neverFires: c.enabled && !c.reboot && rt.nextFire === null && started,
    retry: ladder
      ? {
          attempt: ladder.count,
          maxAttempts: ladder.policy.maximumRetries === -1 ? null : ladder.policy.maximumRetries,
          nextRetryAt: ladder.nextRetryAt,
          delaySeconds: ladder.scheduledDelay,
        }
      : null,
  };
}

/** The job's runs in progress on this node, with their live output so far. */
export function runningRuns(rt: JobRuntime): RunningRun[] {
  return rt.running.map((r) => {
    const out = r.handle.liveOutput();
    return {
      runId: r.id,
      pid: r.handle.pid,
      startedAt: r.handle.startedAt,
      trigger: r.trigger,
      lines: out.lines,
      published: out.published,
      secrets: r.secrets,
    };
  });
}

/** Resolves true when no instance of the job runs here, false after `maxWaitMs`. */
export async function untilIdle(rt: JobRuntime, clock: Clock, maxWaitMs: number): Promise<boolean> {
  const started = clock.monotonic();
  while (rt.running.length > 0) {
    if (clock.monotonic() - started >= maxWaitMs) return false;
    await Promise.race([
      ...rt.running.map((r) => r.reaped),
      new Promise<void>((resolve) => clock.setTimer(resolve, 1000)),
    ]);
  }
  return true;
}

/** Cancels every running instance of the job, recording why (reaping reads it). */
export async function cancelRuns(rt: JobRuntime, reason: 'cancelled' | 'replaced'): Promise<void> {
  await Promise.all(
    rt.running.map((inst) => {
      inst.cancelReason = reason;
      return inst.handle.cancel(reason);
    }),
  );
}

/** What the admission pipeline reads of the scheduler's jobs (a narrow view, no back-reference). */
export function schedulerAdmission(o: {
  deps: {
    clock: Clock;
    log: Logger;
    gate?: ClusterGate;
    durable?: DurableControl | null;
    claims?: FireClaims;
  };
  pauses: PauseBook;
  runtime: (name: string) => JobRuntime | undefined;
  stopping: () => boolean;
  newLadder: (rt: JobRuntime) => RetryLadder | null;
}): AdmissionEnv {
  const { deps, runtime } = o;
  return {
    log: deps.log,
    gate: deps.gate ?? RUN_HERE,
    durable: deps.durable ?? null,
    claims: deps.claims ?? LOCAL_CLAIMS,
    stopping: o.stopping,
    runningCount: (name) => {
      const rt = runtime(name);
      return rt ? rt.running.length + rt.waitingLaunches : 0;
    },
    replaceRunning: async (name) => {
      for (const old of [...(runtime(name)?.running ?? [])]) {
        old.cancelReason = 'replaced';
        await old.handle.cancel('replaced');
      }
    },
    lastOutcome: (name) => runtime(name)?.lastOutcome ?? null,
    freshLadder: (job) => {
      const rt = runtime(job.name);
      if (!rt) return null;
      rt.ladder?.cancel('superseded');
      rt.ladder = o.newLadder(rt);
      return rt.ladder;
    },
    paused: (name) => o.pauses.active(name),
    now: () => deps.clock.now(),
  };
}

/** Waits until every run of `rts` ended or `graceMs` passed, whichever comes first. */
export async function drainWithin(
  rts: readonly JobRuntime[],
  clock: Clock,
  graceMs: number,
): Promise<'drained' | 'expired'> {
  const drained = Promise.all(
    rts.flatMap((rt) => rt.running).map((r) => r.handle.done.catch(() => undefined)),
  );
  let timer: ReturnType<Clock['setTimer']> | null = null;
  const expired = new Promise<'expired'>((resolve) => {
    timer = clock.setTimer(() => resolve('expired'), graceMs);
  });
  const first = await Promise.race([drained.then(() => 'drained' as const), expired]);
  if (timer) clock.clearTimer(timer);
  return first;
}

/**
 * Launches still queued on a spawner have not started: a stop takes them back rather than start them
 * (an overloaded node has hundreds queued; each would hold the stop up).
 */
export function withdrawQueued(jobs: Iterable<JobRuntime>): void {
  for (const rt of jobs) for (const r of rt.running) if (r.handle.pid === null) r.handle.withdraw?.();
}

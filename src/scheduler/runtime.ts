// Per-job state the scheduler keeps between fires, and the pure mappings of a job to what
// exec launches and what /status shows.
import { randomBytes } from 'node:crypto';
import type { JobConfig } from '../config/types.ts';
import type { CancelReason, LaunchSpec, RunHandle } from '../exec/types.ts';
import { frameName, semanticKey } from '../schedule/index.ts';
import type { Fire } from './admission.ts';
import { JobHistory, type RunTrigger, type SlotRecord } from './history.ts';
import type { RetryLadder } from './ladder.ts';
import type { JobStatus } from './view.ts';

/** A fire as the scheduler tracks it: its admission state plus its slot record once it has one. */
export interface PendingFire extends Fire {
  slot: SlotRecord | null;
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
  /** Releases the job-API identity, then what admission acquired (the cluster slot). */
  release: () => Promise<void>;
  /** Settles once the run's completion handling (record, reports, retry) is done. */
  reaped: Promise<void>;
}

export class JobRuntime {
  nextFire: number | null = null;
  /** Bumped whenever the job is re-seeded, so stale heap entries are ignored. */
  gen = 0;
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
  gen: number;
}

export function scheduleIdentity(job: JobConfig): string {
  if (job.reboot || !job.cron) return '@reboot';
  return `${semanticKey(job.cron)}|${frameName(job.frame)}`;
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

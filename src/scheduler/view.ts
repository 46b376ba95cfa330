// What readers and controllers outside the scheduler (the web API, the dashboard, metrics) may
// use: status, history, live runs, manual start/cancel, and the event stream.
import type { JobConfig } from '../config/types.ts';
import type { OutputLine } from '../exec/types.ts';
import type { EventListener } from './events.ts';
import type { JobHistory, RunTrigger } from './history.ts';
import type { PauseBook } from './pauses.ts';

export type StartResult = 'started' | 'skipped' | 'unknown' | 'disabled';

export interface JobStatus {
  name: string;
  status: 'running' | 'disabled' | 'scheduled';
  pids: number[];
  nextFire: number | null;
  reboot: boolean;
  neverFires: boolean;
  retry: {
    attempt: number;
    maxAttempts: number | null;
    nextRetryAt: number | null;
    delaySeconds: number | null;
  } | null;
}

export interface RunningRun {
  runId: string;
  pid: number | null;
  startedAt: number;
  trigger: RunTrigger;
  /** Its live output so far (the newest lines of the ring). */
  lines: OutputLine[];
  /** Lines ever published by the run (`published - lines.length` were evicted from the ring). */
  published: number;
  /** Its staged secret values, for redacting output that leaves the daemon. */
  secrets: readonly string[];
}

/** Whether the node keeps up with its schedule (issue 14 item 9). */
export interface OverloadStatus {
  /** A fire was dropped in the last minute, or a launch has waited for its turn for seconds. */
  overloaded: boolean;
  /** Slots recorded as `missed-overload` since start (a lower bound after a very long stall). */
  missedFires: number;
  lastMissedAt: number | null;
  /** Launches waiting for their turn, and how long the oldest has waited. */
  waitingLaunches: number;
  launchLagMs: number;
}

export interface SchedulerView {
  /** Whether the node keeps up with its schedule. */
  overload(): OverloadStatus;
  /** One entry per job, in config order. */
  status(): JobStatus[];
  jobNames(): string[];
  job(name: string): JobConfig | undefined;
  history(name: string): JobHistory | undefined;
  /**
   * Resolves once the job's runs that have already ended are fully handled, their completion reports
   * sent (the SLA monitor's `onLate` waits for them, spec 09 §2.6); runs still going are not waited for.
   */
  reportsSettled(name: string): Promise<void>;
  /** The runs of a job in progress on this node. */
  running(name: string): RunningRun[];
  /** Manual start (spec 02 §2.1): not gated by leadership or onlyIfLastSucceeded. */
  startJob(name: string): Promise<StartResult>;
  cancelJob(
    name: string,
    reason?: 'cancelled' | 'replaced',
  ): Promise<'cancelled' | 'not-running' | 'unknown'>;
  /** Every scheduler event (slots, runs, output lines, retries); returns the unsubscribe. */
  subscribe(fn: EventListener): () => void;
  /** Runtime pauses (spec 10 §1). */
  readonly pauses: PauseBook;
}

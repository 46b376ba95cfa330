// The heart of the daemon (DESIGN.md §4): one timer for the earliest fire; each fire goes through
// admission (admission.ts), then launch -> outcome -> retry/report/record, all published on one event
// stream (events.ts). What each step writes to the history is firebook.ts, a reload's diff runtime.ts.
import type { JobConfig } from '../config/types.ts';
import { SHUTDOWN_KILL_MS } from '../exec/kill.ts';
import type { CancelReason, LaunchOptions, LaunchSpec, RunHandle, RunResult } from '../exec/types.ts';
import type { ReportContext, ReportHook } from '../report/types.ts';
import type { Clock, TimerHandle } from '../util/clock.ts';
import { errorText } from '../util/errors.ts';
import type { Logger } from '../util/log.ts';
import { type AdmissionEnv, admit, type Decision, isSlotFire, releaseHeld } from './admission.ts';
import type { DurableControl, FireClaims, RunGrant, SchedulerControl } from './control.ts';
import { type EventListener, EventStream } from './events.ts';
import { FireBook, WITHDRAWN_AT_STOP } from './firebook.ts';
import type { ClusterGate } from './gate.ts';
import type { JobHistory, RunRecord, RunTrigger, SkipRow } from './history.ts';
import { RetryLadder } from './ladder.ts';
import { OverloadTracker } from './overload.ts';
import { DEFAULT_PACING, type DropCause, LaunchPacer, type PacedLaunch, type PacerOptions } from './pacer.ts';
import { PauseBook } from './pauses.ts';
import { FireQueue, LATE_FIRE_WINDOW_MS } from './queue.ts';
import { reportContext, sendReport } from './reports.ts';
import {
  cancelRuns,
  drainWithin,
  type JobRuntime,
  launchSpecOf,
  newRunId,
  type PendingFire,
  type RunInstance,
  reloadRuntimes,
  runningRuns,
  schedulerAdmission,
  statusOf,
  untilIdle,
  withdrawQueued,
} from './runtime.ts';
import type { JobStatus, OverloadStatus, RunningRun, SchedulerView, StartResult } from './view.ts';

export type { JobStatus, OverloadStatus, StartResult } from './view.ts';

type Backfilled = 'success' | 'failure' | 'cancelled' | null;
const settled = () => undefined;

/** A launch waiting in the pacer: what it starts, and how to settle it when it is dropped. */
interface WaitingLaunch extends PacedLaunch {
  rt: JobRuntime;
  fire: PendingFire;
  release: () => Promise<void>;
  resolve: (inst: RunInstance | null) => void;
}

export interface SchedulerDeps {
  clock: Clock;
  log: Logger;
  launch: (spec: LaunchSpec, opts: LaunchOptions) => RunHandle;
  /** Told how many fires fall due at once, before they launch (exec's expectLaunches). */
  expectLaunches?: (count: number) => void;
  report: (hook: ReportHook, job: JobConfig, ctx: ReportContext) => Promise<void>;
  gate?: ClusterGate;
  /** Store-backed features (onlyIfLastSucceeded, @reboot marker, cluster slot, job-API identity). */
  durable?: DurableControl | null;
  /** The exactly-once fire claim (default: this node owns every fire). */
  claims?: FireClaims;
  /** Extra options for every launch (output sinks, drain bound). */
  launchOptions?: Partial<LaunchOptions>;
  /** How launches share the event loop under overload (default: half of it, 20 ms bursts). */
  pacing?: PacerOptions;
}

export class Scheduler implements SchedulerView, SchedulerControl {
  private readonly jobs = new Map<string, JobRuntime>();
  private readonly queue: FireQueue;
  private started = false;
  private stopping = false;
  private readonly events = new EventStream();
  /** Timers of deferred fires, cleared at shutdown. */
  private readonly deferred = new Set<TimerHandle>();
  private readonly admission: AdmissionEnv;
  private readonly pacer: LaunchPacer<WaitingLaunch>;
  private readonly overloads: OverloadTracker;
  private readonly book: FireBook;
  /** Runtime pauses (spec 10 §1): what the pause gate reads, the API and the store sync change. */
  readonly pauses: PauseBook;
  startFailures = 0;

  constructor(private readonly deps: SchedulerDeps) {
    this.overloads = new OverloadTracker(deps.clock, deps.log);
    this.book = new FireBook(deps.clock, deps.log, this.events, this.overloads);
    this.queue = new FireQueue(
      deps.clock,
      deps.log,
      (rt, at) => void this.fire(rt, at, 'schedule'),
      (rt, instants, atLeast, why) => this.book.recordMissed(rt, instants, atLeast, why),
      (rt, note) => this.book.recordDstNote(rt, note),
      (count) => deps.expectLaunches?.(count),
    );
    this.pacer = new LaunchPacer<WaitingLaunch>(
      deps.clock,
      (dropped, cause) => this.launchesDropped(dropped, cause),
      deps.pacing ?? DEFAULT_PACING,
    );
    this.pauses = new PauseBook(deps.clock, deps.log);
    this.admission = schedulerAdmission({
      deps,
      pauses: this.pauses,
      runtime: (name) => this.jobs.get(name),
      stopping: () => this.stopping,
      newLadder: (rt) => this.newLadder(rt),
    });
  }

  /** Every scheduler event (slots, runs, output lines, retries); returns the unsubscribe. */
  readonly subscribe = (fn: EventListener): (() => void) => this.events.subscribe(fn);

  /** How many event subscribers are attached (a closed log stream must leave none behind). */
  get subscriberCount(): number {
    return this.events.size;
  }

  get shuttingDown(): boolean {
    return this.stopping;
  }

  /** Installs a job list: the first call before start(), later calls are reloads. */
  load(configs: readonly JobConfig[]): void {
    const { next, changed } = reloadRuntimes(this.jobs, configs);
    this.jobs.clear();
    for (const [name, rt] of next) this.jobs.set(name, rt);
    if (!this.started) return;
    for (const rt of changed) this.queue.seed(rt);
    this.queue.arm();
  }

  /** Seeds every job strictly after now, runs the @reboot jobs, and starts the timer. */
  start(): void {
    if (this.started) return;
    this.started = true;
    for (const rt of this.jobs.values()) this.queue.seed(rt);
    for (const rt of this.jobs.values()) {
      if (rt.config.reboot && rt.config.enabled) void this.fire(rt, null, 'reboot');
    }
    this.queue.arm();
  }

  private newFire(
    rt: JobRuntime,
    trigger: RunTrigger,
    scheduledAt: number | null,
    ladder: RetryLadder | null,
  ): PendingFire {
    return { job: rt.config, trigger, scheduledAt, ladder, releases: [], slot: null, deferrals: 0 };
  }

  /** A scheduled fire or an @reboot run (spec 02 §2.2). */
  private fire(
    rt: JobRuntime,
    scheduledAt: number | null,
    trigger: 'schedule' | 'reboot',
  ): Promise<RunInstance | null> {
    if (scheduledAt !== null) rt.lastScheduledAt = scheduledAt;
    if (scheduledAt !== null) this.events.emit({ type: 'due', job: rt.config, scheduledAt });
    return this.submit(rt, this.newFire(rt, trigger, scheduledAt, null));
  }

  /**
   * Admission, then the launch on `run`; a skip or a deferral becomes the slot's outcome.
   * Stays synchronous up to the launch unless a gate or the job-API registration awaits.
   */
  private async submit(rt: JobRuntime, fire: PendingFire): Promise<RunInstance | null> {
    const pending = admit(fire, this.admission);
    const decision: Decision = pending instanceof Promise ? await pending : pending;
    switch (decision.kind) {
      case 'run':
        return this.launch(rt, fire);
      case 'skip':
        this.book.slotOutcome(rt, fire, decision.outcome, decision.reason);
        if (decision.outcome === 'paused') this.book.pausedRow(rt, fire);
        if (fire.trigger === 'retry' && decision.outcome === 'skipped:disabled')
          fire.ladder?.cancel('cancelled');
        if (fire.trigger === 'retry' && fire.ladder?.settled === 'owner-moved')
          this.book.retryAbandoned(rt, fire);
        return null;
      case 'defer':
        this.book.slotOutcome(rt, fire, 'deferred', decision.reason);
        this.deferTo(rt, fire, decision.until, decision.reason);
        return null;
    }
  }

  /** A deferred fire is admitted again at `until` (a retry through its own ladder timer). */
  private deferTo(rt: JobRuntime, fire: PendingFire, until: number, reason: string): void {
    const name = rt.config.name;
    if (fire.trigger === 'retry') {
      this.book.retryDeferred(rt, fire, until, reason);
      return;
    }
    // A fire deferred again and again (a pending @reboot waiting for quorum) logs once at INFO.
    const text = `Job ${name}: fire deferred until ${new Date(until).toISOString()} (${reason})`;
    if (fire.deferrals++ === 0) this.deps.log.info(text);
    else this.deps.log.debug(text);
    const clock = this.deps.clock;
    const timer = clock.setTimer(
      () => {
        this.deferred.delete(timer);
        if (this.stopping || this.jobs.get(name) !== rt) return;
        fire.job = rt.config;
        void this.submit(rt, fire);
      },
      Math.max(0, until - clock.now()),
    );
    this.deferred.add(timer);
  }

  private newLadder(rt: JobRuntime): RetryLadder | null {
    const policy = rt.config.onFailure.retry;
    if (policy.maximumRetries === 0) return null;
    const ladder: RetryLadder = new RetryLadder(policy, {
      clock: this.deps.clock,
      due: () => void this.runRetry(rt, ladder),
      armed: (attempt, notBefore, delaySeconds) =>
        this.events.emit({ type: 'retry-armed', job: rt.config, attempt, notBefore, delaySeconds }),
      settled: (reason, attempt) =>
        this.events.emit({ type: 'retry-settled', job: rt.config, reason, attempt }),
    });
    return ladder;
  }

  /**
   * The launch of an admitted fire: job-API identity, then the spawn when the pacer gives it a turn
   * (null when the fire could not start before its late-fire deadline).
   */
  private async launch(rt: JobRuntime, fire: PendingFire): Promise<RunInstance | null> {
    const job = rt.config;
    const id = newRunId();
    const attempt = fire.ladder?.count ?? 0;
    let grant: RunGrant = {};
    const durable = this.admission.durable;
    if (durable) {
      const scheduledAt = fire.scheduledAt ?? rt.lastScheduledAt;
      try {
        grant = await durable.register(job, { id, attempt, scheduledAt, trigger: fire.trigger });
      } catch (e) {
        await releaseHeld(fire, this.admission);
        throw e;
      }
    }
    const release = async () => {
      await grant.release?.();
      await releaseHeld(fire, this.admission);
    };
    // Only a scheduled slot has a late-fire window; manual starts, retries and catch-up always start.
    const deadline =
      fire.trigger === 'schedule' && fire.scheduledAt !== null
        ? fire.scheduledAt + LATE_FIRE_WINDOW_MS
        : Number.POSITIVE_INFINITY;
    return new Promise<RunInstance | null>((resolve, reject) => {
      rt.waitingLaunches++;
      this.pacer.submit({
        deadline,
        ...(Number.isFinite(deadline) ? { dueAt: fire.scheduledAt! } : {}),
        rt,
        fire,
        release,
        resolve,
        start: () => {
          rt.waitingLaunches--;
          try {
            resolve(this.spawn(rt, fire, id, attempt, grant, release));
          } catch (e) {
            // Spawn failures resolve as a failed run; anything else must not leak the slot or the token.
            release().then(
              () => reject(e),
              () => reject(e),
            );
          }
        },
      });
    });
  }

  /** Launches the pacer could not start in time (or that were waiting at shutdown). */
  private launchesDropped(dropped: WaitingLaunch[], cause: DropCause): void {
    const byJob = new Map<JobRuntime, number[]>();
    for (const w of dropped) {
      w.rt.waitingLaunches--;
      w.release().catch((e: unknown) =>
        this.deps.log.warning(`Job ${w.rt.config.name}: releasing a dropped launch failed: ${errorText(e)}`),
      );
      w.resolve(null);
      if (!isSlotFire(w.fire)) continue;
      if (this.stopping) {
        this.book.slotOutcome(w.rt, w.fire, 'skipped:gate', 'daemon is shutting down');
        continue;
      }
      const list = byJob.get(w.rt) ?? [];
      list.push(w.fire.scheduledAt!);
      byJob.set(w.rt, list);
    }
    for (const [rt, instants] of byJob)
      this.book.recordMissed(
        rt,
        instants.sort((a, b) => a - b),
        false,
        cause.stallMs !== null
          ? `not started within ${LATE_FIRE_WINDOW_MS / 1000} s: the node was stopped or stalled for ${(cause.stallMs / 1000).toFixed(1)} s (stall, suspend or clock jump)`
          : `not started within ${LATE_FIRE_WINDOW_MS / 1000} s: the node is launching more than it can`,
      );
  }

  /** Whether the node keeps up with its schedule (spec: issue 14 item 9). */
  overload(): OverloadStatus {
    return this.overloads.status(this.pacer);
  }

  /** The spawn of a launch whose turn came, and its reaper. */
  private spawn(
    rt: JobRuntime,
    fire: PendingFire,
    id: string,
    attempt: number,
    grant: RunGrant,
    release: () => Promise<void>,
  ): RunInstance {
    const job = rt.config;
    const log = this.deps.log;
    this.book.slotOutcome(rt, fire, 'running', fire.trigger === 'catchup' ? 'catch-up' : null);
    log.info(`Starting job ${job.name}`);
    const handle: RunHandle = this.deps.launch(launchSpecOf(job), {
      ...this.deps.launchOptions,
      injectedEnv: grant.env,
      onLine: (line) => this.events.emit({ type: 'output-line', job: job.name, runId: id, line }),
      onWarning: (m) => log.warning(m),
      onInfo: (m) => log.info(m),
      now: () => this.deps.clock.now(),
    });
    const inst: RunInstance = {
      id,
      handle,
      trigger: fire.trigger,
      attempt,
      ladder: fire.ladder,
      scheduledAt: fire.scheduledAt,
      slot: fire.slot,
      cancelReason: null,
      secrets: grant.secretValues ?? [],
      release,
      reaped: Promise.resolve(),
    };
    if (fire.slot) fire.slot.runId = id;
    rt.running.push(inst);
    log.info(`Job ${job.name} spawned`);
    const started = (pid: number | null) =>
      this.events.emit({
        type: 'run-started',
        job,
        runId: id,
        trigger: fire.trigger,
        attempt,
        scheduledAt: fire.scheduledAt,
        pid,
        startedAt: handle.startedAt,
      });
    // During a launch burst the process starts a few ms later (spawner): announce it then, so
    // subscribers (statsd's start gauge, the status cache) see its real pid.
    if (handle.pid === null && handle.started) void handle.started.then(started, () => started(null));
    else started(handle.pid);
    inst.reaped = handle.done.then(
      (result) => {
        rt.reapChain = rt.reapChain
          .then(() => this.reap(rt, inst, result))
          .catch((e: unknown) => {
            log.error(
              `Job ${job.name}: error while handling its completion: ${errorText(e, { stack: true })}`,
            );
          });
        return rt.reapChain;
      },
      (e: unknown) => log.error(`Job ${job.name}: run failed unexpectedly: ${errorText(e, { stack: true })}`),
    );
    return inst;
  }

  /** Completion handling of one run (spec 02 §7), in order per job. */
  private async reap(rt: JobRuntime, inst: RunInstance, result: RunResult): Promise<void> {
    const job = rt.config;
    const log = this.deps.log;
    inst.endedAt = this.deps.clock.now();
    rt.running = rt.running.filter((r) => r !== inst);
    try {
      await inst.release();
    } catch (e) {
      log.warning(`Job ${job.name}: releasing its run resources failed: ${errorText(e)}`);
    }
    const reason = inst.cancelReason;
    if (reason === 'replaced') {
      log.info(`Job ${job.name} was replaced by a newer instance`);
      this.book.recordCancelled(rt, inst, result, 'replaced by a newer instance', 'cancelled:replaced');
      return;
    }
    if (reason === 'cancelled') {
      this.book.recordCancelled(rt, inst, result, 'cancelled via web UI');
      rt.ladder?.cancel('cancelled');
      inst.ladder?.cancel('cancelled');
      return;
    }
    if (result.withdrawn) {
      log.info(`Job ${job.name}: ${WITHDRAWN_AT_STOP}`);
      this.book.recordCancelled(rt, inst, result, WITHDRAWN_AT_STOP, 'cancelled', WITHDRAWN_AT_STOP);
      return;
    }
    if (result.startFailed) {
      this.startFailures++;
      // The OS reason (a missing shell, a bad workingDirectory): never an environment value.
      log.error(`Job ${job.name} could not be launched: ${result.startError ?? 'unknown error'}`);
    }
    const failReason = result.failReason;
    log.info(
      `Job ${job.name} exit code ${result.exitCode}; has stdout: ${Boolean(result.stdout)}, has stderr: ${Boolean(result.stderr)}; fail_reason: ${failReason ?? 'None'}`,
    );
    this.book.recordRun(rt, inst, result, failReason === null ? 'success' : 'failure', failReason);
    rt.lastOutcome = failReason === null ? 'success' : 'failure';
    this.book.settleSlot(inst.slot, failReason === null ? 'succeeded' : 'failed', failReason);
    const ctx = reportContext(job, result, failReason, inst.id);
    if (failReason === null) {
      rt.ladder?.cancel('succeeded');
      inst.ladder?.cancel('succeeded');
      await sendReport(this.deps, 'success', job, ctx);
      return;
    }
    if (this.stopping) return;
    if (result.stdout) log.info(`Job ${job.name} STDOUT:\n${result.stdout.trimEnd()}`);
    if (result.stderr) log.info(`Job ${job.name} STDERR:\n${result.stderr.trimEnd()}`);
    // The retry is armed before the reporters run: a slow reporter must not push it back.
    const permanent = !this.armRetry(rt, inst.ladder);
    await sendReport(this.deps, 'failure', job, ctx);
    if (permanent) await sendReport(this.deps, 'permanentFailure', job, ctx);
  }

  /** The failure path's retry decision (spec 02 §8.3); false when the failure is permanent. */
  private armRetry(rt: JobRuntime, ladder: RetryLadder | null): boolean {
    if (!ladder || ladder.cancelled) return false;
    ladder.clearTimer();
    if (!ladder.canRetry()) {
      ladder.cancel('exhausted');
      return false;
    }
    const delay = ladder.arm();
    this.deps.log.info(
      `Cron job ${rt.config.name} scheduled to be retried (#${ladder.count}) in ${delay.toFixed(1)} seconds`,
    );
    return true;
  }

  private async runRetry(rt: JobRuntime, ladder: RetryLadder): Promise<void> {
    if (this.stopping || ladder.cancelled) return;
    if (rt.removed || this.jobs.get(rt.config.name) !== rt) {
      this.deps.log.warning(
        `Cron job ${rt.config.name} was scheduled for retry, but disappeared from the configuration`,
      );
      ladder.cancel('job-removed');
      return;
    }
    await this.submit(rt, this.newFire(rt, 'retry', rt.lastScheduledAt, ladder));
  }

  /** The runs of a job in progress on this node, with their live output so far. */
  running(job: string): RunningRun[] {
    const rt = this.jobs.get(job);
    return rt ? runningRuns(rt) : [];
  }

  /** Resolves when no instance of the job runs here (or after `maxWaitMs`, returning false). */
  whenIdle(name: string, maxWaitMs: number): Promise<boolean> {
    const rt = this.jobs.get(name);
    return rt ? untilIdle(rt, this.deps.clock, maxWaitMs) : Promise.resolve(true);
  }

  /** A missed slot's catch-up run (03 §8.2; no ladder, no onlyIfLastSucceeded): its outcome once handled. */
  runBackfill(name: string, scheduledAt: number): Promise<Backfilled> {
    const rt = this.jobs.get(name);
    if (!rt) return Promise.resolve(null);
    // One backfill at a time per job, in call order.
    const run = rt.backfillChain.then(() => this.backfillOnce(rt, name, scheduledAt));
    rt.backfillChain = run.then(settled, settled);
    return run;
  }

  private async backfillOnce(rt: JobRuntime, name: string, scheduledAt: number): Promise<Backfilled> {
    if (!rt.config.enabled || this.stopping) return null;
    await this.whenIdle(name, rt.config.concurrencyPolicy === 'Forbid' ? Number.POSITIVE_INFINITY : 30_000);
    if (this.stopping || this.jobs.get(name) !== rt) return null;
    const inst = await this.submit(rt, this.newFire(rt, 'catchup', scheduledAt, null));
    if (!inst) return null;
    await inst.reaped;
    const last = rt.history.lastRun();
    return last && last.id === inst.id ? (last.outcome as Backfilled) : null;
  }

  restoreHistory(name: string, runs: readonly RunRecord[], skips: readonly SkipRow[] = []): void {
    this.jobs.get(name)?.history.restore(runs, skips);
  }

  /** Re-arms a durable retry found at start (spec 03 §8.6): attempt N at `notBefore`. */
  rearmRetry(name: string, attempt: number, notBefore: number): boolean {
    const rt = this.jobs.get(name);
    if (!rt?.config.enabled || this.stopping) return false;
    const ladder = this.newLadder(rt);
    if (!ladder) return false;
    rt.ladder?.cancel('superseded');
    rt.ladder = ladder;
    this.deps.log.info(
      `Cron job ${name}: re-arming durable retry #${attempt} (due ${new Date(notBefore).toISOString()})`,
    );
    ladder.rearm(attempt, notBefore);
    return true;
  }

  /** Manual start (spec 02 §2.1): not gated by leadership or onlyIfLastSucceeded. */
  async startJob(name: string): Promise<StartResult> {
    const rt = this.jobs.get(name);
    if (!rt) return 'unknown';
    if (!rt.config.enabled) return 'disabled';
    const ladder = rt.ladder && !rt.ladder.cancelled ? rt.ladder : null;
    return (await this.submit(rt, this.newFire(rt, 'manual', null, ladder))) ? 'started' : 'skipped';
  }

  /** Cancels every running instance of a job: a user cancel, or a cluster Replace from another node. */
  async cancelJob(
    name: string,
    reason: 'cancelled' | 'replaced' = 'cancelled',
  ): Promise<'cancelled' | 'not-running' | 'unknown'> {
    const rt = this.jobs.get(name);
    if (!rt) return 'unknown';
    if (rt.running.length === 0) return 'not-running';
    if (reason === 'cancelled') this.deps.log.info(`Job ${name} was cancelled via the web UI`);
    await cancelRuns(rt, reason);
    return 'cancelled';
  }

  jobNames(): string[] {
    return [...this.jobs.keys()];
  }

  job(name: string): JobConfig | undefined {
    return this.jobs.get(name)?.config;
  }

  history(name: string): JobHistory | undefined {
    return this.jobs.get(name)?.history;
  }

  /** Resolves once the job's runs that have ended are fully handled, their reports sent (09 §2.6). */
  reportsSettled(name: string): Promise<void> {
    return this.jobs.get(name)?.reapChain ?? Promise.resolve();
  }

  runningCount(): number {
    let n = 0;
    for (const rt of this.jobs.values()) n += rt.running.length;
    return n;
  }

  status(): JobStatus[] {
    return [...this.jobs.values()].map((rt) => statusOf(rt, this.started));
  }

  /**
   * Graceful stop: no new fires or retries; running jobs get `graceMs` to finish, then the
   * cancellation sequence. Resolves when every run is reaped.
   */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    this.queue.close();
    this.pacer.close();
    for (const rt of this.jobs.values()) rt.ladder?.clearTimer();
    for (const t of this.deferred) this.deps.clock.clearTimer(t);
    this.deferred.clear();
    withdrawQueued(this.jobs.values());
    // The kill sequence (SIGTERM, then SIGKILL within SHUTDOWN_KILL_MS) and the daemon's own
    // closing (web, store) fit inside the grace: SIGTERM exits within --shutdown-timeout.
    const drainMs = Math.max(0, graceMs - 2 * SHUTDOWN_KILL_MS);
    if ((await drainWithin([...this.jobs.values()], this.deps.clock, drainMs)) === 'expired')
      await this.killAll('shutdown');
    await Promise.all([...this.jobs.values()].map((rt) => rt.reapChain));
  }

  /** Immediate stop (a second signal): cancel every run now. */
  async killAll(reason: CancelReason): Promise<void> {
    this.stopping = true;
    const cancels: Promise<void>[] = [];
    for (const rt of this.jobs.values())
      for (const r of rt.running) {
        this.deps.log.warning(`Job ${rt.config.name}: still running at shutdown; stopping it`);
        cancels.push(r.handle.cancel(reason));
      }
    await Promise.all(cancels);
  }
}

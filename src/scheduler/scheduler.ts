// The heart of the daemon (DESIGN.md §4): one timer for the earliest fire across all jobs,
// then fire -> gates -> concurrency -> exec -> outcome -> retry/report/record.
import { randomBytes } from 'node:crypto';
import type { JobConfig } from '../config/types.ts';
import type {
  CancelReason,
  LaunchOptions,
  LaunchSpec,
  OutputLine,
  RunHandle,
  RunResult,
} from '../exec/types.ts';
import type { ReportContext, ReportHook, StatsdTarget } from '../report/types.ts';
import { frameName, MinHeap, matchesInstant, nextFire, semanticKey } from '../schedule/index.ts';
import type { Clock, TimerHandle } from '../util/clock.ts';
import type { Logger } from '../util/log.ts';
import { type ClusterGate, RUN_HERE } from './gate.ts';
import { JobHistory, type RunRecord, type RunTrigger, type SlotOutcome, type SlotRecord } from './history.ts';
import { RetryLadder } from './ladder.ts';

/** A due slot this late (ms) still fires; anything later is a stall or a clock jump. */
export const LATE_FIRE_WINDOW_MS = 10_000;
/** At most this many missed occurrences are replayed after a short stall. */
export const MAX_REPLAY = 100;
/** The wake timer never sleeps longer than this, so wall-clock jumps are noticed. */
const MAX_SLEEP_MS = 60_000;

export interface SchedulerDeps {
  clock: Clock;
  log: Logger;
  launch: (spec: LaunchSpec, opts: LaunchOptions) => RunHandle;
  report: (hook: ReportHook, job: JobConfig, ctx: ReportContext) => Promise<void>;
  statsd?: {
    start(target: StatsdTarget, job: string): void;
    stop(target: StatsdTarget, job: string, data: { success: boolean; durationMs: number }): void;
  };
  gate?: ClusterGate;
  /** Store-backed features (job API identity, ledger, durable retries, @reboot markers). */
  hooks?: SchedulerHooks;
  /** Extra options for every launch (output sinks, drain bound). */
  launchOptions?: Partial<LaunchOptions>;
  /** Called for every recorded run and every slot outcome (ledger, metrics, dashboard). */
  onRun?: (run: RunRecord) => void;
  onSlot?: (slot: SlotRecord) => void;
}

/** What a launch may carry: injected variables, and what to release when the run ends. */
export interface RunGrant {
  env?: Record<string, string>;
  release?: () => void | Promise<void>;
}

export interface LaunchContext {
  id: string;
  attempt: number;
  scheduledAt: number | null;
  trigger: RunTrigger;
}

/** Extension points for the durable-state features (spec 03 §8); every hook is optional. */
export interface SchedulerHooks {
  /** Before any launch: mint the job-API identity, claim a cluster slot; `skip` prevents the launch. */
  beforeLaunch?(job: JobConfig, run: LaunchContext): Promise<RunGrant | { skip: string }>;
  /** onlyIfLastSucceeded for scheduled and @reboot fires: the latest real outcome, or 'blocked'. */
  lastOutcome?(
    job: JobConfig,
    memory: 'success' | 'failure' | null,
  ): Promise<'success' | 'failure' | null | 'blocked'>;
  /** @reboot: whether this boot still owes the job its run. */
  rebootAllowed?(job: JobConfig): Promise<boolean>;
  /** Every recorded run (ledger, archived output). */
  runRecorded?(job: JobConfig, run: RunRecord, result: RunResult): void;
  retryArmed?(job: JobConfig, attempt: number, notBefore: number): void;
  retrySettled?(job: JobConfig, reason: string, attempt: number): void;
}

/** One launch through the concurrency gate: which entry point, for which slot, on which ladder. */
interface LaunchRequest {
  trigger: RunTrigger;
  scheduledAt: number | null;
  ladder: RetryLadder | null;
  slot: SlotRecord | null;
}

interface RunInstance {
  id: string;
  handle: RunHandle;
  trigger: RunTrigger;
  attempt: number;
  ladder: RetryLadder | null;
  scheduledAt: number | null;
  slot: SlotRecord | null;
  cancelReason: CancelReason | null;
  statsdStarted: boolean;
  grant: RunGrant;
  /** Settles once the run's completion handling (record, reports, retry) is done. */
  reaped: Promise<void>;
}

class JobRuntime {
  nextFire: number | null = null;
  /** Bumped whenever the job is re-seeded, so stale heap entries are ignored. */
  gen = 0;
  running: RunInstance[] = [];
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

interface HeapEntry {
  rt: JobRuntime;
  gen: number;
}

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

function scheduleIdentity(job: JobConfig): string {
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

const newRunId = () => randomBytes(16).toString('hex');

export class Scheduler {
  private readonly jobs = new Map<string, JobRuntime>();
  private readonly heap = new MinHeap<HeapEntry>();
  private timer: TimerHandle | null = null;
  private started = false;
  private stopping = false;
  private readonly gate: ClusterGate;
  startFailures = 0;

  constructor(private readonly deps: SchedulerDeps) {
    this.gate = deps.gate ?? RUN_HERE;
  }

  /** Installs the store-backed hooks (before start; the store opens after the scheduler exists). */
  useHooks(hooks: SchedulerHooks | undefined): void {
    this.deps.hooks = hooks;
  }

  get shuttingDown(): boolean {
    return this.stopping;
  }

  /** Installs a job list: the first call before start(), later calls are reloads. */
  load(configs: readonly JobConfig[]): void {
    const next = new Map<string, JobRuntime>();
    configs.forEach((config, index) => {
      const old = this.jobs.get(config.name);
      if (old && !next.has(config.name)) {
        const same =
          scheduleIdentity(old.config) === scheduleIdentity(config) && old.config.enabled === config.enabled;
        old.config = config;
        old.index = index;
        next.set(config.name, old);
        if (!same && this.started) this.seed(old);
      } else {
        const rt = new JobRuntime(config, index);
        next.set(config.name, rt);
        if (this.started) this.seed(rt);
      }
    });
    for (const [name, rt] of this.jobs) {
      if (next.get(name) !== rt) {
        rt.removed = true;
        rt.gen++;
      }
    }
    this.jobs.clear();
    for (const [name, rt] of next) this.jobs.set(name, rt);
    if (this.started) this.arm();
  }

  /** Seeds every job strictly after now, runs the @reboot jobs, and starts the timer. */
  start(): void {
    if (this.started) return;
    this.started = true;
    for (const rt of this.jobs.values()) this.seed(rt);
    for (const rt of this.jobs.values()) {
      if (rt.config.reboot && rt.config.enabled) void this.fire(rt, null, 'reboot');
    }
    this.arm();
  }

  private seed(rt: JobRuntime): void {
    rt.gen++;
    rt.nextFire = null;
    const { cron, frame, name, scheduleText } = rt.config;
    if (!cron) return;
    rt.nextFire = nextFire(cron, frame, this.deps.clock.now());
    if (rt.nextFire === null) {
      if (rt.config.enabled)
        this.deps.log.warning(
          `job '${name}': schedule '${scheduleText}' has no future occurrence and will NEVER fire; fix the schedule or disable the job (its status reports never_fires)`,
        );
      return;
    }
    this.heap.push(rt.nextFire, { rt, gen: rt.gen });
  }

  private isStale(e: HeapEntry): boolean {
    return e.rt.removed || e.gen !== e.rt.gen;
  }

  private arm(): void {
    if (this.timer) this.deps.clock.clearTimer(this.timer);
    this.timer = null;
    if (this.stopping) return;
    while (this.heap.size > 0 && this.isStale(this.heap.peek()!)) this.heap.pop();
    const at = this.heap.peekKey();
    if (at === undefined) return;
    const delay = Math.min(MAX_SLEEP_MS, Math.max(0, at - this.deps.clock.now()));
    this.timer = this.deps.clock.setTimer(() => this.tick(), delay);
  }

  private tick(): void {
    this.timer = null;
    const now = this.deps.clock.now();
    const due: { rt: JobRuntime; at: number }[] = [];
    while (this.heap.size > 0 && this.heap.peekKey()! <= now) {
      const at = this.heap.peekKey()!;
      const entry = this.heap.pop()!;
      if (!this.isStale(entry)) due.push({ rt: entry.rt, at });
    }
    // Same instant: config order (spec 02 §2.2).
    due.sort((a, b) => a.at - b.at || a.rt.index - b.rt.index);
    for (const { rt, at } of due) this.handleDue(rt, at, now);
    this.arm();
  }

  private handleDue(rt: JobRuntime, at: number, now: number): void {
    const { cron, frame, name } = rt.config;
    if (!cron) return;
    let next: number | null;
    if (now - at <= LATE_FIRE_WINDOW_MS) {
      void this.fire(rt, at, 'schedule');
      next = nextFire(cron, frame, at);
      let replayed = 0;
      while (next !== null && next <= now && replayed < MAX_REPLAY) {
        void this.fire(rt, next, 'schedule');
        replayed++;
        next = nextFire(cron, frame, next);
      }
      if (next !== null && next <= now) next = nextFire(cron, frame, now);
    } else {
      this.deps.log.warning(
        `job '${name}': its fire at ${new Date(at).toISOString()} is ${((now - at) / 1000).toFixed(1)} s late (stall, suspend or clock jump); resyncing`,
      );
      const second = Math.floor(now / 1000) * 1000;
      if (matchesInstant(cron, frame, second)) void this.fire(rt, second, 'schedule');
      next = nextFire(cron, frame, now);
    }
    rt.gen++;
    rt.nextFire = next;
    if (next !== null) this.heap.push(next, { rt, gen: rt.gen });
  }

  private slot(
    rt: JobRuntime,
    scheduledAt: number | null,
    outcome: SlotOutcome,
    detail: string | null = null,
  ): SlotRecord | null {
    if (scheduledAt === null) return null;
    const slot: SlotRecord = { job: rt.config.name, scheduledAt, outcome, runId: null, detail };
    rt.history.addSlot(slot);
    this.deps.onSlot?.(slot);
    return slot;
  }

  private settleSlot(slot: SlotRecord | null, outcome: SlotOutcome, detail: string | null = null): void {
    if (!slot) return;
    slot.outcome = outcome;
    slot.detail = detail;
    this.deps.onSlot?.(slot);
  }

  /** A scheduled fire or an @reboot run (spec 02 §2.2). */
  private async fire(
    rt: JobRuntime,
    scheduledAt: number | null,
    trigger: 'schedule' | 'reboot',
  ): Promise<void> {
    const job = rt.config;
    if (scheduledAt !== null) rt.lastScheduledAt = scheduledAt;
    if (!job.enabled) {
      this.slot(rt, scheduledAt, 'skipped:disabled');
      return;
    }
    const decision = this.gate.decide(job, scheduledAt, trigger);
    if (!decision.run) {
      this.slot(rt, scheduledAt, 'skipped:gate', decision.reason);
      return;
    }
    if (job.onlyIfLastSucceeded) {
      const hooks = this.deps.hooks;
      const last = hooks?.lastOutcome ? await hooks.lastOutcome(job, rt.lastOutcome) : rt.lastOutcome;
      if (last === 'failure' || last === 'blocked') {
        const why =
          last === 'failure' ? 'its last run failed' : 'its last outcome cannot be read from the store';
        this.deps.log.info(`Job ${job.name} skipped: onlyIfLastSucceeded is set and ${why}`);
        this.slot(rt, scheduledAt, 'skipped:only-if-last-succeeded');
        return;
      }
    }
    if (
      trigger === 'reboot' &&
      this.deps.hooks?.rebootAllowed &&
      !(await this.deps.hooks.rebootAllowed(job))
    ) {
      this.deps.log.info(`Job ${job.name}: @reboot already ran during this boot; not running it again`);
      return;
    }
    // Reset before the concurrency check (reference quirk kept, spec 02 §2.2 step 2).
    rt.ladder?.cancel('superseded');
    rt.ladder = this.newLadder(job);
    const slot = this.slot(rt, scheduledAt, 'running');
    await this.launchRun(rt, { trigger, scheduledAt, ladder: rt.ladder, slot });
  }

  private newLadder(job: JobConfig): RetryLadder | null {
    if (job.onFailure.retry.maximumRetries === 0) return null;
    const ladder = new RetryLadder(job.onFailure.retry);
    const hooks = this.deps.hooks;
    if (hooks?.retrySettled) ladder.onSettle = (reason) => hooks.retrySettled!(job, reason, ladder.count);
    return ladder;
  }

  private async launchRun(rt: JobRuntime, opts: LaunchRequest): Promise<'started' | 'skipped'> {
    return (await this.launchInstance(rt, opts)) ? 'started' : 'skipped';
  }

  /** The concurrency gate and the launch itself, shared by every entry point. */
  private async launchInstance(rt: JobRuntime, opts: LaunchRequest): Promise<RunInstance | null> {
    const job = rt.config;
    const log = this.deps.log;
    if (rt.running.length > 0) {
      log.warning(`Job ${job.name}: still running and concurrencyPolicy is ${job.concurrencyPolicy}`);
      if (job.concurrencyPolicy === 'Forbid') {
        this.settleSlot(opts.slot, 'skipped:overlap');
        return null;
      }
      if (job.concurrencyPolicy === 'Replace') {
        for (const old of [...rt.running]) {
          old.cancelReason = 'replaced';
          await old.handle.cancel('replaced');
        }
      }
    }
    if (this.stopping) {
      this.settleSlot(opts.slot, 'skipped:gate', 'daemon is shutting down');
      return null;
    }
    const id = newRunId();
    const attempt = opts.ladder?.count ?? 0;
    let grant: RunGrant = {};
    if (this.deps.hooks?.beforeLaunch) {
      const context = {
        id,
        attempt,
        scheduledAt: opts.scheduledAt ?? rt.lastScheduledAt,
        trigger: opts.trigger,
      };
      const answer = await this.deps.hooks.beforeLaunch(job, context);
      if ('skip' in answer) {
        log.warning(`Job ${job.name} skipped: ${answer.skip}`);
        this.settleSlot(opts.slot, 'skipped:gate', answer.skip);
        return null;
      }
      grant = answer;
    }
    log.info(`Starting job ${job.name}`);
    const handle = this.deps.launch(launchSpecOf(job), {
      ...this.deps.launchOptions,
      injectedEnv: grant.env,
      onLine: (line) => this.publishLine(job.name, id, line),
      onWarning: (m) => log.warning(m),
      onInfo: (m) => log.info(m),
      now: () => this.deps.clock.now(),
    });
    const inst: RunInstance = {
      id,
      handle,
      trigger: opts.trigger,
      attempt,
      ladder: opts.ladder,
      scheduledAt: opts.scheduledAt,
      slot: opts.slot,
      cancelReason: null,
      statsdStarted: false,
      grant,
      reaped: Promise.resolve(),
    };
    if (opts.slot) opts.slot.runId = id;
    rt.running.push(inst);
    log.info(`Job ${job.name} spawned`);
    if (handle.pid !== null && job.statsd && this.deps.statsd) {
      this.deps.statsd.start(job.statsd, job.name);
      inst.statsdStarted = true;
    }
    inst.reaped = handle.done.then(
      (result) => {
        rt.reapChain = rt.reapChain
          .then(() => this.reap(rt, inst, result))
          .catch((e: unknown) => {
            log.error(`Job ${job.name}: error while handling its completion: ${(e as Error)?.stack ?? e}`);
          });
        return rt.reapChain;
      },
      (e: unknown) => log.error(`Job ${job.name}: run failed unexpectedly: ${(e as Error)?.stack ?? e}`),
    );
    return inst;
  }

  private record(
    rt: JobRuntime,
    inst: RunInstance,
    result: RunResult,
    outcome: RunRecord['outcome'],
    failReason: string | null,
  ): RunRecord {
    const run: RunRecord = {
      id: inst.id,
      job: rt.config.name,
      trigger: inst.trigger,
      attempt: inst.attempt,
      scheduledAt: inst.scheduledAt,
      outcome,
      exitCode: result.exitCode,
      startedAt: result.startedAt,
      finishedAt: this.deps.clock.now(),
      durationSeconds: result.durationSeconds,
      failReason,
      startFailed: result.startFailed,
      stdout: result.stdout,
      stderr: result.stderr,
      lines: result.ring,
    };
    rt.history.addRun(run);
    this.deps.onRun?.(run);
    this.deps.hooks?.runRecorded?.(rt.config, run, result);
    return run;
  }

  /** Completion handling of one run (spec 02 §7), in order per job. */
  private async reap(rt: JobRuntime, inst: RunInstance, result: RunResult): Promise<void> {
    const job = rt.config;
    const log = this.deps.log;
    rt.running = rt.running.filter((r) => r !== inst);
    try {
      await inst.grant.release?.();
    } catch (e) {
      log.warning(`Job ${job.name}: releasing its run resources failed: ${(e as Error)?.message ?? e}`);
    }
    const reason = inst.cancelReason;
    const verdict = reason === 'replaced' || reason === 'cancelled' ? null : result.failReason;
    if (inst.statsdStarted && job.statsd && this.deps.statsd)
      this.deps.statsd.stop(job.statsd, job.name, {
        success: verdict === null && reason === null,
        durationMs: Math.round(result.durationSeconds * 1000),
      });
    if (reason === 'replaced') {
      log.info(`Job ${job.name} was replaced by a newer instance`);
      this.record(rt, inst, result, 'cancelled', 'replaced by a newer instance');
      this.settleSlot(inst.slot, 'cancelled:replaced');
      return;
    }
    if (reason === 'cancelled') {
      this.record(rt, inst, result, 'cancelled', 'cancelled via web UI');
      rt.ladder?.cancel('cancelled');
      inst.ladder?.cancel('cancelled');
      this.settleSlot(inst.slot, 'cancelled');
      return;
    }
    if (result.startFailed) this.startFailures++;
    const failReason = result.failReason;
    log.info(
      `Job ${job.name} exit code ${result.exitCode}; has stdout: ${Boolean(result.stdout)}, has stderr: ${Boolean(result.stderr)}; fail_reason: ${failReason ?? 'None'}`,
    );
    this.record(rt, inst, result, failReason === null ? 'success' : 'failure', failReason);
    rt.lastOutcome = failReason === null ? 'success' : 'failure';
    this.settleSlot(inst.slot, failReason === null ? 'succeeded' : 'failed', failReason);
    const ctx = this.reportContext(job, result, failReason);
    if (failReason === null) {
      rt.ladder?.cancel('succeeded');
      inst.ladder?.cancel('succeeded');
      await this.sendReport('success', job, ctx);
      return;
    }
    if (this.stopping) return;
    if (result.stdout) log.info(`Job ${job.name} STDOUT:\n${result.stdout.trimEnd()}`);
    if (result.stderr) log.info(`Job ${job.name} STDERR:\n${result.stderr.trimEnd()}`);
    await this.sendReport('failure', job, ctx);
    const ladder = inst.ladder;
    if (!ladder || ladder.cancelled) {
      await this.sendReport('permanentFailure', job, ctx);
      return;
    }
    ladder.clearTimer();
    if (!ladder.canRetry()) {
      ladder.cancel('exhausted');
      await this.sendReport('permanentFailure', job, ctx);
      return;
    }
    this.armRetry(rt, ladder);
  }

  private armRetry(rt: JobRuntime, ladder: RetryLadder): void {
    const delay = ladder.takeDelay();
    const clock = this.deps.clock;
    ladder.scheduledDelay = delay;
    ladder.nextRetryAt = clock.now() + delay * 1000;
    this.deps.hooks?.retryArmed?.(rt.config, ladder.count, ladder.nextRetryAt);
    this.deps.log.info(
      `Cron job ${rt.config.name} scheduled to be retried (#${ladder.count}) in ${delay.toFixed(1)} seconds`,
    );
    const timer = clock.setTimer(() => {
      ladder.cancelTimer = null;
      ladder.nextRetryAt = null;
      void this.runRetry(rt, ladder);
    }, delay * 1000);
    ladder.cancelTimer = () => clock.clearTimer(timer);
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
    if (!rt.config.enabled) {
      ladder.cancel('cancelled');
      return;
    }
    const decision = this.gate.decide(rt.config, rt.lastScheduledAt, 'retry');
    if (!decision.run) {
      this.deps.log.info(`Cron job ${rt.config.name}: retry not run here (${decision.reason})`);
      return;
    }
    // Record before run: a crash right after never launches the same retry twice.
    this.deps.hooks?.retrySettled?.(rt.config, 'launched', ladder.count);
    await this.launchRun(rt, { trigger: 'retry', scheduledAt: rt.lastScheduledAt, ladder, slot: null });
  }

  private reportContext(job: JobConfig, result: RunResult, failReason: string | null): ReportContext {
    return {
      name: job.name,
      success: failReason === null,
      fail_reason: failReason,
      stdout: result.stdout,
      stderr: result.stderr,
      exit_code: result.exitCode,
      command: job.command,
      shell: job.shell,
      environment: result.environment,
      cpu_seconds: null,
      cpu_user_seconds: null,
      cpu_system_seconds: null,
      max_rss_bytes: null,
      schedule: job.scheduleText,
    };
  }

  private async sendReport(hook: ReportHook, job: JobConfig, ctx: ReportContext): Promise<void> {
    const what =
      hook === 'failure' ? 'failure' : hook === 'permanentFailure' ? 'permanent failure' : 'success';
    this.deps.log.info(`Cron job ${job.name}: reporting ${what}`);
    try {
      await this.deps.report(hook, job, ctx);
    } catch (e) {
      this.deps.log.error(`Problem reporting job ${job.name} ${what}: ${(e as Error)?.message ?? e}`);
    }
  }

  private readonly outputSubscribers = new Map<string, Set<(line: OutputLine & { runId: string }) => void>>();

  private publishLine(job: string, runId: string, line: OutputLine): void {
    const subs = this.outputSubscribers.get(job);
    if (!subs) return;
    for (const fn of subs) {
      try {
        fn({ ...line, runId });
      } catch {
        // A broken subscriber (a closed HTTP stream) must never disturb the run.
      }
    }
  }

  /** Live output of a job's runs as lines arrive (dashboard log tail); returns the unsubscribe. */
  subscribeOutput(job: string, fn: (line: OutputLine & { runId: string }) => void): () => void {
    let subs = this.outputSubscribers.get(job);
    if (!subs) {
      subs = new Set();
      this.outputSubscribers.set(job, subs);
    }
    subs.add(fn);
    return () => {
      subs.delete(fn);
      if (subs.size === 0) this.outputSubscribers.delete(job);
    };
  }

  /** The runs of a job in progress on this node, with their live output so far. */
  running(
    job: string,
  ): { runId: string; pid: number | null; startedAt: number; trigger: RunTrigger; lines: OutputLine[] }[] {
    const rt = this.jobs.get(job);
    if (!rt) return [];
    return rt.running.map((r) => ({
      runId: r.id,
      pid: r.handle.pid,
      startedAt: r.handle.startedAt,
      trigger: r.trigger,
      lines: r.handle.liveOutput().lines,
    }));
  }

  /** Resolves when no instance of the job runs here (or after `maxWaitMs`, returning false). */
  async whenIdle(name: string, maxWaitMs: number): Promise<boolean> {
    const rt = this.jobs.get(name);
    const started = this.deps.clock.monotonic();
    while (rt && rt.running.length > 0) {
      if (this.deps.clock.monotonic() - started >= maxWaitMs) return false;
      await Promise.race([
        ...rt.running.map((r) => r.reaped),
        new Promise<void>((resolve) => this.deps.clock.setTimer(resolve, 1000)),
      ]);
    }
    return true;
  }

  /**
   * A catch-up run of a missed slot (spec 03 §8.2): no retry ladder, no onlyIfLastSucceeded.
   * Resolves once the run is fully handled, with its outcome (null when not launched).
   */
  runBackfill(name: string, scheduledAt: number): Promise<'success' | 'failure' | 'cancelled' | null> {
    const rt = this.jobs.get(name);
    if (!rt) return Promise.resolve(null);
    // One backfill at a time per job, in call order.
    const run = rt.backfillChain.then(() => this.backfillOnce(rt, name, scheduledAt));
    rt.backfillChain = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private async backfillOnce(
    rt: JobRuntime,
    name: string,
    scheduledAt: number,
  ): Promise<'success' | 'failure' | 'cancelled' | null> {
    if (!rt.config.enabled || this.stopping) return null;
    await this.whenIdle(name, rt.config.concurrencyPolicy === 'Forbid' ? Number.POSITIVE_INFINITY : 30_000);
    if (this.stopping || this.jobs.get(name) !== rt) return null;
    const slot = this.slot(rt, scheduledAt, 'running', 'catch-up');
    const inst = await this.launchInstance(rt, { trigger: 'catchup', scheduledAt, ladder: null, slot });
    if (!inst) return null;
    await inst.reaped;
    const last = rt.history.lastRun();
    return last && last.id === inst.id ? (last.outcome as 'success' | 'failure' | 'cancelled') : null;
  }

  /** Re-arms a durable retry found at start (spec 03 §8.6): attempt N at `notBefore`. */
  rearmRetry(name: string, attempt: number, notBefore: number): boolean {
    const rt = this.jobs.get(name);
    if (!rt?.config.enabled || this.stopping) return false;
    const ladder = this.newLadder(rt.config);
    if (!ladder) return false;
    ladder.count = attempt;
    rt.ladder?.cancel('superseded');
    rt.ladder = ladder;
    const clock = this.deps.clock;
    ladder.nextRetryAt = notBefore;
    ladder.scheduledDelay = Math.max(0, (notBefore - clock.now()) / 1000);
    this.deps.log.info(
      `Cron job ${name}: re-arming durable retry #${attempt} (due ${new Date(notBefore).toISOString()})`,
    );
    const timer = clock.setTimer(
      () => {
        ladder.cancelTimer = null;
        ladder.nextRetryAt = null;
        void this.runRetry(rt, ladder);
      },
      Math.max(0, notBefore - clock.now()),
    );
    ladder.cancelTimer = () => clock.clearTimer(timer);
    return true;
  }

  /** Manual start (spec 02 §2.1): not gated by leadership or onlyIfLastSucceeded. */
  async startJob(name: string): Promise<StartResult> {
    const rt = this.jobs.get(name);
    if (!rt) return 'unknown';
    if (!rt.config.enabled) return 'disabled';
    const ladder = rt.ladder && !rt.ladder.cancelled ? rt.ladder : null;
    return this.launchRun(rt, { trigger: 'manual', scheduledAt: null, ladder, slot: null });
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
    await Promise.all(
      rt.running.map((inst) => {
        inst.cancelReason = reason;
        return inst.handle.cancel(reason);
      }),
    );
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

  runningCount(): number {
    let n = 0;
    for (const rt of this.jobs.values()) n += rt.running.length;
    return n;
  }

  status(): JobStatus[] {
    return [...this.jobs.values()].map((rt) => {
      const c = rt.config;
      const ladder = rt.ladder && !rt.ladder.cancelled && rt.ladder.count > 0 ? rt.ladder : null;
      return {
        name: c.name,
        status: rt.running.length > 0 ? 'running' : c.enabled ? 'scheduled' : 'disabled',
        pids: rt.running.map((r) => r.handle.pid).filter((p): p is number => p !== null),
        nextFire: rt.nextFire,
        reboot: c.reboot,
        neverFires: c.enabled && !c.reboot && rt.nextFire === null && this.started,
        retry: ladder
          ? {
              attempt: ladder.count,
              maxAttempts: ladder.policy.maximumRetries === -1 ? null : ladder.policy.maximumRetries,
              nextRetryAt: ladder.nextRetryAt,
              delaySeconds: ladder.scheduledDelay,
            }
          : null,
      };
    });
  }

  /**
   * Graceful stop: no new fires or retries; running jobs get `graceMs` to finish, then the
   * cancellation sequence. Resolves when every run is reaped.
   */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    if (this.timer) this.deps.clock.clearTimer(this.timer);
    this.timer = null;
    for (const rt of this.jobs.values()) rt.ladder?.clearTimer();
    const all = () => [...this.jobs.values()].flatMap((rt) => rt.running);
    const drained = Promise.all(all().map((r) => r.handle.done.catch(() => undefined)));
    let graceTimer: TimerHandle | null = null;
    const expired = new Promise<'expired'>((resolve) => {
      graceTimer = this.deps.clock.setTimer(() => resolve('expired'), graceMs);
    });
    const first = await Promise.race([drained.then(() => 'drained' as const), expired]);
    if (graceTimer) this.deps.clock.clearTimer(graceTimer);
    if (first === 'expired') await this.killAll('shutdown');
    await Promise.all([...this.jobs.values()].map((rt) => rt.reapChain));
  }

  /** Immediate stop (a second signal): cancel every run now. */
  async killAll(reason: CancelReason): Promise<void> {
    this.stopping = true;
    const cancels: Promise<void>[] = [];
    for (const rt of this.jobs.values()) {
      for (const r of rt.running) {
        this.deps.log.warning(`Job ${rt.config.name}: still running at shutdown; stopping it`);
        cancels.push(r.handle.cancel(reason));
      }
    }
    await Promise.all(cancels);
  }
}

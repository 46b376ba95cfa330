// One run of a command: spawn, capture, timeout, cancellation, drain, verdict (spec 02 §3-§6).
import { errorText } from '../util/errors.ts';
import { commandArgv } from './argv.ts';
import { StreamCapture } from './capture.ts';
import { buildEnvironment } from './env.ts';
import { exitCodeOf, LAUNCH_FAILURE_EXIT_CODE, TIMEOUT_EXIT_CODE } from './exitcode.ts';
import { failReason } from './failswhen.ts';
import { formatSeconds, SHUTDOWN_KILL_MS, signalGroup } from './kill.ts';
import { directoryProblem } from './launch-place.ts';
import { BoundedQueue } from './ring.ts';
import { defaultSpawner } from './spawner.ts';
import type {
  CancelReason,
  ChildEvents,
  ChildPort,
  LaunchOptions,
  LaunchSpec,
  OutputLine,
  RunHandle,
  RunResult,
  SpawnRequest,
  StreamName,
} from './types.ts';

/** Live-output ring capacity (spec 02 §4.6). */
export const LIVE_RING_SIZE = 1000;
/** Default bound on each stream's drain once a cancelled run's process exited (spec 02 §5.3). */
export const DRAIN_AFTER_KILL_MS = 30_000;
/** setTimeout's ceiling; longer executionTimeouts are re-armed. */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface CapturedPipe {
  capture: StreamCapture;
  ended: boolean;
  drainTimer: NodeJS.Timeout | null;
  onEnded: Array<() => void>;
}

/**
 * Spawns one run. Never throws: a process that cannot be created yields a `startFailed` result.
 * During a burst of launches the process is started by a spawner process
 * a little later: `pid` and `startedAt` are filled in when it exists (`started` resolves then).
 */
export function launch(spec: LaunchSpec, opts: LaunchOptions = {}): RunHandle {
  return new Run(spec, opts).handle();
}

class Run {
  private readonly now: () => number;
  private readonly mono: () => number;
  private startedAt: number;
  private startMono: number;
  private readonly environment: Record<string, string> | null;
  private readonly ring = new BoundedQueue<OutputLine>(LIVE_RING_SIZE);
  private published = 0;
  private readonly pipes = new Map<StreamName, CapturedPipe>();

  private pid: number | null = null;
  /** Until the spawner answered (spawned or failed). */
  private launching = true;
  private port: ChildPort | null = null;
  private exitCode: number | null = null;
  private exitMono: number | null = null;
  private startError: string | null = null;
  private timedOut = false;
  private terminated = false;
  private cancelReason: CancelReason | null = null;
  private cancelling: Promise<void> | null = null;
  private timeoutTimer: NodeJS.Timeout | null = null;
  private completed = false;
  private withdrawing = false;

  private resolveExited!: () => void;
  private readonly exited = new Promise<void>((resolve) => {
    this.resolveExited = resolve;
  });
  private resolveDone!: (result: RunResult) => void;
  private readonly done = new Promise<RunResult>((resolve) => {
    this.resolveDone = resolve;
  });
  private resolveStarted!: (pid: number | null) => void;
  private readonly started = new Promise<number | null>((resolve) => {
    this.resolveStarted = resolve;
  });

  constructor(
    private readonly spec: LaunchSpec,
    private readonly opts: LaunchOptions,
  ) {
    this.now = opts.now ?? Date.now;
    this.mono = opts.monotonic ?? (() => performance.now());
    this.startedAt = this.now();
    this.startMono = this.mono();
    const baseEnv = opts.baseEnv ?? process.env;
    this.environment = buildEnvironment(spec.environment, spec.hasEnvFile, baseEnv, opts.injectedEnv);
    this.start(baseEnv);
  }

  handle(): RunHandle {
    const run = this;
    return {
      get pid() {
        return run.pid;
      },
      get startedAt() {
        return run.startedAt;
      },
      started: this.started,
      done: this.done,
      cancel: (reason) => this.cancel(reason),
      withdraw: () => this.withdraw(),
      liveOutput: () => ({ lines: this.ring.toArray(), published: this.published }),
    };
  }

  private start(baseEnv: NodeJS.ProcessEnv): void {
    const { spec } = this;
    const { file, args } = commandArgv(spec.command, spec.shell);
    const req: SpawnRequest = {
      file,
      args,
      // Inheriting means the daemon's environment (baseEnv); the result reports null then.
      env: this.environment ?? baseEnv,
      captureStdout: spec.captureStdout,
      captureStderr: spec.captureStderr,
      ...(spec.runAs?.uid != null ? { uid: spec.runAs.uid } : {}),
      ...(spec.runAs?.gid != null ? { gid: spec.runAs.gid } : {}),
      ...(spec.workingDirectory ? { cwd: spec.workingDirectory } : {}),
      ...(spec.nice != null ? { nice: spec.nice } : {}),
    };
    const events: ChildEvents = {
      spawned: (pid, agoMs) => this.spawned(pid, agoMs ?? 0),
      failed: (err) => this.launchFailed(err),
      withdrawn: () => this.withdrawn(),
      error: (err) => {
        if (this.pid === null) this.launchFailed(err);
        else this.warn(`job ${spec.name}: process error: ${errorText(err)}`);
      },
      data: (stream, chunk) => {
        const pipe = this.pipes.get(stream);
        if (pipe && !pipe.ended) pipe.capture.feed(chunk);
      },
      end: (stream) => {
        const pipe = this.pipes.get(stream);
        if (pipe) this.pipeEnded(pipe);
      },
      exit: (code, signal) => this.onExit(exitCodeOf(code, signal)),
    };
    this.port = (this.opts.spawner ?? defaultSpawner())(req, events);
  }

  private spawned(pid: number, agoMs: number): void {
    if (!this.launching) return;
    this.launching = false;
    this.pid = pid;
    // The process exists from here (or from agoMs before, when the spawner's word came late): duration
    // and the executionTimeout count from this instant.
    this.startedAt = this.now() - Math.round(agoMs);
    this.startMono = this.mono() - agoMs;
    if (this.spec.captureStdout) this.attach('stdout');
    if (this.spec.captureStderr) this.attach('stderr');
    this.resolveStarted(pid);
    // A cancel that came while the launch was queued runs its sequence now (see cancel()).
    if (this.terminated) return;
    if (this.spec.executionTimeout !== null)
      this.armTimeout(this.startMono + this.spec.executionTimeout * 1000);
  }

  private attach(stream: StreamName): void {
    const sink = this.opts.sinks?.[stream] ?? defaultSink(stream);
    const capture = new StreamCapture(
      {
        jobName: this.spec.name,
        stream,
        streamPrefix: this.spec.streamPrefix,
        saveLimit: this.spec.saveLimit,
        maxLineLength: this.spec.maxLineLength,
      },
      {
        publish: (s, line) => this.publish(s, line),
        emit: (text) => this.guard(() => sink(text)),
        warn: (message) => this.warn(message),
      },
    );
    this.pipes.set(stream, { capture, ended: false, drainTimer: null, onEnded: [] });
  }

  private publish(stream: StreamName, line: string): void {
    const entry: OutputLine = { stream, line };
    this.ring.push(entry);
    this.published += 1;
    const onLine = this.opts.onLine;
    if (onLine) this.guard(() => onLine(entry));
  }

  private pipeEnded(pipe: CapturedPipe): void {
    if (pipe.ended) return;
    pipe.capture.finish();
    pipe.ended = true;
    if (pipe.drainTimer) clearTimeout(pipe.drainTimer);
    pipe.drainTimer = null;
    for (const fn of pipe.onEnded.splice(0)) fn();
  }

  private armTimeout(deadline: number): void {
    const remaining = deadline - this.mono();
    if (remaining <= 0) {
      this.timeoutExpired();
      return;
    }
    this.timeoutTimer = setTimeout(
      () => {
        this.timeoutTimer = null;
        // Re-check against the monotonic clock (long delays are chained, timers may fire early).
        if (this.exitMono === null && !this.terminated) this.armTimeout(deadline);
      },
      Math.min(MAX_TIMER_MS, Math.ceil(remaining)),
    );
  }

  private timeoutExpired(): void {
    if (this.exitMono !== null || this.terminated) return;
    const seconds = formatSeconds(this.spec.executionTimeout ?? 0);
    this.info(`Job ${this.spec.name} exceeded its executionTimeout of ${seconds} seconds, cancelling it...`);
    this.timedOut = true;
    void this.cancel('timeout');
  }

  private clearTimeoutTimer(): void {
    if (this.timeoutTimer) clearTimeout(this.timeoutTimer);
    this.timeoutTimer = null;
  }

  private onExit(code: number): void {
    if (this.exitMono !== null) return;
    this.exitCode = code;
    this.exitMono = this.mono();
    this.clearTimeoutTimer();
    this.resolveExited();
    if (this.terminated) this.boundDrain();
    void this.finishAfterDrain();
  }

  private async finishAfterDrain(): Promise<void> {
    await Promise.all(
      [...this.pipes.values()].map(
        (pipe) =>
          new Promise<void>((resolve) => {
            if (pipe.ended) resolve();
            else pipe.onEnded.push(resolve);
          }),
      ),
    );
    // A cancel racing the exit may still be between its SIGTERM and its SIGKILL: let it finish.
    if (this.cancelling) await this.cancelling;
    this.complete();
  }

  /** Once a cancelled run's process has exited, each stream gets a bounded time to reach EOF. */
  private boundDrain(): void {
    const limitMs = this.opts.drainAfterKillMs ?? DRAIN_AFTER_KILL_MS;
    for (const pipe of this.pipes.values()) {
      if (pipe.ended || pipe.drainTimer) continue;
      pipe.drainTimer = setTimeout(() => {
        pipe.drainTimer = null;
        if (pipe.ended) return;
        this.warn(
          `job ${this.spec.name}: ${pipe.capture.stream} did not reach end-of-file within ` +
            `${(limitMs / 1000).toFixed(1)} seconds of the job being killed; ` +
            'closing it and keeping the output captured so far',
        );
        this.pipeEnded(pipe);
        this.port?.destroy(pipe.capture.stream);
      }, clampDelay(limitMs));
    }
  }

  private withdraw(): void {
    if (!this.launching || this.completed || this.withdrawing) return;
    this.withdrawing = true;
    this.port?.withdraw?.();
  }

  private withdrawn(): void {
    if (this.completed || !this.launching) return;
    this.launching = false;
    this.resolveStarted(null);
    this.exitCode = LAUNCH_FAILURE_EXIT_CODE;
    this.exitMono = this.mono();
    this.resolveExited();
    this.complete(true, true);
  }

  cancel(reason: CancelReason): Promise<void> {
    if (this.completed || (this.pid === null && !this.launching)) return Promise.resolve();
    if (this.cancelling) return this.cancelling;
    this.terminated = true;
    this.cancelReason = reason;
    this.clearTimeoutTimer();
    // Not forked yet: take it back rather than start it only to stop it.
    if (this.launching) this.withdraw();
    // A launch still queued on a spawner process: signal the process as soon as it exists.
    this.cancelling = this.launching
      ? this.started.then((pid) => (pid === null ? undefined : this.cancelSequence()))
      : this.cancelSequence();
    return this.cancelling;
  }

  private async cancelSequence(): Promise<void> {
    const pid = this.pid!;
    const target = {
      pid,
      name: this.spec.name,
      childAlive: () => this.exitMono === null,
      warn: (message: string) => this.warn(message),
    };
    signalGroup(target, 'SIGTERM');
    if (this.exitMono !== null) this.boundDrain();
    const killTimeout =
      this.cancelReason === 'shutdown'
        ? Math.min(this.spec.killTimeout, SHUTDOWN_KILL_MS / 1000)
        : this.spec.killTimeout;
    let timer: NodeJS.Timeout | null = null;
    const graceful = await Promise.race([
      this.exited.then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), clampDelay(killTimeout * 1000));
      }),
    ]);
    if (timer) clearTimeout(timer);
    if (!graceful) {
      this.warn(
        `Job ${this.spec.name} did not gracefully terminate after ${formatSeconds(killTimeout)} seconds, killing it...`,
      );
    }
    // Unconditionally: descendants may still be alive and holding the pipes.
    signalGroup(target, 'SIGKILL');
    await this.exited;
  }

  private launchFailed(err: unknown): void {
    if (this.completed || this.exitMono !== null) return;
    this.launching = false;
    this.resolveStarted(null);
    this.startError = launchErrorMessage(err, this.spec.workingDirectory ?? null);
    this.exitCode = LAUNCH_FAILURE_EXIT_CODE;
    this.exitMono = this.mono();
    this.resolveExited();
    this.complete(true);
  }

  private complete(startFailed = false, withdrawn = false): void {
    if (this.completed) return;
    this.completed = true;
    this.clearTimeoutTimer();
    const exitCode = this.timedOut ? TIMEOUT_EXIT_CODE : (this.exitCode ?? LAUNCH_FAILURE_EXIT_CODE);
    const out = startFailed ? undefined : this.pipes.get('stdout');
    const err = startFailed ? undefined : this.pipes.get('stderr');
    const stdout = out ? out.capture.text : null;
    const stderr = err ? err.capture.text : null;
    const stdoutDiscarded = out?.capture.discarded ?? 0;
    const stderrDiscarded = err?.capture.discarded ?? 0;
    const result: RunResult = {
      exitCode,
      startFailed,
      stdout,
      stderr,
      stdoutDiscarded,
      stderrDiscarded,
      failReason: failReason(this.spec.failsWhen, {
        exitCode,
        stdout,
        stderr,
        stdoutDiscarded,
        stderrDiscarded,
      }),
      cancelReason: this.cancelReason,
      startedAt: this.startedAt,
      finishedAt: this.now(),
      durationSeconds: Math.max(0, ((this.exitMono ?? this.mono()) - this.startMono) / 1000),
      environment: this.environment,
      ring: this.ring.toArray(),
      publishedLines: this.published,
    };
    if (this.startError !== null) result.startError = this.startError;
    if (withdrawn) result.withdrawn = true;
    for (const stream of this.pipes.keys()) this.port?.destroy(stream);
    this.resolveDone(result);
  }

  private warn(message: string): void {
    const onWarning = this.opts.onWarning;
    if (onWarning) this.guard(() => onWarning(message));
  }

  private info(message: string): void {
    const onInfo = this.opts.onInfo;
    if (onInfo) this.guard(() => onInfo(message));
  }

  /** A throwing sink or subscriber must not break the reader (or crash the daemon). */
  private guard(fn: () => void): void {
    try {
      fn();
    } catch {
      // Deliberately ignored: output delivery is best effort.
    }
  }
}

function defaultSink(stream: StreamName): (text: string) => void {
  return stream === 'stdout' ? (text) => process.stdout.write(text) : (text) => process.stderr.write(text);
}

/** setTimeout treats delays beyond 2^31-1 ms as 1 ms: clamp instead. */
function clampDelay(ms: number): number {
  return Math.min(MAX_TIMER_MS, Math.max(0, ms));
}

/**
 * The launch error for the log. Node's argument-validation messages quote the offending value
 * (`... Received 'x'`), which may be an environment value: that part is cut off.
 */
function launchErrorMessage(err: unknown, workingDirectory: string | null): string {
  // Node reports a bad cwd as ENOENT of the executable: name the directory instead.
  const dirProblem = workingDirectory === null ? null : directoryProblem(workingDirectory);
  if (dirProblem) return dirProblem;
  const message = errorText(err).replace(/\.? Received [\s\S]*$/, '');
  const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : '';
  return code && !message.includes(code) ? `${message} [${code}]` : message;
}

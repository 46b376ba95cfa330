// A process layer driven by the fake clock, for testing the schedule loop without sleeping.
// Real processes are exercised by the exec and daemon integration tests.
import type { CancelReason, LaunchOptions, LaunchSpec, RunHandle, RunResult } from '../../src/exec/types.ts';
import type { FakeClock } from '../../src/util/clock.ts';

export interface Behaviour {
  durationMs?: number;
  exitCode?: number;
  stdout?: string;
}

export interface Launch {
  name: string;
  at: number;
  spec: LaunchSpec;
  opts: LaunchOptions;
  cancelled: CancelReason | null;
  finished: boolean;
}

export class FakeLauncher {
  readonly launches: Launch[] = [];
  private readonly behaviours = new Map<string, (n: number) => Behaviour>();
  /**
   * Above Linux's largest possible pid (2^22): a fake run's pid never names a real process, whose
   * /proc entry the job views would then read (a golden scrape once showed a stranger's RSS).
   */
  private pid = 4_194_304 + 1000;

  constructor(private readonly clock: FakeClock) {}

  /** Sets what the n-th (0-based) launch of a job does. */
  behave(name: string, b: Behaviour | ((n: number) => Behaviour)): void {
    this.behaviours.set(name, typeof b === 'function' ? b : () => b);
  }

  of(name: string): Launch[] {
    return this.launches.filter((l) => l.name === name);
  }

  /** Launch instants of a job, as ISO strings (readable assertions). */
  times(name: string): string[] {
    return this.of(name).map((l) => new Date(l.at).toISOString());
  }

  readonly launch = (spec: LaunchSpec, opts: LaunchOptions): RunHandle => {
    const n = this.of(spec.name).length;
    const b = this.behaviours.get(spec.name)?.(n) ?? {};
    const startedAt = this.clock.now();
    const startMono = this.clock.monotonic();
    const record: Launch = { name: spec.name, at: startedAt, spec, opts, cancelled: null, finished: false };
    this.launches.push(record);
    let resolve!: (r: RunResult) => void;
    const done = new Promise<RunResult>((r) => {
      resolve = r;
    });
    const finish = (exitCode: number, cancelReason: CancelReason | null) => {
      if (record.finished) return;
      record.finished = true;
      this.clock.clearTimer(timer);
      const stdout = spec.captureStdout ? (b.stdout ?? '') : null;
      const failReason =
        exitCode !== 0 && spec.failsWhen.nonzeroReturn
          ? `failsWhen=nonzeroReturn and retcode=${exitCode}`
          : spec.failsWhen.producesStdout && stdout
            ? 'failsWhen=producesStdout and stdout is not empty'
            : null;
      resolve({
        exitCode,
        startFailed: false,
        stdout,
        stderr: spec.captureStderr ? '' : null,
        stdoutDiscarded: 0,
        stderrDiscarded: 0,
        failReason,
        cancelReason,
        startedAt,
        finishedAt: this.clock.now(),
        durationSeconds: (this.clock.monotonic() - startMono) / 1000,
        environment: null,
        ring: [],
        publishedLines: 0,
      });
    };
    const timer = this.clock.setTimer(() => finish(b.exitCode ?? 0, null), b.durationMs ?? 0);
    return {
      pid: this.pid++,
      startedAt,
      done,
      cancel: async (reason) => {
        record.cancelled = reason;
        finish(reason === 'timeout' ? -100 : -15, reason);
      },
      liveOutput: () => ({ lines: [], published: 0 }),
    };
  };
}

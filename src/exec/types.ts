// The contract between the scheduler and process execution (spec 02 §3-§6).
import type { CommandSettings, EnvVar, RunAs } from '../config/types.ts';

/** Everything needed to launch one run of a job or DAG task. */
export interface LaunchSpec
  extends Pick<
    CommandSettings,
    | 'shell'
    | 'captureStdout'
    | 'captureStderr'
    | 'saveLimit'
    | 'maxLineLength'
    | 'streamPrefix'
    | 'failsWhen'
    | 'executionTimeout'
    | 'killTimeout'
  > {
  /** Job name, or `<dag>.<task>` for DAG tasks. */
  name: string;
  command: string | string[];
  /** `env_file` then `environment`, merged (config `effectiveEnvironment`). */
  environment: EnvVar[];
  /** True when `env_file` was set (a custom environment is built even if it added nothing). */
  hasEnvFile: boolean;
  runAs: RunAs | null;
  /** Absolute start directory (spec 09 §3.2); null/absent = the daemon's cwd. */
  workingDirectory?: string | null;
  /** Absolute nice to apply (spec 09 §3.3); null/absent = inherit the daemon's. */
  nice?: number | null;
}

export type StreamName = 'stdout' | 'stderr';

/** Why a run was cancelled (spec 02 §5.2). */
export type CancelReason = 'timeout' | 'replaced' | 'cancelled' | 'shutdown';

export interface OutputLine {
  stream: StreamName;
  line: string;
}

export interface LaunchOptions {
  /** Daemon-injected variables (CRONSTABLE_*), applied last so a job cannot shadow them. */
  injectedEnv?: Record<string, string>;
  /** The daemon's environment (default process.env). */
  baseEnv?: NodeJS.ProcessEnv;
  /** Where prefixed output lines are re-emitted (default process.stdout / process.stderr). */
  sinks?: { stdout: (text: string) => void; stderr: (text: string) => void };
  /** Live-output subscribers: every accepted captured line as it arrives. */
  onLine?: (line: OutputLine) => void;
  /** Warnings about this run (e.g. over-long lines), routed to the daemon logger. */
  onWarning?: (message: string) => void;
  /** Informational lines about this run (the executionTimeout line, spec 02 §4.7), logged at INFO. */
  onInfo?: (message: string) => void;
  /** Monotonic clock in ms (default performance.now). */
  monotonic?: () => number;
  /** Wall clock in ms (default Date.now). */
  now?: () => number;
  /** Bound on the stream drain after a kill, ms (spec: 30 s; tests shorten it). */
  drainAfterKillMs?: number;
  /** How the process is created (default: in-thread when quiet, spawner processes during bursts). */
  spawner?: Spawner;
}

/** The outcome of one process run, after exit and stream drain. */
export interface RunResult {
  /** Exit status; negative signal number; -100 on executionTimeout; 127 on launch failure. */
  exitCode: number;
  startFailed: boolean;
  /** Retained output per saveLimit (spec 02 §4.4); null when not captured or launch failed. */
  stdout: string | null;
  stderr: string | null;
  stdoutDiscarded: number;
  stderrDiscarded: number;
  /** failsWhen verdict (spec 02 §6); null = success. */
  failReason: string | null;
  /** Set when the run was cancelled (timeout, Replace, user cancel). */
  cancelReason: CancelReason | null;
  startedAt: number;
  finishedAt: number;
  /** Monotonic spawn-to-exit (or cancel) time, seconds. */
  durationSeconds: number;
  /** The environment passed to the child, or null when it simply inherited the daemon's. */
  environment: Record<string, string> | null;
  /** Most recent 1000 captured lines, and how many were published in all. */
  ring: OutputLine[];
  publishedLines: number;
  /** Launch failures only: the OS error (e.g. `spawn /nope ENOENT`), for the error log. Never env values. */
  startError?: string;
  /** Taken back before it started (RunHandle.withdraw): no process ran; exit code 127, startFailed. */
  withdrawn?: true;
}

export interface RunHandle {
  /**
   * Child pid (== its process group id); null when the launch failed, or while a launch queued
   * on a spawner process (during a burst) has not started yet: `started` tells when.
   */
  readonly pid: number | null;
  /** When the process started (the launch request until then). */
  readonly startedAt: number;
  /** Resolves with the pid once the process exists, or null when the launch failed. */
  readonly started?: Promise<number | null>;
  /** Resolves once the process exited and its streams drained. */
  readonly done: Promise<RunResult>;
  /**
   * Cancellation sequence: SIGTERM the group, wait killTimeout, SIGKILL the group.
   * Resolves when the process is gone. A no-op for a run that failed to launch.
   */
  cancel(reason: CancelReason): Promise<void>;
  /**
   * A launch still queued on a spawner process is taken back: `done` then resolves `withdrawn`. A
   * process that exists already (or is forked before the word arrives) runs on untouched.
   */
  withdraw?(): void;
  /** The live-output ring so far (oldest first) and how many lines were published in all. */
  liveOutput(): { lines: OutputLine[]; published: number };
}

/** One process to start. `env` is the complete environment of the child. */
export interface SpawnRequest {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  captureStdout: boolean;
  captureStderr: boolean;
  uid?: number;
  gid?: number;
  cwd?: string;
  nice?: number;
}

/** What a spawner reports, in order: `spawned` or `failed` first, then output, ends and `exit`. */
export interface ChildEvents {
  /**
   * The process exists. `agoMs`: how long ago it was asked for, when the report comes later than the
   * process did (the spawner process's answer is read when this thread gets to it: under a herd at :00
   * that can be after the process has ended, which would make its duration ~0).
   */
  spawned(pid: number, agoMs?: number): void;
  /** The process could not be created (ENOENT, EACCES, EPERM, invalid arguments, ...). */
  failed(err: unknown): void;
  /** A withdrawn launch was taken back before its fork (ChildPort.withdraw): nothing ran. */
  withdrawn?(): void;
  /** An error of a started process (e.g. a failed signal delivery): informational. */
  error(err: unknown): void;
  data(stream: StreamName, chunk: Uint8Array): void;
  /** The captured stream reached end-of-file, closed or failed. */
  end(stream: StreamName): void;
  exit(code: number | null, signal: NodeJS.Signals | null): void;
}

/** The spawner's side of one process: stop reading a stream (after the drain bound). */
export interface ChildPort {
  destroy(stream: StreamName): void;
  /**
   * Take back a launch that is still queued (a spawner process's backlog): answered `withdrawn`
   * when it was not forked yet, else it goes on as asked. Absent where a launch is never queued.
   */
  withdraw?(): void;
}

export type Spawner = (req: SpawnRequest, events: ChildEvents) => ChildPort;

// A small long-lived spawner process (spawner.pl) that forks on the daemon's behalf.
// Forking from the daemon costs ~3 ms of page-table copying per launch at ~100 MB RSS, and the
// copies serialize on the address space even from worker threads; from a ~4 MB process a
// fork is ~20x cheaper. spawner.ts keeps one per core during a herd (bench/RESULTS.md, "Spawn paths").
// The processes it starts are the daemon's in all that matters: their pid is reported back
// (the daemon signals their process group itself), their output and wait status are relayed.
import { type ChildProcess, spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { spawnInThread } from './child.ts';
import { envFrame } from './env-frame.ts';
import { spawnerScript } from './spawner-script.ts';
import type { ChildEvents, ChildPort, Spawner, SpawnRequest, StreamName } from './types.ts';

/** How long the spawner is kept without a live process before it exits. */
export const SPAWNER_IDLE_MS = 60_000;
const NONE = 0xffffffff;
const EMPTY = Buffer.alloc(0);
const code = (c: string) => c.charCodeAt(0);
const FRAME_P = code('P');
const FRAME_F = code('F');
const FRAME_D = code('D');
const FRAME_E = code('E');
const FRAME_X = code('X');
/** Spawn requests gathered into one write during a burst. */
const WRITE_BATCH = 16;

export interface SpawnerProcessOptions {
  /** The interpreter and its arguments (default `perl -e <spawner.pl>`). */
  command?: string[];
  idleMs?: number;
  /** Where launches go when the spawner cannot be used (default: in this thread). */
  fallback?: Spawner;
}

interface RemoteRun {
  id: number;
  req: SpawnRequest;
  events: ChildEvents;
  answered: boolean;
  exited: boolean;
  open: Set<StreamName>;
  local: ChildPort | null;
  /** performance.now() when the launch was handed to the spawner: the earliest a run can have started */
  askedAt: number;
  /** A W frame went out for it: an ECANCELED answer means it was taken back. */
  withdrawing: boolean;
}

/**
 * How long ago the P frame's process was forked. The frame is read whenever this thread gets to it,
 * with the X frame of a short run maybe in the same read, so "now" would make a herd's runs ~0 ms;
 * and the hand-over instant would count the spawner's queue, which under a herd of 500 outlasts a
 * 1 s executionTimeout before the job has run a line. The spawner stamps the fork on CLOCK_MONOTONIC
 * (process.hrtime's clock); without that stamp (no Time::HiRes) the read instant stands. Clamped to
 * the hand-over, so a clock that disagrees can never date a run before it was asked for.
 */
function forkedAgo(buf: Buffer, at: number, len: number, askedAt: number): number {
  if (len < 17) return 0;
  const sec = buf.readUInt32BE(at + 9);
  const nsec = buf.readUInt32BE(at + 13);
  if (sec === 0 && nsec === 0) return 0;
  const ago = (Number(process.hrtime.bigint()) - (sec * 1e9 + nsec)) / 1e6;
  return Math.min(Math.max(ago, 0), performance.now() - askedAt);
}

export class SpawnerProcess {
  private readonly command: string[];
  private readonly idleMs: number;
  private readonly fallback: Spawner;
  private child: ChildProcess | null = null;
  private input: Writable | null = null;
  private output: Readable | null = null;
  private readonly runs = new Map<number, RemoteRun>();
  private nextId = 1;
  private pending = 0;
  private broken = false;
  private idleTimer: NodeJS.Timeout | null = null;
  private buffered: Buffer = EMPTY;
  /** Frames written since the input was corked (0: not corked). */
  private corked = 0;
  /** The environment frame the running spawner process holds (envFrame). */
  private sentEnv: Buffer | null = null;

  constructor(opts: SpawnerProcessOptions = {}) {
    this.command = opts.command ?? ['perl', '-e', spawnerScript()];
    this.idleMs = opts.idleMs ?? SPAWNER_IDLE_MS;
    this.fallback = opts.fallback ?? spawnInThread;
  }

  /** False once the spawner failed to start or died: launches then use the fallback. */
  get usable(): boolean {
    return !this.broken;
  }

  /** Launches sent but not yet answered (spawned or failed). */
  get backlog(): number {
    return this.pending;
  }

  /** The spawner's pid while it runs (for the memory report and tests). */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  readonly spawn = (req: SpawnRequest, events: ChildEvents): ChildPort => {
    // What Node's spawn rejects synchronously is left to it, so the errors stay the same.
    const env = this.broken || !remotable(req) ? null : envFrame(req.env);
    if (env === null) return this.fallback(req, events);
    let input: Writable;
    try {
      input = this.ensureStarted();
    } catch {
      this.broken = true;
      return this.fallback(req, events);
    }
    const run: RemoteRun = {
      id: this.nextId++,
      req,
      events,
      answered: false,
      exited: false,
      open: new Set<StreamName>(),
      local: null,
      askedAt: performance.now(),
      withdrawing: false,
    };
    if (req.captureStdout) run.open.add('stdout');
    if (req.captureStderr) run.open.add('stderr');
    this.runs.set(run.id, run);
    this.pending += 1;
    this.busy();
    // The launches of one turn of the event loop go out a few at a time: one write for each
    // WRITE_BATCH of them, so the spawner starts forking while this thread still launches.
    if (this.corked === 0) {
      input.cork();
      process.nextTick(() => this.uncork(input));
    }
    // The spawner keeps the environment it was last sent: a herd of alike jobs sends it once.
    if (env !== this.sentEnv && !(this.sentEnv && env.equals(this.sentEnv))) input.write(env);
    this.sentEnv = env;
    input.write(encodeSpawn(run.id, req));
    if (++this.corked >= WRITE_BATCH) this.uncork(input);
    return {
      destroy: (stream) => {
        if (run.local) run.local.destroy(stream);
        else if (run.open.has(stream) && this.input) this.input.write(encodeClose(run.id, stream));
      },
      withdraw: () => {
        if (run.answered || run.local || run.withdrawing || !this.input) return;
        run.withdrawing = true;
        this.input.write(encodeWithdraw(run.id));
      },
    };
  };

  private uncork(input: Writable): void {
    if (this.corked === 0 || this.input !== input) return;
    this.corked = 0;
    input.uncork();
  }

  /** Stops the spawner (the processes it started keep running). */
  close(): void {
    this.input?.end();
    this.child?.unref();
  }

  private ensureStarted(): Writable {
    if (this.input) return this.input;
    const [file, ...args] = this.command;
    const child = spawn(file!, args, {
      stdio: ['inherit', 'inherit', 'inherit', 'pipe', 'pipe'],
      // A session of its own: one scheduling entity under autogroup, as each job is (spawner.ts).
      // It still ends with the daemon: its command pipe closes then.
      detached: true,
    });
    const input = child.stdio[3] as Writable | null;
    const output = child.stdio[4] as Readable | null;
    if (!input || !output) throw new Error('spawner: no pipes');
    this.child = child;
    this.input = input;
    this.sentEnv = null;
    this.corked = 0;
    this.output = output;
    input.on('error', () => this.lost(child));
    output.on('data', (chunk: Buffer) => this.onData(chunk));
    child.on('error', () => this.lost(child));
    // `close`, not `exit`: the last frames may still be in the pipe when the process is gone.
    child.on('close', () => this.lost(child));
    return input;
  }

  private onData(chunk: Buffer): void {
    const buf = this.buffered.length > 0 ? Buffer.concat([this.buffered, chunk]) : chunk;
    // Frames are read in place: a herd's answers are thousands of small frames per chunk.
    let at = 0;
    while (buf.length - at >= 4) {
      const len = buf.readUInt32BE(at);
      if (buf.length - at < 4 + len) break;
      this.onFrame(buf, at + 4, len);
      at += 4 + len;
    }
    this.buffered = at === buf.length ? EMPTY : Buffer.from(buf.subarray(at));
  }

  /** The frame of `len` bytes at `at` in `buf`. */
  private onFrame(buf: Buffer, at: number, len: number): void {
    const type = buf[at]!;
    const run = this.runs.get(buf.readUInt32BE(at + 1));
    if (!run) return;
    switch (type) {
      case FRAME_P:
        run.answered = true;
        this.pending -= 1;
        run.events.spawned(buf.readUInt32BE(at + 5), forkedAgo(buf, at, len, run.askedAt));
        break;
      case FRAME_F: {
        run.answered = true;
        this.pending -= 1;
        this.forget(run);
        const errno = buf.readUInt32BE(at + 5);
        if (run.withdrawing && errno === constants.errno.ECANCELED && run.events.withdrawn)
          run.events.withdrawn();
        else run.events.failed(spawnError(run.req.file, errno));
        break;
      }
      case FRAME_D:
        run.events.data(streamOf(buf[at + 5]!), buf.subarray(at + 6, at + len));
        break;
      case FRAME_E: {
        const stream = streamOf(buf[at + 5]!);
        run.open.delete(stream);
        run.events.end(stream);
        if (run.exited && run.open.size === 0) this.forget(run);
        break;
      }
      case FRAME_X: {
        const status = buf.readUInt32BE(at + 5);
        run.exited = true;
        const signal = status & 0x7f;
        if (signal === 0) run.events.exit((status >> 8) & 0xff, null);
        else run.events.exit(null, signalName(signal));
        if (run.open.size === 0) this.forget(run);
        break;
      }
    }
  }

  /**
   * The spawner died or never started. Unanswered launches go to the fallback; processes it had
   * started are reported as ended with an unknown status (their wait status is lost with it).
   */
  private lost(child: ChildProcess): void {
    if (this.child !== child) return;
    const expected = this.runs.size === 0 && this.input?.writableEnded === true;
    this.child = null;
    this.input = null;
    this.output = null;
    this.buffered = EMPTY;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    if (!expected) this.broken = true;
    const runs = [...this.runs.values()];
    this.runs.clear();
    this.pending = 0;
    for (const run of runs) {
      if (!run.answered && run.withdrawing && run.events.withdrawn) {
        run.events.withdrawn();
        continue;
      }
      if (!run.answered) {
        run.local = this.fallback(run.req, run.events);
        continue;
      }
      run.events.error(new Error('the spawner process exited; the exit status of this process is unknown'));
      for (const stream of run.open) run.events.end(stream);
      run.open.clear();
      if (!run.exited) run.events.exit(null, null);
    }
  }

  private forget(run: RemoteRun): void {
    this.runs.delete(run.id);
    if (this.runs.size === 0) this.idle();
  }

  /** While processes are live the spawner keeps the daemon alive, as in-thread children would. */
  private busy(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    this.child?.ref();
    refStream(this.output, true);
  }

  private idle(): void {
    this.child?.unref();
    refStream(this.output, false);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.runs.size === 0) this.input?.end();
    }, this.idleMs);
    this.idleTimer.unref();
  }
}

/** Requests Node's spawn would reject synchronously stay with it (same errors, same messages). */
function remotable(req: SpawnRequest): boolean {
  if (req.file === '' || hasNul(req.file) || req.args.some(hasNul)) return false;
  if (req.cwd !== undefined && (req.cwd === '' || hasNul(req.cwd))) return false;
  if (req.nice !== undefined && !(Number.isInteger(req.nice) && req.nice >= -20 && req.nice <= 19))
    return false;
  const id = (v: number | undefined) => v === undefined || (Number.isInteger(v) && v >= 0 && v < NONE);
  return id(req.uid) && id(req.gid);
}

function hasNul(text: string): boolean {
  return text.includes('\0');
}

/** The spawn frame (the environment goes in its own frame, envFrame). */
function encodeSpawn(id: number, req: SpawnRequest): Buffer {
  // argv[0] is the file, as Node's spawn passes it.
  let size = 1 + 4 * 3 + 1 + 4 + 4 + Buffer.byteLength(req.file, 'utf8') * 2 + 4;
  for (const s of req.args) size += 4 + Buffer.byteLength(s, 'utf8');
  size += 4 + Buffer.byteLength(req.cwd ?? '', 'utf8') + 4;
  const out = Buffer.allocUnsafe(4 + size);
  let o = out.writeUInt32BE(size, 0);
  o += out.write('S', o, 'latin1');
  o = out.writeUInt32BE(id, o);
  o = out.writeUInt32BE(req.uid ?? NONE, o);
  o = out.writeUInt32BE(req.gid ?? NONE, o);
  o = out.writeUInt8((req.captureStdout ? 1 : 0) | (req.captureStderr ? 2 : 0), o);
  const put = (s: string) => {
    const n = out.write(s, o + 4, 'utf8');
    out.writeUInt32BE(n, o);
    o += 4 + n;
  };
  put(req.file);
  o = out.writeUInt32BE(1 + req.args.length, o);
  put(req.file);
  for (const arg of req.args) put(arg);
  // Spec 09 §3: the start directory ('' = the spawner's) and the nice (+100; NONE = inherit).
  put(req.cwd ?? '');
  out.writeUInt32BE(req.nice === undefined ? NONE : req.nice + 100, o);
  return out;
}

function encodeWithdraw(id: number): Buffer {
  const out = Buffer.allocUnsafe(4 + 5);
  out.writeUInt32BE(5, 0);
  out.write('W', 4, 'latin1');
  out.writeUInt32BE(id, 5);
  return out;
}

function encodeClose(id: number, stream: StreamName): Buffer {
  const out = Buffer.allocUnsafe(4 + 6);
  out.writeUInt32BE(6, 0);
  out.write('C', 4, 'latin1');
  out.writeUInt32BE(id, 5);
  out.writeUInt8(stream === 'stdout' ? 1 : 2, 9);
  return out;
}

function streamOf(code: number): StreamName {
  return code === 1 ? 'stdout' : 'stderr';
}

const ERRNO_NAMES = new Map<number, string>(
  Object.entries(constants.errno).map(([name, num]) => [num as number, name] as [number, string]),
);
const SIGNAL_NAMES = new Map<number, NodeJS.Signals>(
  Object.entries(constants.signals).map(([name, num]) => [num as number, name as NodeJS.Signals]),
);

/** The error Node's spawn reports for the same failure (`spawn /x ENOENT`, code ENOENT). */
function spawnError(file: string, errno: number): Error {
  const code = ERRNO_NAMES.get(errno) ?? `errno ${errno}`;
  return Object.assign(new Error(`spawn ${file} ${code}`), {
    code,
    errno: -errno,
    syscall: `spawn ${file}`,
    path: file,
  });
}

function signalName(num: number): NodeJS.Signals | null {
  return SIGNAL_NAMES.get(num) ?? null;
}

function refStream(stream: Readable | null, on: boolean): void {
  const handle = stream as (Readable & { ref?: () => void; unref?: () => void }) | null;
  if (on) handle?.ref?.();
  else handle?.unref?.();
}

// A small long-lived spawner process (spawner-script.ts) that forks on the daemon's behalf.
// Forking from the daemon costs ~3 ms of page-table copying per launch at ~100 MB RSS, and the
// copies serialize on the address space even from worker threads; from a ~4 MB process a
// fork is ~20x cheaper. spawner.ts keeps one per core during a herd (figures there).
// The processes it starts are the daemon's in all that matters: their pid is reported back
// (the daemon signals their process group itself), their output and wait status are relayed.
import { type ChildProcess, spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { spawnInThread } from './child.ts';
import { SPAWNER_SCRIPT } from './spawner-script.ts';
import type { ChildEvents, ChildPort, Spawner, SpawnRequest, StreamName } from './types.ts';

/** How long the spawner is kept without a live process before it exits. */
export const SPAWNER_IDLE_MS = 60_000;
const NONE = 0xffffffff;

export interface SpawnerProcessOptions {
  /** The interpreter and its arguments (default `perl -e <script>`). */
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
  private buffered: Buffer = Buffer.alloc(0);
  private corked = false;

  constructor(opts: SpawnerProcessOptions = {}) {
    this.command = opts.command ?? ['perl', '-e', SPAWNER_SCRIPT];
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
    const frame = this.broken || !remotable(req) ? null : encodeSpawn(this.nextId, req);
    if (frame === null) return this.fallback(req, events);
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
    };
    if (req.captureStdout) run.open.add('stdout');
    if (req.captureStderr) run.open.add('stderr');
    this.runs.set(run.id, run);
    this.pending += 1;
    this.busy();
    // The launches of one turn of the event loop go out in one write (a herd: one per pacer slice).
    if (!this.corked) {
      this.corked = true;
      input.cork();
      process.nextTick(() => {
        this.corked = false;
        input.uncork();
      });
    }
    input.write(frame);
    return {
      destroy: (stream) => {
        if (run.local) run.local.destroy(stream);
        else if (run.open.has(stream) && this.input) this.input.write(encodeClose(run.id, stream));
      },
    };
  };

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
    this.output = output;
    input.on('error', () => this.lost(child));
    output.on('data', (chunk: Buffer) => this.onData(chunk));
    child.on('error', () => this.lost(child));
    // `close`, not `exit`: the last frames may still be in the pipe when the process is gone.
    child.on('close', () => this.lost(child));
    return input;
  }

  private onData(chunk: Buffer): void {
    let buf = this.buffered.length > 0 ? Buffer.concat([this.buffered, chunk]) : chunk;
    while (buf.length >= 4) {
      const len = buf.readUInt32BE(0);
      if (buf.length < 4 + len) break;
      this.onFrame(buf.subarray(4, 4 + len));
      buf = buf.subarray(4 + len);
    }
    this.buffered = buf.length > 0 ? Buffer.from(buf) : Buffer.alloc(0);
  }

  private onFrame(frame: Buffer): void {
    const type = String.fromCharCode(frame[0]!);
    const run = this.runs.get(frame.readUInt32BE(1));
    if (!run) return;
    switch (type) {
      case 'P':
        run.answered = true;
        this.pending -= 1;
        run.events.spawned(frame.readUInt32BE(5));
        break;
      case 'F':
        run.answered = true;
        this.pending -= 1;
        this.forget(run);
        run.events.failed(spawnError(run.req.file, frame.readUInt32BE(5)));
        break;
      case 'D':
        run.events.data(streamOf(frame[5]!), frame.subarray(6));
        break;
      case 'E': {
        const stream = streamOf(frame[5]!);
        run.open.delete(stream);
        run.events.end(stream);
        if (run.exited && run.open.size === 0) this.forget(run);
        break;
      }
      case 'X': {
        const status = frame.readUInt32BE(5);
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
    this.buffered = Buffer.alloc(0);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    if (!expected) this.broken = true;
    const runs = [...this.runs.values()];
    this.runs.clear();
    this.pending = 0;
    for (const run of runs) {
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
  const id = (v: number | undefined) => v === undefined || (Number.isInteger(v) && v >= 0 && v < NONE);
  return id(req.uid) && id(req.gid);
}

function hasNul(text: string): boolean {
  return text.includes('\0');
}

/** The spawn frame; null when a variable holds a NUL byte (Node's spawn rejects that itself). */
function encodeSpawn(id: number, req: SpawnRequest): Buffer | null {
  // One pass over the environment: enumerating process.env is the costly part of a launch here.
  const env: string[] = [];
  for (const key in req.env) {
    const value = req.env[key];
    if (value === undefined) continue;
    const entry = `${key}=${value}`;
    if (hasNul(entry)) return null;
    env.push(entry);
  }
  // argv[0] is the file, as Node's spawn passes it.
  const strings = [req.file, req.file, ...req.args, ...env];
  let size = 1 + 4 * 3 + 1 + 4 + 4;
  for (const s of strings) size += 4 + Buffer.byteLength(s, 'utf8');
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
  for (let i = 1; i < 2 + req.args.length; i++) put(strings[i]!);
  o = out.writeUInt32BE(env.length, o);
  for (const s of env) put(s);
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

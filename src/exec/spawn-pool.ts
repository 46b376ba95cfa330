// Spawning from worker threads. `fork` costs the calling thread time that grows with the
// daemon's memory (~3 ms at 100 MB RSS), so a burst of launches (500 jobs due the same second)
// would stall timers and the web server for seconds; from workers that time leaves the main
// thread and spreads over the cores. Workers start on first use and exit when idle.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { spawnInThread } from './child.ts';
import {
  type FromWorker,
  SPAWN_WORKER_SOURCE,
  type ToWorker,
  type WireError,
} from './spawn-worker-source.ts';
import type { ChildEvents, ChildPort, SpawnRequest, StreamName } from './types.ts';

/** How long an idle worker (no live process) is kept before it exits. */
export const SPAWN_WORKER_IDLE_MS = 30_000;

export interface SpawnPoolOptions {
  /** Worker threads at most (default: 2, or 1 on a single core). */
  size?: number;
  idleMs?: number;
}

interface PooledRun {
  id: number;
  req: SpawnRequest;
  events: ChildEvents;
  spawned: boolean;
  exited: boolean;
  open: Set<StreamName>;
  /** Set when the run fell back to spawning in this thread. */
  local: ChildPort | null;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  queue: ToWorker[];
  runs: Map<number, PooledRun>;
  /** Requests sent but not yet answered with spawned/failed. */
  backlog: number;
  idleTimer: NodeJS.Timeout | null;
}

export class SpawnPool {
  private readonly size: number;
  private readonly idleMs: number;
  private readonly slots: Slot[] = [];
  private nextId = 1;
  /** Set once a worker failed to start: this runtime cannot spawn from workers. */
  private broken = false;

  constructor(opts: SpawnPoolOptions = {}) {
    this.size = Math.max(1, opts.size ?? Math.min(2, availableParallelism()));
    this.idleMs = opts.idleMs ?? SPAWN_WORKER_IDLE_MS;
  }

  get usable(): boolean {
    return !this.broken;
  }

  /** Launches waiting for a worker's answer. */
  get backlog(): number {
    let n = 0;
    for (const slot of this.slots) n += slot.backlog;
    return n;
  }

  /** Live worker threads (for tests and the memory report). */
  get workers(): number {
    return this.slots.length;
  }

  readonly spawn = (req: SpawnRequest, events: ChildEvents): ChildPort => {
    if (this.broken) return spawnInThread(req, events);
    const run: PooledRun = {
      id: this.nextId++,
      req,
      events,
      spawned: false,
      exited: false,
      open: new Set<StreamName>(),
      local: null,
    };
    if (req.captureStdout) run.open.add('stdout');
    if (req.captureStderr) run.open.add('stderr');
    let slot: Slot;
    try {
      slot = this.pick();
    } catch {
      this.broken = true;
      return spawnInThread(req, events);
    }
    slot.runs.set(run.id, run);
    slot.backlog += 1;
    this.busy(slot);
    this.send(slot, { op: 'spawn', id: run.id, req });
    return {
      destroy: (stream) => {
        if (run.local) run.local.destroy(stream);
        else if (run.open.has(stream)) this.send(slot, { op: 'destroy', id: run.id, stream });
      },
    };
  };

  /** Terminates every worker (their processes keep running; only for shutdown and tests). */
  async close(): Promise<void> {
    const slots = this.slots.splice(0);
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  /** The worker with the shortest backlog; a new one while the pool is not full and all are busy. */
  private pick(): Slot {
    let best: Slot | undefined;
    for (const slot of this.slots) if (!best || slot.backlog < best.backlog) best = slot;
    if (best && (best.backlog === 0 || this.slots.length >= this.size)) return best;
    return this.startWorker();
  }

  private startWorker(): Slot {
    const worker = new Worker(SPAWN_WORKER_SOURCE, { eval: true, stdout: false, stderr: false });
    const slot: Slot = { worker, ready: false, queue: [], runs: new Map(), backlog: 0, idleTimer: null };
    this.slots.push(slot);
    worker.on('message', (m: FromWorker) => this.onMessage(slot, m));
    worker.on('error', () => this.lost(slot));
    worker.on('exit', () => this.lost(slot));
    return slot;
  }

  private send(slot: Slot, message: ToWorker): void {
    if (slot.ready) slot.worker.postMessage(message);
    else slot.queue.push(message);
  }

  private onMessage(slot: Slot, m: FromWorker): void {
    if (m.k === 'ready') {
      slot.ready = true;
      for (const queued of slot.queue.splice(0)) slot.worker.postMessage(queued);
      return;
    }
    const run = slot.runs.get(m.id);
    if (!run) return;
    switch (m.k) {
      case 'spawned':
        run.spawned = true;
        slot.backlog -= 1;
        run.events.spawned(m.pid);
        break;
      case 'failed':
        slot.backlog -= 1;
        this.forget(slot, run);
        run.events.failed(rehydrate(m.err));
        break;
      case 'error':
        run.events.error(rehydrate(m.err));
        break;
      case 'data':
        run.events.data(m.stream, m.chunk);
        break;
      case 'end':
        run.open.delete(m.stream);
        run.events.end(m.stream);
        if (run.exited && run.open.size === 0) this.forget(slot, run);
        break;
      case 'exit':
        run.exited = true;
        run.events.exit(m.code, m.signal);
        if (run.open.size === 0) this.forget(slot, run);
        break;
    }
  }

  /**
   * A worker died (or never started). Launches it had not answered are spawned here instead;
   * processes it had started are reported as ended with an unknown status, since their exit
   * can no longer be observed.
   */
  private lost(slot: Slot): void {
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    this.slots.splice(index, 1);
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    if (!slot.ready) this.broken = true;
    for (const run of slot.runs.values()) {
      if (!run.spawned) {
        run.local = spawnInThread(run.req, run.events);
        continue;
      }
      run.events.error(new Error('the spawn worker exited; the exit status of this process is unknown'));
      for (const stream of run.open) run.events.end(stream);
      run.open.clear();
      if (!run.exited) run.events.exit(null, null);
    }
    slot.runs.clear();
  }

  private forget(slot: Slot, run: PooledRun): void {
    slot.runs.delete(run.id);
    if (slot.runs.size === 0) this.idle(slot);
  }

  /** A worker with live processes keeps the daemon alive, like an in-thread child would. */
  private busy(slot: Slot): void {
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    slot.idleTimer = null;
    slot.worker.ref();
  }

  private idle(slot: Slot): void {
    slot.worker.unref();
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    slot.idleTimer = setTimeout(() => {
      slot.idleTimer = null;
      if (slot.runs.size > 0) return;
      const index = this.slots.indexOf(slot);
      if (index >= 0) this.slots.splice(index, 1);
      void slot.worker.terminate();
    }, this.idleMs);
    slot.idleTimer.unref();
  }
}

function rehydrate(err: WireError): Error {
  const out = new Error(err.message);
  if (err.code !== undefined) Object.assign(out, { code: err.code });
  return out;
}

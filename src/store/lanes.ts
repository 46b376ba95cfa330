// The main-thread side of one store lane worker: a worker thread owning a SQLite connection
// per lane it serves (./lane-pool.ts decides which worker a lane's calls go to), a
// request/response protocol with ids, a per-call timeout (StoreUnavailableError; the late
// answer is discarded), a bounded number of outstanding calls, and a restart after a crash.
// An idle worker goes (an isolate is ~10 MB a node not under write pressure does not need):
// after `idleMs` with no call outstanding it closes its connections and exits, and the next
// call starts a new one.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { errorText } from '../util/errors.ts';
import { type IsolateMemory, registerIsolate } from '../util/isolates.ts';
import type { LaneName, OpName } from './ops.ts';
import { deserializeError, type FromLane, type LaneWorkerData, type ToLane } from './protocol.ts';
import { StoreUnavailableError } from './types.ts';

/** The worker itself could not start (missing entry, loader...): the caller may run inline. */
export class WorkerStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkerStartError';
  }
}

/** Outstanding calls per lane before new ones are refused (the queue is bounded). */
export const MAX_PENDING = 10_000;

export interface LaneInfo {
  journalMode: string;
  version: string;
  runtime: string;
  warnings: string[];
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * Where a lane worker starts: an explicit entry (the daemon passes its bundle), else the
 * bundle this module is part of, else (running from .ts sources) lane-entry.ts through tsx's
 * loader. Node 20 does not apply `--import tsx` to a worker's own entry module, so the source
 * case boots through a tiny eval script that registers tsx first.
 */
function createWorker(entry: string | URL | undefined, data: LaneWorkerData): Worker {
  if (entry) return new Worker(entry, { workerData: data });
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(new URL(here), { workerData: data });
  const tsxApi = pathToFileURL(
    createRequire(here)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  const laneEntry = new URL('./lane-entry.ts', here).href;
  const code = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(laneEntry)}); });`;
  return new Worker(code, { eval: true, workerData: data });
}

export class LaneClient {
  private worker: Worker | null = null;
  private starting: Promise<Worker> | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;
  private idleTimer: NodeJS.Timeout | null = null;
  private readonly memoryAsks = new Map<number, (r: IsolateMemory) => void>();
  /**
   * Calls the worker was given and has not answered, by lane: a timed-out call stays here until
   * the worker answers it late (it still occupies the thread), a crash or exit clears it.
   */
  private readonly posted = new Map<number, LaneName>();
  private readonly postedPerLane: Record<LaneName, number> = { bulk: 0, lease: 0 };
  /** Told whenever a lane's last unanswered call here is answered (or the worker is gone). */
  onLaneFree: (lane: LaneName) => void = () => {};
  info: LaneInfo | null = null;
  timeouts = 0;
  /** Workers started so far (the first at open, then one per start after an idle exit or crash). */
  starts = 0;

  private constructor(
    private readonly entry: string | URL | undefined,
    private readonly data: LaneWorkerData,
    private readonly startTimeoutMs: number,
    private readonly idleMs: number,
  ) {}

  /**
   * Starts the worker and waits until its connection is open (migrations applied), so a store
   * that cannot open fails here. `idleMs` (0 = never) lets the worker exit once idle that long.
   */
  static async open(
    entry: string | URL | undefined,
    data: LaneWorkerData,
    startTimeoutMs: number,
    idleMs = 0,
  ): Promise<LaneClient> {
    const lane = new LaneClient(entry, data, startTimeoutMs, idleMs);
    await lane.ensure(data.first);
    lane.armIdle();
    return lane;
  }

  /** A client whose worker starts on its first call. */
  static later(
    entry: string | URL | undefined,
    data: LaneWorkerData,
    startTimeoutMs: number,
    idleMs = 0,
  ): LaneClient {
    return new LaneClient(entry, data, startTimeoutMs, idleMs);
  }

  /** Calls of `lane` this worker was given and has not answered yet (timed out ones included). */
  unanswered(lane: LaneName): number {
    return this.postedPerLane[lane];
  }

  private answered(id: number): void {
    const lane = this.posted.get(id);
    if (!lane) return;
    this.posted.delete(id);
    if (--this.postedPerLane[lane] === 0) this.onLaneFree(lane);
  }

  /** The worker is gone: nothing it was given will answer. */
  private forgetPosted(): void {
    this.posted.clear();
    for (const lane of ['bulk', 'lease'] as const) {
      if (this.postedPerLane[lane] === 0) continue;
      this.postedPerLane[lane] = 0;
      this.onLaneFree(lane);
    }
  }

  /** Whether a worker thread is running now (false between an idle exit and the next call). */
  get running(): boolean {
    return this.worker !== null;
  }

  /** (Re)starts the idle countdown when nothing is outstanding. */
  private armIdle(): void {
    if (this.idleMs <= 0 || this.closed || this.pending.size > 0) return;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.retire(), this.idleMs);
    this.idleTimer.unref();
  }

  /**
   * Lets an idle worker go: it closes its connection after the calls it holds (none: every
   * call it was given has answered) and exits. A call from now on starts a new worker.
   */
  private retire(): void {
    this.idleTimer = null;
    const worker = this.worker;
    if (!worker || this.closed || this.starting || this.pending.size > 0 || this.posted.size > 0) return;
    this.worker = null;
    worker.postMessage({ type: 'close' } satisfies ToLane);
  }

  /** What the worker's isolate holds (debug memory report), with the module it started on. */
  private askMemory(worker: Worker): Promise<IsolateMemory> {
    const id = this.nextId++;
    const entry = String(this.entry ?? import.meta.url);
    return new Promise((resolve) => {
      this.memoryAsks.set(id, (r) => resolve({ ...r, extra: { ...r.extra, entry } }));
      worker.postMessage({ type: 'memory', id } satisfies ToLane);
    });
  }

  private ensure(first: LaneName): Promise<Worker> {
    if (this.worker) return Promise.resolve(this.worker);
    this.starting ??= this.spawn(first).finally(() => {
      this.starting = null;
    });
    return this.starting;
  }

  private spawn(first: LaneName): Promise<Worker> {
    return new Promise<Worker>((resolve, reject) => {
      let worker: Worker;
      try {
        worker = createWorker(this.entry, { ...this.data, first });
      } catch (e) {
        reject(new WorkerStartError(`cannot start the store ${first} lane: ${errorText(e)}`));
        return;
      }
      let ready = false;
      let unregister = () => {};
      const timer = setTimeout(() => {
        void worker.terminate();
        reject(
          new StoreUnavailableError(
            `the store ${first} lane did not open ${this.data.dir} within ${this.startTimeoutMs} ms`,
          ),
        );
      }, this.startTimeoutMs);
      worker.on('message', (m: FromLane) => {
        if (m.type === 'results') {
          for (const item of m.items) {
            this.answered(item.id);
            const p = this.pending.get(item.id);
            if (!p) continue; // Timed out already: the late answer is discarded.
            this.pending.delete(item.id);
            clearTimeout(p.timer);
            if (item.ok) p.resolve(item.value);
            else p.reject(deserializeError(item.error));
          }
          this.armIdle();
        } else if (m.type === 'memory') {
          this.memoryAsks.get(m.id)?.(m.report);
          this.memoryAsks.delete(m.id);
        } else if (m.type === 'ready') {
          ready = true;
          clearTimeout(timer);
          this.info = {
            journalMode: m.journalMode,
            version: m.version,
            runtime: m.runtime,
            warnings: m.warnings,
          };
          this.worker = worker;
          this.starts++;
          worker.unref();
          unregister = registerIsolate(`store-lane#${worker.threadId}`, () => this.askMemory(worker));
          resolve(worker);
        } else if (m.type === 'failed') {
          clearTimeout(timer);
          reject(deserializeError(m.error));
          void worker.terminate();
        } else if (m.type === 'closed') void worker.terminate();
      });
      worker.on('error', (e) => {
        if (!ready) {
          clearTimeout(timer);
          reject(new WorkerStartError(`the store ${first} lane failed to start: ${e.message}`));
        } else if (this.worker === worker) this.failAll(`the store ${first} lane crashed: ${e.message}`);
      });
      worker.on('exit', (code) => {
        unregister();
        // A retired (idle) worker is no longer this.worker and held no call when it retired:
        // its exit fails and forgets nothing (calls posted since are its successor's).
        const current = this.worker === worker;
        if (current) this.worker = null;
        if (current) this.forgetPosted();
        if (!ready) {
          clearTimeout(timer);
          reject(new WorkerStartError(`the store ${first} lane exited with code ${code} before opening`));
        } else if (current && !this.closed) this.failAll(`the store ${first} lane exited with code ${code}`);
      });
    });
  }

  private failAll(message: string): void {
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      clearTimeout(p.timer);
      p.reject(new StoreUnavailableError(message));
    }
  }

  get outstanding(): number {
    return this.pending.size;
  }

  /** One call on `lane`'s connection; it times out at `deadlineMs` (epoch ms). */
  call(lane: LaneName, op: OpName, args: unknown[], nowMs: number, deadlineMs: number): Promise<unknown> {
    if (this.closed) return Promise.reject(new StoreUnavailableError('the store is closed'));
    if (this.pending.size >= MAX_PENDING)
      return Promise.reject(
        new StoreUnavailableError(`the store ${lane} lane has ${MAX_PENDING} calls queued`),
      );
    const id = this.nextId++;
    const timeoutMs = Math.max(0, deadlineMs - Date.now());
    return new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (!this.pending.delete(id)) return;
        this.timeouts++;
        reject(new StoreUnavailableError(`${op} did not answer within ${timeoutMs} ms (outcome unknown)`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.posted.set(id, lane);
      this.postedPerLane[lane]++;
      const message: ToLane = { type: 'call', id, lane, op, args, nowMs, deadlineMs };
      const send = (w: Worker) => {
        try {
          w.postMessage(message);
        } catch (e) {
          this.answered(id);
          this.rejectOne(id, `${op}: ${errorText(e)}`);
        }
      };
      if (this.worker) send(this.worker);
      else
        this.ensure(lane).then(send, (e: Error) => {
          this.answered(id);
          this.rejectOne(id, e.message);
        });
    });
  }

  private rejectOne(id: number, message: string): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    p.reject(new StoreUnavailableError(message));
  }

  /** Lets queued calls finish, closes the connection, waits for the thread (bounded). */
  async close(timeoutMs: number): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (this.starting) await this.starting.catch(() => undefined);
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ type: 'close' } satisfies ToLane);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), timeoutMs);
    });
    const how = await Promise.race([exited, late]);
    clearTimeout(timer);
    if (how === 'late') await worker.terminate();
    this.failAll('the store is closed');
    this.worker = null;
  }
}

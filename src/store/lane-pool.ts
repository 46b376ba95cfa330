// Which worker thread runs a store lane's calls (DESIGN §5: SQLite off the main thread, and
// lease calls never queued behind bulk work). Two workers, each able to serve both lanes on a
// connection per lane: the first is where calls go; the second only takes a lane whose calls
// would otherwise wait behind the other lane's. A lane's calls stay on one worker while any of
// them is unanswered (calls of a lane never overtake each other), and a worker never has both
// lanes' calls at once, so a hung call of one lane cannot hold the other. A call that finds the
// first worker busy with the other lane waits there for up to SHARE_WAIT_MS (typical calls
// answer in a millisecond or two) before it takes the second worker (started when needed).
// A node not under write pressure thus runs one isolate (~10 MB) instead of two; each worker
// exits after `idleMs` without calls (./lanes.ts).
import type { LaneClient } from './lanes.ts';
import type { LaneName, OpName } from './ops.ts';
import { StoreUnavailableError } from './types.ts';

/** How long a call waits for the first worker to finish the other lane's calls. */
export const SHARE_WAIT_MS = 100;

interface Held {
  op: OpName;
  args: unknown[];
  nowMs: number;
  deadlineMs: number;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

const other = (lane: LaneName): LaneName => (lane === 'bulk' ? 'lease' : 'bulk');

export class LanePool {
  private readonly held: Record<LaneName, Held[]> = { bulk: [], lease: [] };
  private readonly waits: Record<LaneName, NodeJS.Timeout | null> = { bulk: null, lease: null };
  private closed = false;

  constructor(
    readonly first: LaneClient,
    readonly second: LaneClient,
    private readonly shareWaitMs = SHARE_WAIT_MS,
  ) {
    for (const w of [first, second]) w.onLaneFree = (lane) => this.freed(lane);
  }

  run(lane: LaneName, op: OpName, args: unknown[], nowMs: number, timeoutMs: number): Promise<unknown> {
    if (this.closed) return Promise.reject(new StoreUnavailableError('the store is closed'));
    const deadlineMs = Date.now() + timeoutMs;
    const worker = this.held[lane].length > 0 ? null : this.pick(lane);
    if (worker) return worker.call(lane, op, args, nowMs, deadlineMs);
    return new Promise((resolve, reject) => {
      this.held[lane].push({ op, args, nowMs, deadlineMs, resolve, reject });
      this.waits[lane] ??= setTimeout(() => {
        // Answers that arrived while this thread was busy are read first (they are delivered
        // before setImmediate callbacks run): the first worker may be free by now.
        setImmediate(() => {
          if (this.held[lane].length > 0) this.flush(lane, this.pick(lane) ?? this.second);
        });
      }, this.shareWaitMs);
    });
  }

  /** Where `lane`'s next call goes now; null while the first worker runs the other lane's calls. */
  private pick(lane: LaneName): LaneClient | null {
    if (this.first.unanswered(lane) > 0) return this.first;
    if (this.second.unanswered(lane) > 0) return this.second;
    return this.first.unanswered(other(lane)) === 0 ? this.first : null;
  }

  /** A lane's last unanswered call on some worker was answered: held calls may move now. */
  private freed(lane: LaneName): void {
    const waiting = other(lane);
    if (this.held[waiting].length === 0) return;
    const worker = this.pick(waiting);
    if (worker) this.flush(waiting, worker);
  }

  /** Sends every held call of `lane`, in order, to `worker` (the second one after the wait). */
  private flush(lane: LaneName, worker: LaneClient): void {
    const wait = this.waits[lane];
    if (wait) clearTimeout(wait);
    this.waits[lane] = null;
    for (const h of this.held[lane].splice(0))
      worker.call(lane, h.op, h.args, h.nowMs, h.deadlineMs).then(h.resolve, h.reject);
  }

  timeouts(): number {
    return this.first.timeouts + this.second.timeouts;
  }

  async close(timeoutMs: number): Promise<void> {
    this.closed = true;
    for (const lane of ['bulk', 'lease'] as const) {
      const wait = this.waits[lane];
      if (wait) clearTimeout(wait);
      this.waits[lane] = null;
      // Held calls go where they would have gone: close lets queued calls finish.
      if (this.held[lane].length > 0) this.flush(lane, this.pick(lane) ?? this.second);
    }
    await Promise.all([this.first.close(timeoutMs), this.second.close(timeoutMs)]);
  }
}

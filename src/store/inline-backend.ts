// The store on the calling thread (a single-node store on a local disk, the admin CLI, tests),
// with the lanes' group commit. Every commit of a synchronous=FULL store waits for an fsync
// (~1-5 ms on a local disk, with the event loop blocked meanwhile); one per write capped a node
// at a few hundred ledger rows a second, so a burst of job ends outran it. Writes asked for in
// the same tick (before the promise callbacks queued so far have run) now share one transaction,
// each in its own savepoint (Executor.runBatch), as the lane workers' do. The batch is drained
// in a microtask, not a later macrotask: callers (and fake-clock tests) that settle promises
// between steps see their writes done. Calls still run in arrival order: a read behind queued
// writes waits for them, so it sees what was written before it was asked.
import { type Executor, nextGroupSize, type OpCall, type Outcome } from './executor.ts';
import { OPERATIONS, type OpName } from './ops.ts';

type Pending = OpCall & {
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
};

export class InlineBackend {
  private readonly queue: Pending[] = [];
  private scheduled = false;

  constructor(
    private readonly executor: Executor,
    readonly description: string,
  ) {}

  run(op: OpName, args: unknown[], nowMs: number): Promise<unknown> {
    const call: OpCall = { op, args, nowMs };
    // Nothing queued and nothing to share a commit with: a read runs now, as it always did.
    if (this.queue.length === 0 && !OPERATIONS[op].write) {
      try {
        return Promise.resolve(this.executor.run(call));
      } catch (e) {
        return Promise.reject(e);
      }
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ ...call, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        queueMicrotask(() => this.drain());
      }
    });
  }

  /** Runs everything queued, in order: runs of consecutive writes as one commit, reads alone. */
  private drain(): void {
    this.scheduled = false;
    while (this.queue.length > 0) {
      const group = this.queue.splice(0, nextGroupSize(this.queue));
      const outcomes: Outcome[] = this.executor.runBatch(group);
      group.forEach((p, i) => {
        const o = outcomes[i]!;
        if (o.ok) p.resolve(o.value);
        else p.reject(o.error);
      });
    }
  }

  timeouts(): number {
    return 0;
  }

  close(): Promise<void> {
    // A write asked for before the close is written, not dropped.
    this.drain();
    try {
      this.executor.db.close();
    } catch {
      // Already closed when its file was deleted or replaced.
    }
    return Promise.resolve();
  }
}

// Runs operations from the table in ./ops.ts against one connection: error mapping, the
// lease lane's app-level retry on SQLITE_BUSY, and group commit (consecutive writes share
// one BEGIN IMMEDIATE transaction, each inside its own savepoint).
import { errorText } from '../util/errors.ts';
import type { Database } from './driver.ts';
import { isBusyError } from './driver.ts';
import { type FileFault, type FileId, faultOf, fileIdAt, holdsStore } from './identity.ts';
import { OPERATIONS, type OpName } from './ops.ts';
import type { Ctx } from './primitives/common.ts';
import { sleepSync } from './topology.ts';
import { StoreRequestError, StoreUnavailableError } from './types.ts';

export interface OpCall {
  op: OpName;
  args: unknown[];
  /** The caller's clock at dispatch, epoch ms. */
  nowMs: number;
}

export type Outcome =
  | { ok: true; value: unknown }
  | { ok: false; error: StoreRequestError | StoreUnavailableError };

/** Largest group commit: transactions must stay tiny (a rollback-journal commit blocks readers). */
export const MAX_BATCH = 64;

/**
 * How many calls at the head of `queue` run next as one group: a run of consecutive writes (at
 * most MAX_BATCH, each accepted by `joins` beside the first) shares a commit; a read runs alone.
 */
export function nextGroupSize<T extends OpCall>(
  queue: readonly T[],
  joins: (first: T, next: T) => boolean = () => true,
): number {
  const first = queue[0];
  if (!first || !OPERATIONS[first.op].write) return 1;
  let n = 1;
  while (n < queue.length && n < MAX_BATCH && OPERATIONS[queue[n]!.op].write && joins(first, queue[n]!)) n++;
  return n;
}

export function mapError(e: unknown, op: string): StoreRequestError | StoreUnavailableError {
  if (e instanceof StoreRequestError || e instanceof StoreUnavailableError) return e;
  const message = errorText(e);
  if (isBusyError(e)) return new StoreUnavailableError(`${op}: the store is busy (${message})`);
  return new StoreUnavailableError(`${op} failed: ${message}`);
}

/** Pause between app-level retries on SQLITE_BUSY: short and jittered (no lock-step retries). */
function busySleepMs(): number {
  return 1 + Math.random() * 4;
}

export interface ExecutorOptions {
  ns: string;
  writer: string;
  /**
   * Retry SQLITE_BUSY in the app until the call's deadline (the lease lane: a short
   * busy_timeout per attempt, so one call never sits in SQLite's long backoff sleeps).
   */
  busyRetry: boolean;
  /**
   * The database file: its identity is checked before every transaction, and a deleted or
   * replaced file makes every call unavailable instead of writing to a ghost inode.
   */
  file?: string;
  /** Opens the file again once the path holds a store (restored or replaced by the operator). */
  reopen?: () => Promise<Database>;
  /** Store faults for the daemon's log: first detection, a reminder while it lasts, recovery. */
  onFault?: (level: 'error' | 'info', message: string) => void;
}

/** While the store file is gone, the fault is logged again at most this often. */
export const FAULT_REMIND_MS = 60_000;

function faultMessage(fault: FileFault, file: string): string {
  return fault === 'deleted'
    ? `the store file ${file} was deleted under the running daemon: store calls fail (onStoreUnavailable applies) until a store is put back at that path (\`cronstable state restore\`), or a restart creates a new empty one`
    : `the store file ${file} was replaced under the running daemon: writes after the replacement are refused; reopening the file now at that path`;
}

export class Executor {
  private current: Database;
  private id: FileId | null;
  /** Set while the file we opened is no longer the one at the path. */
  private lost: { fault: FileFault; message: string; remindedAt: number } | null = null;
  private reopening = false;

  constructor(
    db: Database,
    private readonly opts: ExecutorOptions,
  ) {
    this.current = db;
    this.id = opts.file ? fileIdAt(opts.file) : null;
  }

  get db(): Database {
    return this.current;
  }

  /** Throws StoreUnavailableError while the store file is not the one this connection opened. */
  private guard(): void {
    const file = this.opts.file;
    if (!file || !this.id) return;
    if (!this.lost) {
      const fault = faultOf(this.id, file);
      if (!fault) return;
      const message = faultMessage(fault, file);
      this.lost = { fault, message, remindedAt: Date.now() };
      this.opts.onFault?.('error', message);
      try {
        // No more writes to the ghost inode; SQLite's close only touches files of that inode.
        this.current.close();
      } catch {
        // Closing is best effort.
      }
    } else if (Date.now() - this.lost.remindedAt >= FAULT_REMIND_MS) {
      this.lost.remindedAt = Date.now();
      this.opts.onFault?.('error', `still unavailable: ${this.lost.message}`);
    }
    this.tryReopen(file);
    // Short: callers log it per failed call; the full story is logged once above.
    throw new StoreUnavailableError(
      `the store file ${file} is ${this.lost.fault}; calls are refused until it is back`,
    );
  }

  /** Never creates a store: reopens only when something non-empty is at the path again. */
  private tryReopen(file: string): void {
    if (this.reopening || !this.opts.reopen || !holdsStore(file)) return;
    this.reopening = true;
    this.opts.reopen().then(
      (db) => {
        this.reopening = false;
        this.current = db;
        this.id = fileIdAt(file);
        this.lost = null;
        this.opts.onFault?.('info', `the store file ${file} is back: reopened it, store calls work again`);
      },
      (e: unknown) => {
        this.reopening = false;
        if (this.lost)
          this.lost.message = `${faultMessage(this.lost.fault, file)}; reopening what is at the path failed: ${errorText(e)}`;
      },
    );
  }

  private ctx(nowMs: number): Ctx {
    return { db: this.db, ns: this.opts.ns, writer: this.opts.writer, now: nowMs / 1000 };
  }

  private invoke(call: OpCall): unknown {
    const fn = OPERATIONS[call.op].fn as (c: Ctx, ...args: unknown[]) => unknown;
    return fn(this.ctx(call.nowMs), ...call.args);
  }

  /** One op on its own (autocommit or its own transaction); throws mapped errors. */
  run(call: OpCall, deadlineMs = Number.POSITIVE_INFINITY): unknown {
    this.guard();
    for (;;) {
      try {
        return this.invoke(call);
      } catch (e) {
        if (isBusyError(e) && this.opts.busyRetry && Date.now() < deadlineMs) {
          sleepSync(busySleepMs());
          continue;
        }
        throw mapError(e, call.op);
      }
    }
  }

  settle(call: OpCall, deadlineMs?: number): Outcome {
    try {
      return { ok: true, value: this.run(call, deadlineMs) };
    } catch (e) {
      return { ok: false, error: mapError(e, call.op) };
    }
  }

  /**
   * Consecutive writes in one transaction, each in a savepoint: a caller fault (409, strict
   * read failure) rolls back only its own op. A SQLite error aborts the group; every op is
   * then run on its own so each gets its true outcome. Results exist only after COMMIT.
   */
  runBatch(calls: OpCall[], deadlineMs?: number): Outcome[] {
    if (calls.length === 1) return [this.settle(calls[0]!, deadlineMs)];
    try {
      this.guard();
    } catch (e) {
      return calls.map((call) => ({ ok: false, error: mapError(e, call.op) }));
    }
    for (;;) {
      try {
        return this.db.transaction(() =>
          calls.map((call): Outcome => {
            try {
              return { ok: true, value: this.db.transaction(() => this.invoke(call)) };
            } catch (e) {
              if (e instanceof StoreRequestError || e instanceof StoreUnavailableError)
                return { ok: false, error: e };
              throw e;
            }
          }),
        );
      } catch (e) {
        if (!isBusyError(e)) return calls.map((call) => this.settle(call, deadlineMs));
        if (this.opts.busyRetry && Date.now() < (deadlineMs ?? Number.POSITIVE_INFINITY)) {
          sleepSync(busySleepMs());
          continue;
        }
        return calls.map((call) => ({ ok: false, error: mapError(e, call.op) }));
      }
    }
  }
}

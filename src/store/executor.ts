// Runs operations from the table in ./ops.ts against one connection: error mapping, the
// lease lane's app-level retry on SQLITE_BUSY, and group commit (consecutive writes share
// one BEGIN IMMEDIATE transaction, each inside its own savepoint).
import type { Database } from './driver.ts';
import { isBusyError } from './driver.ts';
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

export function mapError(e: unknown, op: string): StoreRequestError | StoreUnavailableError {
  if (e instanceof StoreRequestError || e instanceof StoreUnavailableError) return e;
  const message = (e as Error)?.message ?? String(e);
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
}

export class Executor {
  constructor(
    readonly db: Database,
    private readonly opts: ExecutorOptions,
  ) {}

  private ctx(nowMs: number): Ctx {
    return { db: this.db, ns: this.opts.ns, writer: this.opts.writer, now: nowMs / 1000 };
  }

  private invoke(call: OpCall): unknown {
    const fn = OPERATIONS[call.op].fn as (c: Ctx, ...args: unknown[]) => unknown;
    return fn(this.ctx(call.nowMs), ...call.args);
  }

  /** One op on its own (autocommit or its own transaction); throws mapped errors. */
  run(call: OpCall, deadlineMs = Number.POSITIVE_INFINITY): unknown {
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

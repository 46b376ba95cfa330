// In-memory run records and per-slot outcomes of one job (spec 02 §11); the durable ledger
// receives the same records as `run-finished` events of the scheduler's stream.
import type { OutputLine } from '../exec/types.ts';

export type RunOutcome = 'success' | 'failure' | 'cancelled' | 'unknown';
export type RunTrigger = 'schedule' | 'retry' | 'manual' | 'reboot' | 'catchup';

export interface RunRecord {
  id: string;
  job: string;
  trigger: RunTrigger;
  /** 0 for a first run, N for the N-th retry. */
  attempt: number;
  scheduledAt: number | null;
  outcome: RunOutcome;
  exitCode: number | null;
  startedAt: number | null;
  finishedAt: number;
  durationSeconds: number | null;
  failReason: string | null;
  /** The process could not be started (exit code 127 without a process). */
  startFailed: boolean;
  stdout: string | null;
  stderr: string | null;
  /** Most recent captured lines (live tail), kept in memory only. */
  lines: OutputLine[];
  /** Lines the run ever published (absent: `lines.length`); the difference was evicted from the ring. */
  publishedLines?: number;
  /** The run's staged secret values (absent: none), for redacting output that leaves the daemon. */
  secrets?: readonly string[];
}

/** What became of one scheduled fire. */
export type SlotOutcome =
  | 'running'
  | 'succeeded'
  | 'failed'
  | 'cancelled'
  | 'cancelled:replaced'
  | 'skipped:overlap'
  | 'skipped:disabled'
  | 'skipped:gate'
  | 'skipped:only-if-last-succeeded'
  | 'skipped:already-ran-this-boot'
  /** Another node won the fire claim of this slot. */
  | 'claimed-elsewhere'
  /** A gate asked to try again later; the slot is re-admitted then. */
  | 'deferred'
  /** The node could not start it within the late-fire window (launch backlog, stall or clock jump). */
  | 'missed-overload'
  /** Due while no daemon ran it (downtime) and not run by the catch-up plan; recorded at start. */
  | 'missed'
  /**
   * DST policy notes (issue 15), each a ledger row of its own: a skipped wall time fired at the shifted
   * instant, one dropped by `dst.skipped: skip`, the second-occurrence fire of a repeated wall time. The
   * two fired kinds sit beside the slot's own run record (same scheduled_at, written first).
   */
  | 'dst-shifted'
  | 'dst-skipped'
  | 'dst-repeated';

export interface SlotRecord {
  job: string;
  scheduledAt: number;
  outcome: SlotOutcome;
  runId: string | null;
  detail: string | null;
  /**
   * How many slots this record stands for (absent: 1). A long stall drops thousands of slots; they are
   * recorded as a few single records plus one record covering the rest, from `scheduledAt` to `lastAt`.
   */
  count?: number;
  /** The last slot instant a record with `count` > 1 covers. */
  lastAt?: number;
}

export interface RunStats {
  total: number;
  success: number;
  failure: number;
  cancelled: number;
  unknown: number;
  successRate: number | null;
  avgDuration: number | null;
  minDuration: number | null;
  maxDuration: number | null;
  lastDuration: number | null;
}

class Ring<T> {
  private readonly items: T[] = [];
  constructor(private readonly capacity: number) {}
  push(item: T): void {
    this.items.push(item);
    if (this.items.length > this.capacity) this.items.shift();
  }
  list(): readonly T[] {
    return this.items;
  }
}

export const RUN_HISTORY = 50;
export const SLOT_HISTORY = 200;

export class JobHistory {
  private readonly runs = new Ring<RunRecord>(RUN_HISTORY);
  private readonly slots = new Ring<SlotRecord>(SLOT_HISTORY);

  addRun(run: RunRecord): void {
    this.runs.push(run);
  }
  addSlot(slot: SlotRecord): void {
    this.slots.push(slot);
  }
  recentRuns(): readonly RunRecord[] {
    return this.runs.list();
  }
  recentSlots(): readonly SlotRecord[] {
    return this.slots.list();
  }
  lastRun(): RunRecord | undefined {
    const all = this.runs.list();
    return all[all.length - 1];
  }

  stats(): RunStats {
    const runs = this.runs.list();
    const count = (o: RunOutcome) => runs.filter((r) => r.outcome === o).length;
    const success = count('success');
    const failure = count('failure');
    const durations = runs.map((r) => r.durationSeconds).filter((d): d is number => d !== null);
    return {
      total: runs.length,
      success,
      failure,
      cancelled: count('cancelled'),
      unknown: count('unknown'),
      successRate: success + failure > 0 ? success / (success + failure) : null,
      avgDuration: durations.length ? durations.reduce((a, b) => a + b, 0) / durations.length : null,
      minDuration: durations.length ? Math.min(...durations) : null,
      maxDuration: durations.length ? Math.max(...durations) : null,
      lastDuration: durations.length ? durations[durations.length - 1]! : null,
    };
  }
}

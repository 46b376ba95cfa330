// In-memory run records and per-slot outcomes of one job (spec 02 §11); the durable ledger
// receives the same records as `run-finished` events of the scheduler's stream.
import type { OutputLine } from '../exec/types.ts';
import type { SlotOutcome } from '../util/slot-outcomes.ts';

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

export interface SlotRecord {
  job: string;
  scheduledAt: number;
  /** What became of the fire: a word of the table of slot outcomes (src/util/slot-outcomes.ts). */
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

/**
 * A scheduled slot a runtime pause held (spec 10 §1.3): a synthetic row of `/runs` and `history`,
 * never a run: nothing started, nothing reported, and it never becomes `last_run` (§1.7 Do better).
 */
export interface SkipRow {
  job: string;
  scheduledAt: number;
  /** The instant the slot was skipped. */
  finishedAt: number;
  reason: 'paused';
}

/** Whether a timeline entry is a skipped slot (a run record has no `reason`). */
export function isSkip(r: RunRecord | SkipRow): r is SkipRow {
  return 'reason' in r;
}

/** A row of a job's history as `/runs` lists it: a run, or a skipped slot. */
export type HistoryRow = { run: RunRecord } | { skip: SkipRow };

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
  /** Older items go under the ones held; the newest `capacity` of all stay. */
  putUnder(older: readonly T[]): void {
    this.items.unshift(...older);
    if (this.items.length > this.capacity) this.items.splice(0, this.items.length - this.capacity);
  }
}

export const RUN_HISTORY = 50;
export const SLOT_HISTORY = 200;

export class JobHistory {
  private readonly runs = new Ring<RunRecord>(RUN_HISTORY);
  private readonly slots = new Ring<SlotRecord>(SLOT_HISTORY);
  private readonly skips = new Ring<SkipRow>(RUN_HISTORY);

  addRun(run: RunRecord): void {
    this.runs.push(run);
  }
  /**
   * Runs and pause skips from the ledger (oldest first), below any this process already recorded.
   * A skip is one slot's: a slot this process skipped too is not listed twice.
   */
  restore(runs: readonly RunRecord[], skips: readonly SkipRow[] = []): void {
    const held = new Set(this.runs.list().map((r) => r.id));
    this.runs.putUnder(runs.filter((r) => !held.has(r.id)));
    const heldSlots = new Set(this.skips.list().map((s) => s.scheduledAt));
    this.skips.putUnder(skips.filter((s) => !heldSlots.has(s.scheduledAt)));
  }
  addSkip(skip: SkipRow): void {
    this.skips.push(skip);
  }
  /**
   * Runs and skipped slots as one list, oldest first by the instant each ended (all of both rings:
   * up to twice RUN_HISTORY). The runs ring itself while there is no skip, so no allocation.
   */
  timeline(): readonly (RunRecord | SkipRow)[] {
    const runs = this.runs.list();
    const skips = this.skips.list();
    if (skips.length === 0) return runs;
    const out: (RunRecord | SkipRow)[] = [];
    let i = 0;
    let j = 0;
    while (i < runs.length || j < skips.length) {
      if (j >= skips.length || (i < runs.length && runs[i]!.finishedAt <= skips[j]!.finishedAt))
        out.push(runs[i++]!);
      else out.push(skips[j++]!);
    }
    return out;
  }
  /** Runs and skipped slots, oldest first by the instant each ended; the newest RUN_HISTORY of both. */
  recentRows(): HistoryRow[] {
    const all = this.timeline();
    return all.slice(-RUN_HISTORY).map((r) => (isSkip(r) ? { skip: r } : { run: r }));
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

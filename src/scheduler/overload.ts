// Overload bookkeeping (issue 14 item 9): slots the node could not start are recorded compactly
// as `missed-overload`, counted, and turn the node's overload flag on for a while.
import type { Clock } from '../util/clock.ts';
import type { Logger } from '../util/log.ts';
import type { SlotRecord } from './history.ts';
import { compactMissed } from './missed.ts';
import type { OverloadStatus } from './view.ts';

/** The node reads as overloaded for this long after it last dropped a fire. */
export const OVERLOAD_HOLD_MS = 60_000;
/** ...or while a launch has been waiting for its turn this long. */
export const OVERLOAD_LAG_MS = 2_000;

export class OverloadTracker {
  private missedFires = 0;
  private lastMissedAt: number | null = null;

  constructor(
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  /**
   * The slot records for `instants` (ascending) of `job` that will not run; the caller adds them
   * to the job's history and emits them. `atLeast` marks a capped count.
   */
  missed(job: string, instants: readonly number[], atLeast: boolean, why: string): SlotRecord[] {
    if (instants.length === 0) return [];
    const records = compactMissed(job, instants, atLeast, why);
    const total = records.reduce((n, r) => n + (r.count ?? 1), 0);
    this.missedFires += total;
    this.lastMissedAt = this.clock.now();
    this.log.warning(
      `Job ${job}: ${atLeast ? 'at least ' : ''}${total} fire(s) missed (missed-overload) from ${new Date(instants[0]!).toISOString()}: ${why}`,
    );
    return records;
  }

  /** Whether the node keeps up with its schedule, given the pacer's queue. */
  status(pacer: { lagMs(now: number): number; readonly waiting: number }): OverloadStatus {
    const now = this.clock.now();
    const lagMs = pacer.lagMs(now);
    const recent = this.lastMissedAt !== null && now - this.lastMissedAt < OVERLOAD_HOLD_MS;
    return {
      overloaded: recent || lagMs >= OVERLOAD_LAG_MS,
      missedFires: this.missedFires,
      lastMissedAt: this.lastMissedAt,
      waitingLaunches: pacer.waiting,
      launchLagMs: lagMs,
    };
  }
}

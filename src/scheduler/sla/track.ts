// What the SLA monitor remembers of one job between passes (spec 09 §2.3-§2.5), and how the
// scheduler's events move it. Pure data and pure updates: the monitor (monitor.ts) feeds events
// and the clock in, the planner (plan.ts) reads it. Nothing here is persisted: the monitor lives
// and dies with the daemon.
import type { SlaCheck } from '../../config/sla.ts';
import type { SlotOutcome } from '../../util/slot-outcomes.ts';

/** At most this many banked disabled/paused windows per job (the oldest go first). */
export const MAX_CREDIT_WINDOWS = 64;

export interface JobTrack {
  /** When this process first saw the job (start or the reload that added it); "now" while disabled. */
  firstSeen: number;
  /** The newest success this process saw finish (never moved backward). */
  lastSuccess: number | null;
  /**
   * With a store and no success in the ledger's newest rows read at boot: the oldest finish among them
   * (§2.4 step 2), the reference while no success is known; null until read, or with none.
   */
  ledgerOldest: number | null;
  /** The newest due slot recorded on the owning node; null once excused or with none. */
  due: number | null;
  /** The newest launch of any kind (even one that failed to spawn). */
  lastLaunch: number | null;
  /** Start instants of this node's running instances, by run id. */
  readonly running: Map<string, number>;
  /** Since when the job has been disabled or paused (seen by a pass or a reload); null while active. */
  inactiveSince: number | null;
  /** Banked [start, end] windows the job spent disabled or paused, oldest first. */
  credit: [number, number][];
  /** One latch per breached check: when the breach was first seen. */
  readonly latches: Map<SlaCheck, number>;
  /** Breaches counted per check since start; a key exists once the check was evaluated. */
  readonly breaches: Map<SlaCheck, number>;
}

export function newTrack(now: number): JobTrack {
  return {
    firstSeen: now,
    lastSuccess: null,
    ledgerOldest: null,
    due: null,
    lastLaunch: null,
    running: new Map(),
    inactiveSince: null,
    credit: [],
    latches: new Map(),
    breaches: new Map(),
  };
}

/**
 * Slot outcomes that excuse a recorded due slot (§2.3): Forbid's overlap skip, a slot another
 * node claimed or holds, the job no longer ours. `onlyIfLastSucceeded` skips and store denials
 * do not excuse (the slot stays owed).
 */
export function excusesDue(outcome: SlotOutcome, detail: string | null): boolean {
  if (outcome === 'skipped:overlap' || outcome === 'claimed-elsewhere' || outcome === 'no-quorum')
    return true;
  if (outcome === 'skipped:gate') return !/state store unavailable/.test(detail ?? '');
  return false;
}

export function recordSuccess(t: JobTrack, finishedAt: number): void {
  if (t.lastSuccess === null || finishedAt > t.lastSuccess) t.lastSuccess = finishedAt;
}

/** The job went inactive (disabled or paused) at `now`: its first-seen instant follows now. */
export function markInactive(t: JobTrack, now: number): void {
  t.inactiveSince ??= now;
  t.firstSeen = now;
}

/** The job is active again: the inactive span is banked as credit (§2.4 step 4). */
export function markActive(t: JobTrack, now: number): void {
  if (t.inactiveSince === null) return;
  if (now > t.inactiveSince) t.credit.push([t.inactiveSince, now]);
  if (t.credit.length > MAX_CREDIT_WINDOWS) t.credit.splice(0, t.credit.length - MAX_CREDIT_WINDOWS);
  t.inactiveSince = null;
}

/**
 * Seconds of banked credit inside [reference, now], windows merged so an overlap counts once.
 * Windows that ended before the reference are dropped for good.
 */
export function creditWithin(t: JobTrack, reference: number, now: number): number {
  if (t.credit.length === 0) return 0;
  t.credit = t.credit.filter(([, end]) => end > reference);
  const clipped = t.credit
    .map(([s, e]): [number, number] => [Math.max(s, reference), Math.min(e, now)])
    .filter(([s, e]) => e > s)
    .sort((a, b) => a[0] - b[0]);
  let total = 0;
  let curStart = Number.NEGATIVE_INFINITY;
  let curEnd = Number.NEGATIVE_INFINITY;
  for (const [s, e] of clipped) {
    if (s > curEnd) {
      if (curEnd > curStart) total += curEnd - curStart;
      curStart = s;
      curEnd = e;
    } else if (e > curEnd) curEnd = e;
  }
  if (curEnd > curStart) total += curEnd - curStart;
  return total / 1000;
}

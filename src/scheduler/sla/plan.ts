// The SLA planner (spec 09 §2.2-§2.5): one job's pass over its track and the facts the monitor
// reads at the pass's instant, returning what changed. Pure apart from updating the track it is
// given; no clock, no I/O: the monitor passes `now` in and turns transitions into logs, reports
// and metrics.
import { checkNameOf, SLA_KEYS, type SlaCheck, type SlaKey, type SlaThresholds } from '../../config/sla.ts';
import { creditWithin, type JobTrack, markActive, markInactive } from './track.ts';

/** What the pass reads of a job at its instant, beside the track. */
export interface JobFacts {
  sla: SlaThresholds;
  enabled: boolean;
  paused: boolean;
  /** Owned by this node now (leader election, spread ownership, clusterPolicy). */
  owned: boolean;
  /** The newest success in the run history (rehydrated from the store included), if any. */
  historySuccess: number | null;
  /** With a store and no success anywhere: the oldest finish the history holds (§2.4 step 2). */
  historyOldest: number | null;
}

export interface Observation {
  check: SlaCheck;
  thresholdSeconds: number;
  observedSeconds: number;
  breached: boolean;
}

export type Transition =
  | ({ kind: 'breach'; since: number; lastSuccessAt: number | null } & Observation)
  | ({ kind: 'recover' } & Observation);

/** The staleness reference (§2.4) and whether it is a real success (`last_success_at`). */
export function stalenessReference(t: JobTrack, f: JobFacts): { at: number; success: boolean } {
  const live = t.lastSuccess;
  const hist = f.historySuccess;
  if (live !== null || hist !== null) return { at: Math.max(live ?? hist!, hist ?? live!), success: true };
  if (f.historyOldest !== null) return { at: f.historyOldest, success: false };
  return { at: t.firstSeen, success: false };
}

function referenceAt(t: JobTrack, f: JobFacts): number {
  const live = t.lastSuccess;
  const hist = f.historySuccess;
  if (live !== null) return hist !== null && hist > live ? hist : live;
  if (hist !== null) return hist;
  return f.historyOldest ?? t.firstSeen;
}

function observe(t: JobTrack, f: JobFacts, key: SlaKey, now: number): number {
  if (key === 'maxTimeSinceSuccessSeconds') {
    const ref = referenceAt(t, f);
    return (now - ref) / 1000 - creditWithin(t, ref, now);
  }
  if (key === 'lateAfterSeconds') return t.due === null ? 0 : (now - t.due) / 1000;
  let longest = 0;
  for (const start of t.running.values()) longest = Math.max(longest, (now - start) / 1000);
  return longest;
}

function breachedNow(t: JobTrack, key: SlaKey, observed: number, threshold: number): boolean {
  if (!(observed > threshold)) return false;
  if (key !== 'lateAfterSeconds') return true;
  // A late slot needs no launch at or after it and nothing running now.
  return !(t.lastLaunch !== null && t.due !== null && t.lastLaunch >= t.due) && t.running.size === 0;
}

/** The configured checks at `now`, in the spec's order, without touching the latches. */
export function observations(t: JobTrack, f: JobFacts, now: number): Observation[] {
  const out: Observation[] = [];
  for (const key of SLA_KEYS) {
    const threshold = f.sla[key];
    if (threshold == null) continue;
    const observed = observe(t, f, key, now);
    out.push({
      check: checkNameOf(key),
      thresholdSeconds: threshold,
      observedSeconds: observed,
      breached: breachedNow(t, key, observed, threshold),
    });
  }
  return out;
}

/**
 * One job's pass (§2.2, §2.5): excusals drop latches silently; otherwise every configured check
 * is evaluated, latched on entry (counted once) and released on recovery. Allocates only for a
 * transition: it runs for every job once a minute (the benchmark's budget is 1 ms for 3,000 jobs).
 */
export function passJob(t: JobTrack, f: JobFacts, now: number): Transition[] {
  const active = f.enabled && !f.paused;
  if (!active) markInactive(t, now);
  else if (t.inactiveSince !== null) markActive(t, now);
  const sla = f.sla;
  const configured =
    sla.maxTimeSinceSuccessSeconds != null || sla.lateAfterSeconds != null || sla.maxRuntimeSeconds != null;
  if (!configured || !active || !f.owned) {
    if (t.latches.size > 0) t.latches.clear();
    if (!f.owned) t.due = null;
    return NONE;
  }
  let out: Transition[] = NONE;
  for (const key of SLA_KEYS) {
    const threshold = sla[key];
    const check = checkNameOf(key);
    if (threshold == null) {
      // A check a reload removed loses its latch.
      t.latches.delete(check);
      continue;
    }
    const observed = observe(t, f, key, now);
    const breached = breachedNow(t, key, observed, threshold);
    const count = t.breaches.get(check);
    if (count === undefined) t.breaches.set(check, 0);
    const since = t.latches.get(check);
    if (breached === (since !== undefined)) continue;
    const o: Observation = { check, thresholdSeconds: threshold, observedSeconds: observed, breached };
    if (out === NONE) out = [];
    if (breached) {
      t.latches.set(check, now);
      t.breaches.set(check, (count ?? 0) + 1);
      const ref = stalenessReference(t, f);
      out.push({ kind: 'breach', since: now, lastSuccessAt: ref.success ? ref.at : null, ...o });
    } else {
      t.latches.delete(check);
      out.push({ kind: 'recover', ...o });
    }
  }
  return out;
}

/** The shared empty answer of a pass that changed nothing (never mutated). */
const NONE: Transition[] = [];

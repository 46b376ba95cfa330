// Per-job DST policy (issue 15): which occurrence of a repeated wall time fires, and whether a skipped
// wall time fires at its shifted instant or not at all. The default policy (first / shift) is spec 01
// §5.8 and runs the unchanged search in search.ts; only the other policies come through here.
import type { CivilResolution, ZoneInfo } from './zone.ts';

export interface DstPolicy {
  /** A repeated (fall-back) wall time fires on its first occurrence, its last, or both. */
  repeated: 'first' | 'last' | 'both';
  /** A skipped (spring-forward) wall time fires at the shifted instant, or is dropped. */
  skipped: 'shift' | 'skip';
}

export const DEFAULT_DST_POLICY: DstPolicy = Object.freeze({ repeated: 'first', skipped: 'shift' });

export const DST_REPEATED_VALUES = ['first', 'last', 'both'] as const;
export const DST_SKIPPED_VALUES = ['shift', 'skip'] as const;

/** True when the policy is spec 01's behaviour (or absent): the search takes its original path. */
export function isDefaultDstPolicy(p: DstPolicy | undefined): boolean {
  return p === undefined || (p.repeated === 'first' && p.skipped === 'shift');
}

const DAY_MS = 86_400_000;
/** Farther than any offset jump (the largest, Samoa 2011, was a whole day) plus a margin. */
export const TRANSITION_REACH_MS = DAY_MS + 2 * 3_600_000;

export type { CivilResolution } from './zone.ts';

/** Both occurrences of a civil time (the fold=0 / fold=1 pair of spec 01 §5.8). */
export function resolveCivil(z: ZoneInfo, t0: number): CivilResolution {
  return z.civil(t0);
}

/** The earliest instant > after that label `m` (civil seconds) fires at under the policy, or null. */
export function fireOfLabel(
  z: ZoneInfo,
  m: number,
  after: number,
  p: DstPolicy,
): { at: number; gap: boolean } | null {
  const r = resolveCivil(z, m * 1000);
  if (r.kind === 'gap') return p.skipped === 'skip' || r.first <= after ? null : { at: r.first, gap: true };
  if (r.kind === 'normal') return r.first > after ? { at: r.first, gap: false } : null;
  if (p.repeated !== 'last' && r.first > after) return { at: r.first, gap: false };
  if (p.repeated !== 'first' && r.last > after) return { at: r.last, gap: false };
  return null;
}

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
/** The accepted words of each policy field: the config schema, the CLI and the web API all check against it. */
export const DST_VALUES = { repeated: DST_REPEATED_VALUES, skipped: DST_SKIPPED_VALUES } as const;

/**
 * A policy from the texts of its two fields (an absent or empty one keeps `base`'s), or the error for the first
 * bad one. `label` names a field as the caller's user spells it (`--dst-repeated value`, `dst_repeated`):
 * `invalid <label> '<text>': expected one of …`. The one check behind `next --dst-*` and `?dst_*=`.
 */
export function dstPolicyOf(
  texts: { repeated?: string | undefined; skipped?: string | undefined },
  base: DstPolicy,
  label: (field: keyof DstPolicy) => string,
): DstPolicy | { error: string } {
  const out: DstPolicy = { ...base };
  for (const field of ['repeated', 'skipped'] as const) {
    const text = texts[field];
    if (text === undefined || text === '') continue;
    const allowed: readonly string[] = DST_VALUES[field];
    if (!allowed.includes(text))
      return { error: `invalid ${label(field)} '${text}': expected one of ${allowed.join(', ')}` };
    (out as Record<keyof DstPolicy, string>)[field] = text;
  }
  return out;
}

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

// What a job's DST policy did to a slot (issue 15), for the ledger: `dst-shifted` (a wall time the
// spring-forward skipped, fired at the shifted instant), `dst-repeated` (the fire on a repeated wall
// time's second occurrence) and `dst-skipped` (a slot `dst.skipped: skip` dropped). Pure.
import {
  type CronSchedule,
  type DstPolicy,
  type Frame,
  frameName,
  frameZone,
  matchesInstant,
  nextFire,
  resolveCivil,
} from '../schedule/index.ts';

export interface DstNote {
  outcome: 'dst-shifted' | 'dst-repeated' | 'dst-skipped';
  /** The fire instant (shifted / repeated), or the instant `shift` would have fired (skipped). */
  at: number;
  detail: string;
}

/** The note of a fire at `at`, or null when it is an ordinary fire. Zone frames only. */
export function dstNoteOf(s: CronSchedule, frame: Frame, p: DstPolicy, at: number): DstNote | null {
  const zone = frameName(frame);
  // A fire whose own wall time does not match came from a skipped wall time.
  if (!matchesInstant(s, frame, at))
    return {
      outcome: 'dst-shifted',
      at,
      detail: `the scheduled wall time did not exist in ${zone} (clocks went forward); fired at the shifted instant (dst.skipped: shift)`,
    };
  if (p.repeated === 'first') return null;
  const z = frameZone(frame);
  const label = Math.floor(z.render(at) / 1000) * 1000;
  const r = resolveCivil(z, label);
  if (r.kind === 'repeated' && r.last === Math.floor(at / 1000) * 1000)
    return {
      outcome: 'dst-repeated',
      at,
      detail: `second occurrence of a wall time repeated in ${zone} (clocks went back); dst.repeated: ${p.repeated}`,
    };
  return null;
}

/** How far past a wall time `shift` can move it: longer than any zone's clock jump. */
const SHIFT_REACH_MS = 3 * 3_600_000;

/**
 * The slots `dst.skipped: skip` drops after `after`: the instants where `shift` fires a wall time
 * that does not exist (a shifted fire matches no wall time of the schedule). Scans `shift`'s fires
 * through `until`, then past it only while they stay shifted: in a half-hour-gap zone a shifted
 * fire can land after the next real one.
 */
export function dstSkippedInstants(
  s: CronSchedule,
  frame: Frame,
  p: DstPolicy,
  after: number,
  until: number,
): DstNote[] {
  const shift: DstPolicy = { repeated: p.repeated, skipped: 'shift' };
  const out: DstNote[] = [];
  for (let t = nextFire(s, frame, after, shift); t !== null; t = nextFire(s, frame, t, shift)) {
    const shifted = !matchesInstant(s, frame, t);
    if (shifted)
      out.push({
        outcome: 'dst-skipped',
        at: t,
        detail: `the scheduled wall time did not exist in ${frameName(frame)} (clocks went forward); not run (dst.skipped: skip)`,
      });
    if (t > until && (!shifted || t > until + SHIFT_REACH_MS)) break;
  }
  return out;
}

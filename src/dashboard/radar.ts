// ⌁ radar (spec 06 §9.2): the soonest next fire of each enabled job, and every fire of the next ten minutes on a
// track. Pure: the browser hands in the jobs compiled by the bundled engine and the clock.
import { type CompiledJob, nextFireOf, nextFiresOf } from './engine.ts';
import { hueOf } from './week.ts';

export const RADAR_COUNT = 8;
export const RADAR_WINDOW_MS = 10 * 60_000;
/** Markers per job on the track: a per-second job would otherwise draw 600 of them. */
export const TRACK_PER_JOB = 120;

export interface RadarJob {
  name: string;
  enabled: boolean;
  compiled: CompiledJob;
}

export interface RadarFire {
  name: string;
  /** epoch ms */
  at: number;
  hue: number;
  /** the job has a seconds field: countdowns keep second resolution */
  seconds: boolean;
}

export interface Radar {
  /** The soonest next fire of each job, soonest first (ties by name), at most `count`. */
  next: RadarFire[];
  /** Every fire in (now, now + window], capped per job, in time order. */
  track: RadarFire[];
  /** Fires in the window per job, before the cap (for the "+N" labels). */
  windowFires: Map<string, number>;
  /** Enabled jobs with a computable next fire. */
  scheduled: number;
}

export function buildRadar(
  jobs: readonly RadarJob[],
  now: number,
  opts: { count?: number; windowMs?: number; perJob?: number } = {},
): Radar {
  const count = opts.count ?? RADAR_COUNT;
  const windowMs = opts.windowMs ?? RADAR_WINDOW_MS;
  const perJob = opts.perJob ?? TRACK_PER_JOB;
  const next: RadarFire[] = [];
  const track: RadarFire[] = [];
  const windowFires = new Map<string, number>();
  for (const j of jobs) {
    if (!j.enabled) continue;
    const first = nextFireOf(j.compiled, now);
    if (first === null) continue;
    const fire = { name: j.name, hue: hueOf(j.name), seconds: j.compiled.hasSeconds };
    next.push({ ...fire, at: first });
    if (first > now + windowMs) continue;
    // One more than the cap tells whether the job has fires beyond it.
    const fires = nextFiresOf(j.compiled, now, perJob + 1).filter((t) => t <= now + windowMs);
    windowFires.set(j.name, fires.length > perJob ? countInWindow(j.compiled, now, windowMs) : fires.length);
    for (const at of fires.slice(0, perJob)) track.push({ ...fire, at });
  }
  const byTime = (a: RadarFire, b: RadarFire): number => a.at - b.at || (a.name < b.name ? -1 : 1);
  next.sort(byTime);
  track.sort(byTime);
  return { next: next.slice(0, count), track, windowFires, scheduled: next.length };
}

function countInWindow(c: CompiledJob, now: number, windowMs: number): number {
  // A 10-minute window holds at most 600 per-second fires.
  return nextFiresOf(c, now, 601).filter((t) => t <= now + windowMs).length;
}

/** Position (0..1) of an instant on the track. */
export function trackPosition(at: number, now: number, windowMs = RADAR_WINDOW_MS): number {
  return Math.max(0, Math.min(1, (at - now) / windowMs));
}

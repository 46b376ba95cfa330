// The live tab title (spec 10 §5.1): a few short frames about the worst condition the dashboard sees, one shown
// at a time so a background tab still says what is wrong. Pure: the browser hook feeds it the last poll and
// writes `document.title` when the answer changes.
import { jobStatus } from './status.ts';
import type { ApiJob } from './types.ts';

/** How long each frame stays in the title before the next one (ms). */
export const FRAME_MS = 4000;

/** What the title is made from: the last `/jobs` answer and the state of the polls. */
export interface TitleInput {
  /** the last `/jobs` answer; null before the first */
  jobs: readonly ApiJob[] | null;
  /** epoch ms of that answer (`scheduled_in` counts from it) */
  fetchedAt: number;
  /** the last poll failed */
  pollFailed: boolean;
  /** the cluster alert's one-line reason, or null when the cluster is fine (or absent) */
  clusterAlert: string | null;
  /** when the dashboard first saw each running job running (epoch ms) */
  runningSince: ReadonlyMap<string, number>;
  now: number;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A run's age in the title: `42s`, `3m`, `2h` (whole units, rounded down). */
export function titleElapsed(ms: number): string {
  const t = Math.max(0, ms);
  if (t < MINUTE) return `${Math.floor(t / SECOND)}s`;
  if (t < HOUR) return `${Math.floor(t / MINUTE)}m`;
  return `${Math.floor(t / HOUR)}h`;
}

/** How far off the next fire is: minutes rounded up (at least 1) under an hour, then whole hours, then days. */
export function titleIn(ms: number): string {
  if (ms < HOUR) return `${Math.max(1, Math.ceil(ms / MINUTE))}m`;
  if (ms < DAY) return `${Math.floor(ms / HOUR)}h`;
  return `${Math.floor(ms / DAY)}d`;
}

/** The job that fires next, ignoring disabled, paused and running jobs; null when none has a next fire. */
export function nextFire(
  jobs: readonly ApiJob[],
  fetchedAt: number,
  now: number,
): { name: string; inMs: number } | null {
  let best: { name: string; inMs: number } | null = null;
  for (const j of jobs) {
    if (!j.enabled || j.paused || j.running || j.scheduled_in === null) continue;
    const inMs = fetchedAt + j.scheduled_in * SECOND - now;
    if (best === null || inMs < best.inMs) best = { name: j.name, inMs };
  }
  return best;
}

/**
 * Updates the first-seen times of running jobs: a job that starts running gets `now`, one that stopped is
 * forgotten. Returns the same map when nothing changed, so a caller can skip a re-render.
 */
export function trackRunning(
  prev: ReadonlyMap<string, number>,
  jobs: readonly ApiJob[],
  now: number,
): ReadonlyMap<string, number> {
  const running = jobs.filter((j) => j.running).map((j) => j.name);
  if (running.length === prev.size && running.every((n) => prev.has(n))) return prev;
  return new Map(running.map((n) => [n, prev.get(n) ?? now]));
}

/** The frames of the worst condition, in the order they rotate; empty before the first answer (static title). */
export function titleFrames(input: TitleInput): string[] {
  if (input.pollFailed) return ['no signal'];
  if (input.clusterAlert !== null) return ['cluster alert', input.clusterAlert];
  const jobs = input.jobs;
  if (jobs === null) return [];
  const failing = jobs.filter((j) => jobStatus(j) === 'failed').map((j) => `${j.name} failing`);
  if (failing.length === 1) return failing;
  if (failing.length > 1) return [`${failing.length} jobs failing`, ...failing];
  const running = jobs
    .filter((j) => j.running)
    .map((j) => {
      const since = input.runningSince.get(j.name) ?? input.now;
      return `${j.name} running · ${titleElapsed(input.now - since)}`;
    });
  if (running.length === 1) return running;
  if (running.length > 1) return [`${running.length} running`, ...running];
  const frames = [okFrame(jobs)];
  const next = nextFire(jobs, input.fetchedAt, input.now);
  if (next !== null) frames.push(`next: ${next.name} in ${titleIn(next.inMs)}`);
  return frames;
}

function okFrame(jobs: readonly ApiJob[]): string {
  if (jobs.length === 0) return 'no jobs';
  const ok = jobs.filter((j) => jobStatus(j) === 'ok').length;
  if (ok === jobs.length) return `${ok} ok`;
  if (ok === 0) return `${jobs.length} jobs`;
  return `${ok}/${jobs.length} ok`;
}

/** The brand after the frame: the cluster node's name when it has one, else `cronstable`. */
export function titleBrand(nodeName: string | null | undefined): string {
  return nodeName ? nodeName : 'cronstable';
}

/**
 * The title at rotation step `step` (one step every FRAME_MS): that frame, then the brand; just the brand with no
 * frames.
 */
export function tabTitle(frames: readonly string[], brand: string, step: number): string {
  if (frames.length === 0) return brand;
  const frame = frames[step % frames.length]!;
  return `${frame} · ${brand}`;
}

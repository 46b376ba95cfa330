// The multi-tail's bookkeeping (spec 06 §9.2): which jobs are tailed (at most four streams), the presets, the
// per-job prefix, the merged line buffer, and when a finished stream re-attaches to the job's next run.
import { jobStatus } from './status.ts';
import type { ApiJob } from './types.ts';

export const MAX_TAILS = 4;
export const MAX_TAIL_LINES = 4000;

/** Adds names to the tailed set (no duplicates, in order); the ones past the cap come back as `dropped`. */
export function addTails(
  current: readonly string[],
  add: readonly string[],
  max: number = MAX_TAILS,
): { names: string[]; dropped: string[] } {
  const names = [...current];
  const dropped: string[] = [];
  for (const n of add) {
    if (names.includes(n)) continue;
    if (names.length >= max) dropped.push(n);
    else names.push(n);
  }
  return { names, dropped };
}

/** Preset `+failing` (last run failed) or `+running`, in the table's name order. */
export function presetNames(jobs: readonly ApiJob[], preset: 'failing' | 'running'): string[] {
  const want = preset === 'failing' ? 'failed' : 'running';
  return jobs
    .filter((j) => jobStatus(j) === want)
    .map((j) => j.name)
    .sort((a, b) => a.localeCompare(b));
}

/** `name` padded (or cut with `…`) to the width of the longest tailed name, capped. */
export function tailPrefix(name: string, names: readonly string[], cap = 22): string {
  const width = Math.min(cap, Math.max(name.length, ...names.map((n) => n.length)));
  return name.length > width ? `${name.slice(0, width - 1)}…` : name.padEnd(width, ' ');
}

/** What an open stream shows: a running instance (its pids) or a finished run (its end time). */
export interface StreamContent {
  pids: string | null;
  finishedAt: string | null;
  /** the stream followed a live run to its end: the next finish seen in the poll is that same run */
  adoptNextFinish: boolean;
}

export function contentOf(job: Pick<ApiJob, 'running' | 'pids' | 'last_run'>): StreamContent {
  return {
    pids: job.running ? job.pids.join(',') || 'running' : null,
    finishedAt: job.running ? null : (job.last_run?.finished_at ?? null),
    adoptNextFinish: false,
  };
}

/**
 * After a stream has ended: re-attach when the poll shows a new run (other pids) or a finish the stream did not
 * show; `adopt` when the finish is the very run the stream followed live (its output is already on screen).
 */
export function reattachAction(
  content: StreamContent,
  job: Pick<ApiJob, 'running' | 'pids' | 'last_run'>,
): 'reattach' | 'adopt' | 'none' {
  if (job.running) {
    const pids = job.pids.join(',') || 'running';
    return pids !== content.pids ? 'reattach' : 'none';
  }
  const finishedAt = job.last_run?.finished_at ?? null;
  if (finishedAt === null || finishedAt === content.finishedAt) return 'none';
  return content.adoptNextFinish ? 'adopt' : 'reattach';
}

// ▦ heat (spec 06 §9.2): per-job activity in 24 buckets over the last 6 h, 24 h or 7 d, from the retained runs of
// every job in one `/activity` body (spec 10 §4.4), or `/jobs/{name}/runs` one job at a time from a daemon
// without it. Pure: bucketing, levels and the fetch plan (≤ 80 jobs, refetch only what changed).

import { parseIso } from './format.ts';
import type { ApiActivity, ApiJob, Outcome } from './types.ts';

/** What a heat cell reads of a run: `/activity` rows and `/runs` entries both have it. */
export interface HeatRun {
  finished_at: string;
  outcome: string;
}

export const HEAT_WINDOWS = { '6h': 6 * 3_600_000, '24h': 24 * 3_600_000, '7d': 7 * 86_400_000 } as const;
export type HeatWindow = keyof typeof HEAT_WINDOWS;
export const HEAT_BUCKETS = 24;
export const HEAT_MAX_JOBS = 80;

export interface HeatCell {
  runs: number;
  failures: number;
  /** the worst outcome in the bucket (failure > cancelled > unknown > success), null when empty */
  worst: Outcome | null;
  /** epoch ms of the bucket's start */
  from: number;
}

const OUTCOME_RANK: Record<Outcome, number> = {
  skipped: 0,
  success: 0,
  unknown: 1,
  cancelled: 2,
  failure: 3,
};

/** Runs finished in (now - window, now], counted per bucket (oldest left); a skipped slot never ran. */
export function bucketRuns(
  runs: readonly HeatRun[],
  now: number,
  windowMs: number,
  buckets = HEAT_BUCKETS,
): HeatCell[] {
  const start = now - windowMs;
  const width = windowMs / buckets;
  const cells: HeatCell[] = Array.from({ length: buckets }, (_, i) => ({
    runs: 0,
    failures: 0,
    worst: null,
    from: start + i * width,
  }));
  for (const r of runs) {
    const at = parseIso(r.finished_at);
    // A slot a pause skipped is no run (spec 10 §1.3).
    if (at === null || at <= start || at > now || r.outcome === 'skipped' || !(r.outcome in OUTCOME_RANK))
      continue;
    const outcome = r.outcome as Outcome;
    const cell = cells[Math.min(buckets - 1, Math.floor((at - start) / width))]!;
    cell.runs++;
    if (outcome === 'failure' || outcome === 'unknown') cell.failures++;
    if (cell.worst === null || OUTCOME_RANK[outcome] > OUTCOME_RANK[cell.worst]) cell.worst = outcome;
  }
  return cells;
}

/** Intensity 0..4 of a count against the busiest cell of the grid (0 = no runs). */
export function heatLevel(runs: number, max: number): number {
  if (runs <= 0 || max <= 0) return 0;
  return Math.max(1, Math.min(4, Math.ceil((runs / max) * 4)));
}

/** The jobs the heatmap draws: enabled first, then by name, at most HEAT_MAX_JOBS. */
export function heatJobs(jobs: readonly ApiJob[], limit = HEAT_MAX_JOBS): ApiJob[] {
  return jobs
    .slice()
    .sort((a, b) => Number(b.enabled) - Number(a.enabled) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, limit);
}

/** What identifies a job's run history at a poll: a new finish means the cached runs are stale. */
export function runsSignature(job: ApiJob): string {
  return `${job.last_run?.finished_at ?? ''}|${job.history.length}`;
}

/** Names whose cached runs are missing or stale. */
export function staleRuns(jobs: readonly ApiJob[], cache: ReadonlyMap<string, { sig: string }>): string[] {
  return jobs.filter((j) => cache.get(j.name)?.sig !== runsSignature(j)).map((j) => j.name);
}

/** Bucket label: "14:00" for the hour windows, "Tue 14:00" for the week. */
export function bucketLabel(civilMs: number, window: HeatWindow): string {
  const d = new Date(civilMs);
  const hm = `${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`;
  return window === '7d' ? `${['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][d.getUTCDay()]} ${hm}` : hm;
}

/** A bucket's width for the legend: `15 min`, `1 h`, `7 h`. */
export function bucketSpanText(ms: number): string {
  const m = Math.round(ms / 60_000);
  return m < 60 ? `${m} min` : `${Math.round(m / 6) / 10} h`.replace('.0 h', ' h');
}

/** One `/activity` body as the per-job run lists the heat map caches (a job it does not name ran nothing). */
export function activityRuns(body: ApiActivity, names: readonly string[]): Map<string, HeatRun[]> {
  return new Map(names.map((n) => [n, body.jobs[n] ?? []]));
}

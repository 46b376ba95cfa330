// The OVERDUE marker both dashboards draw (spec 09 §2.8): a job is overdue while its `sla.state` is
// `late`, independent of its health colour. Pure: reads the `/jobs` row only.
import type { ApiJob } from './types.ts';

/** The breached checks of an overdue job, in the payload's order; null when the job is not overdue. */
export function overdueChecks(job: Pick<ApiJob, 'sla'>): string[] | null {
  const sla = job.sla;
  if (sla?.state !== 'late') return null;
  return sla.breaches.map((b) => b.check);
}

/** The row chip's tooltip: `SLA breached: <checks joined by ", ">`. */
export function overdueTitle(checks: readonly string[]): string {
  return `SLA breached: ${checks.join(', ')}`;
}

/** How many jobs are overdue (the wallboard footer shows `<n> overdue` when n > 0). */
export function overdueCount(jobs: readonly Pick<ApiJob, 'sla'>[]): number {
  let n = 0;
  for (const j of jobs) if (j.sla?.state === 'late') n++;
  return n;
}

// The incident set (spec 08 §3.4): the largest correlated failure group, else every failing job. The timeline
// marks it as the blast radius and the mitigate console acts on it.
import { correlateFailures, failingJobs } from '../../../dashboard/incident.ts';
import type { ApiJob } from '../../../dashboard/types.ts';

export function incidentSet(jobs: readonly ApiJob[]): string[] {
  const failing = failingJobs(jobs);
  const top = correlateFailures(failing).groups[0];
  return top ? [...top.names] : failing.map((f) => f.name);
}

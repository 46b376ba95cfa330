// The incident set (spec 08 §3.4): the correlated failure group behind the verdict, else every failing job.
// The timeline marks it as the blast radius and the mitigate console acts on it.
import { failureBanner } from '../../../dashboard/status.ts';
import type { ApiJob } from '../../../dashboard/types.ts';

export function incidentSet(jobs: readonly ApiJob[]): string[] {
  const banner = failureBanner(jobs);
  if (banner === null) return [];
  const top = banner.correlated ? banner.correlation.groups[0] : undefined;
  return top ? [...top.names] : banner.jobs.map((f) => f.name);
}

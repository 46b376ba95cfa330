// One task instance of a DAG run as `GET /dags/{d}/runs/{rk}` returns it, for the dashboards' tests.
import type { ApiTaskEntry } from '../../src/dashboard/dag.ts';

export function dagEntry(
  id: string,
  state: ApiTaskEntry['state'],
  extra: Partial<ApiTaskEntry> = {},
): ApiTaskEntry {
  return {
    id,
    mapIndex: null,
    state,
    attempt: 0,
    proc: null,
    pid: null,
    host: null,
    startedAt: null,
    finishedAt: null,
    exitCode: null,
    failReason: null,
    resources: null,
    updatedAt: 0,
    nextRetryAt: null,
    ...extra,
  };
}

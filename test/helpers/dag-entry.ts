// One task instance of a DAG run as `GET /dags/{d}/runs/{rk}` returns it, for the dashboards' tests.
import type { ApiTaskEntry } from '../../src/dashboard/dag.ts';

export function dagEntry(id: string, state: string, extra: Partial<ApiTaskEntry> = {}): ApiTaskEntry {
  return {
    id,
    mapIndex: null,
    state,
    attempt: 0,
    host: null,
    startedAt: null,
    finishedAt: null,
    exitCode: null,
    failReason: null,
    ...extra,
  };
}

// The colour of a DAG run or task state word (spec 08 §4.11), shared by the DAGs panel and the DAG drawer.
import type { Role } from '../../text/theme.ts';

/** The colour of a run or task state word. */
export function dagStateRole(state: string | null | undefined): Role {
  switch (state) {
    case 'success':
    case 'succeeded':
    case 'done':
      return 'ok';
    case 'failed':
    case 'failure':
    case 'error':
    case 'upstream_failed':
      return 'fail';
    case 'running':
    case 'launched':
      return 'run';
    case 'awaiting':
    case 'waiting':
    case 'queued':
    case 'pending':
    case 'scheduled':
    case 'up_for_retry':
      return 'pending';
  }
  return 'dim';
}

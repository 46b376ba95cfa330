// The names of the task states, run states and run kinds (spec 04 §3.1, §4) as tuples: model.ts builds the
// state machine over them and the wire schema of the `/dags` routes enumerates them. Kept apart from the
// model, which imports config and store types, so the wire contract (read as types by the browser
// dashboard) reaches no Node or DOM type through it.

export const TASK_STATES = [
  'pending',
  'running',
  'up_for_retry',
  'success',
  'failed',
  'upstream_failed',
  'skipped',
  'expanded',
] as const;
export type TaskState = (typeof TASK_STATES)[number];

export const RUN_STATES = ['running', 'success', 'failed'] as const;
export type RunStatus = (typeof RUN_STATES)[number];

export const RUN_KINDS = ['scheduled', 'catchup', 'backfill', 'manual'] as const;
export type RunKind = (typeof RUN_KINDS)[number];

// The built-in `initialize` instructions (spec 07 §3.3), used when the operator sets none.
export const BUILT_IN_INSTRUCTIONS = [
  'This server is a cronstable daemon: a distributed cron scheduler that also runs small workflows (DAGs).',
  'The observe tools are read-only views of its jobs and their runs, logs and trends, DAGs, the cluster and fleet, metrics and the durable state store;',
  'start with cron_get_status or cron_list_jobs to see what is configured and how it is doing.',
  'Tools that change anything (running or cancelling a job, triggering or backfilling a DAG, deciding an approval gate) exist only when the operator turned readOnly off,',
  'and each one acts only when called with confirm=true: ask the operator before setting it.',
  'Before proposing a cron expression, check it with cron_validate_schedule and cron_explain_schedule;',
  "cron_why_no_run explains whether a job's schedule fired at a given instant and why not.",
].join(' ');

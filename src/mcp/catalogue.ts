// The tool catalogue's order (spec 07 §4.2 with spec 10 §1.6's two pause tools, the `tools/list` order); tools beyond the reference's 31
// follow in the order their modules list them. Shared by the tools as written (tools/index.ts) and
// as served (handlers/index.ts).
export const CATALOGUE = [
  'cron_get_status',
  'cron_list_jobs',
  'cron_get_job',
  'cron_list_runs',
  'cron_get_job_trends',
  'cron_get_job_resources',
  'cron_get_cluster',
  'cron_get_fleet',
  'cron_get_node',
  'cron_query_metrics',
  'cron_get_version',
  'cron_tail_job_logs',
  'cron_schedule_pressure',
  'cron_schedule_duplicates',
  'cron_suggest_slot',
  'cron_validate_schedule',
  'cron_explain_schedule',
  'cron_why_no_run',
  'cron_list_dags',
  'cron_list_dag_runs',
  'cron_get_dag_run',
  'cron_get_dag_xcom',
  'cron_tail_dag_task_logs',
  'cron_inspect_state',
  'cron_run_job',
  'cron_cancel_job',
  'cron_pause_job',
  'cron_resume_job',
  'cron_trigger_dag',
  'cron_backfill_dag',
  'cron_decide_gate',
] as const;

/** `tools` sorted into catalogue order; names outside it keep their relative order, after it. */
export function inCatalogueOrder<T extends { name: string }>(tools: readonly T[]): T[] {
  const rank = (t: T) => {
    const i = (CATALOGUE as readonly string[]).indexOf(t.name);
    return i < 0 ? CATALOGUE.length : i;
  };
  return tools
    .map((t, i) => ({ t, i }))
    .sort((a, b) => rank(a.t) - rank(b.t) || a.i - b.i)
    .map(({ t }) => t);
}

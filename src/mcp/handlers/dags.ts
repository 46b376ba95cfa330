// The `dags` toolset's handlers (spec 07 §4.2 #19-23, #27-29): DAG reads, task log tails, trigger,
// backfill and approval decisions. Each calls the function its REST route calls (src/api/dags.ts);
// refusals are worded for a model (`dag not found: '<d>'`, `state store unavailable: …`). Their
// schemas are in src/mcp/tools/dags.schema.ts.
import type { WebContext } from '../../api/context.ts';
import {
  dagBackfill,
  dagBackfillPreview,
  dagDecide,
  dagKnown,
  dagList,
  dagRun,
  dagRuns,
  dagTaskOutput,
  dagTrigger,
  dagXcom,
} from '../../api/dags.ts';
import type { ApiResult } from '../../api/types.ts';
import { BAD_CURSOR, tailPage } from '../tail.ts';
import { confirmRefusal, handlerFor, type ToolContext, type ToolResult, toolError, toolOk } from '../tool.ts';
import type { DagSchemas } from '../tools/dags.schema.ts';

const read = { toolset: 'dags', mutation: false } as const;
const tool = handlerFor<DagSchemas>();

export const dagNotFound = (dag: string) => toolError(`dag not found: '${dag}'`);
const runNotFound = (dag: string, key: string) => toolError(`dag run not found: '${dag}'/'${key}'`);

/** A failed DAG answer as the tool's refusal: 404 = not found, 500 = the store, else the reason. */
function refusal(r: Extract<ApiResult<unknown>, { ok: false }>, notFound: () => ToolResult): ToolResult {
  if (r.status === 404) return notFound();
  if (r.status === 500) return toolError(`state store unavailable: ${r.error}`);
  return toolError(r.error);
}

/** get_dag_run / get_dag_xcom: one run's document or XCom, with the same refusals. */
function runReader<T extends Record<string, unknown>>(
  read: (c: WebContext, dag: string, key: string) => Promise<ApiResult<T>>,
  summary: (dag: string, key: string) => string,
) {
  return async (args: { dag: string; run_key: string }, ctx: ToolContext): Promise<ToolResult> => {
    if (!dagKnown(ctx.deps.ctx, args.dag)) return dagNotFound(args.dag);
    const r = await read(ctx.deps.ctx, args.dag, args.run_key);
    if (!r.ok) return refusal(r, () => runNotFound(args.dag, args.run_key));
    return toolOk(summary(args.dag, args.run_key), r.body);
  };
}

export const dagHandlers = [
  tool({
    name: 'cron_list_dags',
    title: 'List DAGs',
    description:
      'Lists the configured DAGs with their tasks, schedule, latest run and run counts per state (unbounded).',
    ...read,
    async run(_args, ctx) {
      const dags = await dagList(ctx.deps.ctx);
      return toolOk(`${dags.length} DAG(s)`, { dags });
    },
  }),
  tool({
    name: 'cron_list_dag_runs',
    title: 'List DAG runs',
    description:
      "Lists a DAG's runs, newest first, with task counts per state; `limit` defaults to and is capped at " +
      'the server row limit. `total` says how many runs the store holds.',
    ...read,
    async run(args, ctx) {
      if (!dagKnown(ctx.deps.ctx, args.dag)) return dagNotFound(args.dag);
      const r = await dagRuns(ctx.deps.ctx, args.dag, ctx.rows(args.limit));
      if (!r.ok) return refusal(r, () => dagNotFound(args.dag));
      const summary = (await dagList(ctx.deps.ctx)).find((d) => d.name === args.dag);
      const total = Math.max(summary?.totalRuns ?? 0, r.body.runs.length);
      return toolOk(`dag '${args.dag}': ${r.body.runs.length} run(s)`, {
        ...r.body,
        total,
        returned: r.body.runs.length,
      });
    },
  }),
  tool({
    name: 'cron_get_dag_run',
    title: 'Get DAG run',
    description:
      'One DAG run document: its state and every task entry (state, attempts, exit code, approval).',
    ...read,
    run: runReader(dagRun, (d, k) => `dag '${d}' run '${k}'`),
  }),
  tool({
    name: 'cron_get_dag_xcom',
    title: 'DAG XCom',
    description:
      "The values a DAG run's tasks exchanged (XCom): at most 500 entries, text inlined up to 64 KiB, " +
      'larger or binary values flagged.',
    ...read,
    run: runReader(dagXcom, (d, k) => `xcom for dag '${d}' run '${k}'`),
  }),
  tool({
    name: 'cron_tail_dag_task_logs',
    title: 'Tail DAG task logs',
    description:
      'Output lines of a task instance while it runs on this node (a finished task has none here). ' +
      'Pass the returned cursor back to continue; `skipped` counts lines lost between calls.',
    ...read,
    async run(args, ctx) {
      if (!dagKnown(ctx.deps.ctx, args.dag)) return dagNotFound(args.dag);
      const out = dagTaskOutput(ctx.deps.ctx, args.dag, args.run_key, args.taskkey);
      if (out === null) return dagNotFound(args.dag);
      const source =
        out === 'idle'
          ? null
          : { lines: out.lines, published: out.published, run: out.startedAt.toString(36) };
      const page = tailPage(source, ctx.rows(args.tail), args.cursor);
      if (page === null) return toolError(BAD_CURSOR);
      return toolOk(`dag '${args.dag}' task '${args.taskkey}': ${page.lines.length} line(s)`, {
        ...page,
        dag: args.dag,
        run_key: args.run_key,
        taskkey: args.taskkey,
      });
    },
  }),
  tool({
    name: 'cron_trigger_dag',
    title: 'Trigger DAG',
    description: 'Starts a manual run of a DAG now (run key manual-<hex>). Needs confirm=true.',
    toolset: 'dags',
    mutation: { destructive: false, idempotent: false, gerund: 'triggering' },
    async run(args, ctx) {
      const refused = confirmRefusal('triggering', args.confirm);
      if (refused) return refused;
      if (!dagKnown(ctx.deps.ctx, args.dag)) return dagNotFound(args.dag);
      const r = await dagTrigger(ctx.deps.ctx, args.dag);
      if (!r.ok) return refusal(r, () => dagNotFound(args.dag));
      return toolOk(`triggered dag '${args.dag}' (run ${r.body.runKey})`, r.body);
    },
  }),
  tool({
    name: 'cron_backfill_dag',
    title: 'Backfill DAG',
    description:
      'Creates a run for every scheduled instant of a DAG between from and to (inclusive, at most 100). ' +
      'By default a dry run that only reports what it would create; dry_run=false with confirm=true acts.',
    toolset: 'dags',
    mutation: { destructive: true, idempotent: false, gerund: 'backfilling' },
    async run(args, ctx) {
      if (!dagKnown(ctx.deps.ctx, args.dag)) return dagNotFound(args.dag);
      const window = { from: args.from, to: args.to };
      if (args.dry_run !== false) {
        const p = dagBackfillPreview(ctx.deps.ctx, args.dag, window);
        if (!p.ok) return refusal(p, () => dagNotFound(args.dag));
        const b = p.body;
        const span = b.wouldCreate > 0 ? ` (${b.firstInstant} .. ${b.lastInstant})` : '';
        return toolOk(
          `DRY RUN: backfilling dag '${args.dag}' from ${args.from} to ${args.to} would create ` +
            `${b.wouldCreate} run(s)${span}; nothing was created. Call again with dry_run=false and ` +
            'confirm=true to create them.',
          b,
        );
      }
      const refused = confirmRefusal('backfilling', args.confirm);
      if (refused) return refused;
      const r = await dagBackfill(ctx.deps.ctx, args.dag, window);
      if (!r.ok) return refusal(r, () => dagNotFound(args.dag));
      return toolOk(
        `backfilled dag '${args.dag}' from ${args.from} to ${args.to}: ${r.body.created} run(s)`,
        r.body,
      );
    },
  }),
  tool({
    name: 'cron_decide_gate',
    title: 'Decide approval gate',
    description:
      'Approves or rejects an approval task that is waiting in a DAG run (by defaults to "mcp"). ' +
      'Needs confirm=true.',
    toolset: 'dags',
    mutation: { destructive: true, idempotent: false, gerund: 'deciding an approval gate' },
    async run(args, ctx) {
      const refused = confirmRefusal('deciding an approval gate', args.confirm);
      if (refused) return refused;
      const by = args.by === undefined || args.by === '' ? 'mcp' : args.by;
      const r = await dagDecide(ctx.deps.ctx, args.dag, args.run_key, args.taskkey, {
        decision: args.decision,
        by,
      });
      if (!r.ok) return refusal(r, () => toolError('no such dag'));
      const verb = args.decision === 'approve' ? 'approved' : 'rejected';
      return toolOk(`${verb} gate '${args.taskkey}' on dag '${args.dag}'`, r.body);
    },
  }),
];

// The DAG answers (spec 04 §9, spec 06 §5.13) that the `/dags` routes and the MCP DAG tools share.
// The engine's DagWebApi does the work; without a DAG engine (no state store) every DAG is unknown.
import { z } from 'zod';
import { TASK_TRANSITIONS, type TaskState } from '../../dag/model.ts';
import type { DagAnswer, WebContext } from '../context.ts';
import { type ApiResult, fail, ok, type RouteDoc } from './types.ts';

export const unknownDag = (name: string) => fail(404, `unknown dag '${name}'`);

const typed = <T>(a: DagAnswer): ApiResult<T> => (a.ok ? ok(a.body as T) : fail(a.status, a.error));

/** Whether `name` is a DAG this daemon runs (a DAG engine exists and the config names it). */
export function dagKnown(ctx: WebContext, name: string): boolean {
  return ctx.dags !== undefined && ctx.config().dags.some((d) => d.name === name);
}

/** `GET /dags`: every configured DAG with its run rollups (never fails: store trouble drops rollups). */
export async function dagList(ctx: WebContext): Promise<DagSummary[]> {
  return ctx.dags ? ((await ctx.dags.list()) as DagSummary[]) : [];
}

/** `GET /dags/{name}/runs?limit=`: newest first; 500 when the store read fails. */
export async function dagRuns(ctx: WebContext, name: string, limit: number): Promise<ApiResult<DagRuns>> {
  return ctx.dags ? typed(await ctx.dags.runs(name, limit)) : unknownDag(name);
}

/** `GET /dags/{name}/runs/{runKey}`: the run document. */
export async function dagRun(ctx: WebContext, name: string, runKey: string): Promise<ApiResult<DagRun>> {
  return ctx.dags ? typed(await ctx.dags.run(name, runKey)) : unknownDag(name);
}

/** `GET /dags/{name}/runs/{runKey}/xcom`. */
export async function dagXcom(ctx: WebContext, name: string, runKey: string): Promise<ApiResult<DagXcom>> {
  return ctx.dags ? typed(await ctx.dags.xcom(name, runKey)) : unknownDag(name);
}

/** `POST /dags/{name}/trigger`: 500 when the run document could not be written. */
export async function dagTrigger(ctx: WebContext, name: string): Promise<ApiResult<DagTrigger>> {
  return ctx.dags ? typed(await ctx.dags.trigger(name)) : unknownDag(name);
}

/** `POST /dags/{name}/backfill` with its parsed JSON-object body. */
export async function dagBackfill(
  ctx: WebContext,
  name: string,
  body: Record<string, unknown>,
): Promise<ApiResult<DagBackfill>> {
  return ctx.dags ? typed(await ctx.dags.backfill(name, body)) : unknownDag(name);
}

/** What `dagBackfill` would create, creating nothing: the same walk, the same 400 refusals. */
export function dagBackfillPreview(
  ctx: WebContext,
  name: string,
  body: Record<string, unknown>,
): ApiResult<DagBackfillPreview> {
  if (!ctx.dags?.backfillPreview) return unknownDag(name);
  return typed(ctx.dags.backfillPreview(name, body));
}

/** `POST …/tasks/{taskkey}/decision`: 409 with the reason for every refusal. */
export async function dagDecide(
  ctx: WebContext,
  name: string,
  runKey: string,
  task: string,
  body: Record<string, unknown>,
): Promise<ApiResult<DagDecision>> {
  return ctx.dags ? typed(await ctx.dags.decide(name, runKey, task, body)) : unknownDag(name);
}

/** Live output of a running task instance here: null for an unknown DAG, 'idle' when nothing runs. */
export function dagTaskOutput(ctx: WebContext, name: string, runKey: string, task: string) {
  return ctx.dags?.taskOutput?.(name, runKey, task) ?? null;
}

// ---------------------------------------------------------------------------------------------
// 200 bodies

const count = z.number().int();
const epochSeconds = z.number().describe('epoch seconds');
const runState = z.enum(['running', 'success', 'failed']);
const runKind = z.enum(['scheduled', 'catchup', 'backfill', 'manual']);
const taskState = z.enum(Object.keys(TASK_TRANSITIONS) as [TaskState, ...TaskState[]]);

export const dagSummarySchema = z.object({
  name: z.string(),
  enabled: z.boolean(),
  scheduled: z.boolean(),
  retainRuns: count,
  schedule: z.string().optional().describe('scheduled DAGs only'),
  tasks: z.array(
    z.object({
      id: z.string(),
      type: z.enum(['task', 'approval', 'sensor']),
      dependsOn: z.array(z.string()),
      triggerRule: z.enum(['all_success', 'all_done']),
      retries: count,
      mapped: z.boolean(),
    }),
  ),
  latestRun: z
    .object({
      runKey: z.string(),
      state: runState,
      kind: runKind,
      createdAt: epochSeconds,
      updatedAt: epochSeconds,
    })
    .optional(),
  runCounts: z.record(z.string(), count).optional(),
  totalRuns: count.optional(),
});
export type DagSummary = z.infer<typeof dagSummarySchema>;

export const dagListSchema = z.array(dagSummarySchema);

export const dagRunSummarySchema = z.object({
  runKey: z.string(),
  runId: z.string(),
  state: runState,
  kind: runKind,
  logicalDate: z.string().nullable(),
  createdAt: epochSeconds,
  updatedAt: epochSeconds,
  taskStates: z.record(z.string(), count),
});

export const dagRunsSchema = z.object({ dag: z.string(), runs: z.array(dagRunSummarySchema) });
export type DagRuns = z.infer<typeof dagRunsSchema>;

const secondsOrNull = z.number().nullable();

export const dagTaskEntrySchema = z.object({
  id: z.string(),
  mapIndex: count.nullable(),
  mapItem: z.unknown().optional(),
  mapped: z.literal(true).optional(),
  state: taskState,
  attempt: count,
  proc: z.string().nullable(),
  pid: count.nullable(),
  host: z.string().nullable(),
  startedAt: secondsOrNull,
  finishedAt: secondsOrNull,
  exitCode: count.nullable(),
  failReason: z.string().nullable(),
  resources: z.unknown(),
  updatedAt: epochSeconds,
  nextRetryAt: secondsOrNull,
  pokeCount: count.optional(),
  nextPokeAt: secondsOrNull.optional(),
  firstPokeAt: secondsOrNull.optional(),
  approval: z
    .object({ decision: z.enum(['approved', 'rejected']), by: z.string(), at: epochSeconds })
    .nullable()
    .optional(),
  awaitingApproval: z.literal(true).optional(),
});

export const dagRunSchema = z.object({
  dag: z.string(),
  runKey: z.string(),
  runId: z.string(),
  logicalDate: z.string().nullable(),
  kind: runKind,
  state: runState,
  createdAt: epochSeconds,
  updatedAt: epochSeconds,
  tasks: z
    .record(z.string(), dagTaskEntrySchema)
    .describe('by task key (`id`, or `id#N` for mapped instances)'),
  mapped: z.record(z.string(), z.object({ items: z.array(z.unknown()), expandedAt: epochSeconds })),
});
export type DagRun = z.infer<typeof dagRunSchema>;

export const dagXcomSchema = z.object({
  dag: z.string(),
  runKey: z.string(),
  runId: z.string(),
  entries: z.array(
    z.object({
      taskkey: z.string(),
      key: z.string(),
      sha256: z.string(),
      size: count,
      at: z.number(),
      value: z.string().optional().describe('UTF-8 text up to 64 KiB'),
      binary: z.literal(true).optional(),
      oversize: z.literal(true).optional(),
    }),
  ),
  truncated: z.boolean().describe('more than 500 entries'),
});
export type DagXcom = z.infer<typeof dagXcomSchema>;

export const dagTriggerSchema = z.object({ dag: z.string(), runKey: z.string() });
export type DagTrigger = z.infer<typeof dagTriggerSchema>;

export const dagBackfillSchema = z.object({
  ok: z.literal(true),
  created: count.describe('instants walked (at most 100), existing runs included'),
});
export type DagBackfill = z.infer<typeof dagBackfillSchema>;

export const dagBackfillPreviewSchema = z.object({
  dag: z.string(),
  from: z.string(),
  to: z.string(),
  dryRun: z.literal(true),
  wouldExecute: z.literal(false),
  wouldCreate: count.describe('what a real backfill would answer as created'),
  firstInstant: z.string().nullable(),
  lastInstant: z.string().nullable(),
});
export type DagBackfillPreview = z.infer<typeof dagBackfillPreviewSchema>;

export const dagDecisionSchema = z.object({
  ok: z.literal(true),
  state: z.enum(['success', 'failed', 'skipped']).describe("the gate's new state"),
});
export type DagDecision = z.infer<typeof dagDecisionSchema>;

const path = '/dags/{name}/runs/{runKey}';

export const docs: RouteDoc[] = [
  {
    method: 'get',
    path: '/dags',
    summary: 'Configured DAGs with their run rollups',
    response: dagListSchema,
  },
  {
    method: 'get',
    path: '/dags/{name}/runs',
    summary: "A DAG's runs, newest first",
    query: { limit: z.number().int().min(1).max(500).describe('default 50') },
    response: dagRunsSchema,
    errors: [404, 500],
  },
  { method: 'get', path, summary: 'One run document', response: dagRunSchema, errors: [404] },
  {
    method: 'get',
    path: `${path}/xcom`,
    summary: "A run's XCom entries",
    response: dagXcomSchema,
    errors: [404],
  },
  {
    method: 'get',
    path: `${path}/tasks/{taskkey}/logs`,
    summary: 'Live output of a running task instance (server-sent events)',
    response: z.string(),
    contentType: 'text/event-stream',
    errors: [404],
  },
  {
    method: 'post',
    path: '/dags/{name}/trigger',
    summary: 'Start a manual run',
    response: dagTriggerSchema,
    errors: [404, 500],
  },
  {
    method: 'post',
    path: '/dags/{name}/backfill',
    summary: 'Create the runs of every scheduled instant in a window (at most 100 per call)',
    body: z.object({ from: z.string(), to: z.string() }),
    response: dagBackfillSchema,
    errors: [400, 404, 500],
  },
  {
    method: 'post',
    path: `${path}/tasks/{taskkey}/decision`,
    summary: 'Approve or reject an approval gate',
    body: z.object({ decision: z.enum(['approve', 'reject']), by: z.string().optional() }),
    response: dagDecisionSchema,
    errors: [400, 404, 409, 500],
  },
];

// The zod schemas of the dags payloads (the 200 bodies of ./dags.ts) and the RouteDocs that
// /openapi.json is built from. Kept apart from the payload code so a daemon without MCP never loads zod:
// only the MCP tools and src/web/openapi.ts import this module.
import { z } from 'zod';
import { RUN_KINDS, RUN_STATES, TASK_STATES } from '../../dag/states.ts';
import type { RouteDoc } from './route-doc.ts';

const count = z.number().int();
const epochSeconds = z.number().describe('epoch seconds');
const runState = z.enum(RUN_STATES);
const runKind = z.enum(RUN_KINDS);
const taskState = z.enum(TASK_STATES);

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
/** One task of a DAG as `/dags` lists it. */
export type DagTaskSummary = DagSummary['tasks'][number];

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

export type DagRunSummary = z.infer<typeof dagRunSummarySchema>;

export const dagRunsSchema = z.object({
  dag: z.string(),
  name: z.string(),
  runs: z.array(dagRunSummarySchema),
});
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

/** One task instance of a run document. */
export type DagTaskEntry = z.infer<typeof dagTaskEntrySchema>;

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
export type DagXcomEntry = DagXcom['entries'][number];

export const dagTriggerSchema = z.object({ dag: z.string(), name: z.string(), runKey: z.string() });
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
    conditional: true,
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

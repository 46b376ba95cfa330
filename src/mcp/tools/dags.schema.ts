// The argument and result schemas of the `dags` toolset (spec 07 §4.2 #19-23, #27-29), one entry a
// tool; the handlers are in src/mcp/handlers/dags.ts. Every payload schema is its REST route's.
import { z } from 'zod';
import {
  dagBackfillPreviewSchema,
  dagBackfillSchema,
  dagDecisionSchema,
  dagRunSchema,
  dagRunSummarySchema,
  dagSummarySchema,
  dagTriggerSchema,
  dagXcomSchema,
} from '../../api/wire/dags.schema.ts';
import type { SchemaTable } from '../tool.ts';
import { confirmArg } from './args.ts';
import { tailPageShape } from './shared.schema.ts';

const dag = z.string().min(1).describe('DAG name');
const runKey = z.string().min(1).describe('run key, as cron_list_dag_runs lists it');
const taskkey = z.string().min(1).describe('task key: a task id, or id#N for a mapped instance');

const listInput = z.strictObject({});
const runsInput = z.strictObject({
  dag,
  limit: z.number().int().optional().describe('newest runs to list, default and ceiling mcp.maxRows'),
});
const runInput = z.strictObject({ dag, run_key: runKey });
const tailInput = z.strictObject({
  dag,
  run_key: runKey,
  taskkey,
  tail: z.number().int().optional().describe('lines per call, default and ceiling mcp.maxRows'),
  cursor: z.string().optional().describe('the cursor a previous call returned: continue after it'),
});
const triggerInput = z.strictObject({ dag, confirm: confirmArg });
const backfillInput = z.strictObject({
  dag,
  from: z.string().min(1).describe('ISO 8601 start, inclusive (naive = UTC)'),
  to: z.string().min(1).describe('ISO 8601 end, inclusive'),
  dry_run: z.boolean().optional().describe('default true: only false creates runs'),
  confirm: confirmArg,
});
const decideInput = z.strictObject({
  dag,
  run_key: runKey,
  taskkey,
  decision: z.enum(['approve', 'reject']),
  by: z.string().optional().describe('who decided, default "mcp"'),
  confirm: confirmArg,
});

const backfillOutput = z.object({
  ...dagBackfillPreviewSchema.partial().shape,
  ...dagBackfillSchema.partial().shape,
});

export const dagSchemas = {
  cron_list_dags: { input: listInput, output: z.object({ dags: z.array(dagSummarySchema) }) },
  cron_list_dag_runs: {
    input: runsInput,
    output: z.object({
      dag: z.string(),
      runs: z.array(dagRunSummarySchema),
      total: z.number().int(),
      returned: z.number().int(),
    }),
  },
  cron_get_dag_run: { input: runInput, output: dagRunSchema },
  cron_get_dag_xcom: { input: runInput, output: dagXcomSchema },
  cron_tail_dag_task_logs: {
    input: tailInput,
    output: z.object({ ...tailPageShape, dag: z.string(), run_key: z.string(), taskkey: z.string() }),
  },
  cron_trigger_dag: { input: triggerInput, output: dagTriggerSchema },
  cron_backfill_dag: { input: backfillInput, output: backfillOutput },
  cron_decide_gate: { input: decideInput, output: dagDecisionSchema },
} satisfies SchemaTable;

export type DagSchemas = typeof dagSchemas;

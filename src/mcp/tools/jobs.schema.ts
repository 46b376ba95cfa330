// The argument and result schemas of the job tools (spec 07 §4.2 rows 1-6, 12, 25, 26), one entry a
// tool; the handlers are in src/mcp/handlers/jobs.ts. Every payload schema is its REST route's.
import { z } from 'zod';
import { StatusRowSchema } from '../../api/wire/core.schema.ts';
import {
  JobResourcesSchema,
  JobRowSchema,
  JobRunsSchema,
  JobTrendsSchema,
} from '../../api/wire/jobs.schema.ts';
import type { SchemaTable } from '../tool.ts';
import { confirmArg, jobNameArg, offsetArg, rowsArg } from './args.ts';
import { PageSchema, tailPageShape } from './shared.schema.ts';

export const jobSchemas = {
  cron_get_status: {
    input: z.strictObject({ offset: offsetArg, limit: rowsArg }),
    output: z.object({ status: z.array(StatusRowSchema), page: PageSchema }),
  },
  cron_list_jobs: {
    input: z.strictObject({
      filter: z.string().optional().describe('keep names containing this text (case-insensitive)'),
      state: z
        .enum(['running', 'disabled', 'scheduled'])
        .optional()
        .describe('running; disabled; scheduled = enabled and not running'),
      offset: offsetArg,
      limit: rowsArg,
    }),
    output: z.object({ jobs: z.array(JobRowSchema), page: PageSchema }),
  },
  cron_get_job: { input: z.strictObject({ name: jobNameArg }), output: JobRowSchema },
  cron_list_runs: {
    input: z.strictObject({ name: jobNameArg, limit: rowsArg }),
    output: JobRunsSchema.extend({ totalRuns: z.number().int(), returnedRuns: z.number().int() }),
  },
  cron_get_job_trends: { input: z.strictObject({ name: jobNameArg }), output: JobTrendsSchema },
  cron_get_job_resources: {
    input: z.strictObject({ name: jobNameArg, runs: rowsArg }),
    output: JobResourcesSchema.extend({ total: z.number().int(), returned: z.number().int() }),
  },
  cron_tail_job_logs: {
    input: z.strictObject({
      name: jobNameArg,
      tail: rowsArg,
      cursor: z.string().optional().describe('the cursor a previous call returned: continue after it'),
    }),
    output: z.object({
      ...tailPageShape,
      name: z.string(),
      running: z.boolean(),
      run_id: z.string().nullable(),
    }),
  },
  cron_run_job: {
    input: z.strictObject({ name: jobNameArg, confirm: confirmArg }),
    output: z.object({ started: z.string(), outcome: z.enum(['launched', 'skipped-forbid', 'replaced']) }),
  },
  cron_cancel_job: {
    input: z.strictObject({ name: jobNameArg, confirm: confirmArg }),
    output: z.object({ cancelled: z.string(), instances: z.number().int() }),
  },
} satisfies SchemaTable;

export type JobSchemas = typeof jobSchemas;

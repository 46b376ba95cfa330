// The argument and result schemas of the schedule tools (spec 07 §4.2 #13-18, plus cron_job_slots),
// one entry a tool; the handlers are in src/mcp/handlers/schedule.ts. Every payload schema is its
// REST route's.
import { z } from 'zod';
import {
  duplicatesSchema,
  pressureSchema,
  previewSchema,
  suggestSchema,
  whySchema,
} from '../../api/wire/schedule.schema.ts';
import { jobSlotsSchema } from '../../api/wire/slots.schema.ts';
import type { SchemaTable } from '../tool.ts';

const tz = z
  .string()
  .optional()
  .describe("IANA time zone (e.g. Europe/Berlin); 'local' is the daemon's zone; empty or absent = UTC");
const seed = z.string().optional().describe("hash key for H fields, normally the job's name");
const dstRepeated = z
  .enum(['first', 'last', 'both'])
  .optional()
  .describe('which occurrence of a wall time a DST fall-back repeats fires (default first)');
const dstSkipped = z
  .enum(['shift', 'skip'])
  .optional()
  .describe(
    'whether a wall time a DST spring-forward skips fires at the shifted instant (default shift) or not',
  );
const expression = z
  .string()
  .min(1)
  .describe('a cron expression (5-7 fields, @hourly-style macros, H, @reboot)');

const pressureInput = z.strictObject({
  hours: z.number().int().optional().describe('window from now, default 24, clamped to 1-168'),
  tz,
});
const suggestInput = z.strictObject({
  // Spec 07 §4.3: an empty period means the default, like an absent one.
  period: z.enum(['hourly', 'daily', '']).optional().describe('hourly (default; empty = hourly) or daily'),
  tz,
});
const validateInput = z.strictObject({
  expression,
  tz,
  seed,
  dst_repeated: dstRepeated,
  dst_skipped: dstSkipped,
});
const explainInput = z.strictObject({
  expression,
  count: z.number().int().optional().describe('fires to list, default 5, clamped to 1-60'),
  tz,
  seed,
  dst_repeated: dstRepeated,
  dst_skipped: dstSkipped,
});
const whyInput = z.strictObject({
  name: z.string().min(1).describe('a job name, or dag:<name> for a scheduled DAG'),
  at: z.string().min(1).describe("ISO 8601 instant; without an offset it is a wall time in the job's zone"),
});
const slotsInput = z.strictObject({
  name: z.string().min(1),
  from: z.string().optional().describe('ISO 8601 window start, default 24 h before to'),
  to: z.string().optional().describe('ISO 8601 window end, default now'),
});

export const scheduleSchemas = {
  cron_schedule_pressure: { input: pressureInput, output: pressureSchema },
  cron_schedule_duplicates: { input: z.strictObject({}), output: duplicatesSchema },
  cron_suggest_slot: { input: suggestInput, output: suggestSchema },
  cron_validate_schedule: { input: validateInput, output: previewSchema },
  cron_explain_schedule: { input: explainInput, output: previewSchema },
  cron_why_no_run: { input: whyInput, output: whySchema },
  cron_job_slots: { input: slotsInput, output: jobSlotsSchema },
} satisfies SchemaTable;

export type ScheduleSchemas = typeof scheduleSchemas;

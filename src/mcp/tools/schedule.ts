// The schedule tools of the `observe` toolset (spec 07 §4.2 #13-18) plus cron_job_slots. Each calls
// the function its REST route calls (src/api/schedule.ts, slots.ts), so a tool and its route
// cannot disagree; what differs is the MCP wording of refusals and the one-line summary.
import { z } from 'zod';
import {
  scheduleDuplicates,
  scheduleEntry,
  schedulePressure,
  schedulePreview,
  scheduleSuggest,
  scheduleWhy,
} from '../../api/schedule.ts';
import { jobSlotsView } from '../../api/slots.ts';
import {
  duplicatesSchema,
  pressureSchema,
  previewSchema,
  suggestSchema,
  whySchema,
} from '../../api/wire/schedule.schema.ts';
import { jobSlotsSchema } from '../../api/wire/slots.schema.ts';
import { type ToolContext, type ToolDef, type ToolResult, toolError, toolOk } from '../tool.ts';
import {
  AT_ERROR,
  duplicatesText,
  instantOf,
  pressureText,
  previewText,
  suggestText,
  type WhyBody,
  whyText,
} from './schedule-text.ts';

const observe = { toolset: 'observe', mutation: false } as const;

export const jobNotFoundText = (name: string) => `job not found: '${name}'. Use cron_list_jobs to enumerate.`;

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

const asRecord = (v: unknown) => v as Record<string, unknown>;

/** validate / explain: an invalid expression is a success result (valid: false); a bad zone is not. */
function previewTool(
  args: {
    expression: string;
    tz?: string | undefined;
    seed?: string | undefined;
    dst_repeated?: string | undefined;
    dst_skipped?: string | undefined;
  },
  count: number,
  ctx: ToolContext,
): ToolResult {
  const seedText = args.seed === '' ? undefined : args.seed;
  const r = schedulePreview(ctx.deps.ctx, {
    expr: args.expression,
    tz: args.tz,
    count,
    seed: seedText,
    dstRepeated: args.dst_repeated,
    dstSkipped: args.dst_skipped,
  });
  if (r.status === 400 && r.body.valid !== false) return toolError(String(r.body.error));
  let body = r.body;
  // The route resolves H with an empty key; a model asking about H must say whose H it means.
  if (body.valid === true && seedText === undefined && body.resolved !== undefined)
    body = {
      expression: body.expression,
      timezone: body.timezone,
      valid: false,
      error:
        'H needs a hash key: pass seed=<the job name> (H picks a stable slot from it, so each job gets its own)',
    };
  return toolOk(previewText(body as Parameters<typeof previewText>[0]), body);
}

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

export const scheduleTools: ToolDef[] = [
  {
    name: 'cron_schedule_pressure',
    title: 'Schedule pressure',
    description:
      'Counts the fires of every enabled schedule per hour and minute over the next hours (default 24, 1-168) ' +
      'in a zone (default UTC), with the busiest and the empty minutes.',
    ...observe,
    input: pressureInput,
    output: pressureSchema,
    async run(args: z.infer<typeof pressureInput>, ctx) {
      const hours = Math.min(168, Math.max(1, args.hours ?? 24));
      const r = await schedulePressure(ctx.deps.ctx, hours, args.tz);
      return r.ok ? toolOk(pressureText(r.body), asRecord(r.body)) : toolError(r.error);
    },
  },
  {
    name: 'cron_schedule_duplicates',
    title: 'Duplicate schedules',
    description:
      'Groups of enabled jobs (and scheduled DAGs) that fire at exactly the same instants, largest first.',
    ...observe,
    input: z.strictObject({}),
    output: duplicatesSchema,
    async run(_args, ctx) {
      const d = scheduleDuplicates(ctx.deps.ctx);
      return toolOk(duplicatesText(d), d);
    },
  },
  {
    name: 'cron_suggest_slot',
    title: 'Suggest a slot',
    description:
      'Proposes the least-loaded minute (hourly, the default) or time of day (daily) for a new job, from ' +
      'the next 24 hours of fires in a zone (default UTC).',
    ...observe,
    input: suggestInput,
    output: suggestSchema,
    async run(args: z.infer<typeof suggestInput>, ctx) {
      const r = await scheduleSuggest(ctx.deps.ctx, args.period || 'hourly', args.tz);
      return r.ok ? toolOk(suggestText(r.body), r.body) : toolError(r.error);
    },
  },
  {
    name: 'cron_validate_schedule',
    title: 'Validate a schedule',
    description:
      'Checks a cron expression: valid or not (an invalid one is a normal result with the reason), its ' +
      'description, its next fire, and lint findings. Takes a zone, a seed for H, and a DST policy.',
    ...observe,
    input: validateInput,
    output: previewSchema,
    async run(args: z.infer<typeof validateInput>, ctx) {
      return previewTool(args, 1, ctx);
    },
  },
  {
    name: 'cron_explain_schedule',
    title: 'Explain a schedule',
    description:
      'Describes a cron expression and lists its next fires (default 5, at most 60) with the zone offset, ' +
      'under a DST policy (repeated: first|last|both, skipped: shift|skip).',
    ...observe,
    input: explainInput,
    output: previewSchema,
    async run(args: z.infer<typeof explainInput>, ctx) {
      return previewTool(args, Math.min(60, Math.max(1, args.count ?? 5)), ctx);
    },
  },
  {
    name: 'cron_why_no_run',
    title: 'Why no run?',
    description:
      "Explains whether a job's (or dag:<name>'s) schedule fires at an instant, field by field, with the " +
      'previous and next fires. A match does not prove a run: see cron_list_runs for that.',
    ...observe,
    input: whyInput,
    output: whySchema,
    async run(args: z.infer<typeof whyInput>, ctx) {
      const entry = scheduleEntry(ctx.deps.ctx, args.name);
      if (!entry) return toolError(jobNotFoundText(args.name));
      const at = instantOf(args.at, entry.frame);
      const r = scheduleWhy(ctx.deps.ctx, args.name, at, args.at);
      if (!r.ok)
        return toolError(r.status === 400 ? `${AT_ERROR}; got '${args.at}'` : jobNotFoundText(args.name));
      return toolOk(whyText(r.body as unknown as WhyBody, entry.cron), r.body);
    },
  },
  {
    name: 'cron_job_slots',
    title: 'Job slot fates',
    description:
      'What became of every scheduled slot of a job in a window (default the last 24 h, at most 31 days): ran, ' +
      'failed, skipped and why, claimed by another node, or unaccounted (nobody recorded it).',
    ...observe,
    input: slotsInput,
    output: jobSlotsSchema,
    async run(args: z.infer<typeof slotsInput>, ctx) {
      const r = await jobSlotsView(ctx.deps.ctx, args.name, args.from, args.to);
      if (!r.ok) return toolError(r.status === 404 ? jobNotFoundText(args.name) : r.error);
      const b = r.body;
      return toolOk(
        `job '${b.name}': ${b.slots.length} slot(s) from ${b.from} to ${b.to}, ${b.unaccounted} unaccounted`,
        b,
      );
    },
  },
];

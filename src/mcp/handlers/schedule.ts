// The schedule tools' handlers (the `observe` toolset, spec 07 §4.2 #13-18, plus cron_job_slots).
// Each calls the function its REST route calls (src/api/schedule.ts, slots.ts), so a tool and its
// route cannot disagree; what differs is the MCP wording of refusals and the one-line summary.
// Their schemas are in src/mcp/tools/schedule.schema.ts.
import {
  noScheduleText,
  scheduleDuplicates,
  scheduleEntry,
  schedulePressure,
  schedulePreview,
  scheduleSuggest,
  scheduleWhy,
} from '../../api/schedule.ts';
import { jobSlotsView } from '../../api/slots.ts';
import { handlerFor, type ToolContext, type ToolResult, toolError, toolOk } from '../tool.ts';
import type { ScheduleSchemas } from '../tools/schedule.schema.ts';
import {
  AT_ERROR,
  duplicatesText,
  instantOf,
  pressureText,
  previewText,
  suggestText,
  type WhyBody,
  whyText,
} from '../tools/schedule-text.ts';

const observe = { toolset: 'observe', mutation: false } as const;
const tool = handlerFor<ScheduleSchemas>();

export const jobNotFoundText = (name: string) => `job not found: '${name}'. Use cron_list_jobs to enumerate.`;

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

export const scheduleHandlers = [
  tool({
    name: 'cron_schedule_pressure',
    title: 'Schedule pressure',
    description:
      'Counts the fires of every enabled schedule per hour and minute over the next hours (default 24, 1-168) ' +
      'in a zone (default UTC), with the busiest and the empty minutes.',
    ...observe,
    async run(args, ctx) {
      const hours = Math.min(168, Math.max(1, args.hours ?? 24));
      const r = await schedulePressure(ctx.deps.ctx, hours, args.tz);
      return r.ok ? toolOk(pressureText(r.body), asRecord(r.body)) : toolError(r.error);
    },
  }),
  tool({
    name: 'cron_schedule_duplicates',
    title: 'Duplicate schedules',
    description:
      'Groups of enabled jobs (and scheduled DAGs) that fire at exactly the same instants, largest first.',
    ...observe,
    async run(_args, ctx) {
      const d = scheduleDuplicates(ctx.deps.ctx);
      return toolOk(duplicatesText(d), d);
    },
  }),
  tool({
    name: 'cron_suggest_slot',
    title: 'Suggest a slot',
    description:
      'Proposes the least-loaded minute (hourly, the default) or time of day (daily) for a new job, from ' +
      'the next 24 hours of fires in a zone (default UTC).',
    ...observe,
    async run(args, ctx) {
      const r = await scheduleSuggest(ctx.deps.ctx, args.period || 'hourly', args.tz);
      return r.ok ? toolOk(suggestText(r.body), r.body) : toolError(r.error);
    },
  }),
  tool({
    name: 'cron_validate_schedule',
    title: 'Validate a schedule',
    description:
      'Checks a cron expression: valid or not (an invalid one is a normal result with the reason), its ' +
      'description, its next fire, and lint findings. Takes a zone, a seed for H, and a DST policy.',
    ...observe,
    async run(args, ctx) {
      return previewTool(args, 1, ctx);
    },
  }),
  tool({
    name: 'cron_explain_schedule',
    title: 'Explain a schedule',
    description:
      'Describes a cron expression and lists its next fires (default 5, at most 60) with the zone offset, ' +
      'under a DST policy (repeated: first|last|both, skipped: shift|skip).',
    ...observe,
    async run(args, ctx) {
      return previewTool(args, Math.min(60, Math.max(1, args.count ?? 5)), ctx);
    },
  }),
  tool({
    name: 'cron_why_no_run',
    title: 'Why no run?',
    description:
      "Explains whether a job's (or dag:<name>'s) schedule fires at an instant, field by field, with the " +
      'previous and next fires. A match does not prove a run: see cron_list_runs for that.',
    ...observe,
    async run(args, ctx) {
      const entry = scheduleEntry(ctx.deps.ctx, args.name);
      // The REST wording (spec 10 §4.9), pointing at both listings since a DAG schedule is asked as dag:<name>.
      const unknown = () =>
        toolError(`${noScheduleText(args.name)}. Use cron_list_jobs or cron_list_dags to enumerate.`);
      if (!entry) return unknown();
      const at = instantOf(args.at, entry.frame);
      const r = scheduleWhy(ctx.deps.ctx, args.name, at, args.at);
      if (!r.ok) return r.status === 400 ? toolError(`${AT_ERROR}; got '${args.at}'`) : unknown();
      return toolOk(whyText(r.body as unknown as WhyBody, entry.cron), r.body);
    },
  }),
  tool({
    name: 'cron_job_slots',
    title: 'Job slot fates',
    description:
      'What became of every scheduled slot of a job in a window (default the last 24 h, at most 31 days): ran, ' +
      'failed, skipped and why, claimed by another node, or unaccounted (nobody recorded it).',
    ...observe,
    async run(args, ctx) {
      const r = await jobSlotsView(ctx.deps.ctx, args.name, args.from, args.to);
      if (!r.ok) return toolError(r.status === 404 ? jobNotFoundText(args.name) : r.error);
      const b = r.body;
      return toolOk(
        `job '${b.name}': ${b.slots.length} slot(s) from ${b.from} to ${b.to}, ${b.unaccounted} unaccounted`,
        b,
      );
    },
  }),
];

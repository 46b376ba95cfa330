// `cron_get_incident` (beyond the reference): the dashboard's verdict bar and incident timeline as
// data. It feeds the dashboard's own pure functions (src/dashboard: failureBanner, incidentTimeline,
// summarize, jobStatus) the same input the dashboard gives them, the `/jobs` rows, so the web view,
// the TUI and an MCP client reach the same verdict.
import { z } from 'zod';
import { type JobRow, jobRows } from '../../api/jobs.ts';
import { type Correlation, incidentTimeline, verdictText } from '../../dashboard/incident.ts';
import { failureBanner, jobStatus, signatureText, summarize } from '../../dashboard/status.ts';
import { toolError, toolOk } from '../tool.ts';
import { defineTool, jobNotFound } from './args.ts';

const nstr = z.string().nullable();
const int = z.number().int();

const FailingSchema = z.object({
  name: z.string(),
  exit_code: int.nullable(),
  reason: nstr,
  signature: z.string(),
  finished_at: nstr,
});

const TimelineSchema = z.object({
  name: z.string(),
  outcome: z.enum(['success', 'failure', 'cancelled', 'unknown']),
  finished_at: z.string(),
  started_at: nstr,
  duration: z.number().nullable(),
  exit_code: int.nullable(),
  reason: nstr,
  running_now: z.boolean(),
  /** Seconds since the next older finish (null for the oldest). */
  gap_seconds: z.number().nullable(),
  /** Signature of the correlated failure group this failure belongs to. */
  group: nstr,
});

const GroupSchema = z.object({
  signature: z.string(),
  names: z.array(z.string()),
  first: z.string(),
  last: z.string(),
});

export const IncidentSchema = z.object({
  /** none: nothing failing; single: one failing job; one-cause / independent: a fleet event's verdict. */
  verdict: z.enum(['none', 'single', 'one-cause', 'independent']),
  /** The verdict bar's two lines, as the dashboard words them (null when nothing fails). */
  headline: nstr,
  detail: nstr,
  summary: z.object({ total: int, running: int, failing: int, scheduled: int, disabled: int }),
  failing: z.array(FailingSchema),
  groups: z.array(GroupSchema),
  timeline: z.array(TimelineSchema),
  hours: int.nullable(),
  focus: z
    .object({
      name: z.string(),
      status: z.enum(['running', 'failed', 'pending', 'unknown', 'cancelled', 'ok', 'disabled']),
      failing: z.boolean(),
      group: GroupSchema.nullable(),
      last: TimelineSchema.nullable(),
    })
    .optional(),
});
export type Incident = z.infer<typeof IncidentSchema>;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function groupOut(g: Correlation['groups'][number]) {
  return { signature: g.signature, names: g.names, first: iso(g.first)!, last: iso(g.last)! };
}

/**
 * The verdict over every currently failing job (exactly the dashboard's bar), the timeline of each
 * job's newest finish (only the last `hours` when given), and optionally one job's place in it.
 */
export function incidentView(
  rows: readonly JobRow[],
  now: number,
  hours: number | null,
  focus: string | null,
): Incident {
  const banner = failureBanner(rows);
  const correlation = banner?.correlation;
  const since = hours === null ? null : now - hours * 3_600_000;
  const timeline = incidentTimeline(rows, correlation)
    .filter((e) => since === null || e.finishedAt >= since)
    .map((e) => ({
      name: e.name,
      outcome: e.outcome as Incident['timeline'][number]['outcome'],
      finished_at: iso(e.finishedAt)!,
      started_at: iso(e.startedAt),
      duration: e.duration,
      exit_code: e.exitCode,
      reason: e.reason,
      running_now: e.runningNow,
      gap_seconds: e.gapMs === null ? null : e.gapMs / 1000,
      group: e.group,
    }));
  // The gap of the oldest entry kept is to an entry cut by `hours`: not part of this view.
  const oldest = timeline[timeline.length - 1];
  if (since !== null && oldest) oldest.gap_seconds = null;
  let verdict: Incident['verdict'] = 'none';
  let headline: string | null = null;
  let detail: string | null = null;
  if (banner) {
    const first = banner.jobs[0]!;
    if (banner.kind === 'single') {
      verdict = 'single';
      headline = `JOB FAILING — ${first.name} · ${signatureText(first.exitCode, first.reason)}`;
    } else {
      verdict = banner.correlation.verdict;
      headline = `FLEET EVENT — ${banner.jobs.length} jobs failing`;
      detail = verdictText(banner.correlation);
    }
  }
  const out: Incident = {
    verdict,
    headline,
    detail,
    summary: summarize(rows),
    failing: (banner?.jobs ?? []).map((f) => ({
      name: f.name,
      exit_code: f.exitCode,
      reason: f.reason,
      signature: signatureText(f.exitCode, f.reason),
      finished_at: iso(f.finishedAt),
    })),
    groups: (correlation?.groups ?? []).map(groupOut),
    timeline,
    hours,
  };
  if (focus !== null) {
    const job = rows.find((j) => j.name === focus)!;
    const group = correlation?.groups.find((g) => g.names.includes(focus));
    out.focus = {
      name: focus,
      status: jobStatus(job),
      failing: out.failing.some((f) => f.name === focus),
      group: group ? groupOut(group) : null,
      last: timeline.find((e) => e.name === focus) ?? null,
    };
  }
  return out;
}

export const getIncident = defineTool({
  name: 'cron_get_incident',
  title: 'Incident view',
  description:
    "The dashboard's verdict bar and incident timeline as data: which jobs are failing, whether their failures share one cause (same exit code and reason within 60 s) or look independent, and every job's newest finish, newest first. `hours` keeps only finishes of the last N hours in the timeline (1-720; default all); `name` adds that job's status and correlation group.",
  toolset: 'observe',
  mutation: false,
  input: z.strictObject({
    name: z.string().min(1).optional(),
    hours: z.number().int().min(1).max(720).optional(),
  }),
  output: IncidentSchema,
  async run(args, ctx) {
    const a = args;
    const rows = jobRows(ctx.deps);
    if (a.name !== undefined && !rows.some((r) => r.name === a.name)) return toolError(jobNotFound(a.name));
    const view = incidentView(rows, ctx.deps.ctx.clock.now(), a.hours ?? null, a.name ?? null);
    const text =
      view.verdict === 'none'
        ? `no failing jobs; ${view.timeline.length} finish(es) in the timeline`
        : view.detail === null
          ? view.headline!
          : `${view.headline}: ${view.detail}`;
    return toolOk(text, view as unknown as Record<string, unknown>);
  },
});

// The job tools' handlers (spec 07 §4.2 rows 1-6, 12, 25, 26): status, the job list and one job,
// its runs, trends, resources and log tail, and the two controls (run, cancel). Every payload comes
// from the same api/ function as its REST route, so a tool and its route cannot disagree. Their
// schemas are in src/mcp/tools/jobs.schema.ts.
import { statusRows } from '../../api/core.ts';
import type { ApiDeps } from '../../api/deps.ts';
import {
  cancelJob,
  type JobRow,
  jobResources,
  jobRow,
  jobRuns,
  jobsRendering,
  jobTrends,
  renderedRows,
  startJob,
} from '../../api/jobs.ts';
import { newestRun } from '../../api/logsource.ts';
import { redactLines } from '../../exec/redact.ts';
import { BAD_CURSOR, type TailSource, tailPage } from '../tail.ts';
import { confirmRefusal, handlerFor, type ToolResult, toolError, toolOk } from '../tool.ts';
import type { JobSchemas } from '../tools/jobs.schema.ts';
import { paginate } from '../tools/paging.ts';

/** The read-only tools' "job not found" refusal (spec 07 §4.3). */
export const jobNotFound = (name: string) => `job not found: '${name}'`;

const tool = handlerFor<JobSchemas>();
const utf8 = new TextEncoder();
const READ = false as const;
const s = (n: number, unit: string) => `${n} ${unit}(s)`;

const getStatus = tool({
  name: 'cron_get_status',
  title: 'Job status',
  description:
    "Every job with its state (running with pids, disabled, or seconds until its next fire), in config order. Paged: `offset` (default 0) and `limit` (default and ceiling: the server's maxRows).",
  toolset: 'observe',
  mutation: READ,
  async run(args, ctx) {
    const { items, page } = paginate(statusRows(ctx.deps), args.offset, ctx.rows(args.limit));
    const running = items.filter((r) => r.status === 'running').length;
    return toolOk(`${s(page.total, 'job')}; ${running} running in this page`, { status: items, page });
  },
});

const listJobs = tool({
  name: 'cron_list_jobs',
  title: 'List jobs',
  description:
    'Configured jobs with schedule, command, state, last run and recent history. `filter` keeps names containing it (case-insensitive); `state` is running, disabled or scheduled (enabled and idle). Paged like cron_get_status.',
  toolset: 'observe',
  mutation: READ,
  async run(args, ctx) {
    const needle = args.filter ? args.filter.toLowerCase() : null;
    const keep = (j: JobRow) => {
      if (needle !== null && !j.name.toLowerCase().includes(needle)) return false;
      if (args.state === 'running') return j.running;
      if (args.state === 'disabled') return !j.enabled;
      if (args.state === 'scheduled') return j.enabled && !j.running;
      return true;
    };
    const rendering = jobsRendering(ctx.deps);
    const rows = rendering.rows;
    const matching = [...rows.keys()].filter((i) => keep(rows[i]!));
    const { items, page } = paginate(matching, args.offset, ctx.rows(args.limit));
    // The rows as `/jobs` rendered them: their bytes are reused, not serialised again.
    const json = [
      utf8.encode('{"jobs":'),
      ...renderedRows(rendering, items),
      utf8.encode(`,"page":${JSON.stringify(page)}}`),
    ];
    const jobs = items.map((i) => rows[i]!);
    return toolOk(`${s(page.total, 'matching job')}; ${page.returned} returned`, { jobs, page }, json);
  },
});

const getJob = tool({
  name: 'cron_get_job',
  title: 'Get one job',
  description:
    'One job as cron_list_jobs shows it: schedule, command, state, next fire, last run and the last 20 outcomes.',
  toolset: 'observe',
  mutation: READ,
  async run(args, ctx) {
    const r = jobRow(ctx.deps, args.name);
    if (!r.ok) return toolError(`${jobNotFound(args.name)}. Use cron_list_jobs to enumerate.`);
    return toolOk(`job '${args.name}'`, r.body);
  },
});

const listRuns = tool({
  name: 'cron_list_runs',
  title: 'Run history',
  description:
    "A job's retained runs (at most 50 kept), the newest `limit` of them oldest first (default and ceiling: maxRows), with stats over every retained run; `totalRuns` and `returnedRuns` tell whether runs were left out.",
  toolset: 'observe',
  mutation: READ,
  async run(args, ctx) {
    const r = jobRuns(ctx.deps, args.name);
    if (!r.ok) return toolError(jobNotFound(args.name));
    const all = r.body.runs;
    const runs = all.slice(-ctx.rows(args.limit));
    return toolOk(`job '${args.name}': ${s(all.length, 'run')} retained, ${runs.length} returned`, {
      ...r.body,
      runs,
      totalRuns: all.length,
      returnedRuns: runs.length,
    });
  },
});

const getTrends = tool({
  name: 'cron_get_job_trends',
  title: 'SLA trends',
  description:
    "A job's run statistics (counts, success rate, durations) over the last hour, day, week, 30 days and all retained runs: tells a new failure from a chronic one.",
  toolset: 'observe',
  mutation: READ,
  async run(args, ctx) {
    const r = jobTrends(ctx.deps, args.name);
    if (!r.ok) return toolError(jobNotFound(args.name));
    return toolOk(`trends for job '${args.name}'`, r.body);
  },
});

const getResources = tool({
  name: 'cron_get_job_resources',
  title: 'Resource usage',
  description:
    'CPU and memory of a job with monitorResources: running instances with their samples, and the last `runs` sampled runs (default and ceiling: maxRows; at most 50 are kept). `total` and `returned` count the sampled runs.',
  toolset: 'observe',
  mutation: READ,
  async run(args, ctx) {
    const r = jobResources(ctx.deps, args.name, ctx.rows(args.runs));
    if (!r.ok) return toolError(jobNotFound(args.name));
    const total = ctx.deps.jobResources.runsOf(args.name, Number.MAX_SAFE_INTEGER).length;
    return toolOk(`resource series for job '${args.name}'`, {
      ...r.body,
      total,
      returned: r.body.runs.length,
    });
  },
});

/** The buffer a job's tail reads: its newest running instance, else its last finished run (spec 06 §5.7). */
export function jobTailSource(d: ApiDeps, name: string): { source: TailSource; running: boolean } | null {
  const newest = newestRun(d.ctx.scheduler.running(name));
  if (newest) {
    return { source: redacted(newest.runId, newest.lines, newest.published, newest.secrets), running: true };
  }
  const last = d.ctx.scheduler.history(name)?.lastRun();
  if (!last) return null;
  const published = last.publishedLines ?? last.lines.length;
  return { source: redacted(last.id, last.lines, published, last.secrets ?? []), running: false };
}

/**
 * The archive redaction (spec 02 §13) plus the run's staged secret values, applied to the whole ring
 * at once so a private-key block whose first line is outside the returned page is still caught.
 */
function redacted(
  run: string,
  lines: TailSource['lines'],
  published: number,
  secrets: readonly string[],
): TailSource {
  const out = redactLines(
    lines.map((l) => l.line),
    [...secrets],
  ).lines;
  return { run, published, lines: lines.map((l, i) => ({ stream: l.stream, line: out[i] ?? '' })) };
}

const tailLogs = tool({
  name: 'cron_tail_job_logs',
  title: 'Tail job logs',
  description:
    "A job's buffered output (the newest running instance, else the last finished run; 1000 lines kept per run), secrets redacted and control characters removed. Without `cursor`: the last `tail` lines (default and ceiling: maxRows); pass the returned `cursor` back to get only newer lines (`skipped` counts lines evicted in between).",
  toolset: 'observe',
  mutation: READ,
  async run(args, ctx): Promise<ToolResult> {
    if (!ctx.deps.ctx.scheduler.job(args.name)) return toolError(jobNotFound(args.name));
    const found = jobTailSource(ctx.deps, args.name);
    const page = tailPage(found?.source ?? null, ctx.rows(args.tail), args.cursor);
    if (page === null) return toolError(BAD_CURSOR);
    return toolOk(`job '${args.name}': ${s(page.lines.length, 'line')} (cursor ${page.cursor})`, {
      ...page,
      name: args.name,
      running: found?.running ?? false,
      run_id: found?.source.run ?? null,
    });
  },
});

const runJob = tool({
  name: 'cron_run_job',
  title: 'Run job now',
  description:
    'Starts the job now on this node, ignoring its schedule and leadership but honouring its concurrencyPolicy (`outcome` says launched, skipped-forbid or replaced). Changes state: acts only with confirm=true.',
  toolset: 'act',
  mutation: { destructive: false, idempotent: false, gerund: 'running' },
  async run(args, ctx) {
    const refused = confirmRefusal('running', args.confirm);
    if (refused) return refused;
    const r = await startJob(ctx.deps, args.name);
    if (!r.ok) return toolError(r.error);
    const { outcome } = r.body;
    const text =
      outcome === 'skipped-forbid'
        ? `job '${args.name}' not started: an instance is running and its concurrencyPolicy is Forbid`
        : outcome === 'replaced'
          ? `started job '${args.name}' (replacing the running instance(s))`
          : `started job '${args.name}'`;
    return toolOk(text, r.body);
  },
});

const cancelJobTool = tool({
  name: 'cron_cancel_job',
  title: 'Cancel job',
  description:
    'Cancels every running instance of the job (terminate, then kill after its killTimeout); the runs are recorded as cancelled, without retry or failure report. Changes state: acts only with confirm=true.',
  toolset: 'act',
  mutation: { destructive: true, idempotent: true, gerund: 'cancelling' },
  async run(args, ctx) {
    const refused = confirmRefusal('cancelling', args.confirm);
    if (refused) return refused;
    const r = cancelJob(ctx.deps, args.name);
    if (!r.ok) return toolError(r.error);
    return toolOk(`cancelled ${s(r.body.instances, 'instance')} of job '${args.name}'`, r.body);
  },
});

/** Catalogue order (spec 07 §4.2). */
export const jobHandlers = [
  getStatus,
  listJobs,
  getJob,
  listRuns,
  getTrends,
  getResources,
  tailLogs,
  runJob,
  cancelJobTool,
];

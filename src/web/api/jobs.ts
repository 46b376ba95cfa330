// The job payloads of the REST API (spec 06 §5.3-§5.6), shared by the routes in routes/jobs.ts and the
// MCP job tools (spec 07 §4.3): the `/jobs` rows, a job's runs, resources and trends, and the manual
// start/cancel actions. Each returns an ApiResult so a route and a tool answer from the same code.
import { z } from 'zod';
import { monitorSettings } from '../../exec/procstat.ts';
import type { WebDeps } from '../deps.ts';
import { resourceStats } from '../jobresources.ts';
import { jobsList, runObject, runStats, trends } from '../jobview.ts';
import { type ApiResult, fail, ok, type RouteDoc } from './types.ts';

const num = z.number();
const nnum = z.number().nullable();
const int = z.number().int();
const nstr = z.string().nullable();
const point = z.tuple([num, num, num]);

export const RunOutcomeSchema = z.enum(['success', 'failure', 'cancelled', 'unknown']);

/** What the resource sampler measured of one run (`/runs` entries carry no series, `/resources` ones do). */
export const RunResourcesSchema = z.object({
  cpu_user_seconds: nnum.optional(),
  cpu_system_seconds: nnum.optional(),
  cpu_total_seconds: nnum,
  max_rss_bytes: nnum,
  samples: int,
  series: z.array(point).optional(),
});

/** A run object (`last_run`, `/runs` entries; spec 06 §5.4). */
export const RunObjectSchema = z.object({
  outcome: RunOutcomeSchema,
  exit_code: int.nullable(),
  started_at: nstr,
  finished_at: z.string(),
  duration: nnum,
  fail_reason: nstr,
  resources: RunResourcesSchema.nullable(),
});

export const RunStatsSchema = z.object({
  total: int,
  success: int,
  failure: int,
  cancelled: int,
  unknown: int,
  success_rate: nnum,
  avg_duration: nnum,
  min_duration: nnum,
  max_duration: nnum,
  last_duration: nnum,
  avg_cpu_seconds: nnum,
  max_cpu_seconds: nnum,
  last_cpu_seconds: nnum,
  avg_rss_bytes: nnum,
  max_rss_bytes: nnum,
  last_rss_bytes: nnum,
});

/** One `GET /jobs` element (spec 06 §5.4). */
export const JobRowSchema = z.object({
  name: z.string(),
  enabled: z.boolean(),
  schedule: z.string(),
  command: z.string(),
  captureStdout: z.boolean(),
  captureStderr: z.boolean(),
  utc: z.boolean(),
  timezone: nstr,
  running: z.boolean(),
  pids: z.array(int),
  scheduled_in: nnum,
  never_fires: z.boolean(),
  schedule_findings: z.array(z.object({ code: z.string(), level: z.string(), message: z.string() })),
  last_run: RunObjectSchema.nullable(),
  history: z.array(z.object({ outcome: RunOutcomeSchema, duration: nnum })),
  schedule_resolved: z.string().optional(),
  dst: z
    .object({ repeated: z.enum(['first', 'last', 'both']), skipped: z.enum(['shift', 'skip']) })
    .optional(),
  running_resources: z
    .object({ cpu_percent: num, cpu_seconds: num, rss_bytes: num, instances: int })
    .optional(),
  retry: z
    .object({ attempt: int, maxAttempts: int.nullable(), nextRetryAt: nstr, delaySeconds: nnum })
    .optional(),
  rebootPending: z.literal(true).optional(),
  concurrencyScope: z.literal('cluster').optional(),
  slot: z.object({ held: z.boolean(), holder: nstr, refs: int }).optional(),
  clusterPolicy: z.enum(['Leader', 'PreferLeader', 'EveryNode']).optional(),
  clusterOwner: nstr.optional(),
});
export type JobRow = z.infer<typeof JobRowSchema>;

export const JobRunsSchema = z.object({
  name: z.string(),
  runs: z.array(RunObjectSchema),
  stats: RunStatsSchema,
});
export type JobRuns = z.infer<typeof JobRunsSchema>;

const SampledRunSchema = z.object({
  run_id: z.string(),
  started_at: z.string(),
  finished_at: z.string(),
  pid: int.nullable(),
  resources: RunResourcesSchema,
});

export const JobResourcesSchema = z.object({
  name: z.string(),
  monitored: z.boolean(),
  interval: num,
  live: z.array(
    z.object({
      started_at: z.string(),
      pid: int.nullable(),
      current: z.object({ cpu_seconds: num, cpu_percent: num, rss_bytes: num }).nullable(),
      series: z.array(point),
    }),
  ),
  // A sampled run joins its run record while the history still holds it, else it is the bare sample.
  runs: z.array(
    z.union([
      RunObjectSchema.extend({ pid: int.nullable(), resources: RunResourcesSchema }),
      SampledRunSchema,
    ]),
  ),
});
export type JobResources = z.infer<typeof JobResourcesSchema>;

export const JobTrendsSchema = z.object({
  name: z.string(),
  source: z.enum(['durable', 'memory']),
  generated_at: z.string(),
  windows: z.object({
    '1h': RunStatsSchema,
    '24h': RunStatsSchema,
    '7d': RunStatsSchema,
    '30d': RunStatsSchema,
    all: RunStatsSchema,
  }),
});
export type JobTrends = z.infer<typeof JobTrendsSchema>;

/** `launched`, or what concurrencyPolicy made of the manual start (spec 07 §4.3 Do better). */
export type StartOutcome = 'launched' | 'skipped-forbid' | 'replaced';

export const jobNotFoundText = (name: string) => `job '${name}' not found`;
const notFound = (name: string) => fail(404, jobNotFoundText(name));

/** Every job in config order (`GET /jobs`). */
export function jobRows(d: WebDeps): JobRow[] {
  return jobsList(d.ctx) as JobRow[];
}

/** One job's row, as a `GET /jobs` element. */
export function jobRow(d: WebDeps, name: string): ApiResult<JobRow> {
  const row = jobRows(d).find((j) => j.name === name);
  return row ? ok(row) : notFound(name);
}

/** `GET /jobs/{name}/runs`: the retained history (newest 50, oldest first) and its stats. */
export function jobRuns(d: WebDeps, name: string): ApiResult<JobRuns> {
  const history = d.ctx.scheduler.history(name);
  if (!history) return notFound(name);
  const runs = history.recentRuns().slice(-50);
  // Runs the resource sampler watched carry their CPU time and peak RSS (spec 06 §5.5).
  const sampled = d.jobResources.summariesOf(name);
  if (sampled.size === 0) return ok({ name, runs: runs.map(runObject), stats: runStats(runs) } as JobRuns);
  const usage = runs.map((r) => sampled.get(r.id) ?? null);
  return ok({
    name,
    runs: runs.map((r, i) => ({ ...runObject(r), resources: usage[i] })),
    stats: { ...runStats(runs), ...resourceStats(usage) },
  } as JobRuns);
}

/** `GET /jobs/{name}/resources`: live samples and the newest `runs` sampled runs, oldest first. */
export function jobResources(d: WebDeps, name: string, runs: number): ApiResult<JobResources> {
  const { ctx } = d;
  const job = ctx.scheduler.job(name);
  if (!job) return notFound(name);
  const m = monitorSettings(job.monitorResources);
  const records = ctx.scheduler.history(name)?.recentRuns() ?? [];
  return ok({
    name,
    monitored: m.enabled,
    interval: m.interval,
    live: d.jobResources.liveOf(name),
    // Each sampled run joins its run record (outcome, exit code, times) when the history still holds it.
    runs: d.jobResources.runsOf(name, runs).map((r) => {
      const rec = records.find((x) => x.id === r.run_id);
      return rec ? { ...runObject(rec), pid: r.pid, resources: r.resources } : r;
    }),
  } as JobResources);
}

/** `GET /jobs/{name}/trends`: run stats over time windows. */
export function jobTrends(d: WebDeps, name: string): ApiResult<JobTrends> {
  if (!d.ctx.scheduler.job(name)) return notFound(name);
  return ok(trends(d.ctx, name) as JobTrends);
}

/**
 * `POST /jobs/{name}/start`: launches now, ignoring leadership, under the job's concurrencyPolicy.
 * The outcome says whether Forbid skipped it or Replace cancelled running instances first.
 */
export async function startJob(
  d: WebDeps,
  name: string,
): Promise<ApiResult<{ started: string; outcome: StartOutcome }>> {
  const { scheduler } = d.ctx;
  const busy = scheduler.running(name).length > 0;
  const replacing = busy && scheduler.job(name)?.concurrencyPolicy === 'Replace';
  const result = await scheduler.startJob(name);
  d.status.invalidate();
  if (result === 'unknown') return notFound(name);
  if (result === 'disabled') return fail(409, `job '${name}' is disabled`);
  const outcome: StartOutcome = result === 'skipped' ? 'skipped-forbid' : replacing ? 'replaced' : 'launched';
  return ok({ started: name, outcome });
}

/**
 * `POST /jobs/{name}/cancel`: answers once the cancellation is under way (terminate -> killTimeout
 * -> kill runs on); `instances` is how many runs were running.
 */
export function cancelJob(d: WebDeps, name: string): ApiResult<{ cancelled: string; instances: number }> {
  const { scheduler } = d.ctx;
  if (!scheduler.job(name)) return notFound(name);
  const instances = scheduler.running(name).length;
  if (instances === 0) return fail(409, `job '${name}' is not running`);
  scheduler.cancelJob(name).then(
    () => d.status.invalidate(),
    (e: unknown) => d.log.error(`web: cancelling job ${name} failed: ${(e as Error)?.message ?? e}`),
  );
  d.status.invalidate();
  return ok({ cancelled: name, instances });
}

const runsQuery = { runs: z.string().describe('how many sampled runs (default 20, clamped 0-50)') };

export const docs: RouteDoc[] = [
  { method: 'get', path: '/jobs', summary: 'Every job in config order', response: z.array(JobRowSchema) },
  {
    method: 'get',
    path: '/jobs/{name}/runs',
    summary: "A job's retained runs (newest 50, oldest first) and their stats",
    response: JobRunsSchema,
    errors: [404],
  },
  {
    method: 'get',
    path: '/jobs/{name}/logs',
    summary: "A job's output as server-sent events: the buffered lines, then live lines until the run ends",
    response: null,
    contentType: 'text/event-stream',
    errors: [404],
  },
  {
    method: 'get',
    path: '/jobs/{name}/resources',
    summary: 'CPU and memory of a monitorResources job: running instances and the last sampled runs',
    query: runsQuery,
    response: JobResourcesSchema,
    errors: [404],
  },
  {
    method: 'get',
    path: '/jobs/{name}/trends',
    summary: 'Run statistics over the last 1h, 24h, 7d, 30d and all retained runs',
    response: JobTrendsSchema,
    errors: [404],
  },
  {
    method: 'post',
    path: '/jobs/{name}/start',
    summary: 'Start the job now (ignores leadership, honours concurrencyPolicy); empty body',
    response: null,
    errors: [404, 409],
  },
  {
    method: 'post',
    path: '/jobs/{name}/cancel',
    summary: 'Cancel every running instance of the job; empty body',
    response: null,
    errors: [404, 409],
  },
];

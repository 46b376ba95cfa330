// The zod schemas of the jobs payloads (the 200 bodies of ./jobs.ts) and the RouteDocs that
// /openapi.json is built from. Kept apart from the payload code so a daemon without MCP never loads zod:
// only the MCP tools and src/web/openapi.ts import this module.
import { z } from 'zod';
import type { RouteDoc } from './route-doc.ts';

const num = z.number();
const nnum = z.number().nullable();
const int = z.number().int();
const nstr = z.string().nullable();
const point = z.tuple([num, num, num]);

/** `skipped`: a slot a runtime pause held (spec 10 §1.3), a row of `/runs` and `history`, never `last_run`. */
export const RunOutcomeSchema = z.enum(['success', 'failure', 'cancelled', 'unknown', 'skipped']);
export type RunOutcome = z.infer<typeof RunOutcomeSchema>;

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
  /** `finished_at` again on every row but a skipped one (spec 10 §1.5). */
  ranAt: z.string().optional(),
  duration: nnum,
  fail_reason: nstr,
  /** Why a `skipped` row did not run (`paused`); null on real runs. Every row of ours has it; optional
   * because a daemon before spec 10 sends none, and the dashboards read both. */
  skip_reason: z.enum(['paused']).nullable().optional(),
  resources: RunResourcesSchema.nullable(),
});

/** The outcome and duration figures of `/jobs/{name}/runs` `stats`. */
export const RunOutcomeStatsSchema = z.object({
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
});
export type ApiRunStats = z.infer<typeof RunOutcomeStatsSchema>;

/** avg / max / last CPU seconds and peak RSS over a job's monitored runs (`/jobs/{name}/runs` stats). */
export const ResourceStatsSchema = z.object({
  avg_cpu_seconds: nnum,
  max_cpu_seconds: nnum,
  last_cpu_seconds: nnum,
  avg_rss_bytes: nnum,
  max_rss_bytes: nnum,
  last_rss_bytes: nnum,
});
export type ApiResourceStats = z.infer<typeof ResourceStatsSchema>;

export const RunStatsSchema = RunOutcomeStatsSchema.extend(ResourceStatsSchema.shape);

/** A runtime pause (spec 10 §1.1): instants ISO-8601 UTC with microseconds. */
export const PauseRecordSchema = z.object({
  since: z.string(),
  until: z.string(),
  note: z.string(),
  by: z.string(),
  channel: z.enum(['api', 'mcp']),
});
export type PauseRecord = z.infer<typeof PauseRecordSchema>;

/**
 * A job's SLA state (spec 09 §2.8), present only when a threshold is set: the set thresholds,
 * `late` iff a check is latched, the latched checks (maxTimeSinceSuccess, lateAfter, maxRuntime
 * order) with the latch instant and the observation re-measured for this answer.
 */
export const JobSlaSchema = z.object({
  thresholds: z.object({
    maxTimeSinceSuccessSeconds: int.optional(),
    lateAfterSeconds: int.optional(),
    maxRuntimeSeconds: int.optional(),
  }),
  state: z.enum(['ok', 'late']),
  breaches: z.array(
    z.object({
      check: z.enum(['maxTimeSinceSuccess', 'lateAfter', 'maxRuntime']),
      since: z.string(),
      observed_seconds: num,
      threshold_seconds: int,
    }),
  ),
});
export type JobSla = z.infer<typeof JobSlaSchema>;

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
  /** The runtime pause in force (spec 10 §1.5), or null; absent from daemons older than pauses. */
  paused: PauseRecordSchema.nullable().optional(),
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
  /** Spec 09 §3.3: present only when not `normal`. */
  priority: z.enum(['idle', 'below-normal', 'above-normal', 'high']).optional(),
  concurrencyScope: z.literal('cluster').optional(),
  slot: z.object({ held: z.boolean(), holder: nstr, refs: int }).optional(),
  clusterPolicy: z.enum(['Leader', 'PreferLeader', 'EveryNode']).optional(),
  clusterOwner: nstr.optional(),
  sla: JobSlaSchema.optional(),
});
export type JobRow = z.infer<typeof JobRowSchema>;
/** A run object (`last_run`, `/runs` entries). */
export type RunObject = z.infer<typeof RunObjectSchema>;
/** One `history` entry of a `/jobs` row (oldest first, at most 20). */
export type JobHistoryEntry = JobRow['history'][number];
export type ScheduleFinding = JobRow['schedule_findings'][number];

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

/** A running instance's samples so far (`/jobs/{name}/resources` `live`). */
export const LiveResourcesSchema = z.object({
  started_at: z.string(),
  pid: int.nullable(),
  current: z.object({ cpu_seconds: num, cpu_percent: num, rss_bytes: num }).nullable(),
  series: z.array(point),
});
export type ApiLiveResources = z.infer<typeof LiveResourcesSchema>;
/** [epoch seconds, cpu %, rss bytes], oldest first. */
export type ResourceSeries = z.infer<typeof point>[];
/** One sampled run's totals, as the daemon writes them (`/jobs/{name}/runs`, `/resources`). */
export type ApiResourceSummary = Pick<
  z.infer<typeof RunResourcesSchema>,
  'cpu_total_seconds' | 'max_rss_bytes' | 'samples'
>;

export const JobResourcesSchema = z.object({
  name: z.string(),
  monitored: z.boolean(),
  interval: num,
  live: z.array(LiveResourcesSchema),
  // A sampled run joins its run record while the history still holds it, else it is the bare sample.
  runs: z.array(
    z.union([
      RunObjectSchema.extend({ pid: int.nullable(), resources: RunResourcesSchema }),
      SampledRunSchema,
    ]),
  ),
});
export type JobResources = z.infer<typeof JobResourcesSchema>;
/** A sampled run of `/jobs/{name}/resources`: joined to its run record, or the bare sample. */
export type JobResourcesRun = JobResources['runs'][number];

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
const runsQuery = {
  limit: z.string().describe('how many sampled runs (default 20, clamped 0-50)'),
  runs: z.string().describe('legacy name of limit, read only when limit is absent'),
};

export const docs: RouteDoc[] = [
  {
    method: 'get',
    path: '/jobs',
    summary: 'Every job in config order; ETag (countdowns do not change it) and gzip',
    response: z.array(JobRowSchema),
    conditional: true,
  },
  {
    method: 'get',
    path: '/jobs/{name}',
    summary: "One job's `/jobs` row",
    response: JobRowSchema,
    errors: [404],
  },
  {
    method: 'get',
    path: '/jobs/{name}/runs',
    summary: "A job's newest `limit` retained runs (oldest first) and the stats of every retained run",
    query: { limit: z.string().describe('runs to list (default 50, clamped 1-50)') },
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
    summary: 'Start the job now (ignores leadership and pauses, honours concurrencyPolicy)',
    response: z.object({ started: z.string() }),
    errors: [404, 409],
  },
  {
    method: 'post',
    path: '/jobs/{name}/cancel',
    summary: 'Cancel every running instance of the job',
    response: z.object({ cancelled: z.string(), instances: int }),
    errors: [404, 409],
  },
  {
    method: 'post',
    path: '/jobs/{name}/pause',
    summary:
      "Hold the job's scheduled fires until a deadline (default one hour, at most 30 days); replaces a pause",
    body: z.object({
      durationSeconds: int.min(1).max(2_592_000).nullable().optional(),
      until: z.string().nullable().optional(),
      note: z.string().max(500).nullable().optional(),
      by: z.string().max(100).nullable().optional(),
    }),
    response: z.object({ paused: PauseRecordSchema }),
    errors: [400, 404],
  },
  {
    method: 'post',
    path: '/jobs/{name}/resume',
    summary: "Lift the job's pause on every node (never fails on a job that is not paused)",
    body: z.object({ by: z.string().max(100).nullable().optional() }),
    response: z.object({ paused: z.null() }),
    errors: [400, 404],
  },
];

// The daemon-wide payloads of the REST API (spec 06 §5.1-§5.9), shared by routes/core.ts and the MCP
// status, cluster and node tools (spec 07 §4.3): `/status` rows, the version and job-set id, the
// cluster and fleet views, this node's resources and their history, and the Prometheus text.
import { z } from 'zod';
import type { MetricsRegistry } from '../context.ts';
import { nodeName, type WebDeps } from '../deps.ts';
import { Metrics } from '../metrics.ts';
import type { RouteDoc } from './types.ts';

const num = z.number();
const nnum = z.number().nullable();
const int = z.number().int();
const nstr = z.string().nullable();

/** One `GET /status` JSON entry (spec 06 §5.2). */
export const StatusRowSchema = z.object({
  job: z.string(),
  status: z.enum(['running', 'disabled', 'scheduled']),
  pid: z.array(int).optional(),
  scheduled_in: z
    .union([num, z.literal('@reboot')])
    .nullable()
    .optional(),
  never_fires: z.literal(true).optional(),
});
export type StatusRow = z.infer<typeof StatusRowSchema>;

export const JobSetIdSchema = z.object({ job_set_id: z.string(), jobs: int });
export const VersionSchema = z.object({ version: z.string(), job_set_id: z.string(), jobs: int });
export type VersionInfo = z.infer<typeof VersionSchema>;

/** A node's CPU/memory as peers share it: every figure may be unknown. */
export const NodeStatsSchema = z.object({
  cpu_percent: nnum,
  cpu_count: nnum,
  mem_percent: nnum,
  mem_used_bytes: nnum,
  mem_total_bytes: nnum,
  proc_rss_bytes: nnum,
  proc_cpu_percent: nnum,
});

/** This node's own reading (`/node` resources, `/cluster` node_stats): always measured. */
export const NodeResourcesSchema = z.object({
  cpu_percent: num,
  cpu_count: num,
  mem_percent: num,
  mem_used_bytes: num,
  mem_total_bytes: num,
  proc_rss_bytes: num,
  proc_cpu_percent: num,
});

const PeerSchema = z.object({
  host: z.string(),
  status: z.enum(['agreed', 'syncing', 'drifted', 'unreachable', 'untrusted', 'self', 'conflict', 'unknown']),
  node_name: nstr,
  job_set_id: nstr,
  last_seen: nstr,
  last_error: nstr,
  mismatch_streak: int,
  node_stats: NodeStatsSchema.nullable(),
});

/** `GET /cluster` (spec 06 §5.9, 05 §12.1). */
export const ClusterSchema = z.union([
  z.object({ enabled: z.literal(false), peers: z.array(PeerSchema).max(0) }),
  z.object({
    enabled: z.literal(true),
    backend: z.enum(['gossip', 'filesystem', 'etcd', 'kubernetes']),
    node_name: z.string(),
    job_set_id: z.string(),
    cluster_size: int,
    quorum: int,
    elect_leader: z.boolean(),
    distribution: z.enum(['single-leader', 'spread']),
    conflict: z.boolean(),
    conflict_names: z.array(z.string()),
    size_conflict: z.boolean(),
    conflicting_sizes: z.array(int),
    policy_conflict: z.boolean(),
    conflicting_policies: z.array(z.string()),
    quorate: z.boolean(),
    leader: nstr,
    is_leader: z.boolean(),
    peers: z.array(PeerSchema),
    node_stats: NodeResourcesSchema,
    lease: z.record(z.string(), z.unknown()).optional(),
    fleet: z.boolean().optional(),
  }),
]);
export type ClusterBody = z.infer<typeof ClusterSchema>;

const FleetJobSchema = z.object({
  running: z.boolean(),
  enabled: z.boolean(),
  scheduled_in: nnum,
  last: z
    .object({ outcome: z.string(), finished_at: z.string(), duration: nnum, exit_code: int.nullable() })
    .nullable(),
});

/** `GET /fleet` (spec 06 §5.9, 05 §11). */
export const FleetSchema = z.union([
  z.object({ enabled: z.literal(false), nodes: z.array(z.unknown()).max(0) }),
  z.object({
    enabled: z.literal(true),
    backend: z.literal('gossip'),
    node_name: z.string(),
    distribution: z.string(),
    elect_leader: z.boolean(),
    interval: num,
    nodes: z.array(
      z.object({
        node_name: nstr,
        host: z.string(),
        self: z.boolean(),
        status: z.string(),
        as_of: nstr,
        truncated: z.boolean(),
        node_stats: NodeStatsSchema.nullable(),
        jobs: z.record(z.string(), FleetJobSchema).nullable(),
      }),
    ),
  }),
]);
export type FleetBody = z.infer<typeof FleetSchema>;

export const NodeSchema = z.object({
  node_name: z.string(),
  resources: NodeResourcesSchema,
  overload: z.object({
    overloaded: z.boolean(),
    missed_fires: int,
    last_missed_at: nstr,
    waiting_launches: int,
    launch_lag_seconds: num,
  }),
});
export type NodeBody = z.infer<typeof NodeSchema>;

export const NodeHistorySchema = z.object({
  node_name: z.string(),
  enabled: z.boolean(),
  interval: nnum,
  points: z.array(z.tuple([num, num, num])),
});
export type NodeHistoryBody = z.infer<typeof NodeHistorySchema>;

const dec = new TextDecoder();

/** The `GET /status` JSON rows, from the same cached rendering the route serves. */
export function statusRows(d: WebDeps): StatusRow[] {
  return JSON.parse(dec.decode(d.status.body('json'))) as StatusRow[];
}

/** `GET /job-set-id` (JSON form). */
export function jobSetIdBody(d: WebDeps): z.infer<typeof JobSetIdSchema> {
  return { job_set_id: d.ctx.jobSetId(), jobs: d.ctx.scheduler.jobNames().length };
}

/** The version, the job-set id and the job count (MCP `cron_get_version`, resource `cronstable://version`). */
export function versionInfo(d: WebDeps): VersionInfo {
  return { version: d.ctx.version, ...jobSetIdBody(d) };
}

/** `GET /cluster`: the running backend's view plus enabled, job_set_id and this node's load (spec 05 §12.1). */
export function clusterBody(d: WebDeps): ClusterBody {
  const { ctx } = d;
  const view = ctx.cluster();
  const report = view.enabled ? view.report : null;
  if (!report) return { enabled: false, peers: [] };
  return { enabled: true, ...report, job_set_id: ctx.jobSetId(), node_stats: d.node.read() } as ClusterBody;
}

/** `GET /fleet`: the gossip mesh's fleet view (spec 05 §11). */
export function fleetBody(d: WebDeps): FleetBody {
  return (d.ctx.cluster().fleet?.() ?? { enabled: false, nodes: [] }) as FleetBody;
}

/** `GET /node`: this node's resources and whether it keeps up with its schedule. */
export function nodeBody(d: WebDeps): NodeBody {
  const o = d.ctx.scheduler.overload();
  return {
    node_name: nodeName(d.ctx),
    resources: d.node.read(),
    overload: {
      overloaded: o.overloaded,
      missed_fires: o.missedFires,
      last_missed_at: o.lastMissedAt === null ? null : new Date(o.lastMissedAt).toISOString(),
      waiting_launches: o.waitingLaunches,
      launch_lag_seconds: Math.round(o.launchLagMs) / 1000,
    },
  };
}

/** `GET /node/history`: the sampler's [t, cpu%, mem%] points, oldest first. */
export function nodeHistoryBody(d: WebDeps): NodeHistoryBody {
  const { node } = d;
  return {
    node_name: nodeName(d.ctx),
    enabled: node.enabled,
    interval: node.enabled ? node.interval : null,
    points: node.enabled ? node.points : [],
  };
}

/**
 * The Prometheus text exposition, rendered in-process whether or not `/metrics` is served (MCP
 * `cron_query_metrics`): the server's registry, else the daemon's, else a registry made for this
 * one rendering (its counters start at zero; gauges read the live state).
 */
export async function metricsText(d: WebDeps): Promise<string> {
  const registry: MetricsRegistry | null = d.metrics ?? d.ctx.metrics ?? null;
  if (registry) return (await registry.exposition(undefined)).body;
  const temp = new Metrics({ version: d.ctx.version });
  const detach = temp.attach(d.ctx);
  try {
    return (await temp.exposition(undefined)).body;
  } finally {
    detach();
  }
}

export const docs: RouteDoc[] = [
  {
    method: 'get',
    path: '/version',
    summary: 'The daemon version',
    response: z.string(),
    contentType: 'text/plain',
  },
  {
    method: 'get',
    path: '/status',
    summary:
      'One entry per job in config order; JSON when Accept is exactly application/json (else one text line per job)',
    response: z.array(StatusRowSchema),
  },
  {
    method: 'get',
    path: '/job-set-id',
    summary:
      'The job-set fingerprint; JSON {job_set_id, jobs} when Accept is exactly application/json (else the id as text)',
    response: JobSetIdSchema,
  },
  {
    method: 'get',
    path: '/cluster',
    summary: "The cluster backend's view and this node's load",
    response: ClusterSchema,
  },
  {
    method: 'get',
    path: '/fleet',
    summary: "The gossip mesh's view of every node and its jobs",
    response: FleetSchema,
  },
  {
    method: 'get',
    path: '/node',
    summary: "This node's CPU, memory and overload state",
    response: NodeSchema,
  },
  {
    method: 'get',
    path: '/node/history',
    summary: "This node's sampled CPU and memory, oldest first",
    response: NodeHistorySchema,
  },
  {
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus exposition (OpenMetrics when Accept asks for it); absent when web.metrics is off',
    response: z.string(),
    contentType: 'text/plain',
  },
];

// The zod schemas of the core payloads (the 200 bodies of ./core.ts) and the RouteDocs that
// /openapi.json is built from. Kept apart from the payload code so a daemon without MCP never loads zod:
// only the MCP tools and src/web/openapi.ts import this module.
import { z } from 'zod';
import { PEER_STATUSES, type PeerStatus } from '../../cluster/peer-status.ts';
import { CLUSTER_BACKENDS } from '../../util/backend-kinds.ts';
import type { RouteDoc } from './route-doc.ts';

export type { PeerStatus };

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
export type JobSetIdBody = z.infer<typeof JobSetIdSchema>;
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
  status: z.enum(PEER_STATUSES),
  node_name: nstr,
  job_set_id: nstr,
  last_seen: nstr,
  last_error: nstr,
  mismatch_streak: int,
  node_stats: NodeStatsSchema.nullable(),
});
/** One configured gossip peer on `/cluster` (spec 05 §5.4). */
export type ClusterPeer = z.infer<typeof PeerSchema>;
/** A peer's shared load (`/cluster` peers, `/fleet` nodes): every figure may be unknown. */
export type NodeStats = z.infer<typeof NodeStatsSchema>;

/** `GET /cluster` (spec 06 §5.9, 05 §12.1). */
export const ClusterSchema = z.union([
  z.object({ enabled: z.literal(false), peers: z.array(PeerSchema).max(0) }),
  z.object({
    enabled: z.literal(true),
    backend: z.enum(CLUSTER_BACKENDS),
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
    /** Gossip only (spec 10 §4.6): 0, or the full count of electable names past the 512-name cap. */
    candidates_truncated: int.optional(),
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
/** One job of a fleet node (spec 05 §5.3 `job_summaries`). */
export type FleetJob = z.infer<typeof FleetJobSchema>;

const FleetNodeSchema = z.object({
  node_name: nstr,
  host: z.string(),
  self: z.boolean(),
  status: z.string(),
  as_of: nstr,
  truncated: z.boolean(),
  node_stats: NodeStatsSchema.nullable(),
  jobs: z.record(z.string(), FleetJobSchema).nullable(),
});
export type FleetNode = z.infer<typeof FleetNodeSchema>;

/** `GET /fleet` (spec 06 §5.9, 05 §11). */
export const FleetSchema = z.union([
  z.object({ enabled: z.literal(false), nodes: z.array(FleetNodeSchema).max(0) }),
  z.object({
    enabled: z.literal(true),
    backend: z.literal('gossip'),
    node_name: z.string(),
    distribution: z.string(),
    elect_leader: z.boolean(),
    interval: num,
    nodes: z.array(FleetNodeSchema),
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
      'One entry per job in config order; JSON when Accept lists application/json with q > 0 (else one text line per job)',
    response: z.array(StatusRowSchema),
  },
  {
    method: 'get',
    path: '/job-set-id',
    summary:
      'The job-set fingerprint; JSON {job_set_id, jobs} when Accept lists application/json with q > 0 (else the id as text)',
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
    conditional: true,
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

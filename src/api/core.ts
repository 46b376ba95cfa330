// The daemon-wide payloads of the REST API (spec 06 §5.1-§5.9), shared by routes/core.ts and the MCP
// status, cluster and node tools (spec 07 §4.3): `/status` rows, the version and job-set id, the
// cluster and fleet views, this node's resources and their history, and the Prometheus text.
import { type ApiDeps, nodeName } from './deps.ts';
import type {
  ClusterBody,
  FleetBody,
  JobSetIdBody,
  NodeBody,
  NodeHistoryBody,
  StatusRow,
  VersionInfo,
} from './wire/core.schema.ts';

const dec = new TextDecoder();

/** The `GET /status` JSON rows, from the same cached rendering the route serves. */
export function statusRows(d: ApiDeps): StatusRow[] {
  return JSON.parse(dec.decode(d.status.body('json'))) as StatusRow[];
}

/** `GET /job-set-id` (JSON form). */
export function jobSetIdBody(d: ApiDeps): JobSetIdBody {
  return { job_set_id: d.ctx.jobSetId(), jobs: d.ctx.scheduler.jobNames().length };
}

/** The version, the job-set id and the job count (MCP `cron_get_version`, resource `cronstable://version`). */
export function versionInfo(d: ApiDeps): VersionInfo {
  return { version: d.ctx.version, ...jobSetIdBody(d) };
}

/** `GET /cluster`: the running backend's view plus enabled, job_set_id and this node's load (spec 05 §12.1). */
export function clusterBody(d: ApiDeps): ClusterBody {
  const { ctx } = d;
  const view = ctx.cluster();
  const report = view.enabled ? view.report : null;
  if (!report) return { enabled: false, peers: [] };
  return { enabled: true, ...report, job_set_id: ctx.jobSetId(), node_stats: d.node.read() } as ClusterBody;
}

/** `GET /fleet`: the gossip mesh's fleet view (spec 05 §11). */
export function fleetBody(d: ApiDeps): FleetBody {
  return (d.ctx.cluster().fleet?.() ?? { enabled: false, nodes: [] }) as FleetBody;
}

/** `GET /node`: this node's resources and whether it keeps up with its schedule. */
export function nodeBody(d: ApiDeps): NodeBody {
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
export function nodeHistoryBody(d: ApiDeps): NodeHistoryBody {
  const { node } = d;
  return {
    node_name: nodeName(d.ctx),
    enabled: node.enabled,
    interval: node.enabled ? node.interval : null,
    points: node.enabled ? node.points : [],
  };
}

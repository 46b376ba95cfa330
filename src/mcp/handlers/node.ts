// The cluster and node tools' handlers (spec 07 §4.2 rows 7-11, plus cron_get_incident): the cluster
// and fleet views, this node's resources, the Prometheus samples, the version and the incident view.
// Every payload comes from the same api/core.ts function as its REST route. Their schemas are in
// src/mcp/tools/node.schema.ts.
import { clusterBody, fleetBody, nodeBody, nodeHistoryBody, versionInfo } from '../../api/core.ts';
import { jobRows } from '../../api/jobs.ts';
import { metricsText } from '../../metrics/text.ts';
import { handlerFor, toolError, toolOk } from '../tool.ts';
import { incidentView } from '../tools/incident.ts';
import type { NodeSchemas } from '../tools/node.schema.ts';
import { matchSamples } from '../tools/prom-samples.ts';
import { jobNotFound } from './jobs.ts';

const tool = handlerFor<NodeSchemas>();

const getCluster = tool({
  name: 'cron_get_cluster',
  title: 'Cluster view',
  description:
    'The cluster backend as this node sees it: quorum, leader, peers and their status, conflicts and this node\'s load; `{"enabled": false}` without a cluster.',
  toolset: 'observe',
  mutation: false,
  async run(_args, ctx) {
    const body = clusterBody(ctx.deps);
    return toolOk(`cluster enabled=${body.enabled}`, body);
  },
});

const getFleet = tool({
  name: 'cron_get_fleet',
  title: 'Fleet view',
  description:
    'Every node of the gossip mesh with its load and each job\'s state and last outcome there, serving node first; `{"enabled": false}` without a mesh.',
  toolset: 'observe',
  mutation: false,
  async run(_args, ctx) {
    const body = fleetBody(ctx.deps);
    return toolOk(`fleet enabled=${body.enabled}`, body);
  },
});

const getNode = tool({
  name: 'cron_get_node',
  title: 'Node resources',
  description:
    "This node's CPU and memory and whether it keeps up with its schedule. `history: true` adds the sampled [epoch seconds, cpu %, mem %] points, oldest first (all kept points, not bounded by maxRows).",
  toolset: 'observe',
  mutation: false,
  async run(args, ctx) {
    const body: Record<string, unknown> = { ...nodeBody(ctx.deps) };
    if (args.history) {
      const { enabled, interval, points } = nodeHistoryBody(ctx.deps);
      body.history = { enabled, interval, points };
    }
    return toolOk(`node ${body.node_name}`, body);
  },
});

const queryMetrics = tool({
  name: 'cron_query_metrics',
  title: 'Query metrics',
  description:
    "The daemon's Prometheus samples (rendered in-process, whether or not /metrics is served), keeping those whose metric name contains `match` (case-insensitive). At most `limit` samples (default and ceiling: maxRows); values are strings so NaN and +Inf survive.",
  toolset: 'observe',
  mutation: false,
  async run(args, ctx) {
    const a = args;
    const match = a.match === undefined || a.match === '' ? null : a.match;
    const all = matchSamples(await metricsText(ctx.deps), match);
    const samples = all.slice(0, ctx.rows(a.limit));
    return toolOk(`${all.length} metric sample(s) matched, ${samples.length} returned`, {
      samples,
      totalMatched: all.length,
      returned: samples.length,
      match,
    });
  },
});

const getVersion = tool({
  name: 'cron_get_version',
  title: 'Version',
  description: 'The daemon version, the fingerprint of the loaded job set and the number of jobs.',
  toolset: 'observe',
  mutation: false,
  async run(_args, ctx) {
    const v = versionInfo(ctx.deps);
    return toolOk(`cronstable ${v.version} - ${v.jobs} job(s)`, v);
  },
});

const getIncident = tool({
  name: 'cron_get_incident',
  title: 'Incident view',
  description:
    "The dashboard's verdict bar and incident timeline as data: which jobs are failing, whether their failures share one cause (same exit code and reason within 60 s) or look independent, and every job's newest finish, newest first. `hours` keeps only finishes of the last N hours in the timeline (1-720; default all); `name` adds that job's status and correlation group.",
  toolset: 'observe',
  mutation: false,
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

/** Catalogue order (spec 07 §4.2), then the tools beyond the reference. */
export const nodeHandlers = [getCluster, getFleet, getNode, queryMetrics, getVersion, getIncident];

// The cluster and node tools of the MCP server (spec 07 §4.2 rows 7-11, plus cron_get_incident):
// the cluster and fleet views, this node's resources, the Prometheus samples and the version. Every
// payload comes from the same api/core.ts function as its REST route.
import { z } from 'zod';
import { clusterBody, fleetBody, nodeBody, nodeHistoryBody, versionInfo } from '../../api/core.ts';
import {
  ClusterSchema,
  FleetSchema,
  NodeHistorySchema,
  NodeSchema,
  VersionSchema,
} from '../../api/wire/core.schema.ts';
import { metricsText } from '../../metrics/text.ts';
import { type ToolDef, toolOk } from '../tool.ts';
import { defineTool, rowsArg } from './args.ts';
import { getIncident } from './incident.ts';
import { matchSamples } from './prom-samples.ts';

const noArgs = z.strictObject({});

const getCluster = defineTool({
  name: 'cron_get_cluster',
  title: 'Cluster view',
  description:
    'The cluster backend as this node sees it: quorum, leader, peers and their status, conflicts and this node\'s load; `{"enabled": false}` without a cluster.',
  toolset: 'observe',
  mutation: false,
  input: noArgs,
  output: ClusterSchema,
  async run(_args, ctx) {
    const body = clusterBody(ctx.deps);
    return toolOk(`cluster enabled=${body.enabled}`, body);
  },
});

const getFleet = defineTool({
  name: 'cron_get_fleet',
  title: 'Fleet view',
  description:
    'Every node of the gossip mesh with its load and each job\'s state and last outcome there, serving node first; `{"enabled": false}` without a mesh.',
  toolset: 'observe',
  mutation: false,
  input: noArgs,
  output: FleetSchema,
  async run(_args, ctx) {
    const body = fleetBody(ctx.deps);
    return toolOk(`fleet enabled=${body.enabled}`, body);
  },
});

const getNode = defineTool({
  name: 'cron_get_node',
  title: 'Node resources',
  description:
    "This node's CPU and memory and whether it keeps up with its schedule. `history: true` adds the sampled [epoch seconds, cpu %, mem %] points, oldest first (all kept points, not bounded by maxRows).",
  toolset: 'observe',
  mutation: false,
  input: z.strictObject({
    history: z.boolean().optional().describe('add the sampled history points'),
  }),
  output: NodeSchema.extend({ history: NodeHistorySchema.omit({ node_name: true }).optional() }),
  async run(args, ctx) {
    const body: Record<string, unknown> = { ...nodeBody(ctx.deps) };
    if (args.history) {
      const { enabled, interval, points } = nodeHistoryBody(ctx.deps);
      body.history = { enabled, interval, points };
    }
    return toolOk(`node ${body.node_name}`, body);
  },
});

const SampleSchema = z.object({ name: z.string(), labels: z.string(), value: z.string() });

const queryMetrics = defineTool({
  name: 'cron_query_metrics',
  title: 'Query metrics',
  description:
    "The daemon's Prometheus samples (rendered in-process, whether or not /metrics is served), keeping those whose metric name contains `match` (case-insensitive). At most `limit` samples (default and ceiling: maxRows); values are strings so NaN and +Inf survive.",
  toolset: 'observe',
  mutation: false,
  input: z.strictObject({
    match: z.string().optional().describe('keep metric names containing this text (case-insensitive)'),
    limit: rowsArg,
  }),
  output: z.object({
    samples: z.array(SampleSchema),
    totalMatched: z.number().int(),
    returned: z.number().int(),
    match: z.string().nullable(),
  }),
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

const getVersion = defineTool({
  name: 'cron_get_version',
  title: 'Version',
  description: 'The daemon version, the fingerprint of the loaded job set and the number of jobs.',
  toolset: 'observe',
  mutation: false,
  input: noArgs,
  output: VersionSchema,
  async run(_args, ctx) {
    const v = versionInfo(ctx.deps);
    return toolOk(`cronstable ${v.version} - ${v.jobs} job(s)`, v);
  },
});

/** Catalogue order (spec 07 §4.2), then the tools beyond the reference. */
export const nodeTools: ToolDef[] = [getCluster, getFleet, getNode, queryMetrics, getVersion, getIncident];

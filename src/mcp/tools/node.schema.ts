// The argument and result schemas of the cluster and node tools (spec 07 §4.2 rows 7-11, plus
// cron_get_incident), one entry a tool; the handlers are in src/mcp/handlers/node.ts.
import { z } from 'zod';
import {
  ClusterSchema,
  FleetSchema,
  NodeHistorySchema,
  NodeSchema,
  VersionSchema,
} from '../../api/wire/core.schema.ts';
import type { SchemaTable } from '../tool.ts';
import { rowsArg } from './args.ts';
import { IncidentSchema } from './incident.schema.ts';

const noArgs = z.strictObject({});

const SampleSchema = z.object({ name: z.string(), labels: z.string(), value: z.string() });

export const nodeSchemas = {
  cron_get_cluster: { input: noArgs, output: ClusterSchema },
  cron_get_fleet: { input: noArgs, output: FleetSchema },
  cron_get_node: {
    input: z.strictObject({
      history: z.boolean().optional().describe('add the sampled history points'),
    }),
    output: NodeSchema.extend({ history: NodeHistorySchema.omit({ node_name: true }).optional() }),
  },
  cron_query_metrics: {
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
  },
  cron_get_version: { input: noArgs, output: VersionSchema },
  cron_get_incident: {
    input: z.strictObject({
      name: z.string().min(1).optional(),
      hours: z.number().int().min(1).max(720).optional(),
    }),
    output: IncidentSchema,
  },
} satisfies SchemaTable;

export type NodeSchemas = typeof nodeSchemas;

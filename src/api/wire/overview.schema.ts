// The zod schemas of the daemon-wide overviews (spec 10 §4.3, §4.4, §4.7): `/summary`, `/activity`
// and the `/shutdown` acknowledgement, with their RouteDocs. Loaded only by the MCP tools and
// src/web/openapi.ts; the dashboards read the types.
import { z } from 'zod';
import type { RouteDoc } from './route-doc.ts';

const int = z.number().int();

export const SummarySchema = z.object({
  version: z.string(),
  /** The cluster node name, else the host name. */
  node_name: z.string(),
  generated_at: z.string(),
  jobs: z.object({
    total: int,
    enabled: int,
    disabled: int,
    /** Jobs with a live instance. */
    running: int,
    /** Active pauses, disabled jobs included. */
    paused: int,
    /** Jobs whose newest real run failed. */
    failing: int,
    /** Enabled cron jobs with no future fire. */
    never_fires: int,
  }),
  /** The soonest fire a pause does not hold, or null when nothing is due. */
  next_fire: z.object({ job: z.string(), in: z.number(), at: z.string() }).nullable(),
  /** Present only when DAGs are configured. */
  dags: z.object({ total: int }).optional(),
  cluster: z.union([
    z.object({ enabled: z.literal(false) }),
    z.object({
      enabled: z.literal(true),
      distribution: z.enum(['single-leader', 'spread']),
      quorate: z.boolean(),
      is_leader: z.boolean(),
      leader: z.string().nullable(),
    }),
  ]),
});
export type SummaryBody = z.infer<typeof SummarySchema>;

export const ActivityRunSchema = z.object({
  /** Null on skipped rows (a paused slot never started). */
  started_at: z.string().nullable(),
  finished_at: z.string(),
  outcome: z.enum(['success', 'failure', 'cancelled', 'unknown', 'skipped']),
});
export type ActivityRun = z.infer<typeof ActivityRunSchema>;

export const ActivitySchema = z.object({
  /** Every job (`[]` when it never ran), its retained runs oldest first. */
  jobs: z.record(z.string(), z.array(ActivityRunSchema)),
});
export type ActivityBody = z.infer<typeof ActivitySchema>;

export const ShutdownSchema = z.object({ shuttingDown: z.literal(true) });

export const docs: RouteDoc[] = [
  {
    method: 'get',
    path: '/summary',
    summary: 'Job counts (running, paused, failing, ...), the next fire, DAG count and cluster state',
    response: SummarySchema,
  },
  {
    method: 'get',
    path: '/activity',
    summary:
      "Every job's retained runs (start, finish, outcome), oldest first, for the heat map; ETag and gzip",
    query: { limit: z.string().describe('newest runs per job (default 50, clamped 1-50)') },
    response: ActivitySchema,
    conditional: true,
  },
  {
    method: 'post',
    path: '/shutdown',
    summary:
      'Drain and stop this node as SIGTERM does; needs a bearer token with the control scope (403 without auth)',
    response: ShutdownSchema,
    errors: [403],
  },
];

// The zod schemas of the slots payloads (the 200 bodies of ./slots.ts) and the RouteDocs that
// /openapi.json is built from. Kept apart from the payload code so a daemon without MCP never loads zod:
// only the MCP tools and src/web/openapi.ts import this module.
import { z } from 'zod';
import { SLOT_FATES } from '../../util/slot-outcomes.ts';
import type { RouteDoc } from './route-doc.ts';

const fate = z.enum(SLOT_FATES);
const source = z
  .enum(['ledger', 'memory'])
  .describe('the shared run ledger, or this node alone without a store');

export const jobSlotsSchema = z.object({
  name: z.string(),
  from: z.string(),
  to: z.string(),
  source,
  schedule: z.string(),
  clusterPolicy: z.enum(['Leader', 'PreferLeader', 'EveryNode']),
  counts: z.partialRecord(fate, z.number().int()),
  unaccounted: z.number().int().describe('slots no node accounted for: alert on this'),
  truncated: z.number().int().describe('oldest slots of the window left out'),
  before_history: z.number().int().describe('slots before the ledger knew the job, not listed'),
  slots: z.array(
    z.object({
      scheduled_at: z.string(),
      outcome: fate,
      node: z.string().nullable(),
      run_id: z.string().nullable(),
      reason: z.string().nullable(),
      others: z.array(z.object({ node: z.string(), outcome: fate, reason: z.string().nullable() })),
    }),
  ),
});
export type JobSlots = z.infer<typeof jobSlotsSchema>;
/** One slot of the window and its fate. */
export type JobSlot = JobSlots['slots'][number];

export const unaccountedSchema = z.object({
  from: z.string(),
  to: z.string(),
  source,
  unaccounted: z.number().int(),
  jobs: z.array(z.object({ name: z.string(), unaccounted: z.number().int() })),
});
export type Unaccounted = z.infer<typeof unaccountedSchema>;

export const docs: RouteDoc[] = [
  {
    method: 'get',
    path: '/jobs/{name}/slots',
    summary: "Every scheduled slot of a job's window and its fate",
    query: {
      from: z.string().describe('ISO-8601, default to minus 24 h'),
      to: z.string().describe('ISO-8601, default now'),
    },
    response: jobSlotsSchema,
    errors: [400, 404, 503],
  },
  {
    method: 'get',
    path: '/slots/unaccounted',
    summary: 'Unaccounted slots of every enabled job over the last 24 hours',
    response: unaccountedSchema,
    errors: [503],
  },
];

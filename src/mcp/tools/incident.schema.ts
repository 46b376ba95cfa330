// The result schema of `cron_get_incident` (src/mcp/tools/incident.ts computes it, the handler is in
// src/mcp/handlers/node.ts): the verdict bar and the incident timeline as data.
import { z } from 'zod';
import { STATUS_ORDER } from '../../dashboard/status.ts';

const nstr = z.string().nullable();
const int = z.number().int();

const FailingSchema = z.object({
  name: z.string(),
  exit_code: int.nullable(),
  reason: nstr,
  signature: z.string(),
  finished_at: nstr,
});

const TimelineSchema = z.object({
  name: z.string(),
  outcome: z.enum(['success', 'failure', 'cancelled', 'unknown']),
  finished_at: z.string(),
  started_at: nstr,
  duration: z.number().nullable(),
  exit_code: int.nullable(),
  reason: nstr,
  running_now: z.boolean(),
  /** Seconds since the next older finish (null for the oldest). */
  gap_seconds: z.number().nullable(),
  /** Signature of the correlated failure group this failure belongs to. */
  group: nstr,
});

const GroupSchema = z.object({
  signature: z.string(),
  names: z.array(z.string()),
  first: z.string(),
  last: z.string(),
});

export const IncidentSchema = z.object({
  /** none: nothing failing; single: one failing job; one-cause / independent: a fleet event's verdict. */
  verdict: z.enum(['none', 'single', 'one-cause', 'independent']),
  /** The verdict bar's two lines, as the dashboard words them (null when nothing fails). */
  headline: nstr,
  detail: nstr,
  summary: z.object({ total: int, running: int, failing: int, scheduled: int, disabled: int }),
  failing: z.array(FailingSchema),
  groups: z.array(GroupSchema),
  timeline: z.array(TimelineSchema),
  hours: int.nullable(),
  focus: z
    .object({
      name: z.string(),
      status: z.enum(STATUS_ORDER),
      failing: z.boolean(),
      group: GroupSchema.nullable(),
      last: TimelineSchema.nullable(),
    })
    .optional(),
});
export type Incident = z.infer<typeof IncidentSchema>;

// The zod schemas of the schedule payloads (the 200 bodies of ./schedule.ts) and the RouteDocs that
// /openapi.json is built from. Kept apart from the payload code so a daemon without MCP never loads zod:
// only the MCP tools and src/web/openapi.ts import this module.
import { z } from 'zod';
import type { RouteDoc } from './route-doc.ts';

const finding = z.object({ code: z.string(), level: z.string(), message: z.string() });
const dstPolicy = z.object({
  repeated: z.enum(['first', 'last', 'both']),
  skipped: z.enum(['shift', 'skip']),
});

export const previewSchema = z.object({
  expression: z.string(),
  timezone: z.string(),
  seed: z.string().optional(),
  dst: dstPolicy.optional().describe('the DST policy the fires were computed under (absent for @reboot)'),
  valid: z.boolean(),
  reboot: z.boolean().optional(),
  normalized: z.string().optional(),
  resolved: z.string().optional().describe('the expression with H resolved, when it differs'),
  description: z.string().optional(),
  fires: z.array(z.string()).optional().describe("ISO instants with the zone's offset"),
  never_fires: z.boolean().optional(),
  lint: z.array(finding).optional(),
  error: z.string().optional().describe('why the expression is invalid (valid: false)'),
});

export const pressureSchema = z.object({
  start: z.string(),
  hours: z.number().int(),
  timezone: z.string(),
  jobs: z.number().int(),
  total_fires: z.number().int(),
  grid: z.array(z.array(z.number().int())).describe('24 hours x 60 minutes of fire counts'),
  by_minute_fires: z.array(z.number().int()),
  by_minute_jobs: z.array(z.number().int()),
  by_hour: z.array(z.number().int()),
  busiest_minute: z.object({ minute: z.number().int(), jobs: z.number().int(), fires: z.number().int() }),
  empty_minutes: z.array(z.number().int()),
  top_cells: z.array(
    z.object({
      hour: z.number().int(),
      minute: z.number().int(),
      fires: z.number().int(),
      jobs: z.array(z.string()),
    }),
  ),
  excluded: z.object({ disabled: z.number().int(), reboot: z.number().int() }),
});

export const duplicatesSchema = z.object({
  jobs: z.number().int(),
  groups: z.array(
    z.object({
      expression: z.string(),
      description: z.string(),
      timezone: z.string(),
      count: z.number().int(),
      jobs: z.array(z.string()),
    }),
  ),
});
export type Duplicates = z.infer<typeof duplicatesSchema>;
export type ApiDuplicates = Duplicates;
export type ApiPressure = z.infer<typeof pressureSchema>;

const slot = z.object({
  minute: z.number().int(),
  hour: z.number().int().optional(),
  expression: z.string(),
  fires_in_window: z.number().int(),
});

export const suggestSchema = z.object({
  period: z.enum(['hourly', 'daily']),
  timezone: z.string(),
  based_on: z.object({ jobs: z.number().int(), start: z.string(), hours: z.number().int() }),
  minute: z.number().int(),
  hour: z.number().int().optional(),
  expression: z.string(),
  fires_in_window: z.number().int(),
  busiest: z
    .object({
      minute: z.number().int(),
      hour: z.number().int().optional(),
      jobs: z.number().int(),
      fires: z.number().int(),
    })
    .nullable(),
  alternatives: z.array(slot),
  hash_hint: z.string(),
});

export type ApiSlot = z.infer<typeof slot>;
export type ApiSuggest = z.infer<typeof suggestSchema>;

export const whySchema = z.object({
  job: z.string(),
  enabled: z.boolean(),
  timezone: z.string(),
  at: z.string(),
  at_in_zone: z.string(),
  expression: z.string(),
  reboot: z.boolean(),
  description: z.string(),
  resolved: z.string().optional(),
  matches: z.boolean(),
  checks: z.array(
    z.object({
      field: z.string(),
      value: z.number().int(),
      label: z.string(),
      allowed: z.string(),
      matched: z.boolean(),
    }),
  ),
  failed: z.array(z.string()),
  notes: z.array(finding),
  previous_fire: z.string().nullable(),
  next_fire: z.string().nullable(),
});

const q = {
  tz: z.string().describe("IANA zone, 'local', or UTC (default)"),
};

export const docs: RouteDoc[] = [
  {
    method: 'get',
    path: '/schedule/preview',
    summary: 'Validate a cron expression and list its next fires',
    query: {
      expr: z.string(),
      ...q,
      limit: z.number().int().min(1).max(60).describe('fires to list, default 12'),
      count: z.number().int().min(1).max(60).describe('legacy name of limit, read only when limit is absent'),
      seed: z.string().describe('hash key for H'),
      dst_repeated: z.enum(['first', 'last', 'both']),
      dst_skipped: z.enum(['shift', 'skip']),
    },
    response: previewSchema,
    errors: [400],
  },
  {
    method: 'get',
    path: '/schedule/pressure',
    summary: 'Fires per hour and minute over the next hours, every enabled schedule',
    query: { hours: z.number().int().min(1).max(168).describe('default 24'), ...q },
    response: pressureSchema,
    errors: [400],
  },
  {
    method: 'get',
    path: '/schedule/duplicates',
    summary: 'Groups of enabled jobs that fire at exactly the same instants',
    response: duplicatesSchema,
  },
  {
    method: 'get',
    path: '/schedule/suggest',
    summary: 'The least-loaded hourly or daily slot of the next 24 hours',
    query: { period: z.enum(['hourly', 'daily']), ...q },
    response: suggestSchema,
    errors: [400],
  },
  {
    method: 'get',
    path: '/schedule/why',
    summary: 'Whether a job or dag:<name> schedule fires at an instant, field by field',
    query: { job: z.string(), at: z.string().describe('ISO-8601 instant') },
    response: whySchema,
    errors: [400, 404],
  },
];

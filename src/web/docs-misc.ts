// RouteDocs for the routes that have no payload module in src/api (spec 06 §5.10, §5.12, 07 §2):
// the iCal feeds, the dashboard page, /openapi.json itself and POST /mcp. Their schemas are checked
// against real answers by test/integration/openapi.test.ts.
import { z } from 'zod';
import type { RouteDoc } from '../api/wire/route-doc.ts';
import { DEFAULT_DAYS, DEFAULT_PER_JOB, MAX_DAYS, MAX_PER_JOB } from './ical.ts';

const int = z.number().int();
/** Query integers are clamped, never refused (respond.ts intParam). */
const qint = (what: string) => int.describe(what);

const OpenApiSchema = z.looseObject({
  openapi: z.string().regex(/^3\.1\.\d+$/),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
});

const JsonRpcId = z.union([z.string(), z.number(), z.null()]);
const JsonRpcMessageSchema = z.looseObject({
  jsonrpc: z.literal('2.0'),
  id: JsonRpcId.optional(),
  method: z.string(),
  params: z.record(z.string(), z.unknown()).optional(),
});
const JsonRpcResponseSchema = z.union([
  z.object({ jsonrpc: z.literal('2.0'), id: JsonRpcId, result: z.record(z.string(), z.unknown()) }),
  z.object({
    jsonrpc: z.literal('2.0'),
    id: JsonRpcId,
    error: z.object({ code: int, message: z.string(), data: z.unknown().optional() }),
  }),
]);

const calendarQuery = {
  days: qint(`days ahead (default ${DEFAULT_DAYS}, clamped 1-${MAX_DAYS})`),
  limit: qint(`fires per job at most (default ${DEFAULT_PER_JOB}, clamped 1-${MAX_PER_JOB})`),
  per_job: qint('legacy name of limit, read only when limit is absent'),
};

export const docs: RouteDoc[] = [
  {
    method: 'get',
    path: '/calendar.ics',
    summary: 'Upcoming fires of every scheduled job and its recent runs as an iCalendar feed',
    query: calendarQuery,
    response: z.string(),
    contentType: 'text/calendar',
  },
  {
    method: 'get',
    path: '/jobs/{name}/calendar.ics',
    summary: "One job's upcoming fires and recent runs as an iCalendar feed",
    query: calendarQuery,
    response: z.string(),
    contentType: 'text/calendar',
    errors: [404],
  },
  {
    method: 'get',
    path: '/',
    summary:
      'The dashboard page (when web.ui is on; public even with a token); ETag, revalidated on every load',
    response: z.string(),
    contentType: 'text/html',
    conditional: true,
    errors: [503],
  },
  {
    method: 'get',
    path: '/openapi.json',
    summary: 'This document: the OpenAPI 3.1 description of the routes this server answers',
    response: OpenApiSchema,
  },
  {
    method: 'post',
    path: '/mcp',
    summary:
      'The MCP endpoint (streamable HTTP, stateless): one JSON-RPC message per POST; a notification gets 202 and no body',
    body: JsonRpcMessageSchema,
    response: JsonRpcResponseSchema,
    errors: [400, 403, 406, 413],
  },
];

// RouteDocs for the REST routes no MCP tool shares a payload with (spec 06 §5.10-§5.14, 07 §2):
// the iCal feeds, the DAG task log stream, the state inspector's lists, the unaccounted-slot count,
// the dashboard page, /openapi.json itself and POST /mcp. The routes build these bodies inline; the
// schemas here are checked against real answers by test/integration/openapi.test.ts.
import { z } from 'zod';
import { DEFAULT_DAYS, DEFAULT_PER_JOB, MAX_DAYS, MAX_PER_JOB } from '../ical.ts';
import type { RouteDoc } from './types.ts';

const int = z.number().int();
/** Query integers are clamped, never refused (respond.ts intParam). */
const qint = (what: string) => z.string().describe(what);
/** A query parameter the route answers 400 without (openapi.ts reads the `x-required` mark). */
const needed = (what: string) => z.string().describe(what).meta({ 'x-required': true });

const SlotsUnaccountedSchema = z.object({
  from: z.string(),
  to: z.string(),
  source: z.enum(['ledger', 'memory']),
  unaccounted: int,
  jobs: z.array(z.object({ name: z.string(), unaccounted: int })),
});

/** A KV value or a cursor as metadata: its JSON type and size, never the value. */
const ValueMetaSchema = z.object({
  key: z.string(),
  updatedAt: z.number(),
  valueType: z.enum(['null', 'array', 'object', 'string', 'number', 'boolean']),
  valueSize: int,
});
const IdempotencyMetaSchema = z.object({
  key: z.string(),
  updatedAt: z.number(),
  claimedAt: z.number(),
  expiresAt: z.number().nullable(),
});
const StateDocumentsSchema = z.object({
  namespace: z.string(),
  enumerable: z.boolean(),
  documents: z.array(z.union([ValueMetaSchema, IdempotencyMetaSchema])),
});

const StateRecordsSchema = z.object({
  stream: z.string(),
  records: z.array(z.object({ id: int, writtenAt: z.number(), writer: z.string(), data: z.json() })),
});

const StateArtifactsSchema = z.object({
  scope: z.string(),
  artifacts: z.array(z.object({ name: z.string(), sha256: z.string(), size: int, at: z.number() })),
});

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
  per_job: qint(`fires per job at most (default ${DEFAULT_PER_JOB}, clamped 1-${MAX_PER_JOB})`),
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
    path: '/dags/{name}/runs/{runKey}/tasks/{taskkey}/logs',
    summary: "A running task instance's output as server-sent events; an idle task sends an empty stream",
    response: null,
    contentType: 'text/event-stream',
    errors: [404],
  },
  {
    method: 'get',
    path: '/slots/unaccounted',
    summary: 'Scheduled slots of the last 24 h that no node accounted for, per job',
    response: SlotsUnaccountedSchema,
    errors: [503],
  },
  {
    method: 'get',
    path: '/state/documents',
    summary: 'Documents of a kv/, cursor/ or idem/ namespace as metadata, without values',
    query: { ns: needed('the namespace: kv/<job>, cursor/<job> or idem/<job>') },
    response: StateDocumentsSchema,
    errors: [400, 404, 503],
  },
  {
    method: 'get',
    path: '/state/records',
    summary: 'Records of a stream, newest first; logs/ streams are refused',
    query: { stream: needed('the stream name'), limit: qint('records (default 100, clamped 1-500)') },
    response: StateRecordsSchema,
    errors: [400, 403, 404, 503],
  },
  {
    method: 'get',
    path: '/state/artifacts',
    summary: 'Artifacts of a scope: name, digest, size and time',
    query: { scope: needed('the artifact scope') },
    response: StateArtifactsSchema,
    errors: [400, 404, 503],
  },
  {
    method: 'get',
    path: '/',
    summary: 'The dashboard page (when web.ui is on; public even with a token)',
    response: z.string(),
    contentType: 'text/html',
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

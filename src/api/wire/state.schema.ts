// The zod schemas of the state payloads (the 200 bodies of ./state.ts) and the RouteDocs that
// /openapi.json is built from. Kept apart from the payload code so a daemon without MCP never loads zod:
// only the MCP tools and src/web/openapi.ts import this module.
import { z } from 'zod';
import type { RouteDoc } from './route-doc.ts';

const count = z.number().int();
const json = z.unknown().describe('any JSON value');

export const inventorySchema = z.object({
  streams: count,
  records: count,
  prefixes: z.record(z.string(), z.object({ streams: count, records: count })),
  list: z.array(z.object({ stream: z.string(), count, newestAt: z.number() })),
});

export const stateOverviewSchema = z.object({
  enabled: z.boolean(),
  view: z.literal('metadata').optional(),
  backend: z.string().optional(),
  namespace: z.string().optional(),
  topology: z.enum(['single-node', 'shared']).optional(),
  stats: z
    .object({
      backend: z.string(),
      ops: z.record(z.string(), z.number()),
      errors: z.record(z.string(), z.number()),
      seconds: z.record(z.string(), z.number()),
      throttledOps: z.number(),
      throttleWaitSeconds: z.number(),
      timeouts: z.number(),
    })
    .nullable()
    .optional(),
  enumerable: z.boolean().optional(),
  node: z
    .object({
      host: z.string(),
      retries: z.array(
        z.object({
          job: z.string(),
          attempt: count,
          nextRetryAt: z.string().nullable(),
          delaySeconds: z.number().nullable(),
        }),
      ),
      slots: z.array(
        z.object({
          slot: z.string(),
          holder: z.string(),
          fence: z.number(),
          expiresAt: z.number(),
          refs: z.number(),
        }),
      ),
    })
    .optional(),
  records: inventorySchema.nullable().optional(),
  error: z.string().optional().describe('what the store could not answer'),
  documents: z.array(z.object({ namespace: z.string(), count, updatedAt: z.number() })).optional(),
  leases: z
    .array(z.object({ name: z.string(), holder: z.string(), fence: z.number(), expiresAt: z.number() }))
    .optional(),
  leasesTruncated: z.literal(true).optional(),
});
export type StateOverview = z.infer<typeof stateOverviewSchema>;
/** One record stream of the inventory. */
export type StreamInfo = z.infer<typeof inventorySchema>['list'][number];

export const stateDocumentsSchema = z.object({
  namespace: z.string(),
  enumerable: z.boolean(),
  documents: z.array(
    z.object({
      key: z.string(),
      updatedAt: z.number(),
      valueType: z.string().optional().describe('kv and cursor documents'),
      valueSize: count.optional(),
      claimedAt: z.number().optional().describe('idempotency documents'),
      expiresAt: z.number().nullable().optional(),
    }),
  ),
});
export type StateDocuments = z.infer<typeof stateDocumentsSchema>;
export type StateDocument = StateDocuments['documents'][number];

export const modelDocumentsSchema = z.object({
  namespace: z.string(),
  documents: z.array(
    z.object({
      key: z.string(),
      updatedAt: z.number(),
      valueType: z.string().optional().describe('kv: str, int, float, bool, list, dict or NoneType'),
      valueSize: count.nullable().optional().describe('kv: bytes of the compact JSON value'),
      body: json.optional().describe('cursor and idempotency documents, whole'),
    }),
  ),
  total: count,
  returned: count,
});
export type ModelDocuments = z.infer<typeof modelDocumentsSchema>;

export const stateRecordsSchema = z.object({
  stream: z.string(),
  records: z.array(z.object({ id: count, writtenAt: z.number(), writer: z.string(), data: json })),
});
export type StateRecords = z.infer<typeof stateRecordsSchema>;
export type StateRecord = StateRecords['records'][number];

export const stateArtifactsSchema = z.object({
  scope: z.string(),
  artifacts: z.array(z.object({ name: z.string(), sha256: z.string(), size: count, at: z.number() })),
});
export type StateArtifacts = z.infer<typeof stateArtifactsSchema>;

export const docs: RouteDoc[] = [
  {
    method: 'get',
    path: '/state',
    summary: 'The state store inventory (metadata only), or {"enabled": false} without a store',
    response: stateOverviewSchema,
  },
  {
    method: 'get',
    path: '/state/documents',
    summary: 'Documents of one kv/, cursor/ or idem/ namespace, values as type and size',
    query: { ns: z.string() },
    response: stateDocumentsSchema,
    errors: [400, 404, 503],
  },
  {
    method: 'get',
    path: '/state/records',
    summary: 'Records of one stream, newest first (log streams refused)',
    query: { stream: z.string(), limit: z.number().int().min(1).max(500).describe('default 100') },
    response: stateRecordsSchema,
    errors: [400, 403, 404, 503],
  },
  {
    method: 'get',
    path: '/state/artifacts',
    summary: 'Artifacts published under one scope',
    query: { scope: z.string() },
    response: stateArtifactsSchema,
    errors: [400, 404, 503],
  },
];

// GET /openapi.json: an OpenAPI 3.1 document built from the RouteDocs beside the payload schemas
// (src/api/wire/*.schema.ts). The success schemas are the zod schemas the routes and MCP tools share,
// converted with z.toJSONSchema (JSON Schema 2020-12 is OpenAPI 3.1's dialect), so the document
// cannot drift from the payloads without test/integration/openapi.test.ts noticing.

import type { Hono } from 'hono';
import { z } from 'zod';
import { tidy } from '../api/json-schema.ts';
import { docs as accessDocs } from '../api/wire/access.schema.ts';
import { docs as coreDocs } from '../api/wire/core.schema.ts';
import { docs as dagDocs } from '../api/wire/dags.schema.ts';
import { docs as jobDocs } from '../api/wire/jobs.schema.ts';
import { docs as overviewDocs } from '../api/wire/overview.schema.ts';
import { docs as pushDocs } from '../api/wire/push.schema.ts';
import type { RouteDoc } from '../api/wire/route-doc.ts';
import { docs as scheduleDocs } from '../api/wire/schedule.schema.ts';
import { docs as slotDocs } from '../api/wire/slots.schema.ts';
import { docs as stateDocs } from '../api/wire/state.schema.ts';
import { docs as miscDocs } from './docs-misc.ts';
import type { WebEnv } from './respond.ts';

/** Every documented route, whether or not a given server registers it. */
export const ROUTE_DOCS: readonly RouteDoc[] = [
  ...coreDocs,
  ...accessDocs,
  ...jobDocs,
  ...overviewDocs,
  ...slotDocs,
  ...scheduleDocs,
  ...dagDocs,
  ...stateDocs,
  ...pushDocs,
  ...miscDocs,
];

/**
 * The operations an app answers, as route keys: middleware (`ALL`, also the /mcp 405 catch-all)
 * and CORS preflights (`OPTIONS /mcp`) are plumbing, not operations a client calls.
 */
export function registeredRoutes(app: Hono<WebEnv>): Set<string> {
  return new Set(
    app.routes
      .filter((r) => r.method !== 'ALL' && r.method !== 'OPTIONS')
      .map((r) => routeKey(r.method, r.path)),
  );
}

type Json = Record<string, unknown>;

export interface OpenApiOptions {
  version: string;
  /** Route keys (`routeKey`) this server answers; docs of other routes are left out. */
  served: ReadonlySet<string>;
  /** Whether a bearer token guards the API. */
  auth: boolean;
  /** Paths served without the token (the dashboard page, public metrics). */
  publicPaths: ReadonlySet<string>;
}

/** `get /jobs/{}/runs` for both `/jobs/:name/runs` (Hono) and `/jobs/{name}/runs` (OpenAPI). */
export function routeKey(method: string, path: string): string {
  return `${method.toLowerCase()} ${path.replace(/:[^/]+/g, '{}').replace(/\{[^}/]+\}/g, '{}')}`;
}

const REASONS: Record<number, string> = {
  400: 'Bad request',
  401: 'Missing or wrong bearer token',
  403: 'Refused',
  404: 'Not found',
  406: 'Not acceptable',
  409: 'Conflict with the current state',
  413: 'Request body too large',
  500: 'Internal error',
  503: 'Temporarily unavailable (the state store did not answer, or the page was never built)',
};

const ERROR_REF = { $ref: '#/components/schemas/Error' };

export function openApiDocument(docs: readonly RouteDoc[], opts: OpenApiOptions): Json {
  const schemas: Json = {
    Error: {
      type: 'object',
      properties: { error: { type: 'string' } },
      required: ['error'],
    },
  };
  const paths: Record<string, Json> = {};
  const listed = docs
    .filter((d) => opts.served.has(routeKey(d.method, d.path)))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.method < b.method ? -1 : 1));
  for (const doc of listed) {
    const item = paths[doc.path] ?? {};
    paths[doc.path] = item;
    item[doc.method] = operation(doc, opts, schemas);
  }
  const securitySchemes: Json = {
    bearerAuth: { type: 'http', scheme: 'bearer', description: 'web.authToken' },
    calendarToken: {
      type: 'apiKey',
      in: 'query',
      name: 'token',
      description:
        'web.authToken as ?token=, accepted by the .ics feeds only (calendar apps send no headers)',
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'cronstable',
      version: opts.version,
      description: 'The REST API of a cronstable daemon, as this server answers it.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    ...(opts.auth ? { security: [{ bearerAuth: [] }] } : {}),
    paths,
    components: { schemas, ...(opts.auth ? { securitySchemes } : {}) },
  };
}

function operation(doc: RouteDoc, opts: OpenApiOptions, schemas: Json): Json {
  const id = operationId(doc);
  const parameters: Json[] = [];
  for (const m of doc.path.matchAll(/\{([^}]+)\}/g))
    parameters.push({ name: m[1], in: 'path', required: true, schema: { type: 'string' } });
  for (const [name, type] of Object.entries(doc.query ?? {})) {
    const schema = jsonSchema(type, 'input', schemas, `${id}_${name}`);
    const description = schema.description;
    delete schema.description;
    parameters.push({ name, in: 'query', required: false, ...(description ? { description } : {}), schema });
  }
  if (doc.conditional)
    parameters.push({
      name: 'If-None-Match',
      in: 'header',
      required: false,
      description: 'an ETag of an earlier answer (a list, `*` and W/ tags match): 304 while it still holds',
      schema: { type: 'string' },
    });
  const op: Json = { operationId: id, summary: doc.summary, tags: [tagOf(doc.path)] };
  if (parameters.length > 0) op.parameters = parameters;
  if (doc.body)
    op.requestBody = {
      required: true,
      content: { 'application/json': { schema: jsonSchema(doc.body, 'input', schemas, `${id}_body`) } },
    };
  const contentType = doc.contentType ?? 'application/json';
  const success: Json = { description: doc.status === 202 ? 'Accepted' : 'OK' };
  if (contentType !== 'application/json') success.content = { [contentType]: { schema: { type: 'string' } } };
  else if (doc.response)
    success.content = { [contentType]: { schema: jsonSchema(doc.response, 'output', schemas, id) } };
  const responses: Json = { [String(doc.status ?? 200)]: success };
  if (doc.conditional)
    responses['304'] = { description: 'Not modified: the If-None-Match tag still matches' };
  const isPublic = opts.publicPaths.has(doc.path);
  const statuses = [...(doc.errors ?? []), ...(opts.auth && !isPublic ? [401] : [])];
  for (const status of [...new Set(statuses)].sort())
    responses[String(status)] = {
      description: REASONS[status] ?? 'Error',
      content: { 'application/json': { schema: ERROR_REF } },
    };
  op.responses = responses;
  if (opts.auth && isPublic) op.security = [];
  else if (opts.auth && doc.path.endsWith('/calendar.ics'))
    op.security = [{ bearerAuth: [] }, { calendarToken: [] }];
  return op;
}

/** `get_jobs_name_runs`: stable, unique per method and path. */
function operationId(doc: RouteDoc): string {
  const words = doc.path
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== '')
    .join('_');
  return `${doc.method}_${words || 'root'}`;
}

const tagOf = (path: string) => path.split('/')[1]?.replace(/\..*$/, '') || 'dashboard';

/**
 * A zod schema as JSON Schema inside the document. Recursive parts (z.json()) come out as `$defs`
 * referenced from the schema's own root; inside the document such a ref would resolve against the
 * document, so each def moves to components.schemas under a name prefixed with its operation.
 */
function jsonSchema(type: z.ZodType, io: 'input' | 'output', schemas: Json, prefix: string): Json {
  const out = tidy(z.toJSONSchema(type, { target: 'draft-2020-12', io })) as Json;
  delete out.$schema;
  const defs = (out.$defs ?? {}) as Record<string, Json>;
  delete out.$defs;
  const names = new Map(Object.keys(defs).map((k) => [k, `${prefix}_${k.replace(/^_+/, '')}`]));
  let rootRef = false;
  const rewrite = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(rewrite);
    if (v === null || typeof v !== 'object') return v;
    const o: Json = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === '$ref' && typeof x === 'string') {
        if (x === '#') rootRef = true;
        const def = x.startsWith('#/$defs/') ? names.get(x.slice('#/$defs/'.length)) : undefined;
        o[k] = x === '#' ? `#/components/schemas/${prefix}` : def ? `#/components/schemas/${def}` : x;
      } else o[k] = rewrite(x);
    }
    return o;
  };
  for (const [k, def] of Object.entries(defs)) schemas[names.get(k)!] = rewrite(def);
  const root = rewrite(out) as Json;
  if (!rootRef) return root;
  schemas[prefix] = root;
  return { $ref: `#/components/schemas/${prefix}` };
}

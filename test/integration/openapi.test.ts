// GET /openapi.json on a real daemon (jobs, a state store with data, DAGs with runs): the document is
// structurally valid OpenAPI 3.1, every documented route is called for real and its body checked
// against the documented schema (ajv, JSON Schema 2020-12), and every route the app registers is
// documented, so a new route without a RouteDoc fails here.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import sodium from 'libsodium-wrappers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiBodies } from '../../src/api/bodies.ts';
import type { ApiDeps } from '../../src/api/deps.ts';
import { JobResourceSampler } from '../../src/api/jobresources.ts';
import { NodeSampler } from '../../src/api/node.ts';
import { StatusView } from '../../src/api/status.ts';
import type { WebSection } from '../../src/config/file-schema.ts';
import { resolveMcpSettings } from '../../src/config/mcp.ts';
import { createMcp } from '../../src/mcp/index.ts';
import { Metrics } from '../../src/metrics/index.ts';
import { Logger } from '../../src/util/log.ts';
import { buildApp } from '../../src/web/app.ts';
import { ROUTE_DOCS, registeredRoutes, routeKey } from '../../src/web/openapi.ts';
import { originPolicy } from '../../src/web/origin.ts';
import { secretDigest } from '../../src/web/tokens.ts';
import { ROOT } from '../helpers/e2e-daemon.ts';
import { httpSink } from '../helpers/sinks.ts';
import { writeTree } from '../helpers/tmp.ts';
import { until } from '../helpers/until.ts';
import { BUNDLE, type Daemon, startDaemon, stopDaemon, writeConfig } from './dag-helpers.ts';
import { buildContext, job, loadWebConfig } from './web-harness.ts';

const TOKEN = 'openapi-s3cret';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

type Json = Record<string, unknown>;
interface Operation {
  path: string;
  method: string;
  op: Json;
}

const JOBS = `jobs:
  - name: hello
    command: echo hello
    schedule: "0 0 1 1 *"
  - name: slow
    command: sleep 60
    schedule: "0 0 1 1 *"
  - name: writer
    command: >-
      cronstable state set greeting '{"a":1}' &&
      cronstable cursor advance offset 5 &&
      cronstable idempotent once &&
      echo bytes | cronstable artifact put report
    schedule: "0 0 1 1 *"
`;

const DAGS = `
  - name: etl
    schedule: "0 3 * * *"
    tasks:
      - id: extract
        command: echo '{"rows":3}' | cronstable xcom push --key stats
      - id: load
        dependsOn:
          - extract
        command: echo loaded
  - name: release
    tasks:
      - id: build
        command: echo built
      - id: approve
        type: approval
        dependsOn:
          - build
`;

let d: Daemon;
let doc: Json;
/** The push relay (spec 10 §6.3) the device test route posts to. */
let relay: Awaited<ReturnType<typeof httpSink>>;
const auth = { authorization: `Bearer ${TOKEN}` };

async function call(method: string, path: string, init: { body?: unknown; accept?: string } = {}) {
  const res = await fetch(`${d.base}${path}`, {
    method: method.toUpperCase(),
    headers: {
      ...auth,
      accept: init.accept ?? 'application/json',
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return res;
}

async function jobRow(name: string): Promise<{ running: boolean; last_run: Json | null }> {
  const res = await call('get', '/jobs');
  const rows = (await res.json()) as { name: string; running: boolean; last_run: Json | null }[];
  return rows.find((r) => r.name === name)!;
}

async function getJson(path: string): Promise<Json> {
  const res = await call('get', path);
  expect(res.status, `GET ${path}`).toBe(200);
  return (await res.json()) as Json;
}

beforeAll(async () => {
  if (!existsSync(BUNDLE))
    expect(spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 }).status).toBe(
      0,
    );
  const dir = writeTree({}, true);
  relay = await httpSink();
  writeConfig(
    dir,
    DAGS,
    `  authToken:
    value: ${TOKEN}
  metrics: true
mcp:
  enabled: true
push:
  relay:
    url: http://127.0.0.1:${relay.port}/relay
${JOBS}`,
  );
  d = await startDaemon(dir);
  // Data for the state inspector, and a finished job with output.
  expect((await call('post', '/jobs/writer/start')).status).toBe(200);
  const finished = await until('the writer job to finish', 20_000, async () => {
    const row = await jobRow('writer');
    return !row.running && row.last_run ? row.last_run : null;
  });
  expect(finished).toMatchObject({ exit_code: 0 });
  doc = await getJson('/openapi.json');
}, 60_000);

afterAll(async () => {
  if (d) await stopDaemon(d);
  await relay?.close();
});

describe('GET /openapi.json', () => {
  it('needs the token, like the rest of the API', async () => {
    const res = await fetch(`${d.base}/openapi.json`);
    expect(res.status).toBe(401);
    const ok = await call('get', '/openapi.json');
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await ok.json()).toEqual(doc);
  });

  it('is a structurally valid OpenAPI 3.1 document whose every $ref resolves', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect((doc.info as Json).title).toBe('cronstable');
    expect(typeof (doc.info as Json).version).toBe('string');
    const schemes = (doc.components as Json).securitySchemes as Json;
    expect(schemes.bearerAuth).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    const ids = new Set<string>();
    for (const { path, method, op } of operations()) {
      expect(path.startsWith('/'), path).toBe(true);
      const responses = op.responses as Json;
      expect(Object.keys(responses).length, `${method} ${path} responses`).toBeGreaterThan(0);
      for (const [status, r] of Object.entries(responses)) {
        expect(status).toMatch(/^[1-5]\d\d$/);
        expect(typeof (r as Json).description).toBe('string');
      }
      expect(ids.has(op.operationId as string), `duplicate operationId ${op.operationId}`).toBe(false);
      ids.add(op.operationId as string);
      // Every templated segment has its path parameter, and nothing else claims to be one.
      const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const params = (op.parameters as Json[] | undefined) ?? [];
      expect(params.filter((p) => p.in === 'path').map((p) => p.name)).toEqual(templated);
      for (const p of params) {
        expect(['path', 'query', 'header']).toContain(p.in);
        if (p.in === 'path') expect(p.required).toBe(true);
        // The one header parameter is the conditional GET's, and it comes with its 304 (spec 10 §4.10).
        if (p.in === 'header') {
          expect(p.name).toBe('If-None-Match');
          expect(responses['304'], `${method} ${path} 304`).toBeDefined();
        }
      }
      if (!['/', '/metrics'].includes(path)) expect(responses['401'], `${method} ${path} 401`).toBeDefined();
    }
    // Every $ref points at something in the document.
    const refs: string[] = [];
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object')
        for (const [k, x] of Object.entries(v))
          k === '$ref' && typeof x === 'string' ? refs.push(x) : walk(x);
    };
    walk(doc);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      expect(ref.startsWith('#/'), ref).toBe(true);
      expect(pointer(doc, ref), ref).toBeDefined();
    }
  });

  it('documents every route the app registers, and nothing it does not; stays private with public metrics', async () => {
    const { cfg } = loadWebConfig(
      job('a', 'true', '0 0 1 1 *'),
      `  listen:\n    - http://127.0.0.1:0\n  authToken:\n    value: x\n  metrics:\n    public: true`,
    );
    const built = buildContext(cfg);
    try {
      const web = cfg.web as WebSection;
      const deps: ApiDeps = {
        ctx: built.ctx,
        web,
        log: new Logger('cronstable'),
        metrics: new Metrics({ version: 't' }),
        status: new StatusView(built.ctx),
        node: NodeSampler.fromConfig(web),
        jobResources: new JobResourceSampler(built.ctx.scheduler),
        bodies: apiBodies(built.ctx, () => deps),
      };
      const mcp = createMcp(deps, resolveMcpSettings({ enabled: true }));
      const app = buildApp(deps, {
        tokens: {
          current: {
            tokens: [
              {
                label: 'authToken',
                scopes: new Set(['approve', 'control', 'view'] as const),
                digest: secretDigest('x'),
              },
            ],
            anonymous: new Set(),
          },
        },
        origin: originPolicy(web.allowedOrigins, web.headers),
        mcp,
      });
      const registered = registeredRoutes(app);
      const documented = ROUTE_DOCS.map((r) => routeKey(r.method, r.path));
      const undocumented = [...registered].filter((k) => !documented.includes(k));
      expect(undocumented, 'routes without a RouteDoc').toEqual([]);
      expect(
        documented.filter((k, i) => documented.indexOf(k) !== i),
        'routes documented twice',
      ).toEqual([]);
      // The served document lists exactly what this daemon registers (its config matches the app above).
      const served = operations().map((o) => routeKey(o.method, o.path));
      expect(served.sort()).toEqual([...registered].sort());
      // Public metrics open /metrics, not the document; the document marks /metrics as tokenless.
      expect((await app.request('/metrics')).status).toBe(200);
      expect((await app.request('/openapi.json')).status).toBe(401);
      const own = await app.request('/openapi.json', { headers: { authorization: 'Bearer x' } });
      expect(own.status).toBe(200);
      const ownDoc = (await own.json()) as { paths: Record<string, Record<string, Json>> };
      expect(ownDoc.paths['/metrics']!.get!.security).toEqual([]);
      expect(ownDoc.paths['/openapi.json']!.get!.security).toBeUndefined();
      expect(ownDoc.paths['/calendar.ics']!.get!.security).toEqual([
        { bearerAuth: [] },
        { calendarToken: [] },
      ]);
    } finally {
      built.scheduler.stop(1000);
    }
  });

  it('every documented route answers as documented on a real daemon', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    formats.default(ajv);
    const called = new Set<string>();
    // The validator is live: a job row without its fields is refused.
    const jobsSchema = (((opAtGet('/jobs').responses as Json)['200'] as Json).content as Json)[
      'application/json'
    ];
    const jobs = ajv.compile({ ...((jobsSchema as Json).schema as Json), components: doc.components });
    expect(jobs([{ name: 'x' }])).toBe(false);

    // Real names for the path parameters: a DAG run that finished, and one waiting at a gate.
    const etl = (await (await call('post', '/dags/etl/trigger')).json()) as { runKey: string };
    const rel = (await (await call('post', '/dags/release/trigger')).json()) as { runKey: string };
    const run = (dag: string, key: string) => getJson(`/dags/${dag}/runs/${encodeURIComponent(key)}`);
    await until('the etl run to succeed', 30_000, async () =>
      (await run('etl', etl.runKey)).state === 'success' ? true : null,
    );
    await until('the release run to wait at its gate', 30_000, async () =>
      ((await run('release', rel.runKey)).tasks as Record<string, Json>).approve?.awaitingApproval === true
        ? true
        : null,
    );
    called.add('post /dags/{}/trigger');

    const state = await getJson('/state');
    const streams = ((state.records as Json).list as { stream: string }[]).map((s) => s.stream);
    const documents = ((state.documents as { namespace: string }[] | undefined) ?? []).map(
      (n) => n.namespace,
    );
    expect(streams.length).toBeGreaterThan(0);
    expect(documents).toEqual(expect.arrayContaining(['kv/writer', 'cursor/writer', 'idem/writer']));
    // Each document kind has its own row shape: call all three.
    const query: Record<string, string[]> = {
      '/state/documents': ['?ns=kv/writer', '?ns=cursor/writer', '?ns=idem/writer'],
      '/state/records': [`?stream=${encodeURIComponent(streams.find((s) => !s.startsWith('logs/'))!)}`],
      '/state/artifacts': ['?scope=writer'],
      '/schedule/preview': [
        `?expr=${encodeURIComponent('*/7 * * * *')}&tz=Europe/Berlin`,
        `?expr=${encodeURIComponent('H 3 * * *')}&seed=writer`,
        '?expr=@reboot',
      ],
      '/schedule/pressure': ['', '?hours=2&tz=America/New_York'],
      '/schedule/suggest': ['?period=hourly', '?period=daily'],
      '/schedule/why': ['?job=hello&at=2026-01-01T00:00:00Z', '?job=dag:etl&at=2026-01-01T03:00:00Z'],
      '/jobs/{name}/slots': ['', '?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z'],
    };

    const check = async (method: string, path: string, url: string, res: Response, op: Json) => {
      const key = routeKey(method, path);
      const responses = op.responses as Json;
      const documentedStatus = Object.keys(responses).find((s) => s.startsWith('2'))!;
      expect(res.status, `${key} (${url})`).toBe(Number(documentedStatus));
      const content = (responses[documentedStatus] as Json).content as Json | undefined;
      const type = content ? Object.keys(content)[0]! : null;
      if (type === null) {
        expect(await res.text(), `${key}: documented without a body`).toBe('');
      } else if (type === 'application/json') {
        expect(res.headers.get('content-type'), key).toMatch(/^application\/json/);
        const body: unknown = await res.json();
        const validate = ajv.compile({
          ...((content![type] as Json).schema as Json),
          components: doc.components,
        });
        expect(validate(body) ? [] : validate.errors, `${key}: the body does not match its schema`).toEqual(
          [],
        );
      } else {
        expect(res.headers.get('content-type'), key).toMatch(new RegExp(`^${type.replace('/', '\\/')}`));
        await res.body?.cancel();
      }
      called.add(key);
    };

    for (const { path, method, op } of operations()) {
      if (method !== 'get') continue;
      for (const q of query[path] ?? ['']) {
        const url =
          path
            .replace('{name}', path.startsWith('/dags') ? 'etl' : 'writer')
            .replace('{runKey}', encodeURIComponent(etl.runKey))
            .replace('{taskkey}', 'extract') + q;
        const type = Object.keys(((op.responses as Json)['200'] as Json).content ?? {})[0];
        const res = await call('get', url, {
          accept: type === 'application/json' ? 'application/json' : '*/*',
        });
        await check(method, path, url, res, op);
      }
    }

    // Only documented routes are called here; the test above fails for any that is not.
    const post = async (path: string, url: string, body?: unknown) => {
      const op = ((doc.paths as Json)[path] as Json | undefined)?.post as Json | undefined;
      if (op) await check('post', path, url, await call('post', url, { body }), op);
    };
    await post('/jobs/{name}/start', '/jobs/slow/start');
    await until('slow to run', 10_000, async () => ((await jobRow('slow')).running ? true : null));
    await post('/jobs/{name}/cancel', '/jobs/slow/cancel');
    await post('/jobs/{name}/pause', '/jobs/slow/pause', { durationSeconds: 60, note: 'openapi-test' });
    await post('/jobs/{name}/resume', '/jobs/slow/resume', { by: 'openapi-test' });
    await post('/dags/{name}/backfill', '/dags/etl/backfill', {
      from: '2026-01-01T00:00:00Z',
      to: '2026-01-02T00:00:00Z',
    });
    await post(
      '/dags/{name}/runs/{runKey}/tasks/{taskkey}/decision',
      `/dags/release/runs/${encodeURIComponent(rel.runKey)}/tasks/approve/decision`,
      { decision: 'approve', by: 'openapi-test' },
    );
    await post('/mcp', '/mcp', { jsonrpc: '2.0', id: 1, method: 'ping' });
    // The device registry (spec 10 §6.4), here in the state store: pair, test, revoke.
    await sodium.ready;
    const publicKey = Buffer.from(sodium.crypto_box_keypair().publicKey).toString('base64');
    await post('/push/devices', '/push/devices', {
      name: 'p',
      platform: 'ios',
      publicKey,
      pushToken: 'tok123456',
    });
    const paired = ((await getJson('/push/devices')).devices as { id: string }[])[0]!.id;
    await post('/push/devices/{id}/test', `/push/devices/${paired}/test`);
    const revoke = ((doc.paths as Json)['/push/devices/{id}'] as Json).delete as Json;
    await check(
      'delete',
      '/push/devices/{id}',
      paired,
      await call('delete', `/push/devices/${paired}`),
      revoke,
    );
    expect(relay.hits).toHaveLength(1);
    // Last: the daemon drains and exits after acknowledging it.
    await post('/shutdown', '/shutdown');
    expect(await d.exit).toBe(0);

    const all = operations().map((o) => routeKey(o.method, o.path));
    expect(
      all.filter((k) => !called.has(k)),
      'documented routes the test did not call',
    ).toEqual([]);
  }, 90_000);
});

function operations(): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Json))
    for (const [method, op] of Object.entries(item as Json))
      if (METHODS.includes(method)) out.push({ path, method, op: op as Json });
  return out;
}

function opAtGet(path: string): Json {
  return ((doc.paths as Json)[path] as Json).get as Json;
}

function pointer(root: unknown, ref: string): unknown {
  let v: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const k = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Json)[k];
  }
  return v;
}

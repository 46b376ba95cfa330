// The job API's routes (spec 03 §6.3-§6.4) as a Hono app: bearer auth before anything else
// (a plain-text 401 comes before 404/405), Hono's 405-with-Allow and body-limit middleware,
// caller faults as JSON `{"error"}` and everything else as a 503 "state backend unavailable".
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import { methodNotAllowed } from 'hono/method-not-allowed';
import { type Json, type Store, StoreRequestError, StoreUnavailableError } from '../store/types.ts';
import { errorText } from '../util/errors.ts';
import type { JobApiLogger, LockManager, LockOwner } from './locks.ts';
import {
  ApiError,
  checkValueSize,
  compareCodePoints,
  optionalBool,
  optionalNumber,
  parseJsonObject,
  parseLockRequest,
  requireParam,
  requireString,
  requireValue,
  resolveScope,
  transportCap,
} from './values.ts';

/** One registered run, as the routes see it. */
export interface RunContext extends LockOwner {
  readonly token: string;
  readonly runId: string;
  readonly jobName: string;
  readonly attempt: number;
  readonly scheduledAt: string | null;
  readonly defaultScope: string;
  readonly allowedScopes: readonly string[];
  secrets: Map<string, string>;
}

/** What the routes need from the server that owns them. */
export interface JobApiHost {
  readonly host: string;
  readonly maxValueBytes: number;
  readonly maxArtifactBytes: number;
  readonly lockTtlSeconds: number;
  readonly locks: LockManager;
  readonly log: JobApiLogger;
  /** The live run holding this bearer token (constant-time compared), or null. */
  runForToken(token: string): RunContext | null;
  /** The state backend; throws StoreUnavailableError while there is none. */
  store(): Store;
}

type JobApiEnv = { Variables: { run: RunContext } };
type Ctx = Context<JobApiEnv>;

const JSON_TYPE = 'application/json; charset=utf-8';
const PLAIN_REASON = { 401: 'Unauthorized', 404: 'Not Found', 405: 'Method Not Allowed' } as const;

/** The framework-style plain-text answer for auth and routing misses (never JSON, spec §6.3). */
function plain(status: keyof typeof PLAIN_REASON, headers?: Record<string, string>): Response {
  return new Response(`${status}: ${PLAIN_REASON[status]}`, {
    status,
    headers: { 'content-type': 'text/plain; charset=utf-8', ...headers },
  });
}

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': JSON_TYPE } });
}

function sortedByKey<T>(items: T[], key: (t: T) => string): T[] {
  return items.sort((a, b) => compareCodePoints(key(a), key(b)));
}

/**
 * A 413 as JSON once a body is over `cap`, with the declared size when the client gave one.
 * A declared length is checked from the header alone: hono/body-limit would first build the
 * full web Request (reading `raw.body`), which costs node-server its fast body read and
 * doubled the CPU of a KV round trip; a streamed body goes through hono/body-limit.
 */
function limit(cap: number, what: (size: string) => string): MiddlewareHandler<JobApiEnv> {
  const streamed = bodyLimit({
    maxSize: cap,
    onError: () => json({ error: what(`more than ${cap}`) }, 413),
  });
  return (c, next) => {
    const declared = c.req.header('content-length');
    if (declared === undefined || c.req.header('transfer-encoding') !== undefined) return streamed(c, next);
    if (Number(declared) > cap) return Promise.resolve(json({ error: what(declared) }, 413));
    return next();
  };
}

const noLimit: MiddlewareHandler<JobApiEnv> = (_c, next) => next();

export function jobApiApp(api: JobApiHost): Hono<JobApiEnv> {
  const app = new Hono<JobApiEnv>();
  const cap = transportCap(api.maxValueBytes, api.maxArtifactBytes);
  const jsonLimit =
    cap === null
      ? noLimit
      : limit(cap, (size) => `request body of ${size} bytes exceeds the ${cap}-byte transport limit`);
  const maxArtifact = api.maxArtifactBytes;
  const artifactLimit =
    maxArtifact > 0
      ? limit(
          maxArtifact,
          (size) => `artifact of ${size} bytes is over the maxArtifactBytes limit of ${maxArtifact}`,
        )
      : cap === null
        ? noLimit
        : limit(cap, (size) => `request body of ${size} bytes exceeds the transport limit`);

  const unauthorized = { message: () => plain(401) };
  app.use(
    bearerAuth<JobApiEnv>({
      verifyToken: (token, c) => {
        const run = api.runForToken(token);
        if (run) c.set('run', run);
        return run !== null;
      },
      noAuthenticationHeader: unauthorized,
      invalidAuthenticationHeader: unauthorized,
      invalidToken: unauthorized,
    }),
  );
  app.use(
    methodNotAllowed({ app, onMethodNotAllowed: (_c, methods) => plain(405, { allow: methods.join(', ') }) }),
  );
  app.notFound(() => plain(404));
  app.onError((e, c) => {
    if (e instanceof HTTPException) return e.getResponse();
    if (e instanceof ApiError || e instanceof StoreRequestError) return json({ error: e.message }, e.status);
    const message = errorText(e);
    if (!(e instanceof StoreUnavailableError))
      api.log.warning(`job API ${c.req.path}: unexpected error: ${message}`);
    return json({ error: `state backend unavailable: ${message}` }, 503);
  });

  const body = async (c: Ctx): Promise<Record<string, unknown>> =>
    parseJsonObject(new Uint8Array(await c.req.arrayBuffer()));
  const scopeOf = (c: Ctx, requested: unknown): string => resolveScope(c.var.run, requested);

  app.get('/v1/run', (c) => {
    const run = c.var.run;
    return json({
      runId: run.runId,
      job: run.jobName,
      attempt: run.attempt,
      scheduledAt: run.scheduledAt,
      host: api.host,
      defaultScope: run.defaultScope,
    });
  });

  // KV
  app.get('/v1/kv/get', async (c) => {
    const key = requireParam(c.req.query('key'), 'key');
    const scope = scopeOf(c, c.req.query('scope'));
    const entry = await api.store().kvGet(scope, key);
    if (!entry) throw new ApiError(404, `key not found: ${key}`);
    return json({ value: entry.value, updatedAt: entry.updatedAt });
  });
  app.post('/v1/kv/set', jsonLimit, async (c) => {
    const b = await body(c);
    const key = requireString(b, 'key');
    const value = requireValue(b, 'value');
    const scope = scopeOf(c, b.scope);
    checkValueSize(value, api.maxValueBytes);
    const entry = await api.store().kvSet(scope, key, value);
    return json({ ok: true, updatedAt: entry.updatedAt });
  });
  app.post('/v1/kv/delete', jsonLimit, async (c) => {
    const b = await body(c);
    const key = requireString(b, 'key');
    const scope = scopeOf(c, b.scope);
    return json({ existed: await api.store().kvDelete(scope, key) });
  });
  app.get('/v1/kv/list', async (c) => {
    const scope = scopeOf(c, c.req.query('scope'));
    const entries = await api.store().kvList(scope);
    const keys = sortedByKey(
      entries.map((e) => ({ key: e.key, value: e.value, updatedAt: e.updatedAt })),
      (e) => e.key,
    );
    return json({ scope, keys });
  });

  // Cursors
  app.get('/v1/cursor/get', async (c) => {
    const name = requireParam(c.req.query('name'), 'name');
    const scope = scopeOf(c, c.req.query('scope'));
    const entry = await api.store().cursorGet(scope, name);
    if (!entry) throw new ApiError(404, `cursor not set: ${name}`);
    return json({ value: entry.value, updatedAt: entry.updatedAt });
  });
  app.post('/v1/cursor/advance', jsonLimit, async (c) => {
    const b = await body(c);
    const name = requireString(b, 'name');
    const value = requireValue(b, 'value');
    const force = optionalBool(b, 'force') ?? false;
    const scope = scopeOf(c, b.scope);
    checkValueSize(value, api.maxValueBytes);
    const res = await api.store().cursorAdvance(scope, name, value as Json, force);
    return json({ value: res.value, advanced: res.advanced });
  });

  // Idempotency
  app.post('/v1/idempotency/claim', jsonLimit, async (c) => {
    const b = await body(c);
    const key = requireString(b, 'key');
    const ttl = optionalNumber(b, 'ttl') ?? 0;
    if (ttl < 0) throw new ApiError(400, 'ttl must be >= 0 (0 = permanent)');
    const scope = scopeOf(c, b.scope);
    const res = await api.store().idempotencyClaim(scope, key, ttl);
    return json({ fresh: res.fresh, claimedAt: res.claimedAt });
  });
  app.post('/v1/idempotency/release', jsonLimit, async (c) => {
    const b = await body(c);
    const key = requireString(b, 'key');
    const scope = scopeOf(c, b.scope);
    return json({ released: await api.store().idempotencyRelease(scope, key) });
  });

  // Artifacts: the name and scope are checked before the payload is looked at.
  const artifactTarget = (c: Ctx) => ({
    name: requireParam(c.req.query('name'), 'name'),
    scope: scopeOf(c, c.req.query('scope')),
  });
  app.post(
    '/v1/artifact/put',
    async (c, next) => {
      artifactTarget(c);
      await next();
    },
    artifactLimit,
    async (c) => {
      const { name, scope } = artifactTarget(c);
      const bytes = new Uint8Array(await c.req.arrayBuffer());
      const res = await api.store().artifactPut(scope, name, bytes);
      return json({ sha256: res.sha256, size: res.size });
    },
  );
  app.get('/v1/artifact/get', async (c) => {
    const { name, scope } = artifactTarget(c);
    const res = await api.store().artifactGet(scope, name);
    if (res === null) throw new ApiError(404, `artifact not found: ${name}`);
    if (res === 'gone')
      throw new ApiError(410, `artifact '${name}' is gone: its payload was garbage-collected`);
    return new Response(res.bytes as ConstructorParameters<typeof Response>[0], {
      headers: {
        'x-cronstable-sha256': res.sha256,
        'x-cronstable-size': String(res.size),
        'content-type': 'application/octet-stream',
        'content-length': String(res.bytes.byteLength),
      },
    });
  });
  app.get('/v1/artifact/list', async (c) => {
    const scope = scopeOf(c, c.req.query('scope'));
    const list = await api.store().artifactList(scope);
    const newest = new Map<string, { name: string; sha256: string; size: number; at: number }>();
    for (const a of list) {
      const seen = newest.get(a.name);
      if (!seen || a.at >= seen.at)
        newest.set(a.name, { name: a.name, sha256: a.sha256, size: a.size, at: a.at });
    }
    return json({ scope, artifacts: sortedByKey([...newest.values()], (a) => a.name) });
  });

  // Locks
  app.post('/v1/lock/acquire', jsonLimit, async (c) => {
    const lock = parseLockRequest(await body(c), api.lockTtlSeconds);
    const run = c.var.run;
    const scope = scopeOf(c, lock.scope);
    const signal = c.req.raw.signal;
    return json(await api.locks.acquire(api.store(), run, scope, lock, () => signal.aborted));
  });
  app.post('/v1/lock/release', jsonLimit, async (c) => {
    const token = requireString(await body(c), 'token');
    return json({ released: await api.locks.release(c.var.run, token) });
  });

  // Secrets (never scoped: always the run's own)
  app.get('/v1/secret/get', (c) => {
    const name = requireParam(c.req.query('name'), 'name');
    const value = c.var.run.secrets.get(name);
    if (value === undefined) throw new ApiError(404, `secret not staged: ${name}`);
    return json({ value });
  });
  app.get('/v1/secret/list', (c) => json({ names: [...c.var.run.secrets.keys()].sort(compareCodePoints) }));
  return app;
}

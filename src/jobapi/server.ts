// The job-facing loopback HTTP API (spec 03 §6): per-run bearer tokens, scoped KV / cursors /
// idempotency / artifacts / locks over the store, and run-scoped secrets held in memory.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseJobApiListen } from '../config/sections.ts';
import { type Json, type Store, StoreRequestError, StoreUnavailableError } from '../store/types.ts';
import { getLogger } from '../util/log.ts';
import { pyJsonDumps } from '../util/pyjson.ts';
import { type JobApiLogger, LockManager, type LockOwner } from './locks.ts';
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

export type { JobApiLogger } from './locks.ts';

export const DEFAULT_MAX_VALUE_BYTES = 1_048_576;
export const DEFAULT_MAX_ARTIFACT_BYTES = 67_108_864;
export const DEFAULT_LOCK_TTL_SECONDS = 30;

export interface JobApiServerOptions {
  /** The state backend; null while it is not started (routes then answer 503). */
  store: Store | null;
  /** `state.jobApi.listen`: `http://host:port` or `host:port`; default `127.0.0.1:0`. */
  listen?: string | null;
  maxValueBytes?: number;
  maxArtifactBytes?: number;
  lockTtlSeconds?: number;
  /** This node's host name (`CRONSTABLE_HOST`, lock holders). */
  host: string;
  logger?: JobApiLogger;
  /** Per-process token in lock holder strings; random by default. */
  procToken?: string;
}

/** DAG task identity: adds the `CRONSTABLE_DAG_*` variables (spec 04 §6.3). */
export interface DagTaskIdentity {
  name: string;
  runId: string;
  runKey: string;
  task: string;
  /** `id` or `id#i`. */
  taskKey: string;
  mapIndex: number | null;
  /** The map item (JSON-encoded into the env); undefined or null when not mapped. */
  mapItem?: unknown;
  /** `dagxcom/<dag>/<runId>`. */
  xcomScope: string;
}

export interface RunRegistration {
  /** The scheduler's run id (also the ledger id); minted here when absent. */
  runId?: string;
  jobName: string;
  attempt: number;
  scheduledAt: string | null;
  /** Default state scope: the job name, or a DAG task's XCom scope. */
  defaultScope?: string;
  /** `stateAllowedScopes`. */
  allowedScopes?: readonly string[];
  /** Resolved run-scoped secrets (never written anywhere). */
  secrets?: Readonly<Record<string, string>>;
  dag?: DagTaskIdentity;
}

/** What a registered run gets: its bearer token, its run id and the environment to inject. */
export interface RunCredentials {
  token: string;
  runId: string;
  /** The §6.2 injected environment (all strings). */
  env: Record<string, string>;
}

interface RunContext extends LockOwner {
  readonly token: string;
  readonly runId: string;
  readonly jobName: string;
  readonly attempt: number;
  readonly scheduledAt: string | null;
  readonly defaultScope: string;
  readonly allowedScopes: readonly string[];
  secrets: Map<string, string>;
}

type Reply =
  | { status: number; json: unknown }
  | { status: number; bytes: Uint8Array; headers: Record<string, string> };

interface RequestContext {
  run: RunContext;
  query: URLSearchParams;
  req: IncomingMessage;
  /** True once the client went away without its reply. */
  abandoned: () => boolean;
}

type Handler = (ctx: RequestContext) => Promise<Reply>;

function digest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

const PLAIN_REASON: Record<number, string> = {
  401: 'Unauthorized',
  404: 'Not Found',
  405: 'Method Not Allowed',
};

function sortedByKey<T>(items: T[], key: (t: T) => string): T[] {
  return items.sort((a, b) => compareCodePoints(key(a), key(b)));
}

export class JobApiServer {
  readonly host: string;
  readonly maxValueBytes: number;
  readonly maxArtifactBytes: number;
  readonly lockTtlSeconds: number;
  private readonly listenSpec: string | null;
  private readonly log: JobApiLogger;
  private readonly locks: LockManager;
  private readonly runs = new Map<string, RunContext>();
  private readonly routes: Map<string, { method: 'GET' | 'POST'; handler: Handler }>;
  private storeRef: Store | null;
  private server: Server | null = null;
  private baseUrl: string | null = null;
  private stopping: Promise<void> | null = null;

  constructor(opts: JobApiServerOptions) {
    this.storeRef = opts.store;
    this.host = opts.host;
    this.listenSpec = opts.listen ?? null;
    this.maxValueBytes = opts.maxValueBytes ?? DEFAULT_MAX_VALUE_BYTES;
    this.maxArtifactBytes = opts.maxArtifactBytes ?? DEFAULT_MAX_ARTIFACT_BYTES;
    this.lockTtlSeconds = opts.lockTtlSeconds ?? DEFAULT_LOCK_TTL_SECONDS;
    this.log = opts.logger ?? getLogger('cronstable.state');
    this.locks = new LockManager(this.host, opts.procToken ?? randomBytes(8).toString('hex'), this.log);
    this.routes = this.buildRoutes();
  }

  /** Creates and starts a server. */
  static async start(opts: JobApiServerOptions): Promise<JobApiServer> {
    const s = new JobApiServer(opts);
    await s.start();
    return s;
  }

  /** Base URL built from the bound address (IPv6 bracketed); throws before `start()`. */
  get url(): string {
    if (!this.baseUrl) throw new Error('job API server is not started');
    return this.baseUrl;
  }

  /** Registered runs (tests, metrics). */
  get runCount(): number {
    return this.runs.size;
  }

  /** Live lock holds (tests, metrics). */
  get holdCount(): number {
    return this.locks.size;
  }

  /** Lock acquires of one run currently waiting between passes (tests, diagnostics). */
  blockedAcquires(token: string): number {
    return this.runs.get(digest(token))?.wakers.size ?? 0;
  }

  /** Swaps the backend (state reload, or a backend that started late); null → 503. */
  setStore(store: Store | null): void {
    this.storeRef = store;
  }

  async start(): Promise<void> {
    if (this.server) return;
    let host = '127.0.0.1';
    let port = 0;
    if (this.listenSpec) {
      const parsed = parseJobApiListen(this.listenSpec);
      if (typeof parsed === 'string') throw new Error(parsed);
      host = parsed.host.replace(/^\[(.*)\]$/, '$1');
      port = parsed.port;
    }
    const server = createServer((req, res) => {
      this.handle(req, res).catch((e: unknown) => {
        this.log.warning(`job API: request failed: ${(e as Error)?.message ?? e}`);
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host, port }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (e) => this.log.warning(`job API server error: ${e.message}`));
    const addr = server.address() as AddressInfo;
    const shown = addr.family === 'IPv6' || addr.address.includes(':') ? `[${addr.address}]` : addr.address;
    this.server = server;
    this.baseUrl = `http://${shown}:${addr.port}`;
    this.log.info(`job API listening on ${this.baseUrl}`);
  }

  /** Releases every held job lock, forgets every run and closes the endpoint. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      for (const run of this.runs.values()) this.endRun(run);
      this.runs.clear();
      await this.locks.releaseAll();
      const server = this.server;
      if (!server) return;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    })();
    return this.stopping;
  }

  /** Mints a token and run id for one launch and returns the environment to inject. */
  register(run: RunRegistration): RunCredentials {
    if (this.stopping) throw new Error('job API server is stopped');
    const url = this.url;
    const token = randomBytes(32).toString('hex');
    const runId = run.runId ?? randomBytes(16).toString('hex');
    const defaultScope = run.defaultScope || run.dag?.xcomScope || run.jobName;
    const ctx: RunContext = {
      token,
      runId,
      jobName: run.jobName,
      attempt: run.attempt,
      scheduledAt: run.scheduledAt,
      defaultScope,
      allowedScopes: [...(run.allowedScopes ?? [])],
      secrets: new Map(Object.entries(run.secrets ?? {})),
      ended: false,
      wakers: new Set(),
    };
    this.runs.set(digest(token), ctx);
    const env: Record<string, string> = {
      CRONSTABLE_STATE_URL: url,
      CRONSTABLE_STATE_TOKEN: token,
      CRONSTABLE_RUN_ID: runId,
      CRONSTABLE_JOB_NAME: run.jobName,
      CRONSTABLE_ATTEMPT: String(run.attempt),
      CRONSTABLE_SCHEDULED_AT: run.scheduledAt ?? '',
      CRONSTABLE_HOST: this.host,
    };
    const dag = run.dag;
    if (dag) {
      env.CRONSTABLE_DAG_NAME = dag.name;
      env.CRONSTABLE_DAG_RUN_ID = dag.runId;
      env.CRONSTABLE_DAG_RUN_KEY = dag.runKey;
      env.CRONSTABLE_DAG_TASK = dag.task;
      env.CRONSTABLE_DAG_TASKKEY = dag.taskKey;
      env.CRONSTABLE_DAG_MAP_INDEX = dag.mapIndex === null ? '' : String(dag.mapIndex);
      env.CRONSTABLE_DAG_MAP_ITEM =
        dag.mapItem === undefined || dag.mapItem === null ? '' : pyJsonDumps(dag.mapItem);
      env.CRONSTABLE_DAG_XCOM_SCOPE = dag.xcomScope;
    }
    return { token, runId, env };
  }

  /**
   * Run end (reaped or launch failure): the token answers 401 from now on, secrets are
   * dropped, blocked acquires return `runEnded`, and every lock the run holds is released.
   */
  async unregister(token: string): Promise<void> {
    const key = digest(token);
    const run = this.runs.get(key);
    if (!run) return;
    this.runs.delete(key);
    this.endRun(run);
    await this.locks.releaseOwner(run);
  }

  private endRun(run: RunContext): void {
    run.ended = true;
    run.secrets.clear();
    for (const wake of [...run.wakers]) wake();
  }

  private authenticate(header: string | undefined): RunContext | null {
    if (!header) return null;
    const m = /^[ \t]*bearer[ \t]+([!-~]+)[ \t]*$/i.exec(header);
    if (!m) return null;
    const presented = Buffer.from(m[1]!, 'ascii');
    const run = this.runs.get(digest(m[1]!));
    if (!run) return null;
    const expected = Buffer.from(run.token, 'ascii');
    if (expected.length !== presented.length || !timingSafeEqual(expected, presented)) return null;
    return run;
  }

  private store(): Store {
    if (!this.storeRef) throw new StoreUnavailableError('the state store is not started');
    return this.storeRef;
  }

  private get bodyCap(): number | null {
    return transportCap(this.maxValueBytes, this.maxArtifactBytes);
  }

  /** Reads the whole body; 413 (after draining the rest) when it exceeds `cap`. */
  private readBody(
    req: IncomingMessage,
    cap: number | null,
    what: (size: number) => string,
  ): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const declared = Number(req.headers['content-length']);
      if (cap !== null && Number.isFinite(declared) && declared > cap) {
        req.resume();
        req.once('end', () => reject(new ApiError(413, what(declared))));
        req.once('error', reject);
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      let over = false;
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (over) return;
        if (cap !== null && size > cap) {
          over = true;
          chunks.length = 0;
          return;
        }
        chunks.push(chunk);
      });
      req.once('end', () => (over ? reject(new ApiError(413, what(size))) : resolve(Buffer.concat(chunks))));
      req.once('error', reject);
    });
  }

  private async jsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
    const cap = this.bodyCap;
    const bytes = await this.readBody(
      req,
      cap,
      (size) => `request body of ${size} bytes exceeds the ${cap}-byte transport limit`,
    );
    return parseJsonObject(bytes);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let gone = false;
    res.once('close', () => {
      if (!res.writableEnded) gone = true;
    });
    const run = this.authenticate(req.headers.authorization);
    if (!run) return this.plain(req, res, 401);
    const url = new URL(req.url ?? '/', 'http://localhost');
    const route = this.routes.get(url.pathname);
    if (!route) return this.plain(req, res, 404);
    if (req.method !== route.method) {
      res.setHeader('Allow', route.method);
      return this.plain(req, res, 405);
    }
    let reply: Reply;
    try {
      reply = await route.handler({ run, query: url.searchParams, req, abandoned: () => gone });
    } catch (e) {
      reply = this.errorReply(e, url.pathname);
    }
    if (!req.complete) req.resume();
    if (gone || res.writableEnded) return;
    if ('bytes' in reply) {
      res.writeHead(reply.status, {
        ...reply.headers,
        'Content-Type': 'application/octet-stream',
        'Content-Length': reply.bytes.byteLength,
      });
      res.end(reply.bytes);
    } else {
      const text = JSON.stringify(reply.json);
      res.writeHead(reply.status, {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Length': Buffer.byteLength(text),
      });
      res.end(text);
    }
  }

  private plain(req: IncomingMessage, res: ServerResponse, status: number): void {
    req.resume();
    const text = `${status}: ${PLAIN_REASON[status] ?? 'Error'}`;
    res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': text.length });
    res.end(text);
  }

  private errorReply(e: unknown, path: string): Reply {
    if (e instanceof ApiError || e instanceof StoreRequestError)
      return { status: e.status, json: { error: e.message } };
    const message = (e as Error)?.message ?? String(e);
    if (!(e instanceof StoreUnavailableError))
      this.log.warning(`job API ${path}: unexpected error: ${message}`);
    return { status: 503, json: { error: `state backend unavailable: ${message}` } };
  }

  private buildRoutes(): Map<string, { method: 'GET' | 'POST'; handler: Handler }> {
    const r = new Map<string, { method: 'GET' | 'POST'; handler: Handler }>();
    const get = (path: string, handler: Handler) => r.set(path, { method: 'GET', handler });
    const post = (path: string, handler: Handler) => r.set(path, { method: 'POST', handler });
    const ok = (json: unknown): Reply => ({ status: 200, json });

    get('/v1/run', async ({ run }) =>
      ok({
        runId: run.runId,
        job: run.jobName,
        attempt: run.attempt,
        scheduledAt: run.scheduledAt,
        host: this.host,
        defaultScope: run.defaultScope,
      }),
    );

    // KV
    get('/v1/kv/get', async ({ run, query }) => {
      const key = requireParam(query, 'key');
      const scope = resolveScope(run, query.get('scope'));
      const entry = await this.store().kvGet(scope, key);
      if (!entry) throw new ApiError(404, `key not found: ${key}`);
      return ok({ value: entry.value, updatedAt: entry.updatedAt });
    });
    post('/v1/kv/set', async ({ run, req }) => {
      const body = await this.jsonBody(req);
      const key = requireString(body, 'key');
      const value = requireValue(body, 'value');
      const scope = resolveScope(run, body.scope);
      checkValueSize(value, this.maxValueBytes);
      const entry = await this.store().kvSet(scope, key, value);
      return ok({ ok: true, updatedAt: entry.updatedAt });
    });
    post('/v1/kv/delete', async ({ run, req }) => {
      const body = await this.jsonBody(req);
      const key = requireString(body, 'key');
      const scope = resolveScope(run, body.scope);
      return ok({ existed: await this.store().kvDelete(scope, key) });
    });
    get('/v1/kv/list', async ({ run, query }) => {
      const scope = resolveScope(run, query.get('scope'));
      const entries = await this.store().kvList(scope);
      const keys = sortedByKey(
        entries.map((e) => ({ key: e.key, value: e.value, updatedAt: e.updatedAt })),
        (e) => e.key,
      );
      return ok({ scope, keys });
    });

    // Cursors
    get('/v1/cursor/get', async ({ run, query }) => {
      const name = requireParam(query, 'name');
      const scope = resolveScope(run, query.get('scope'));
      const entry = await this.store().cursorGet(scope, name);
      if (!entry) throw new ApiError(404, `cursor not set: ${name}`);
      return ok({ value: entry.value, updatedAt: entry.updatedAt });
    });
    post('/v1/cursor/advance', async ({ run, req }) => {
      const body = await this.jsonBody(req);
      const name = requireString(body, 'name');
      const value = requireValue(body, 'value');
      const force = optionalBool(body, 'force') ?? false;
      const scope = resolveScope(run, body.scope);
      checkValueSize(value, this.maxValueBytes);
      const res = await this.store().cursorAdvance(scope, name, value as Json, force);
      return ok({ value: res.value, advanced: res.advanced });
    });

    // Idempotency
    post('/v1/idempotency/claim', async ({ run, req }) => {
      const body = await this.jsonBody(req);
      const key = requireString(body, 'key');
      const ttl = optionalNumber(body, 'ttl') ?? 0;
      if (ttl < 0) throw new ApiError(400, 'ttl must be >= 0 (0 = permanent)');
      const scope = resolveScope(run, body.scope);
      const res = await this.store().idempotencyClaim(scope, key, ttl);
      return ok({ fresh: res.fresh, claimedAt: res.claimedAt });
    });
    post('/v1/idempotency/release', async ({ run, req }) => {
      const body = await this.jsonBody(req);
      const key = requireString(body, 'key');
      const scope = resolveScope(run, body.scope);
      return ok({ released: await this.store().idempotencyRelease(scope, key) });
    });

    // Artifacts
    post('/v1/artifact/put', async ({ run, query, req }) => {
      const name = requireParam(query, 'name');
      const scope = resolveScope(run, query.get('scope'));
      const max = this.maxArtifactBytes;
      const bytes = await this.readBody(req, max > 0 ? max : this.bodyCap, (size) =>
        max > 0
          ? `artifact of ${size} bytes is over the maxArtifactBytes limit of ${max}`
          : `request body of ${size} bytes exceeds the transport limit`,
      );
      const view = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const res = await this.store().artifactPut(scope, name, view);
      return ok({ sha256: res.sha256, size: res.size });
    });
    get('/v1/artifact/get', async ({ run, query }) => {
      const name = requireParam(query, 'name');
      const scope = resolveScope(run, query.get('scope'));
      const res = await this.store().artifactGet(scope, name);
      if (res === null) throw new ApiError(404, `artifact not found: ${name}`);
      if (res === 'gone')
        throw new ApiError(410, `artifact '${name}' is gone: its payload was garbage-collected`);
      return {
        status: 200,
        bytes: res.bytes,
        headers: { 'X-Cronstable-Sha256': res.sha256, 'X-Cronstable-Size': String(res.size) },
      };
    });
    get('/v1/artifact/list', async ({ run, query }) => {
      const scope = resolveScope(run, query.get('scope'));
      const list = await this.store().artifactList(scope);
      const newest = new Map<string, { name: string; sha256: string; size: number; at: number }>();
      for (const a of list) {
        const seen = newest.get(a.name);
        if (!seen || a.at >= seen.at)
          newest.set(a.name, { name: a.name, sha256: a.sha256, size: a.size, at: a.at });
      }
      return ok({ scope, artifacts: sortedByKey([...newest.values()], (a) => a.name) });
    });

    // Locks
    post('/v1/lock/acquire', async ({ run, req, abandoned }) => {
      const body = await this.jsonBody(req);
      const lock = parseLockRequest(body, this.lockTtlSeconds);
      const scope = resolveScope(run, lock.scope);
      return ok(await this.locks.acquire(this.store(), run, scope, lock, abandoned));
    });
    post('/v1/lock/release', async ({ run, req }) => {
      const body = await this.jsonBody(req);
      const token = requireString(body, 'token');
      return ok({ released: await this.locks.release(run, token) });
    });

    // Secrets (never scoped: always the run's own)
    get('/v1/secret/get', async ({ run, query }) => {
      const name = requireParam(query, 'name');
      const value = run.secrets.get(name);
      if (value === undefined) throw new ApiError(404, `secret not staged: ${name}`);
      return ok({ value });
    });
    get('/v1/secret/list', async ({ run }) => ok({ names: [...run.secrets.keys()].sort(compareCodePoints) }));
    return r;
  }
}

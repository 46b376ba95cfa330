// The job-facing loopback HTTP API (spec 03 §6): per-run bearer tokens, scoped KV / cursors /
// idempotency / artifacts / locks over the store, and run-scoped secrets held in memory. This
// module owns the run table and the listener (src/http); the routes are routes.ts.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { parseJobApiListen } from '../config/jobapi-listen.ts';
import { createFetchServer } from '../http/serve.ts';
import { loadTlsFiles, tlsFingerprint } from '../http/tls-files.ts';
import { type Store, StoreUnavailableError } from '../store/types.ts';
import { errorText } from '../util/errors.ts';
import { getLogger } from '../util/log.ts';
import { pyJsonDumps } from '../util/pyjson.ts';
import { type JobApiLogger, LockManager } from './locks.ts';
import { type JobApiHost, jobApiApp, type RunContext } from './routes.ts';

export type { JobApiLogger } from './locks.ts';

export const DEFAULT_MAX_VALUE_BYTES = 1_048_576;
export const DEFAULT_MAX_ARTIFACT_BYTES = 67_108_864;
export const DEFAULT_LOCK_TTL_SECONDS = 30;

export interface JobApiServerOptions {
  /** The state backend; null while it is not started (routes then answer 503). */
  store: Store | null;
  /** `state.jobApi.listen`: `https://host:port`, `http://host:port` or `host:port`; default `127.0.0.1:0`. */
  listen?: string | null;
  /**
   * `state.jobApi.tls` (spec 10 §3.5): `cert`/`key` serve an https listen; `ca` is the client-side
   * anchor whose path every job gets as `CRONSTABLE_STATE_CACERT`.
   */
  tls?: { cert?: string | null; key?: string | null; ca?: string | null } | null;
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

function digest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export class JobApiServer implements JobApiHost {
  readonly host: string;
  readonly maxValueBytes: number;
  readonly maxArtifactBytes: number;
  readonly lockTtlSeconds: number;
  readonly log: JobApiLogger;
  readonly locks: LockManager;
  private readonly listenSpec: string | null;
  private readonly runs = new Map<string, RunContext>();
  private storeRef: Store | null;
  private server: Server | null = null;
  private baseUrl: string | null = null;
  private stopping: Promise<void> | null = null;
  private readonly tls: JobApiServerOptions['tls'];
  /** The cert/key fingerprint being served over https; null over plain http. */
  private tlsPrint: string | null = null;

  constructor(opts: JobApiServerOptions) {
    this.storeRef = opts.store;
    this.host = opts.host;
    this.listenSpec = opts.listen ?? null;
    this.tls = opts.tls ?? null;
    this.maxValueBytes = opts.maxValueBytes ?? DEFAULT_MAX_VALUE_BYTES;
    this.maxArtifactBytes = opts.maxArtifactBytes ?? DEFAULT_MAX_ARTIFACT_BYTES;
    this.lockTtlSeconds = opts.lockTtlSeconds ?? DEFAULT_LOCK_TTL_SECONDS;
    this.log = opts.logger ?? getLogger('cronstable.state');
    this.locks = new LockManager(this.host, opts.procToken ?? randomBytes(8).toString('hex'), this.log);
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
    const parsed = this.listenSpec ? parseJobApiListen(this.listenSpec) : null;
    if (typeof parsed === 'string') throw new Error(parsed);
    const host = parsed ? parsed.host.replace(/^\[(.*)\]$/, '$1') : '127.0.0.1';
    const port = parsed?.port ?? 0;
    const https = parsed?.tls === true;
    const app = jobApiApp(this);
    const server = https
      ? createFetchServer(app.fetch, {
          createServer: createHttpsServer,
          serverOptions: loadTlsFiles(this.tlsFiles()),
        })
      : createFetchServer(app.fetch);
    if (https) this.tlsPrint = tlsFingerprint(this.tlsFiles());
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host, port }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (e) => this.log.warning(`job API server error: ${e.message}`));
    const addr = server.address() as AddressInfo;
    // Jobs dial the configured name (the one the certificate covers); the bound address only when
    // none was given or it is a wildcard.
    const named = parsed && !parsed.wildcard ? parsed.host.replace(/^\[(.*)\]$/, '$1') : addr.address;
    const shown = named.includes(':') ? `[${named}]` : named;
    this.server = server;
    this.baseUrl = `${https ? 'https' : 'http'}://${shown}:${addr.port}`;
    this.log.info(`job API listening on ${this.baseUrl}`);
  }

  private tlsFiles(): { cert?: string | null; key?: string | null } {
    return { cert: this.tls?.cert, key: this.tls?.key };
  }

  /**
   * Swaps in rotated cert/key files with `setSecureContext()` (spec 10 §3.5, done better: the
   * endpoint is not rebuilt, so the per-run token table survives and running jobs keep working).
   * `ca` is only a path handed to jobs, so it is not watched.
   */
  refreshTls(): void {
    if (this.tlsPrint === null || !this.server || this.stopping) return;
    const now = tlsFingerprint(this.tlsFiles());
    if (now === this.tlsPrint) return;
    try {
      (this.server as unknown as HttpsServer).setSecureContext(loadTlsFiles(this.tlsFiles()));
    } catch (e) {
      this.log.warning(
        `state: new job API TLS material is not yet loadable (a partial/half-written rotation?); keeping the running endpoint and retrying next reload: ${errorText(e)}`,
      );
      return;
    }
    this.tlsPrint = now;
    this.log.info(
      'state: job API TLS certificate files changed, the new certificate is in effect (the endpoint and its run tokens are kept)',
    );
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
    if (this.tls?.ca) env.CRONSTABLE_STATE_CACERT = resolve(this.tls.ca);
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

  runForToken(token: string): RunContext | null {
    const run = this.runs.get(digest(token));
    if (!run) return null;
    const presented = Buffer.from(token, 'ascii');
    const expected = Buffer.from(run.token, 'ascii');
    if (expected.length !== presented.length || !timingSafeEqual(expected, presented)) return null;
    return run;
  }

  store(): Store {
    if (!this.storeRef) throw new StoreUnavailableError('the state store is not started');
    return this.storeRef;
  }
}

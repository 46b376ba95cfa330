// The durable store's contract (spec 03 §2-§6, §13): what the scheduler, the job API and the
// admin CLI call. Every method is async: SQLite runs off the main thread, and a call that
// times out rejects with StoreUnavailableError (its outcome is UNKNOWN, never "absent").
import { CronstableError } from '../util/errors.ts';

/** The store could not answer in time, or failed: callers apply `onStoreUnavailable`. */
export class StoreUnavailableError extends CronstableError {
  constructor(message: string) {
    super('store-unavailable', message);
    this.name = 'StoreUnavailableError';
  }
}

/** A caller fault with an HTTP-style status (400, 403, 404, 409, 410, 413). */
export class StoreRequestError extends CronstableError {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super('store-request', message);
    this.name = 'StoreRequestError';
  }
}

/** The store is held by an exclusive admin operation (restore/migrate): refuse to open. */
export class StoreLockedError extends CronstableError {
  constructor(message: string) {
    super('store-locked', message);
    this.name = 'StoreLockedError';
  }
}

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export interface StoredRecord {
  /** Commit order within the store (autoincrement). */
  id: number;
  stream: string;
  /** Epoch seconds (float) when written. */
  writtenAt: number;
  writer: string;
  data: Json;
}

export interface Lease {
  name: string;
  holder: string;
  fence: number;
  /** Epoch seconds; 0 = released. */
  expiresAt: number;
}

export interface KvEntry {
  key: string;
  value: Json;
  updatedAt: number;
}

export interface ArtifactInfo {
  name: string;
  sha256: string;
  size: number;
  at: number;
}

export type Topology = 'single-node' | 'shared';

export interface StoreOptions {
  /** Directory holding `cronstable.db` and `cronstable.lock` (created if missing). */
  path: string;
  /** Namespace of every row (`state.deploymentId`, default `default`). */
  namespace: string;
  topology: 'auto' | Topology;
  /** Per-call timeout, ms (spec: 10 s). */
  opTimeoutMs?: number;
  /** Token bucket over non-lease ops; 0 = unlimited. */
  maxOpsPerSecond?: number;
  /**
   * Where SQLite runs: `inline` on the calling thread (admin CLI, tests), `lanes` in worker
   * threads (a bulk and a lease lane, sharing one worker while they do not overlap: see
   * ./lane-pool.ts) so a hung filesystem never stalls the caller, or `auto`:
   * inline when the store resolves to a local disk (`single-node`), lanes on a shared mount.
   * Default `lanes`. `inline: true` is the older spelling of `placement: 'inline'`.
   */
  placement?: 'inline' | 'lanes' | 'auto';
  inline?: boolean;
  /**
   * A lane worker thread exits after this long with no call outstanding and the next call
   * starts it again (0: never). Default LANE_IDLE_MS.
   */
  laneIdleMs?: number;
  /** Identity written into records (`<host>#<proc>`). */
  writer?: string;
  /** Wall clock (epoch ms); default Date.now. */
  now?: () => number;
  /**
   * Script a lane worker thread starts on (the bundle itself in production; main.ts routes
   * `workerData.task === 'cronstable:store-lane'` to runStoreLane). Default: the bundle when
   * running bundled, src/store/lane-entry.ts (through tsx) when running from sources.
   */
  workerEntry?: string | URL;
  /** Non-fatal findings (worker fallback, topology mismatch, newer schema): the caller logs them. */
  onWarning?: (message: string) => void;
  /** The store file was deleted or replaced under the process (error), or is back (info). */
  onFault?: (level: 'error' | 'info', message: string) => void;
}

/** The store as the daemon, the job API and the admin CLI see it. */
export interface Store {
  readonly path: string;
  readonly namespace: string;
  readonly topology: Topology;

  // Record streams (append-only; newest = highest id).
  append(stream: string, data: Json, opts?: { keep?: number }): Promise<StoredRecord>;
  list(stream: string, opts?: { newestFirst?: boolean; limit?: number }): Promise<StoredRecord[]>;
  newest(stream: string): Promise<StoredRecord | null>;
  /** Max of a field over a stream: numbers numerically, strings lexicographically; null if none. */
  maxField(stream: string, field: string): Promise<Json>;
  streams(prefix: string): Promise<{ stream: string; count: number; newestAt: number }[]>;
  /**
   * Every job's newest `perJob` run rows (`runs/<job>`, rows with a run id) and newest `perJob`
   * `skipped` rows of slots a pause held, in one bounded read.
   */
  recentRuns(perJob: number): Promise<StoredRecord[]>;
  deleteStream(stream: string): Promise<number>;

  // KV, cursors, idempotency (documents; scope = the doc namespace suffix).
  kvGet(scope: string, key: string): Promise<KvEntry | null>;
  kvSet(scope: string, key: string, value: Json): Promise<KvEntry>;
  kvDelete(scope: string, key: string): Promise<boolean>;
  kvList(scope: string): Promise<KvEntry[]>;
  cursorGet(scope: string, name: string): Promise<KvEntry | null>;
  /** Moves forward only (numbers/strings; 409 on incomparable types) unless `force`. */
  cursorAdvance(
    scope: string,
    name: string,
    value: Json,
    force: boolean,
  ): Promise<{ value: Json; advanced: boolean }>;
  /** Create-if-absent (or expired); ttlSeconds 0 = permanent. */
  idempotencyClaim(
    scope: string,
    key: string,
    ttlSeconds: number,
  ): Promise<{ fresh: boolean; claimedAt: number }>;
  idempotencyRelease(scope: string, key: string): Promise<boolean>;

  // Artifacts (content-addressed blobs + an `artifacts/<scope>` record per put).
  artifactPut(
    scope: string,
    name: string,
    bytes: Uint8Array,
    meta?: Json,
  ): Promise<{ sha256: string; size: number }>;
  /** null = never published; 'gone' = the record exists but its blob was swept. */
  artifactGet(
    scope: string,
    name: string,
  ): Promise<{ sha256: string; size: number; bytes: Uint8Array } | null | 'gone'>;
  artifactList(scope: string): Promise<ArtifactInfo[]>;

  // Leases (lease lane: never throttled; fences only grow).
  leaseAcquire(name: string, holder: string, ttlSeconds: number): Promise<Lease | null>;
  leaseRenew(lease: Lease, ttlSeconds: number): Promise<Lease | null>;
  leaseRelease(lease: Lease): Promise<void>;
  leaseRead(name: string): Promise<Lease | null>;
  /** One pass over `<base>#0..permits-1`: the lowest free slot wins (semaphore). */
  semaphoreAcquire(
    base: string,
    permits: number,
    holder: string,
    ttlSeconds: number,
  ): Promise<{ lease: Lease; slot: number } | null>;

  /**
   * The fire claim of DESIGN.md §4 step 3: the first node to claim `(job, scheduledAtMs)` wins
   * (`won: true`); every later claim of the slot answers the winner's node name.
   */
  fireClaim(job: string, scheduledAtMs: number, node: string): Promise<{ won: boolean; node: string }>;

  // DAG runs (spec 04 §4): rows in dag_runs/dag_tasks; writes are a CAS on the run's version.
  /** Create-if-absent by `(dag, runKey)`. */
  dagRunCreate(run: StoredDagRun): Promise<{ created: boolean }>;
  dagRunGet(dag: string, runKey: string): Promise<VersionedDagRun | null>;
  /** The run's version alone (null: no such run). */
  dagRunVersion(dag: string, runKey: string): Promise<number | null>;
  /** Lands only when `version` is still the run's: `{ok: false}` = re-read and retry. */
  dagRunWrite(w: DagRunWrite): Promise<{ ok: boolean; version: number }>;
  /** Newest `createdAt` first. */
  dagRunList(dag: string, limit: number): Promise<DagRunSummary[]>;
  /** Every non-terminal run (the adoption scan). */
  dagRunsActive(): Promise<{ dag: string; runKey: string }[]>;
  dagRunStats(dag: string): Promise<DagRunStats>;
  /** Retention: the oldest terminal runs beyond `keep` go, with their XCom; returns how many. */
  dagRunPrune(dag: string, keep: number): Promise<number>;
  /** Terminal runs of DAGs not configured, last written before `cutoff` (epoch s). */
  dagRunPruneRemoved(configured: string[], cutoff: number): Promise<number>;

  /** Operation counters for /metrics (spec 03 §10); optional so test doubles may omit it. */
  stats?(): StoreStats;

  // Inventory for the read-only state inspector (spec 06 §5.14); optional like `stats`.
  /** Every document namespace with its document count and newest write (epoch s). */
  docNamespaces?(): Promise<{ namespace: string; count: number; updatedAt: number }[]>;
  /** The readable documents of one namespace (`cursor/<scope>`, `idem/<scope>`, …), sorted by key. */
  docList?(docNs: string): Promise<{ key: string; body: Json; updatedAt: number }[]>;
  /** Lease rows by name, at most `limit`. */
  leaseList?(limit: number): Promise<Lease[]>;

  close(): Promise<void>;
}

export interface StoreStats {
  backend: string;
  /** Calls per op name. */
  ops: Record<string, number>;
  /** Failed calls (timeouts included) per op name. */
  errors: Record<string, number>;
  /** Seconds spent per op name, call to answer. */
  seconds: Record<string, number>;
  throttledOps: number;
  throttleWaitSeconds: number;
  timeouts: number;
  /**
   * Worker lanes only: whether each of the two lane workers runs now and how many times it was
   * started (`first` takes every call; `second` a lane's calls while `first` runs the other's).
   */
  lanes?: Record<'first' | 'second', { running: boolean; starts: number }>;
}

/** One task instance as stored (the shape of the document's entry, §4.3). */
export interface StoredDagTask {
  id: string;
  mapIndex: number | null;
  /** Mapped instances only: the item (any JSON). */
  mapItem?: unknown;
  /** Mapped placeholder only. */
  mapped?: true;
  state: string;
  /** 0-based count of failed attempts (spec 04 §3.3). */
  attempt: number;
  proc: string | null;
  pid: number | null;
  host: string | null;
  startedAt: number | null;
  finishedAt: number | null;
  exitCode: number | null;
  failReason: string | null;
  resources: unknown;
  updatedAt: number;
  nextRetryAt: number | null;
  /** Sensors only. */
  pokeCount?: number;
  nextPokeAt?: number | null;
  firstPokeAt?: number | null;
  /** Approvals only: null until decided. */
  approval?: { decision: string; by: string; at: number } | null;
  /** Approvals only, while parked; removed on decision. */
  awaitingApproval?: true;
}

/** The whole run document (§4.1). */
export interface StoredDagRun {
  dag: string;
  runKey: string;
  runId: string;
  logicalDate: string | null;
  kind: string;
  state: string;
  createdAt: number;
  updatedAt: number;
  tasks: Record<string, StoredDagTask>;
  mapped: Record<string, { items: unknown[]; expandedAt: number }>;
}

export interface VersionedDagRun {
  run: StoredDagRun;
  version: number;
}

/** A run's header plus `{state: count}` over its entries (the §9 run summary; the API row as is). */
export interface DagRunSummary {
  runKey: string;
  runId: string;
  state: string;
  kind: string;
  logicalDate: string | null;
  /** Epoch seconds. */
  createdAt: number;
  updatedAt: number;
  /** Task count by state. */
  taskStates: Record<string, number>;
}

export interface DagRunWrite {
  dag: string;
  runKey: string;
  /** The version the transform read: the write lands only if it is still current. */
  version: number;
  state: string;
  updatedAt: number;
  mapped: StoredDagRun['mapped'];
  /** Only the entries the transform created or replaced. */
  tasks: Record<string, StoredDagTask>;
}

export interface DagRunStats {
  counts: Record<string, number>;
  total: number;
  latest: DagRunSummary | null;
  /** The greatest `logicalDate` of the DAG's runs (the catch-up watermark, §8.2). */
  watermark: string | null;
}

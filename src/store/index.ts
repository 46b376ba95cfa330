// The durable store (spec 03, DESIGN.md §5): `openStore` resolves the topology, refuses to
// open while an admin lock is held, and runs SQLite either in two worker-thread lanes (bulk
// and lease, the default) or inline on the calling thread (admin CLI, tests).
import { existsSync } from 'node:fs';
import { mkdir, realpath } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertNotAdminLocked } from './adminlock.ts';
import { TokenBucket } from './bucket.ts';
import { DB_FILE, openConnection } from './connection.ts';
import { Executor } from './executor.ts';
import { InlineBackend } from './inline-backend.ts';
import { LanePool } from './lane-pool.ts';
import { LaneClient, WorkerStartError } from './lanes.ts';
import { type LaneName, OPERATIONS, type OpArgs, type OpName, type OpResult } from './ops.ts';
import { type LaneWorkerData, STORE_LANE_TASK } from './protocol.ts';
import { probeMount, resolveTopology } from './topology.ts';
import {
  type ArtifactInfo,
  type DagRunStats,
  type DagRunSummary,
  type DagRunWrite,
  type Json,
  type KvEntry,
  type Lease,
  type Store,
  type StoredDagRun,
  type StoredRecord,
  type StoreOptions,
  type StoreStats,
  StoreUnavailableError,
  type Topology,
  type VersionedDagRun,
} from './types.ts';

export { STORE_LANE_TASK } from './protocol.ts';
export * from './types.ts';

export const DEFAULT_OP_TIMEOUT_MS = 10_000;
/** busy_timeout of the bulk lane (and inline mode). */
export const BULK_BUSY_TIMEOUT_MS = 5000;
/** The lease lane waits less per attempt and retries in the app until the call's deadline. */
export const LEASE_BUSY_TIMEOUT_MS = 100;
/**
 * A lane worker idle this long goes: a node between bursts of writes does not keep an isolate
 * (~10 MB) for them. Starting one again costs ~30-60 ms of a later call.
 */
export const LANE_IDLE_MS = 30_000;

interface Backend {
  readonly description: string;
  lanes?(): StoreStats['lanes'];
  run(op: OpName, args: unknown[], nowMs: number, lane: LaneName, timeoutMs: number): Promise<unknown>;
  timeouts(): number;
  close(timeoutMs: number): Promise<void>;
}

/** The lanes' own small bundle, written by scripts/build.mjs beside dist/cronstable.mjs. */
export const LANE_BUNDLE = 'cronstable-lane.mjs';

/** Names the lane bundle goes by: as built, and inside the Bun binary (`bun build --compile` names it .js). */
const LANE_NAMES = [LANE_BUNDLE, LANE_BUNDLE.replace(/\.mjs$/, '.js')];

/**
 * Set only by a development harness (the test suite's global setup): the built lane bundle, for
 * lane workers started while the program runs from its .ts sources. Without it such a worker boots
 * tsx and its own loader-hooks thread and transpiles the store again: 1-8 CPU-s per worker against
 * ~0.3 for the bundle, and the suite starts hundreds. A bundled program never reads it.
 */
export const DEV_LANE_ENTRY_ENV = 'CRONSTABLE_DEV_LANE_ENTRY';

/**
 * Where a lane worker starts: the lane bundle beside the program bundle when there is one (an
 * isolate compiling only the store, not the whole program), else the entry as given. Without an
 * entry (the Bun binary), the lane bundle beside this module when it is bundled: the binary
 * carries it as an entry of its own (scripts/build-binary.mjs).
 */
export function laneEntry(
  entry: string | URL | undefined,
  here: string = import.meta.url,
  devEntry: string | undefined = process.env[DEV_LANE_ENTRY_ENV],
): string | URL | undefined {
  if (entry === undefined) {
    if (here.endsWith('.ts')) return devEntry || undefined;
    return LANE_NAMES.map((n) => new URL(n, here)).find((u) => existsSync(fileURLToPath(u)));
  }
  if (typeof entry !== 'string' || !entry.endsWith('.mjs')) return entry;
  const lane = join(dirname(entry), LANE_BUNDLE);
  return existsSync(lane) ? lane : entry;
}

class LaneBackend implements Backend {
  constructor(
    private readonly pool: LanePool,
    readonly description: string,
  ) {}

  run(op: OpName, args: unknown[], nowMs: number, lane: LaneName, timeoutMs: number): Promise<unknown> {
    return this.pool.run(lane, op, args, nowMs, timeoutMs);
  }
  timeouts(): number {
    return this.pool.timeouts();
  }
  lanes(): StoreStats['lanes'] {
    const of = (l: LaneClient) => ({ running: l.running, starts: l.starts });
    return { first: of(this.pool.first), second: of(this.pool.second) };
  }
  close(timeoutMs: number): Promise<void> {
    return this.pool.close(timeoutMs);
  }
}

class SqliteStore implements Store {
  private closed = false;
  private readonly counters: StoreStats;

  constructor(
    readonly path: string,
    readonly namespace: string,
    readonly topology: Topology,
    private readonly backend: Backend,
    private readonly bucket: TokenBucket | null,
    private readonly clock: () => number,
    private readonly timeoutMs: number,
  ) {
    this.counters = {
      backend: backend.description,
      ops: {},
      errors: {},
      seconds: {},
      throttledOps: 0,
      throttleWaitSeconds: 0,
      timeouts: 0,
    };
  }

  private async call<K extends OpName>(op: K, ...args: OpArgs<K>): Promise<OpResult<K>> {
    if (this.closed) throw new StoreUnavailableError('the store is closed');
    const lane = OPERATIONS[op].lane;
    if (lane === 'bulk' && this.bucket) {
      const wait = this.bucket.take();
      if (wait) await wait;
    }
    const c = this.counters;
    c.ops[op] = (c.ops[op] ?? 0) + 1;
    const started = performance.now();
    try {
      return (await this.backend.run(op, args, this.clock(), lane, this.timeoutMs)) as OpResult<K>;
    } catch (e) {
      c.errors[op] = (c.errors[op] ?? 0) + 1;
      throw e;
    } finally {
      c.seconds[op] = (c.seconds[op] ?? 0) + (performance.now() - started) / 1000;
    }
  }

  append(stream: string, data: Json, opts?: { keep?: number }): Promise<StoredRecord> {
    return this.call('append', stream, data, opts);
  }
  list(stream: string, opts?: { newestFirst?: boolean; limit?: number }): Promise<StoredRecord[]> {
    return this.call('list', stream, opts);
  }
  newest(stream: string): Promise<StoredRecord | null> {
    return this.call('newest', stream);
  }
  maxField(stream: string, field: string): Promise<Json> {
    return this.call('maxField', stream, field);
  }
  streams(prefix: string): Promise<{ stream: string; count: number; newestAt: number }[]> {
    return this.call('streams', prefix);
  }
  recentRuns(perJob: number): Promise<StoredRecord[]> {
    return this.call('recentRuns', perJob);
  }
  deleteStream(stream: string): Promise<number> {
    return this.call('deleteStream', stream);
  }
  kvGet(scope: string, key: string): Promise<KvEntry | null> {
    return this.call('kvGet', scope, key);
  }
  kvSet(scope: string, key: string, value: Json): Promise<KvEntry> {
    return this.call('kvSet', scope, key, value);
  }
  kvDelete(scope: string, key: string): Promise<boolean> {
    return this.call('kvDelete', scope, key);
  }
  kvList(scope: string): Promise<KvEntry[]> {
    return this.call('kvList', scope);
  }
  docNamespaces(): Promise<{ namespace: string; count: number; updatedAt: number }[]> {
    return this.call('docNamespaces');
  }
  docList(docNs: string): Promise<{ key: string; body: Json; updatedAt: number }[]> {
    return this.call('docList', docNs);
  }
  leaseList(limit: number): Promise<Lease[]> {
    return this.call('leaseList', limit);
  }
  cursorGet(scope: string, name: string): Promise<KvEntry | null> {
    return this.call('cursorGet', scope, name);
  }
  cursorAdvance(
    scope: string,
    name: string,
    value: Json,
    force: boolean,
  ): Promise<{ value: Json; advanced: boolean }> {
    return this.call('cursorAdvance', scope, name, value, force);
  }
  idempotencyClaim(
    scope: string,
    key: string,
    ttlSeconds: number,
  ): Promise<{ fresh: boolean; claimedAt: number }> {
    return this.call('idempotencyClaim', scope, key, ttlSeconds);
  }
  idempotencyRelease(scope: string, key: string): Promise<boolean> {
    return this.call('idempotencyRelease', scope, key);
  }
  artifactPut(
    scope: string,
    name: string,
    bytes: Uint8Array,
    meta?: Json,
  ): Promise<{ sha256: string; size: number }> {
    return this.call('artifactPut', scope, name, bytes, meta);
  }
  artifactGet(
    scope: string,
    name: string,
  ): Promise<{ sha256: string; size: number; bytes: Uint8Array } | null | 'gone'> {
    return this.call('artifactGet', scope, name);
  }
  artifactList(scope: string): Promise<ArtifactInfo[]> {
    return this.call('artifactList', scope);
  }
  leaseAcquire(name: string, holder: string, ttlSeconds: number): Promise<Lease | null> {
    return this.call('leaseAcquire', name, holder, ttlSeconds);
  }
  leaseRenew(lease: Lease, ttlSeconds: number): Promise<Lease | null> {
    return this.call('leaseRenew', lease, ttlSeconds);
  }
  leaseRelease(lease: Lease): Promise<void> {
    return this.call('leaseRelease', lease);
  }
  leaseRead(name: string): Promise<Lease | null> {
    return this.call('leaseRead', name);
  }
  semaphoreAcquire(
    base: string,
    permits: number,
    holder: string,
    ttlSeconds: number,
  ): Promise<{ lease: Lease; slot: number } | null> {
    return this.call('semaphoreAcquire', base, permits, holder, ttlSeconds);
  }

  fireClaim(job: string, scheduledAtMs: number, node: string): Promise<{ won: boolean; node: string }> {
    return this.call('fireClaim', job, scheduledAtMs, node);
  }

  dagRunCreate(run: StoredDagRun): Promise<{ created: boolean }> {
    return this.call('dagRunCreate', run);
  }
  dagRunGet(dag: string, runKey: string): Promise<VersionedDagRun | null> {
    return this.call('dagRunGet', dag, runKey);
  }
  dagRunVersion(dag: string, runKey: string): Promise<number | null> {
    return this.call('dagRunVersion', dag, runKey);
  }
  dagRunWrite(w: DagRunWrite): Promise<{ ok: boolean; version: number }> {
    return this.call('dagRunWrite', w);
  }
  dagRunList(dag: string, limit: number): Promise<DagRunSummary[]> {
    return this.call('dagRunList', dag, limit);
  }
  dagRunsActive(): Promise<{ dag: string; runKey: string }[]> {
    return this.call('dagRunsActive');
  }
  dagRunStats(dag: string): Promise<DagRunStats> {
    return this.call('dagRunStats', dag);
  }
  dagRunPrune(dag: string, keep: number): Promise<number> {
    return this.call('dagRunPrune', dag, keep);
  }
  dagRunPruneRemoved(configured: string[], cutoff: number): Promise<number> {
    return this.call('dagRunPruneRemoved', configured, cutoff);
  }

  /** Test hook: blocks one lane's thread for `ms` (a hung filesystem call). */
  testStall(lane: LaneName, ms: number): Promise<void> {
    return this.call(lane === 'lease' ? 'testStallLease' : 'testStallBulk', ms);
  }

  stats(): StoreStats {
    const c = this.counters;
    return {
      ...c,
      ops: { ...c.ops },
      errors: { ...c.errors },
      seconds: { ...c.seconds },
      throttledOps: this.bucket?.throttled ?? 0,
      throttleWaitSeconds: this.bucket?.waitSeconds ?? 0,
      timeouts: this.backend.timeouts(),
      ...(this.backend.lanes ? { lanes: this.backend.lanes() } : {}),
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.bucket?.flush();
    await this.backend.close(Math.min(this.timeoutMs, 5000));
  }
}

/** `<host>#<pid>`: the default writer identity of records. */
export function defaultWriter(): string {
  return `${hostname()}#${process.pid}`;
}

export interface ResolvedStorePlace {
  dir: string;
  topology: Topology;
  warnings: string[];
}

/** Creates the directory, resolves `auto` topology, collects warnings (no SQLite yet). */
export async function resolveStorePlace(
  opts: Pick<StoreOptions, 'path' | 'topology'>,
): Promise<ResolvedStorePlace> {
  const dir = resolve(opts.path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const probe = probeMount(await realpath(dir));
  const { topology, warning } = resolveTopology(opts.topology, probe);
  const warnings = warning ? [warning] : [];
  if (topology === 'shared') {
    if (probe.locksHostLocal)
      warnings.push(
        `the store's mount ${probe.mountPoint} uses host-local locks (nolock/local_lock): SQLite cannot coordinate hosts on it; remount with real locks`,
      );
    warnings.push(
      'shared topology: SQLite on a network filesystem relies on its POSIX locks; use NFSv4+ with locking enabled and the same UID on every node',
    );
  }
  return { dir, topology, warnings };
}

/** Inline mode's connection (also used by the admin commands). */
export async function openInlineExecutor(
  dir: string,
  topology: Topology,
  namespace: string,
  writer: string,
  onFault?: (level: 'error' | 'info', message: string) => void,
): Promise<{ executor: Executor; description: string; journalMode: string; warnings: string[] }> {
  const spec = { dir, topology, busyTimeoutMs: BULK_BUSY_TIMEOUT_MS, ns: namespace };
  const conn = await openConnection(spec);
  return {
    executor: new Executor(conn.db, {
      ns: namespace,
      writer,
      busyRetry: false,
      file: join(dir, DB_FILE),
      reopen: async () => {
        // A `state restore` filling the path holds the admin lock: reopen once it is done.
        assertNotAdminLocked(dir);
        const again = await openConnection(spec);
        for (const w of again.warnings) onFault?.('info', w);
        return again.db;
      },
      onFault,
    }),
    description: `sqlite (${conn.db.version}; inline; journal ${conn.journalMode})`,
    journalMode: conn.journalMode,
    warnings: conn.warnings,
  };
}

export async function openStore(opts: StoreOptions): Promise<Store> {
  const warn = opts.onWarning ?? (() => undefined);
  const namespace = opts.namespace || 'default';
  const writer = opts.writer ?? defaultWriter();
  const timeoutMs = opts.opTimeoutMs ?? DEFAULT_OP_TIMEOUT_MS;
  const clock = opts.now ?? Date.now;
  const place = await resolveStorePlace(opts);
  assertNotAdminLocked(place.dir);
  for (const w of place.warnings) warn(w);
  const bucket =
    opts.maxOpsPerSecond && opts.maxOpsPerSecond > 0 ? new TokenBucket(opts.maxOpsPerSecond) : null;
  const make = (backend: Backend) =>
    new SqliteStore(place.dir, namespace, place.topology, backend, bucket, clock, timeoutMs);

  const inline = async () => {
    const { executor, description, warnings } = await openInlineExecutor(
      place.dir,
      place.topology,
      namespace,
      writer,
      opts.onFault,
    );
    for (const w of warnings) warn(w);
    return make(new InlineBackend(executor, description));
  };
  const placement = opts.inline ? 'inline' : (opts.placement ?? 'lanes');
  // A local disk answers in microseconds and does not hang: two worker isolates (~15 MB each)
  // buy nothing there. A shared mount can hang a syscall, so it keeps the lanes (DESIGN §5).
  if (placement === 'inline' || (placement === 'auto' && place.topology === 'single-node')) return inline();

  const data: LaneWorkerData = {
    task: STORE_LANE_TASK,
    first: 'bulk',
    dir: place.dir,
    topology: place.topology,
    ns: namespace,
    writer,
    lanes: {
      bulk: { busyTimeoutMs: BULK_BUSY_TIMEOUT_MS, busyRetry: false },
      lease: { busyTimeoutMs: LEASE_BUSY_TIMEOUT_MS, busyRetry: true },
    },
    setUp: true,
  };
  const startTimeoutMs = Math.max(timeoutMs, 15_000);
  const idleMs = opts.laneIdleMs ?? LANE_IDLE_MS;
  const entry = laneEntry(opts.workerEntry);
  // The first worker starts now (a store that cannot open fails here); the second only when a
  // lane's calls would wait behind the other's (./lane-pool.ts), and exits once idle.
  let first: LaneClient;
  try {
    first = await LaneClient.open(entry, data, startTimeoutMs, idleMs);
  } catch (e) {
    if (!(e instanceof WorkerStartError)) throw e;
    warn(`${e.message}; running the store on the main thread instead`);
    return inline();
  }
  const info = first.info!;
  for (const w of info.warnings) warn(w);
  const description = `sqlite (${info.version}; worker lanes; journal ${info.journalMode})`;
  const second = LaneClient.later(entry, { ...data, first: 'lease', setUp: false }, startTimeoutMs, idleMs);
  return make(new LaneBackend(new LanePool(first, second), description));
}

// The default store mode: SQLite in worker-thread lanes (bulk, lease: one worker while they do
// not overlap, a second for a lane that would wait behind the other) with per-call timeouts,
// group commit, a throttle on the bulk lane only, and fallback to inline.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireAdminLock } from '../../src/store/adminlock.ts';
import { DEV_LANE_ENTRY_ENV, openStore } from '../../src/store/index.ts';
import {
  type Store,
  StoreLockedError,
  type StoreOptions,
  StoreUnavailableError,
} from '../../src/store/types.ts';
import { freshBuild } from '../helpers/built.ts';
import { storeScratch } from '../helpers/store-scratch.ts';
import { until } from '../helpers/until.ts';

const require = createRequire(import.meta.url);
type RawDb = { exec(sql: string): void; close(): void };
const Better = require('better-sqlite3') as new (file: string, o?: { timeout: number }) => RawDb;

const { tempDir, keep } = storeScratch('lanes');

const LANE = freshBuild('cronstable-lane.mjs');

async function open(opts: Partial<StoreOptions> = {}) {
  const warnings: string[] = [];
  const store = await openStore({
    path: opts.path ?? tempDir(),
    namespace: 'default',
    topology: 'single-node',
    onWarning: (m) => warnings.push(m),
    // The lane bundle when built: a worker from it starts in a fraction of tsx's time, and this
    // file starts dozens of them (idle exits, retirements).
    ...(LANE ? { workerEntry: LANE } : {}),
    ...opts,
  });
  keep(store);
  return { store, warnings };
}

type Stallable = Store & { testStall(lane: 'bulk' | 'lease', ms: number): Promise<void> };

describe('worker lanes', () => {
  it("placement 'auto' runs a local-disk store inline and a shared one in the lanes", async () => {
    const local = await open({ placement: 'auto', topology: 'single-node' });
    expect(local.store.stats?.().backend).toMatch(/; inline; journal wal/);
    expect((await local.store.kvSet('g', 'k', 1)).value).toBe(1);
    const shared = await open({ placement: 'auto', topology: 'shared' });
    expect(shared.store.stats?.().backend).toMatch(/worker lanes; journal delete/);
    expect((await shared.store.kvSet('g', 'k', 2)).value).toBe(2);
  });

  it('serves every primitive through the workers', async () => {
    const { store, warnings } = await open();
    expect(warnings).toEqual([]);
    expect(store.stats?.().backend).toMatch(/worker lanes; journal wal/);
    const rec = await store.append('runs/j', { outcome: 'success' }, { keep: 10 });
    expect((await store.list('runs/j'))[0]).toEqual(rec);
    await store.kvSet('global', 'k', { a: [1, 2] });
    expect((await store.kvGet('global', 'k'))?.value).toEqual({ a: [1, 2] });
    expect(await store.cursorAdvance('global', 'c', 3, false)).toEqual({ value: 3, advanced: true });
    expect((await store.idempotencyClaim('global', 'i', 0)).fresh).toBe(true);
    const bytes = new Uint8Array(100_000).map((_, i) => i % 251);
    await store.artifactPut('global', 'blob', bytes);
    const got = await store.artifactGet('global', 'blob');
    expect(got !== null && got !== 'gone' && Buffer.from(got.bytes).equals(Buffer.from(bytes))).toBe(true);
    const lease = await store.leaseAcquire('L', 'me', 30);
    expect(lease?.fence).toBe(1);
    expect(await store.semaphoreAcquire('S', 1, 'me', 30)).toMatchObject({ slot: 0 });
    await store.leaseRelease(lease!);
    expect(await store.leaseRead('L')).toBeNull();
    await expect(store.cursorAdvance('global', 'c', 'x', false)).rejects.toMatchObject({ status: 409 });
    expect(store.stats?.().ops.append).toBe(1);
  });

  it('from sources with no built lane bundle named, a lane worker boots the store through tsx', async () => {
    // The suite names the bundle (test/helpers/dev-lane.ts); a developer running the sources with
    // tsx has none, and the worker then registers tsx itself before loading lane-entry.ts.
    const saved = process.env[DEV_LANE_ENTRY_ENV];
    delete process.env[DEV_LANE_ENTRY_ENV];
    try {
      const { store, warnings } = await open({ workerEntry: undefined });
      expect(warnings).toEqual([]);
      expect(store.stats?.().backend).toMatch(/worker lanes; journal wal/);
      expect((await store.kvSet('global', 'k', { from: 'tsx' })).value).toEqual({ from: 'tsx' });
      expect((await store.kvGet('global', 'k'))?.value).toEqual({ from: 'tsx' });
    } finally {
      if (saved !== undefined) process.env[DEV_LANE_ENTRY_ENV] = saved;
    }
  });

  it('keeps call order within the bulk lane under group commit', async () => {
    const { store } = await open();
    await store.cursorAdvance('g', 'c', 5, false);
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        i % 50 === 7
          ? store.cursorAdvance('g', 'c', 'not-a-number', false).then(
              () => 'unexpected',
              (e: { status?: number }) => e.status,
            )
          : store.append('runs/order', { i }, { keep: 1000 }),
      ),
    );
    const ids = results.flatMap((r) => (typeof r === 'object' ? [r.id] : []));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(ids).toHaveLength(294);
    expect((await store.list('runs/order')).map((r) => (r.data as { i: number }).i)).toEqual(
      Array.from({ length: 300 }, (_, i) => i).filter((i) => i % 50 !== 7),
    );
    expect(await store.cursorAdvance('g', 'c', 6, false)).toEqual({ value: 6, advanced: true });
  });

  it('times out a call on a stuck bulk lane (StoreUnavailableError) while the lease lane answers', async () => {
    // The op timeout leaves room for the lease lane's worker to start (from sources, through tsx).
    const { store } = await open({ opTimeoutMs: 2000 });
    const s = store as Stallable;
    const lanes = () => store.stats?.().lanes;
    await store.kvGet('g', 'k');
    expect(lanes()?.second).toEqual({ running: false, starts: 0 });
    let stallDone = false;
    const stall = s.testStall('bulk', 4000).then(
      () => null,
      (e: unknown) => e,
    );
    void stall.finally(() => {
      stallDone = true;
    });
    const t0 = performance.now();
    const stuck = store.kvGet('g', 'k').then(
      () => null,
      (e: unknown) => ({ e, ms: performance.now() - t0 }),
    );
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 20);
    const lease = await store.leaseAcquire('L', 'me', 30);
    const renewed = await store.leaseRenew(lease!, 30);
    clearInterval(ticker);
    // Answered on a worker of its own while the bulk call still held the first one's thread,
    // and the main thread's timers kept running meanwhile.
    expect(lease?.fence).toBe(1);
    expect(renewed?.fence).toBe(1);
    expect(lanes()?.second).toEqual({ running: true, starts: 1 });
    expect(ticks).toBeGreaterThan(0);
    expect(stallDone).toBe(false);
    const timedOut = await stuck;
    if (!timedOut) throw new Error('the call on the stuck lane answered');
    expect(timedOut.e).toBeInstanceOf(StoreUnavailableError);
    expect((timedOut.e as Error).message).toMatch(/outcome unknown/);
    expect(timedOut.ms).toBeLessThan(3500);
    expect(await stall).toBeInstanceOf(StoreUnavailableError);
    // Once the lane recovers, calls work again; the late answers were discarded.
    await new Promise((r) => setTimeout(r, 2200));
    expect(await store.kvSet('g', 'k', 1)).toMatchObject({ value: 1 });
    expect(store.stats?.().timeouts).toBeGreaterThanOrEqual(2);
  });

  for (const topology of ['single-node', 'shared'] as const)
    it(`times out a write blocked by another connection's EXCLUSIVE lock (${topology}; outcome unknown)`, async () => {
      const path = tempDir();
      // Room for the lease lane's worker to start while the bulk one waits on the lock: the read
      // below goes to a second worker, started then, and its start counts against the call's
      // timeout (a start that hangs must fail the call); on a loaded CI machine it has taken >2 s.
      const { store } = await open({ path, topology, opTimeoutMs: 4000 });
      await store.append('runs/j', { n: 0 });
      await store.leaseAcquire('L', 'me', 30);
      const other = new Better(join(path, 'cronstable.db'), { timeout: 0 });
      other.exec('BEGIN EXCLUSIVE');
      const err = await store.append('runs/j', { n: 1 }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(StoreUnavailableError);
      // WAL readers are never blocked by a writer; with a rollback journal they wait too.
      const read = await store.leaseRead('L').then(
        (l) => l?.holder,
        (e: Error) => e.name,
      );
      expect(read).toBe(topology === 'shared' ? 'StoreUnavailableError' : 'me');
      other.exec('ROLLBACK');
      other.close();
      await new Promise((r) => setTimeout(r, 300));
      await store.append('runs/j', { n: 2 });
      const ns = (await store.list('runs/j')).map((r) => (r.data as { n: number }).n);
      // The timed-out append may or may not have landed: unknown is not absent.
      expect(ns[0]).toBe(0);
      expect(ns[ns.length - 1]).toBe(2);
    });

  it('never throttles lease ops: they overtake a queue of throttled bulk ops', async () => {
    // Ten a second: the lease's call starts the second lane worker (it finds the first one busy with
    // bulk calls), and that start took over a second on a loaded machine, longer than a one-second
    // queue (at 20 a second, a clean-clone run failed both attempts with all 40 done first).
    const { store } = await open({ maxOpsPerSecond: 10 });
    const t0 = performance.now();
    let bulkDone = 0;
    const bulk = Promise.all(
      Array.from({ length: 40 }, (_, i) => store.append('runs/t', { i }).then(() => bulkDone++)),
    );
    // A failed assertion below closes the store under the queue: its refusals are not news then.
    bulk.catch(() => {});
    const lease = await store.leaseAcquire('L', 'me', 30);
    // Overtaken, not merely fast: 10 ops pass at once (a second's worth), the other 30 are throttled
    // over the next three seconds, and a lease queued behind them would answer after all 40 (a fixed
    // bound in ms, 250, failed on a loaded machine at 633 ms with the lease still ahead of the queue).
    expect(bulkDone).toBeLessThan(40);
    expect(lease).not.toBeNull();
    await bulk;
    expect(performance.now() - t0).toBeGreaterThan(2800);
    expect(store.stats?.().throttledOps).toBeGreaterThanOrEqual(29);
  });

  it('falls back to inline (with a warning) when a worker cannot start', async () => {
    const { store, warnings } = await open({ workerEntry: join(tempDir(), 'missing-entry.mjs') });
    expect(warnings.join('\n')).toMatch(/running the store on the main thread/);
    expect(store.stats?.().backend).toMatch(/inline/);
    expect((await store.append('runs/x', { a: 1 })).id).toBe(1);
  });

  it('refuses to open while an admin lock is held', async () => {
    const path = tempDir();
    const release = acquireAdminLock(path, 'restore');
    await expect(openStore({ path, namespace: 'default', topology: 'auto' })).rejects.toBeInstanceOf(
      StoreLockedError,
    );
    release();
  });

  it('close lets queued calls finish, then refuses new ones', async () => {
    const { store } = await open();
    const pending = Array.from({ length: 50 }, (_, i) => store.append('runs/c', { i }));
    await store.close();
    expect((await Promise.all(pending)).length).toBe(50);
    await expect(store.append('runs/c', {})).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('an idle lane worker exits; the next call starts one for both lanes and nothing is lost', async () => {
    const { store } = await open({ laneIdleMs: 150 });
    const lanes = () => store.stats?.().lanes;
    // Counts, not `running`: on a loaded machine the worker may already have idled out here.
    // The second worker starts only when one lane's calls would wait behind the other's.
    expect(lanes()?.first.starts).toBe(1);
    expect(lanes()?.second).toEqual({ running: false, starts: 0 });
    await store.kvSet('g', 'before', 1);
    await until('the idle worker to exit', 10_000, async () =>
      lanes()?.first.running === false ? true : null,
    );
    // A write after the exit starts the first worker again (only it); the earlier write is there.
    expect((await store.kvSet('g', 'after', 2)).value).toBe(2);
    expect(lanes()?.first).toEqual({ running: true, starts: 2 });
    expect(lanes()?.second).toEqual({ running: false, starts: 0 });
    expect((await store.kvList('g')).map((e) => [e.key, e.value])).toEqual([
      ['after', 2],
      ['before', 1],
    ]);
    // The lease lane shares that worker while the bulk lane has nothing outstanding.
    const lease = await store.leaseAcquire('L', 'me', 30);
    expect(lease?.fence).toBe(1);
    expect(lanes()?.first).toEqual({ running: true, starts: 2 });
    expect(lanes()?.second).toEqual({ running: false, starts: 0 });
  });

  it('calls of a lane keep their order when they move between workers', async () => {
    const { store } = await open({ opTimeoutMs: 6000 });
    const s = store as Stallable;
    const issued: number[] = [];
    const appends: Promise<{ id: number }>[] = [];
    const append = (i: number) => {
      issued.push(i);
      appends.push(store.append('runs/move', { i }, { keep: 1000 }));
    };
    for (let i = 0; i < 20; i++) append(i);
    // A lease call on the worker the bulk lane used: bulk calls from here wait for it, then
    // move to the other worker, and come back once the lease lane is done.
    const stall = s.testStall('lease', 400);
    for (let i = 20; i < 60; i++) {
      append(i);
      if (i % 10 === 0) await new Promise((r) => setTimeout(r, 60));
    }
    await stall;
    for (let i = 60; i < 80; i++) append(i);
    const ids = (await Promise.all(appends)).map((r) => r.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const rows = await store.list('runs/move');
    expect(rows.map((r) => (r.data as { i: number }).i)).toEqual(issued);
    expect(store.stats?.().errors).toEqual({});
  });

  it('a held call never waits behind the other lane, whichever worker each lane moved to', async () => {
    const { store } = await open({ opTimeoutMs: 20_000 });
    const s = store as Stallable;
    const lanes = () => store.stats?.().lanes;
    // Both workers running first (a worker's start is seconds on a loaded machine, which would
    // blur the timings below): a bulk call behind a lease stall starts the second one.
    await store.kvGet('g', 'k');
    await Promise.all([s.testStall('lease', 1000), store.kvSet('g', 'warm', 1)]);
    expect(lanes()?.second).toEqual({ running: true, starts: 1 });
    const done = { lease: false, bulk: false };
    // The lease lane stalls the first worker: a bulk call waits there, then takes the second.
    const leaseStall = s.testStall('lease', 3000).finally(() => {
      done.lease = true;
    });
    await store.kvSet('g', 'moved', 1);
    expect(done.lease).toBe(false);
    // The first worker still runs the lease lane: the next bulk call (a stall) is held again,
    // and after the wait goes to the second worker, which holds none of the lease lane's calls.
    const bulkStall = s.testStall('bulk', 6000).finally(() => {
      done.bulk = true;
    });
    await leaseStall;
    // Lease calls now go to the first worker, free again, not behind the bulk stall on the second.
    expect((await store.leaseAcquire('L', 'me', 30))?.fence).toBe(1);
    expect(done.bulk).toBe(false);
    await bulkStall;
    expect((await store.kvGet('g', 'moved'))?.value).toBe(1);
    expect(lanes()?.second.starts).toBe(1);
    expect(store.stats?.().errors).toEqual({});
  });

  it('calls posted while a retired worker exits still count: the other lane does not queue behind them', async () => {
    const { store } = await open({ opTimeoutMs: 10_000, laneIdleMs: 100 });
    const s = store as Stallable;
    const lanes = () => store.stats?.().lanes;
    await store.kvGet('g', 'k');
    // Right as the idle first worker retires (its thread exits a little later), a bulk call
    // starts its successor and stalls there.
    await new Promise<void>((resolve) => {
      const poll = () => (lanes()?.first.running === false ? resolve() : setImmediate(poll));
      poll();
    });
    let bulkDone = false;
    const bulkStall = s.testStall('bulk', 5000).finally(() => {
      bulkDone = true;
    });
    await new Promise((r) => setTimeout(r, 300));
    // The old thread's exit must not have wiped that call from the count: the lease call waits,
    // then takes the second worker instead of queueing behind the stall.
    expect((await store.leaseAcquire('L', 'me', 30))?.fence).toBe(1);
    expect(bulkDone).toBe(false);
    expect(lanes()?.second.starts).toBe(1);
    await bulkStall;
  });

  it('writes arriving around the idle deadline are all kept, in order', async () => {
    const { store } = await open({ laneIdleMs: 40 });
    const written: number[] = [];
    for (let i = 0; i < 10; i++) {
      // Pauses on both sides of the idle deadline: some writes meet a retiring worker.
      await new Promise((r) => setTimeout(r, 30 + (i % 3) * 10));
      await store.append('runs/idle', { i });
      written.push(i);
    }
    const rows = await store.list('runs/idle');
    expect(rows.map((r) => (r.data as { i: number }).i)).toEqual(written);
    expect(store.stats?.().lanes?.first.starts).toBeGreaterThan(1);
  });
});

// The store's primitives through the public Store API (inline mode, real SQLite files):
// record streams, KV, cursors, idempotency, artifacts, leases and semaphores (spec 03 §2, §5, §6.5).
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.ts';
import { type Store, StoreRequestError, StoreUnavailableError } from '../../src/store/types.ts';
import { storeScratch } from '../helpers/store-scratch.ts';

const require = createRequire(import.meta.url);
type RawDb = {
  prepare(sql: string): {
    run(...p: unknown[]): unknown;
    get(...p: unknown[]): unknown;
    all(...p: unknown[]): unknown[];
  };
  close(): void;
};
const Better = require('better-sqlite3') as new (file: string) => RawDb;

const { tempDir, keep } = storeScratch('store');

/** A fake wall clock (epoch ms) the store reads through `now`. */
function fakeClock(start = 1_700_000_000_000) {
  const c = { ms: start, now: () => c.ms, advance: (s: number) => (c.ms += s * 1000) };
  return c;
}

async function open(opts: { path?: string; namespace?: string; clock?: { now: () => number } } = {}) {
  const path = opts.path ?? tempDir();
  const store = await openStore({
    path,
    namespace: opts.namespace ?? 'default',
    topology: 'single-node',
    inline: true,
    writer: 'host#1',
    now: opts.clock?.now,
  });
  keep(store);
  return store;
}

function raw(store: Store): RawDb {
  return new Better(join(store.path, 'cronstable.db'));
}

async function rejects(
  p: Promise<unknown>,
  type: typeof StoreRequestError | typeof StoreUnavailableError,
  status?: number,
) {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(type);
  if (status !== undefined) expect((e as StoreRequestError).status).toBe(status);
  return e as Error;
}

describe('record streams', () => {
  it('appends with commit-ordered ids and lists both ways with a limit', async () => {
    const clock = fakeClock();
    const s = await open({ clock });
    const a = await s.append('runs/backup', { outcome: 'success', n: 1 });
    clock.advance(1);
    const b = await s.append('runs/backup', { outcome: 'failure', n: 2 });
    expect(a).toMatchObject({
      stream: 'runs/backup',
      writer: 'host#1',
      writtenAt: 1_700_000_000,
      data: { n: 1 },
    });
    expect(b.id).toBeGreaterThan(a.id);
    expect((await s.list('runs/backup')).map((r) => r.data)).toEqual([
      { outcome: 'success', n: 1 },
      { outcome: 'failure', n: 2 },
    ]);
    expect((await s.list('runs/backup', { newestFirst: true, limit: 1 })).map((r) => r.id)).toEqual([b.id]);
    expect(await s.list('runs/backup', { limit: 0 })).toEqual([]);
    expect((await s.newest('runs/backup'))?.id).toBe(b.id);
    expect(await s.newest('runs/none')).toBeNull();
  });

  it('prunes to the newest `keep` in the append, and keeps everything without keep', async () => {
    const s = await open();
    for (let i = 0; i < 10; i++) await s.append('runs/j', { i }, { keep: 3 });
    expect((await s.list('runs/j')).map((r) => r.data)).toEqual([{ i: 7 }, { i: 8 }, { i: 9 }]);
    await s.append('runs/j', { i: 10 }, { keep: 5 });
    expect(await s.list('runs/j')).toHaveLength(4);
    for (let i = 0; i < 5; i++) await s.append('logs/j', { i });
    await s.append('logs/j', { i: 5 }, { keep: 0 });
    expect(await s.list('logs/j')).toHaveLength(6);
  });

  it('maxField: numbers numerically, strings lexicographically, others skipped', async () => {
    const s = await open();
    for (const v of [9, 10, 2.5]) await s.append('nums', { v });
    expect(await s.maxField('nums', 'v')).toBe(10);
    for (const f of ['2024-01-02T00:00:00Z', '2024-11-01T00:00:00Z', '2024-02-01T00:00:00Z'])
      await s.append('runs/x', { finished_at: f });
    await s.append('runs/x', { finished_at: null });
    await s.append('runs/x', { other: 1 });
    expect(await s.maxField('runs/x', 'finished_at')).toBe('2024-11-01T00:00:00Z');
    expect(await s.maxField('runs/x', 'missing')).toBeNull();
    expect(await s.maxField('runs/empty', 'v')).toBeNull();
    await s.append('mixed', { v: 'zzz' });
    await s.append('mixed', { v: 5 });
    expect(await s.maxField('mixed', 'v')).toBe(5);
  });

  it('lists streams by prefix with counts, and deletes a stream', async () => {
    const clock = fakeClock();
    const s = await open({ clock });
    await s.append('runs/a', { x: 1 });
    clock.advance(10);
    await s.append('runs/a', { x: 2 });
    await s.append('runs/b', { x: 1 });
    await s.append('runsx/c', { x: 1 });
    await s.append('retries/a', { x: 1 });
    expect(await s.streams('runs/')).toEqual([
      { stream: 'runs/a', count: 2, newestAt: 1_700_000_010 },
      { stream: 'runs/b', count: 1, newestAt: 1_700_000_010 },
    ]);
    expect((await s.streams('')).map((x) => x.stream)).toEqual(['retries/a', 'runs/a', 'runs/b', 'runsx/c']);
    expect(await s.deleteStream('runs/a')).toBe(2);
    expect(await s.deleteStream('runs/a')).toBe(0);
    expect(await s.list('runs/a')).toEqual([]);
  });

  it('skips rows of an unknown schema version, never prunes them, and fails strict reads', async () => {
    const s = await open();
    await s.append('runs/j', { i: 1, finished_at: 'a' });
    const db = raw(s);
    db.prepare(
      "INSERT INTO records (ns, stream, schema_version, written_at, writer, data) VALUES ('default', 'runs/j', 'v2', 1, 'peer', '{\"i\":99}')",
    ).run();
    db.close();
    await s.append('runs/j', { i: 2, finished_at: 'b' });
    expect((await s.list('runs/j')).map((r) => r.data)).toEqual([
      { i: 1, finished_at: 'a' },
      { i: 2, finished_at: 'b' },
    ]);
    expect(
      (await s.list('runs/j', { newestFirst: true, limit: 2 })).map((r) => (r.data as { i: number }).i),
    ).toEqual([2, 1]);
    expect((await s.newest('runs/j'))?.data).toEqual({ i: 2, finished_at: 'b' });
    await rejects(s.maxField('runs/j', 'finished_at'), StoreUnavailableError);
    for (let i = 3; i < 8; i++) await s.append('runs/j', { i }, { keep: 1 });
    expect((await s.list('runs/j')).map((r) => r.data)).toEqual([{ i: 7 }]);
    const check = raw(s);
    expect(check.prepare("SELECT count(*) AS n FROM records WHERE schema_version = 'v2'").get()).toEqual({
      n: 1,
    });
    check.close();
    expect((await s.streams('runs/'))[0]!.count).toBe(2);
  });
});

describe('kv', () => {
  it('sets, gets, lists sorted, deletes; null is a value, absent is null', async () => {
    const clock = fakeClock();
    const s = await open({ clock });
    expect(await s.kvGet('global', 'k')).toBeNull();
    expect(await s.kvSet('global', 'k', null)).toEqual({ key: 'k', value: null, updatedAt: 1_700_000_000 });
    expect(await s.kvGet('global', 'k')).toEqual({ key: 'k', value: null, updatedAt: 1_700_000_000 });
    clock.advance(5);
    await s.kvSet('global', 'k', null);
    expect((await s.kvGet('global', 'k'))?.updatedAt).toBe(1_700_000_005);
    await s.kvSet('global', 'b', { rows: 1234, ok: true });
    await s.kvSet('global', 'a', [1, 2]);
    await s.kvSet('other', 'z', 1);
    expect((await s.kvList('global')).map((e) => [e.key, e.value])).toEqual([
      ['a', [1, 2]],
      ['b', { rows: 1234, ok: true }],
      ['k', null],
    ]);
    expect(await s.kvDelete('global', 'a')).toBe(true);
    expect(await s.kvDelete('global', 'a')).toBe(false);
    expect(await s.kvGet('global', 'a')).toBeNull();
  });

  it('rejects non-portable values with 400 before any write', async () => {
    const s = await open();
    for (const bad of [
      Number.NaN,
      Number.POSITIVE_INFINITY,
      2 ** 63,
      -(2 ** 64),
      { deep: [1, Number.NEGATIVE_INFINITY] },
    ])
      await rejects(s.kvSet('global', 'k', bad), StoreRequestError, 400);
    expect(await s.kvGet('global', 'k')).toBeNull();
    await s.kvSet('global', 'k', -(2 ** 63));
    await s.kvSet('global', 'k', 2 ** 62);
    await rejects(s.kvSet('global', '', 1), StoreRequestError, 400);
  });

  it('reads skip an unknown-version document; writes over it fail (strict)', async () => {
    const s = await open();
    const db = raw(s);
    db.prepare(
      "INSERT INTO documents (ns, doc_ns, key, schema_version, data, updated_at) VALUES ('default', 'kv/global', 'k', 'v9', '{}', 1)",
    ).run();
    db.close();
    expect(await s.kvGet('global', 'k')).toBeNull();
    expect(await s.kvList('global')).toEqual([]);
    await rejects(s.kvSet('global', 'k', 1), StoreUnavailableError);
    await rejects(s.kvDelete('global', 'k'), StoreUnavailableError);
  });
});

describe('cursor', () => {
  it('moves forward only: numbers numerically (int/float mixed), strings lexicographically', async () => {
    const clock = fakeClock();
    const s = await open({ clock });
    expect(await s.cursorGet('global', 'c')).toBeNull();
    expect(await s.cursorAdvance('global', 'c', 9, false)).toEqual({ value: 9, advanced: true });
    clock.advance(1);
    expect(await s.cursorAdvance('global', 'c', 10, false)).toEqual({ value: 10, advanced: true });
    clock.advance(1);
    expect(await s.cursorAdvance('global', 'c', 9.5, false)).toEqual({ value: 10, advanced: false });
    expect(await s.cursorAdvance('global', 'c', 10, false)).toEqual({ value: 10, advanced: false });
    expect(await s.cursorGet('global', 'c')).toEqual({ key: 'c', value: 10, updatedAt: 1_700_000_001 });
    expect(await s.cursorAdvance('global', 'c', 10.25, false)).toEqual({ value: 10.25, advanced: true });

    await s.cursorAdvance('global', 't', '2024-01-31T00:00:00Z', false);
    expect(await s.cursorAdvance('global', 't', '2024-02-01T00:00:00Z', false)).toEqual({
      value: '2024-02-01T00:00:00Z',
      advanced: true,
    });
    expect((await s.cursorAdvance('global', 't', '2024-01-01T00:00:00Z', false)).advanced).toBe(false);
  });

  it('409 on incomparable types; force moves back (and across types); first set accepts any JSON', async () => {
    const s = await open();
    await s.cursorAdvance('global', 'c', 5, false);
    const e = await rejects(s.cursorAdvance('global', 'c', 'x', false), StoreRequestError, 409);
    expect(e.message).toMatch(/comparable value or pass force/);
    await rejects(s.cursorAdvance('global', 'c', true, false), StoreRequestError, 409);
    expect(await s.cursorAdvance('global', 'c', 1, true)).toEqual({ value: 1, advanced: true });
    expect(await s.cursorAdvance('global', 'c', 'x', true)).toEqual({ value: 'x', advanced: true });
    expect(await s.cursorAdvance('global', 'obj', { a: [1] }, false)).toEqual({
      value: { a: [1] },
      advanced: true,
    });
    await rejects(s.cursorAdvance('global', 'obj', { a: [2] }, false), StoreRequestError, 409);
    await rejects(s.cursorAdvance('global', 'c', Number.NaN, true), StoreRequestError, 400);
    await rejects(s.cursorAdvance('global', 'c', 2 ** 70, false), StoreRequestError, 400);
  });

  it('compares strings by code point (astral above U+FFFF beats U+FFFD)', async () => {
    const s = await open();
    await s.cursorAdvance('global', 'u', '\uFFFD', false);
    expect(await s.cursorAdvance('global', 'u', '\u{1F600}', false)).toEqual({
      value: '\u{1F600}',
      advanced: true,
    });
  });

  it('converges to the max of all submitted values regardless of order', async () => {
    const s = await open();
    const values = Array.from({ length: 200 }, (_, i) => ((i * 7919) % 1000) + (i % 3) * 0.5);
    await Promise.all(values.map((v) => s.cursorAdvance('global', 'conv', v, false)));
    expect((await s.cursorGet('global', 'conv'))?.value).toBe(Math.max(...values));
  });
});

describe('idempotency', () => {
  it('create-if-absent: one fresh claim, duplicates see the original claimedAt', async () => {
    const clock = fakeClock();
    const s = await open({ clock });
    expect(await s.idempotencyClaim('global', 'k', 0)).toEqual({ fresh: true, claimedAt: 1_700_000_000 });
    clock.advance(1000);
    expect(await s.idempotencyClaim('global', 'k', 0)).toEqual({ fresh: false, claimedAt: 1_700_000_000 });
    clock.advance(10 * 365 * 86400);
    expect((await s.idempotencyClaim('global', 'k', 0)).fresh).toBe(false);
    expect((await s.idempotencyClaim('other', 'k', 0)).fresh).toBe(true);
  });

  it('a TTL claim can be re-won once expired; release makes it fresh again', async () => {
    const clock = fakeClock();
    const s = await open({ clock });
    expect((await s.idempotencyClaim('global', 't', 60)).fresh).toBe(true);
    clock.advance(59);
    expect((await s.idempotencyClaim('global', 't', 60)).fresh).toBe(false);
    clock.advance(1);
    expect(await s.idempotencyClaim('global', 't', 60)).toEqual({ fresh: true, claimedAt: 1_700_000_060 });
    expect(await s.idempotencyRelease('global', 't')).toBe(true);
    expect(await s.idempotencyRelease('global', 't')).toBe(false);
    expect((await s.idempotencyClaim('global', 't', 0)).fresh).toBe(true);
    await rejects(s.idempotencyClaim('global', 'x', -1), StoreRequestError, 400);
    await rejects(s.idempotencyClaim('global', 'x', Number.NaN), StoreRequestError, 400);
  });
});

describe('artifacts', () => {
  const bytes = (text: string) => new TextEncoder().encode(text);

  it("puts and gets bytes; a put replaces the name's record (spec 09 §9.2); list is sorted by name", async () => {
    const clock = fakeClock();
    const s = await open({ clock });
    const put = await s.artifactPut('job', 'report.csv', bytes('v1'), { rows: 1 });
    expect(put).toEqual({ sha256: createHash('sha256').update('v1').digest('hex'), size: 2 });
    clock.advance(1);
    await s.artifactPut('job', 'report.csv', bytes('v2!'));
    await s.artifactPut('job', 'a.txt', bytes('a'));
    const got = await s.artifactGet('job', 'report.csv');
    expect(got).not.toBeNull();
    expect(got).not.toBe('gone');
    if (got && got !== 'gone') {
      expect(new TextDecoder().decode(got.bytes)).toBe('v2!');
      expect(got.size).toBe(3);
    }
    expect((await s.artifactList('job')).map((a) => [a.name, a.size, a.at])).toEqual([
      ['a.txt', 1, 1_700_000_001],
      ['report.csv', 3, 1_700_000_001],
    ]);
    expect(await s.artifactGet('job', 'nope')).toBeNull();
    expect(await s.artifactGet('other-scope', 'report.csv')).toBeNull();
    expect((await s.list('artifacts/job')).length).toBe(2);
  });

  it('dedupes identical bytes into one blob; a swept blob reads as gone', async () => {
    const s = await open();
    const a = await s.artifactPut('x', 'one', bytes('same'));
    const b = await s.artifactPut('y', 'two', bytes('same'));
    expect(a.sha256).toBe(b.sha256);
    const db = raw(s);
    expect(db.prepare('SELECT count(*) AS n FROM blobs').get()).toEqual({ n: 1 });
    db.prepare('DELETE FROM blobs').run();
    db.close();
    expect(await s.artifactGet('x', 'one')).toBe('gone');
    await s.artifactPut('x', 'three', bytes('same'));
    const back = await s.artifactGet('x', 'one');
    expect(back !== null && back !== 'gone' && new TextDecoder().decode(back.bytes)).toBe('same');
  });
});

describe('leases (spec 03 §5)', () => {
  it('acquire: fence 1 on a new row, deny another holder while valid, same holder keeps its fence', async () => {
    const clock = fakeClock();
    const s = await open({ clock });
    const a = await s.leaseAcquire('slots/j', 'A', 30);
    expect(a).toEqual({ name: 'slots/j', holder: 'A', fence: 1, expiresAt: 1_700_000_030 });
    expect(await s.leaseAcquire('slots/j', 'B', 30)).toBeNull();
    clock.advance(10);
    expect(await s.leaseAcquire('slots/j', 'A', 30)).toEqual({ ...a, expiresAt: 1_700_000_040 });
    expect(await s.leaseRead('slots/j')).toEqual({ ...a, expiresAt: 1_700_000_040 });
  });

  it('fences only grow across expiry takeover, release and re-acquire; stale holders cannot renew', async () => {
    const clock = fakeClock();
    const s = await open({ clock });
    const a1 = (await s.leaseAcquire('L', 'A', 10))!;
    clock.advance(11);
    // Expired but not released: still readable, and renewable while nobody took over.
    expect((await s.leaseRead('L'))?.holder).toBe('A');
    const a1r = await s.leaseRenew(a1, 10);
    expect(a1r).toEqual({ ...a1, expiresAt: 1_700_000_021 });
    clock.advance(11);
    const b = (await s.leaseAcquire('L', 'B', 10))!;
    expect(b.fence).toBe(2);
    expect(await s.leaseRenew(a1, 10)).toBeNull();
    await s.leaseRelease(a1); // wrong holder/fence: no effect
    expect((await s.leaseRead('L'))?.holder).toBe('B');
    await s.leaseRelease(b);
    expect(await s.leaseRead('L')).toBeNull();
    expect(await s.leaseRenew(b, 10)).toBeNull();
    const db = raw(s);
    expect(db.prepare("SELECT holder, fence, expires_at AS e FROM leases WHERE name = 'L'").get()).toEqual({
      holder: 'B',
      fence: 2,
      e: 0,
    });
    db.close();
    const b2 = (await s.leaseAcquire('L', 'B', 10))!;
    expect(b2.fence).toBe(3);
    await s.leaseRelease(b2);
    const a2 = (await s.leaseAcquire('L', 'A', 10))!;
    expect(a2.fence).toBe(4);
    expect(await s.leaseAcquire('L', 'B', 10)).toBeNull();
  });

  it('validates names and TTLs', async () => {
    const s = await open();
    await rejects(s.leaseAcquire('', 'A', 10), StoreRequestError, 400);
    await rejects(s.leaseAcquire('L', 'A', 0), StoreRequestError, 400);
    await rejects(s.leaseAcquire('L', 'A', Number.POSITIVE_INFINITY), StoreRequestError, 400);
  });

  it('semaphore: one pass, lowest free slot wins, per-slot fences', async () => {
    const clock = fakeClock();
    const s = await open({ clock });
    const h1 = (await s.semaphoreAcquire('lock/g/sem', 2, 'h1', 30))!;
    const h2 = (await s.semaphoreAcquire('lock/g/sem', 2, 'h2', 30))!;
    expect([h1.slot, h1.lease.name, h1.lease.fence]).toEqual([0, 'lock/g/sem#0', 1]);
    expect([h2.slot, h2.lease.name]).toEqual([1, 'lock/g/sem#1']);
    expect(await s.semaphoreAcquire('lock/g/sem', 2, 'h3', 30)).toBeNull();
    expect((await s.semaphoreAcquire('lock/g/sem', 3, 'h3', 30))?.slot).toBe(2);
    await s.leaseRelease(h1.lease);
    const h4 = (await s.semaphoreAcquire('lock/g/sem', 2, 'h4', 30))!;
    expect([h4.slot, h4.lease.fence]).toEqual([0, 2]);
    await rejects(s.semaphoreAcquire('lock/g/sem', 0, 'h', 30), StoreRequestError, 400);
    await rejects(s.semaphoreAcquire('lock/g/sem', 1025, 'h', 30), StoreRequestError, 400);
    await rejects(s.semaphoreAcquire('lock/g/sem', 1.5, 'h', 30), StoreRequestError, 400);
  });
});

describe('namespaces', () => {
  it('isolates every primitive between deployments sharing one file', async () => {
    const path = tempDir();
    const a = await open({ path, namespace: 'alpha' });
    const b = await open({ path, namespace: 'beta' });
    await a.append('runs/j', { n: 1 });
    await a.kvSet('global', 'k', 'a');
    await a.cursorAdvance('global', 'c', 10, false);
    await a.idempotencyClaim('global', 'i', 0);
    await a.artifactPut('global', 'f', new Uint8Array([1]));
    await a.leaseAcquire('L', 'A', 30);
    expect(await b.list('runs/j')).toEqual([]);
    expect(await b.streams('')).toEqual([]);
    expect(await b.kvGet('global', 'k')).toBeNull();
    expect(await b.cursorGet('global', 'c')).toBeNull();
    expect((await b.idempotencyClaim('global', 'i', 0)).fresh).toBe(true);
    expect(await b.artifactGet('global', 'f')).toBeNull();
    expect((await b.leaseAcquire('L', 'B', 30))?.fence).toBe(1);
    expect((await a.leaseRead('L'))?.holder).toBe('A');
    await b.append('runs/j', { n: 2 }, { keep: 1 });
    await b.append('runs/j', { n: 3 }, { keep: 1 });
    expect((await a.list('runs/j')).map((r) => r.data)).toEqual([{ n: 1 }]);
  });
});

describe('maxField edge cases', () => {
  it('handles field names with dots and quotes, nested values and unreadable rows', async () => {
    const s = await open();
    await s.append('r', { 'a.b': 3, 'q"x': 'b', nested: { v: 1 } });
    await s.append('r', { 'a.b': 7, 'q"x': 'a', nested: { v: 9 } });
    expect(await s.maxField('r', 'a.b')).toBe(7);
    expect(await s.maxField('r', 'q"x')).toBe('b');
    expect(await s.maxField('r', 'nested')).toBeNull();
    const db = raw(s);
    db.prepare(
      "INSERT INTO records (ns, stream, schema_version, written_at, writer, data) VALUES ('default', 'r', 'v1', 1, 'x', '{broken')",
    ).run();
    db.close();
    await rejects(s.maxField('r', 'a.b'), StoreUnavailableError);
    await rejects(s.maxField('r', 'q"x'), StoreUnavailableError);
    expect((await s.list('r')).length).toBe(2);
  });
});

// The store's machinery: embedded migrations, topology probe and pragmas, driver transactions,
// group commit, token bucket, tar archives, the admin lock and the value helpers.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireAdminLock, assertNotAdminLocked } from '../../src/store/adminlock.ts';
import { TokenBucket } from '../../src/store/bucket.ts';
import { stampMeta } from '../../src/store/connection.ts';
import { openDatabase } from '../../src/store/driver.ts';
import { Executor } from '../../src/store/executor.ts';
import { openInlineExecutor, openStore } from '../../src/store/index.ts';
import { migrate } from '../../src/store/migrate.ts';
import { MIGRATIONS } from '../../src/store/migrations.ts';
import { assertPortable, compareStrings, prefixUpperBound } from '../../src/store/primitives/common.ts';
import { readTarGz, writeTarGz } from '../../src/store/tar.ts';
import { probeMount, resolveTopology } from '../../src/store/topology.ts';
import { StoreLockedError, StoreRequestError } from '../../src/store/types.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'cronstable-store-'));
  dirs.push(d);
  return d;
}

describe('migrations', () => {
  it('embeds exactly the drizzle/ migrations, in journal order', () => {
    const root = new URL('../../', import.meta.url);
    const journal = JSON.parse(readFileSync(new URL('drizzle/meta/_journal.json', root), 'utf8')) as {
      entries: { tag: string }[];
    };
    expect(MIGRATIONS.map((m) => m.tag)).toEqual(journal.entries.map((e) => e.tag));
    for (const m of MIGRATIONS) {
      const sql = readFileSync(new URL(`drizzle/${m.tag}.sql`, root), 'utf8');
      expect(m.sql, `${m.tag}: run node scripts/embed-migrations.mjs`).toBe(sql);
      expect(m.sha256).toBe(createHash('sha256').update(sql).digest('hex'));
    }
  });

  it('drizzle/ is generated from the schema: drizzle-kit finds nothing left to migrate', () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const work = tempDir();
    cpSync(join(root, 'drizzle'), join(work, 'drizzle'), { recursive: true });
    // drizzle-kit takes relative paths only: run it from the copy.
    const out = execFileSync(
      join(root, 'node_modules', '.bin', 'drizzle-kit'),
      [
        'generate',
        '--dialect',
        'sqlite',
        '--schema',
        relative(work, join(root, 'src/store/schema.ts')),
        '--out',
        'drizzle',
      ],
      { cwd: work, encoding: 'utf8' },
    );
    expect(out).toContain('No schema changes');
    expect(readdirSync(join(work, 'drizzle')).sort()).toEqual(readdirSync(join(root, 'drizzle')).sort());
  });

  it('applies once, is idempotent, records tags, and reports tags it does not know', async () => {
    const db = await openDatabase(join(tempDir(), 'm.db'), { busyTimeoutMs: 1000 });
    expect(migrate(db).applied).toEqual(MIGRATIONS.map((m) => m.tag));
    expect(migrate(db)).toEqual({ applied: [], unknown: [] });
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .all<{ name: string }>()
      .map((r) => r.name);
    expect(tables).toEqual(
      expect.arrayContaining([
        'blobs',
        'documents',
        'leases',
        'records',
        'store_meta',
        'store_migrations',
        'stream_counts',
      ]),
    );
    db.prepare("INSERT INTO store_migrations (tag, sha256, applied_at) VALUES ('9999_future', 'x', 0)").run();
    expect(migrate(db).unknown).toEqual(['9999_future']);
    db.close();
  });

  it('serialises concurrent first opens (two connections, one fresh file)', async () => {
    const file = join(tempDir(), 'm.db');
    const a = await openDatabase(file, { busyTimeoutMs: 5000 });
    const b = await openDatabase(file, { busyTimeoutMs: 5000 });
    const results = [migrate(a), migrate(b)];
    expect(results.map((r) => r.applied.length).sort()).toEqual([0, MIGRATIONS.length]);
    a.close();
    b.close();
  });

  it('upgrades a store written before the views: they appear at open and show its rows', async () => {
    const path = tempDir();
    const db = await openDatabase(join(path, 'cronstable.db'), { busyTimeoutMs: 1000 });
    const before = MIGRATIONS.filter((m) => m.tag < '0002_views');
    expect(migrate(db, before).applied).toEqual(['0000_init', '0001_stream_counts']);
    stampMeta(db, 'default');
    const old = new Executor(db, { ns: 'default', writer: 'node-a#1', busyRetry: false });
    old.run({
      op: 'append',
      args: [
        'runs/nightly',
        { outcome: 'success', exit_code: 0, attempt: 0, scheduled_at: '2026-01-01T00:00:00Z' },
      ],
      nowMs: Date.now(),
    });
    old.run({ op: 'kvSet', args: ['global', 'k', 'v'], nowMs: Date.now() });
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'view'").get()).toEqual({ n: 0 });
    db.close();

    const store = await openStore({ path, namespace: 'default', topology: 'single-node', inline: true });
    await store.close();
    const after = await openDatabase(join(path, 'cronstable.db'), { busyTimeoutMs: 1000 });
    try {
      expect(after.prepare("SELECT tag FROM store_migrations WHERE tag = '0002_views'").get()).toBeDefined();
      expect(after.prepare('SELECT job, outcome, exit_code, attempt, node FROM runs').all()).toEqual([
        { job: 'nightly', outcome: 'success', exit_code: 0, attempt: 0, node: 'node-a' },
      ]);
      expect(after.prepare('SELECT job, scheduled_at, outcome, attempts FROM slots').all()).toEqual([
        { job: 'nightly', scheduled_at: '2026-01-01T00:00:00Z', outcome: 'ran', attempts: 1 },
      ]);
      expect(after.prepare('SELECT scope, key, value FROM kv').all()).toEqual([
        { scope: 'global', key: 'k', value: 'v' },
      ]);
    } finally {
      after.close();
    }
  });

  it('keeps stream_counts exact through inserts, prunes and deletes', async () => {
    const path = tempDir();
    const store = await openStore({ path, namespace: 'default', topology: 'single-node', inline: true });
    for (let i = 0; i < 20; i++) await store.append('runs/a', { i }, { keep: 7 });
    await store.append('runs/b', { i: 0 });
    await store.deleteStream('runs/b');
    await store.close();
    const db = await openDatabase(join(path, 'cronstable.db'), { busyTimeoutMs: 1000 });
    expect(db.prepare('SELECT stream, v1_records AS n FROM stream_counts').all()).toEqual([
      { stream: 'runs/a', n: 7 },
    ]);
    expect(db.prepare("SELECT count(*) AS n FROM records WHERE stream = 'runs/a'").get()).toEqual({ n: 7 });
    db.close();
  });
});

describe('topology', () => {
  const mountinfo = [
    '22 1 0:21 / / rw,relatime - ext4 /dev/vda rw',
    '30 22 0:40 / /var/lib/cronstable rw,relatime - nfs4 srv:/export rw,vers=4.2,local_lock=none',
    '31 22 0:41 / /mnt/with\\040space rw - cifs //srv/share rw',
    '32 22 0:42 / /mnt/nolock rw - nfs srv:/x rw,vers=3,nolock',
    '33 22 0:43 / /var/lib/cronstable/local rw - tmpfs tmpfs rw',
  ].join('\n');

  it('probes the longest mount point holding the path', () => {
    expect(probeMount('/var/lib/cronstable/state', mountinfo)).toMatchObject({
      fsType: 'nfs4',
      topology: 'shared',
      locksHostLocal: false,
      mountPoint: '/var/lib/cronstable',
    });
    expect(probeMount('/var/lib/cronstable/local/x', mountinfo)).toMatchObject({
      fsType: 'tmpfs',
      topology: 'single-node',
    });
    expect(probeMount('/var/lib/cronstablex', mountinfo)).toMatchObject({
      fsType: 'ext4',
      topology: 'single-node',
    });
    expect(probeMount('/mnt/with space/db', mountinfo)).toMatchObject({ fsType: 'cifs', topology: 'shared' });
    expect(probeMount('/mnt/nolock', mountinfo)).toMatchObject({ topology: 'shared', locksHostLocal: true });
    expect(probeMount('/x', '')).toMatchObject({ fsType: null, topology: 'single-node' });
  });

  it('an explicit topology wins over the probe, with a warning on mismatch', () => {
    const nfs = probeMount('/var/lib/cronstable', mountinfo);
    expect(resolveTopology('auto', nfs)).toEqual({ topology: 'shared', warning: null });
    const r = resolveTopology('single-node', nfs);
    expect(r.topology).toBe('single-node');
    expect(r.warning).toMatch(/nfs4/);
    expect(resolveTopology('shared', nfs).warning).toBeNull();
  });

  it('sets pragmas per topology: shared = rollback journal, full sync, no mmap; single-node = WAL', async () => {
    for (const [topology, journal] of [
      ['shared', 'delete'],
      ['single-node', 'wal'],
    ] as const) {
      const { executor, journalMode } = await openInlineExecutor(tempDir(), topology, 'default', 'w');
      const db = executor.db;
      expect(journalMode).toBe(journal);
      expect(db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: journal });
      expect(db.prepare('PRAGMA synchronous').get()).toEqual({ synchronous: 2 });
      expect(db.prepare('PRAGMA locking_mode').get()).toEqual({ locking_mode: 'normal' });
      expect(db.prepare('PRAGMA busy_timeout').get()).toEqual({ timeout: 5000 });
      if (topology === 'shared') expect(db.prepare('PRAGMA mmap_size').get()).toEqual({ mmap_size: 0 });
      db.close();
    }
  });
});

describe('driver and executor', () => {
  it('nests transactions as savepoints: an inner failure rolls back only itself', async () => {
    const db = await openDatabase(join(tempDir(), 'd.db'), { busyTimeoutMs: 1000 });
    db.exec('CREATE TABLE t (v INTEGER)');
    db.transaction(() => {
      db.prepare('INSERT INTO t VALUES (1)').run();
      expect(() =>
        db.transaction(() => {
          db.prepare('INSERT INTO t VALUES (2)').run();
          throw new Error('inner');
        }),
      ).toThrow('inner');
      db.prepare('INSERT INTO t VALUES (3)').run();
    });
    expect(db.prepare('SELECT v FROM t ORDER BY v').all()).toEqual([{ v: 1 }, { v: 3 }]);
    expect(() =>
      db.transaction(() => {
        db.prepare('INSERT INTO t VALUES (4)').run();
        throw new Error('outer');
      }),
    ).toThrow('outer');
    expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 2 });
    expect(db.inTransaction).toBe(false);
    db.close();
  });

  it('group commit: a caller fault fails only its own op; results follow in order', async () => {
    const { executor } = await openInlineExecutor(tempDir(), 'single-node', 'default', 'w');
    const now = Date.now();
    executor.run({ op: 'cursorAdvance', args: ['g', 'c', 5, false], nowMs: now });
    const out = executor.runBatch([
      { op: 'append', args: ['runs/a', { n: 1 }, undefined], nowMs: now },
      { op: 'cursorAdvance', args: ['g', 'c', 'text', false], nowMs: now },
      { op: 'kvSet', args: ['g', 'k', 1], nowMs: now },
      { op: 'kvSet', args: ['g', 'bad', Number.NaN], nowMs: now },
      { op: 'append', args: ['runs/a', { n: 2 }, undefined], nowMs: now },
    ]);
    expect(out.map((o) => o.ok)).toEqual([true, false, true, false, true]);
    expect(out[1]!.ok === false && out[1]!.error).toBeInstanceOf(StoreRequestError);
    expect((out[1] as { error: StoreRequestError }).error.status).toBe(409);
    expect(executor.run({ op: 'list', args: ['runs/a', undefined], nowMs: now })).toHaveLength(2);
    expect(executor.run({ op: 'kvGet', args: ['g', 'k'], nowMs: now })).toMatchObject({ value: 1 });
    expect(executor.run({ op: 'cursorGet', args: ['g', 'c'], nowMs: now })).toMatchObject({ value: 5 });
    executor.db.close();
  });

  it('a SQLite error aborts the group and every op is retried on its own', async () => {
    const { executor } = await openInlineExecutor(tempDir(), 'single-node', 'default', 'w');
    const boom = new Executor(executor.db, { ns: 'default', writer: 'w', busyRetry: false });
    executor.db.exec('CREATE TABLE guard (v INTEGER CHECK (v < 10))');
    executor.db.exec(
      "CREATE TRIGGER guard_kv AFTER INSERT ON documents WHEN NEW.key = 'poison' BEGIN INSERT INTO guard VALUES (99); END",
    );
    const now = Date.now();
    const out = boom.runBatch([
      { op: 'kvSet', args: ['g', 'a', 1], nowMs: now },
      { op: 'kvSet', args: ['g', 'poison', 1], nowMs: now },
      { op: 'kvSet', args: ['g', 'b', 2], nowMs: now },
    ]);
    expect(out.map((o) => o.ok)).toEqual([true, false, true]);
    expect((boom.run({ op: 'kvList', args: ['g'], nowMs: now }) as unknown[]).length).toBe(2);
    executor.db.close();
  });
});

describe('token bucket', () => {
  it('grants the burst at once, then paces at the rate, never failing', async () => {
    let t = 0;
    const bucket = new TokenBucket(10, () => t);
    const immediate = Array.from({ length: 10 }, () => bucket.take());
    expect(immediate.every((w) => w === null)).toBe(true);
    const waits = [bucket.take(), bucket.take()];
    expect(waits.every((w) => w instanceof Promise)).toBe(true);
    expect(bucket.waiting).toBe(2);
    t = 250;
    await Promise.all(waits);
    expect(bucket.throttled).toBe(2);
    expect(new TokenBucket(0.5).take()).toBeNull();
  });

  it('throttles bulk ops of a store with maxOpsPerSecond, never lease ops', async () => {
    const store = await openStore({
      path: tempDir(),
      namespace: 'default',
      topology: 'single-node',
      inline: true,
      maxOpsPerSecond: 20,
    });
    // The bucket's own pacing is tested on a fake clock above; here only what the store routes
    // through it. Wall-clock bounds that a loaded machine can break stay out: a slow machine
    // refills the bucket while the 30 calls are still being issued, so fewer of them wait.
    const t0 = performance.now();
    let bulkDone = false;
    const bulk = Promise.all(Array.from({ length: 30 }, (_, i) => store.kvSet('g', `k${i}`, i))).then(() => {
      bulkDone = true;
    });
    const lease = await store.leaseAcquire('L', 'h', 30);
    // The lease op jumped the queue of ten throttled writes (>= 0.5 s of pacing at 20/s).
    expect(bulkDone).toBe(false);
    await bulk;
    const bulkMs = performance.now() - t0;
    expect(lease?.fence).toBe(1);
    expect(bulkMs).toBeGreaterThan(400);
    // Only bulk ops count: at most the 10 writes beyond the burst of 20, and the lease never.
    const throttled = store.stats?.().throttledOps ?? 0;
    expect(throttled).toBeGreaterThan(0);
    expect(throttled).toBeLessThanOrEqual(10);
    expect((await store.kvGet('g', 'k29'))?.value).toBe(29);
    await store.close();
  });
});

describe('tar.gz', () => {
  it('round-trips members and is readable by system tar', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'manifest.json'), '{"a":1}\n');
    const big = Buffer.alloc(70_001, 7);
    writeFileSync(join(dir, 'cronstable.db'), big);
    const archive = join(dir, 'out.tar.gz');
    await writeTarGz(archive, [
      { name: 'manifest.json', path: join(dir, 'manifest.json') },
      { name: 'cronstable.db', path: join(dir, 'cronstable.db') },
    ]);
    const listed = spawnSync('tar', ['tzf', archive], { encoding: 'utf8' });
    if (listed.status === 0)
      expect(listed.stdout.trim().split('\n')).toEqual(['manifest.json', 'cronstable.db']);
    const out = join(dir, 'x');
    mkdirSync(out);
    expect(await readTarGz(archive, out, new Set(['manifest.json', 'cronstable.db']))).toEqual([
      'manifest.json',
      'cronstable.db',
    ]);
    expect(readFileSync(join(out, 'cronstable.db')).equals(big)).toBe(true);
    expect(readFileSync(join(out, 'manifest.json'), 'utf8')).toBe('{"a":1}\n');
  });

  it('refuses unexpected members, links and paths (made by system tar)', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'src/sub'), { recursive: true });
    writeFileSync(join(dir, 'src/manifest.json'), '{}');
    writeFileSync(join(dir, 'src/sub/evil'), 'x');
    symlinkSync('/etc/passwd', join(dir, 'src/cronstable.db'));
    const cases: [string, string[]][] = [
      ['path.tar.gz', ['sub/evil']],
      ['link.tar.gz', ['cronstable.db']],
      ['other.tar.gz', ['manifest.json', 'sub']],
    ];
    for (const [name, members] of cases) {
      try {
        execFileSync('tar', ['czf', join(dir, name), '-C', join(dir, 'src'), ...members]);
      } catch {
        return; // no system tar here
      }
      const out = mkdtempSync(join(dir, 'out-'));
      await expect(
        readTarGz(join(dir, name), out, new Set(['manifest.json', 'cronstable.db'])),
      ).rejects.toThrow();
    }
    writeFileSync(join(dir, 'trunc.tar.gz'), readFileSync(join(dir, 'path.tar.gz')).subarray(0, 20));
    await expect(readTarGz(join(dir, 'trunc.tar.gz'), tempDir(), new Set(['x']))).rejects.toThrow();
  });
});

describe('admin lock', () => {
  it('is exclusive, blocks openStore with a clear error, and is released', async () => {
    const dir = tempDir();
    const release = acquireAdminLock(dir, 'restore');
    expect(() => acquireAdminLock(dir, 'migrate')).toThrow(StoreLockedError);
    expect(() => assertNotAdminLocked(dir)).toThrow(/locked by 'restore' by pid \d+/);
    await expect(
      openStore({ path: dir, namespace: 'default', topology: 'auto', inline: true }),
    ).rejects.toBeInstanceOf(StoreLockedError);
    release();
    assertNotAdminLocked(dir);
    const store = await openStore({ path: dir, namespace: 'default', topology: 'auto', inline: true });
    await store.close();
  });

  it('breaks a stale lock of a dead local process; honours another host', () => {
    const dir = tempDir();
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    const deadPid = Number(dead.stdout);
    writeFileSync(
      join(dir, 'cronstable.lock'),
      JSON.stringify({ pid: deadPid, host: hostname(), op: 'restore', at: 1 }),
    );
    assertNotAdminLocked(dir);
    acquireAdminLock(dir, 'migrate')();
    writeFileSync(
      join(dir, 'cronstable.lock'),
      JSON.stringify({ pid: deadPid, host: 'elsewhere', op: 'restore', at: 1 }),
    );
    expect(() => acquireAdminLock(dir, 'migrate')).toThrow(/on elsewhere/);
  });
});

describe('value helpers', () => {
  it('portability: finite numbers and int64 integers only', () => {
    for (const ok of [0, -1.5, 2 ** 62, -(2 ** 63), 'x', null, true, [1, { a: [null] }]]) assertPortable(ok);
    for (const bad of [
      Number.NaN,
      2 ** 63,
      -(2 ** 63) * 2,
      [Number.POSITIVE_INFINITY],
      { a: undefined },
      new Date(),
    ])
      expect(() => assertPortable(bad)).toThrow(StoreRequestError);
  });

  it('compares strings by code point and bounds prefixes', () => {
    expect(compareStrings('a', 'b')).toBeLessThan(0);
    expect(compareStrings('ab', 'a')).toBeGreaterThan(0);
    expect(compareStrings('\u{1F600}', '\uFFFF')).toBeGreaterThan(0);
    expect(compareStrings('\uE000', '\u{10000}')).toBeLessThan(0);
    expect(compareStrings('\u0100', '\u{10000}')).toBeLessThan(0);
    expect(prefixUpperBound('runs/')).toBe('runs0');
    expect(prefixUpperBound('')).toBeNull();
    expect(prefixUpperBound('a\uD7FF')).toBe('a\uE000');
  });
});

// Offline state administration on real store files: check, gc, backup → restore, migrate.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type AdminOptions,
  stateBackup,
  stateCheck,
  stateGc,
  stateMigrate,
  stateRestore,
} from '../../src/store/admin.ts';
import { acquireAdminLock } from '../../src/store/adminlock.ts';
import { openStore } from '../../src/store/index.ts';
import type { Store } from '../../src/store/types.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'cronstable-admin-'));
  dirs.push(d);
  return d;
}

const DAY = 86400;

function options(path: string, namespace = 'prod', nowMs?: number): AdminOptions {
  return { path, namespace, topology: 'single-node', now: nowMs === undefined ? undefined : () => nowMs };
}

async function withStore<T>(opts: AdminOptions, fn: (s: Store) => Promise<T>): Promise<T> {
  const store = await openStore({ ...opts, inline: true });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** A namespace with every kind of row, plus a neighbour namespace that must not leak. */
async function populate(path: string) {
  const leases = await withStore(options(path), async (s) => {
    for (let i = 0; i < 3; i++) await s.append('runs/backup', { outcome: 'success', i });
    await s.append('retries/backup', { kind: 'pending', attempt: 1 });
    await s.kvSet('global', 'pulse-count', 41);
    await s.cursorAdvance('orders', 'watermark', '2024-05-01T00:00:00Z', false);
    await s.idempotencyClaim('backup', 'nightly-2024-05-01', 0);
    await s.artifactPut('backup', 'report.csv', new TextEncoder().encode('a,b\n1,2\n'));
    const slot = (await s.leaseAcquire('slots/backup', 'node-a#1', 30))!;
    await s.leaseRelease(slot);
    const slot2 = (await s.leaseAcquire('slots/backup', 'node-b#1', 30))!;
    const lock = (await s.leaseAcquire('lock/global/x#0', 'node-a#2', 30))!;
    return { slot2, lock };
  });
  await withStore(options(path, 'neighbour'), async (s) => {
    await s.append('runs/secret', { x: 1 });
    await s.kvSet('global', 'neighbour-only', 1);
  });
  return leases;
}

describe('state check', () => {
  it('probes writability and reports counts per prefix and integrity', async () => {
    const path = join(tempDir(), 'state');
    await populate(path);
    const r = await stateCheck(options(path));
    expect(r.ok).toBe(true);
    expect(r.integrity).toBe('ok');
    expect(r.lines[0]).toBe(`state: store at ${path} is writable`);
    expect(r.lines).toEqual(
      expect.arrayContaining([
        '  namespace: prod',
        expect.stringMatching(/^ {2}topology: single-node/),
        'streams: 3 (5 record(s))',
        'artifacts: 1 record(s)',
        'retries: 1 record(s)',
        'runs: 3 record(s)',
        'documents: 3 (cursor: 1, idem: 1, kv: 1)',
        'leases: 2 (2 live)',
        'quarantined: 0 record(s)',
      ]),
    );
    expect(r.prefixes).toEqual({ runs: 3, retries: 1, artifacts: 1 });
  });

  it('fails (not throws) when the store directory is not writable', async () => {
    if (process.getuid?.() === 0) return; // root writes anywhere
    const path = join(tempDir(), 'ro');
    await withStore(options(path), async () => undefined);
    chmodSync(path, 0o500);
    try {
      const r = await stateCheck(options(path));
      expect(r.ok).toBe(false);
      expect(r.lines[0]).toMatch(/not writable/);
    } finally {
      chmodSync(path, 0o700);
    }
  });
});

describe('state gc', () => {
  it('removes managed streams of jobs outside the keep-set older than grace; dry run only reports', async () => {
    const path = join(tempDir(), 'state');
    const t0 = 1_700_000_000_000;
    await withStore(options(path, 'prod', t0), async (s) => {
      await s.append('runs/kept', { i: 1 });
      await s.append('runs/gone', { i: 1 });
      await s.append('logs/gone', { i: 1 });
      await s.append('catchup/gone', { i: 1 });
      await s.append('counters/host-a', { i: 1 });
      await s.append('meta', { storeVersion: 'v1' });
      await s.append('mystery/gone', { i: 1 });
      await s.artifactPut('old-scope', 'f', new Uint8Array([1, 2, 3]));
      await s.artifactPut('kept', 'f', new Uint8Array([4]));
      await s.artifactPut('dagxcom/d/run1', 'x', new Uint8Array([5]));
      await s.leaseAcquire('dagadvance/d/run1', 'n', 30);
      await s.leaseAcquire('slots/gone', 'n', 30);
    });
    await withStore(options(path, 'prod', t0 + 5 * DAY * 1000), (s) => s.append('runs/recent', { i: 1 }));
    const later = options(path, 'prod', t0 + 8 * DAY * 1000);
    const gc = { keepJobs: ['kept'], keepScopes: [], graceSeconds: 7 * DAY };
    const dry = await stateGc(later, { ...gc, dryRun: true });
    expect(dry.ok).toBe(true);
    expect(dry.removedStreams).toEqual(['artifacts/old-scope', 'catchup/gone', 'logs/gone', 'runs/gone']);
    expect(dry.lines[0]).toBe(
      'state: gc would remove 4 stream(s) (4 record(s)), 0 temp file(s), 0 quarantined record(s); kept 3 stream(s)',
    );
    expect(dry.lines[1]).toBe('state: gc would remove 1 orphan blob(s) (3 byte(s))');
    expect(dry.lines).toContain('  - runs/gone');
    expect(await withStore(later, (s) => s.list('runs/gone'))).toHaveLength(1);

    const real = await stateGc(later, { ...gc, dryRun: false });
    expect(real.removedStreams).toEqual(dry.removedStreams);
    expect(real.removedBlobs).toBe(1);
    expect(real.removedLeases).toBe(1);
    expect(real.lines[0]).toMatch(/^state: gc removed 4 stream\(s\)/);
    await withStore(later, async (s) => {
      expect((await s.streams('')).map((x) => x.stream)).toEqual([
        'artifacts/dagxcom/d/run1',
        'artifacts/kept',
        'counters/host-a',
        'meta',
        'mystery/gone',
        'runs/kept',
        'runs/recent',
      ]);
      expect(await s.artifactGet('kept', 'f')).not.toBe('gone');
      expect(await s.leaseRead('dagadvance/d/run1')).toBeNull();
      expect((await s.leaseAcquire('slots/gone', 'other', 30))?.fence).toBe(2);
    });
  });

  it('is deferred while the manifest history is younger than grace; manifests extend the keep-set', async () => {
    const path = join(tempDir(), 'state');
    const t0 = 1_700_000_000_000;
    await withStore(options(path, 'prod', t0), async (s) => {
      await s.append('runs/from-other-node', { i: 1 });
      await s.append('runs/gone', { i: 1 });
    });
    const manifest = { jobs: ['from-other-node'], scopes: ['global'] };
    await withStore(options(path, 'prod', t0 + 6 * DAY * 1000), (s) =>
      s.append('manifests/host-b', manifest),
    );
    const gc = { keepJobs: [], graceSeconds: 7 * DAY, dryRun: false };
    const deferred = await stateGc(options(path, 'prod', t0 + 8 * DAY * 1000), gc);
    expect(deferred.deferred).toMatch(/manifest history spans/);
    expect(deferred.lines[0]).toMatch(/^state: gc deferred: /);
    expect(deferred.removedStreams).toEqual([]);
    await withStore(options(path, 'prod', t0 + 13 * DAY * 1000), (s) =>
      s.append('manifests/host-b', manifest),
    );
    const later = await stateGc(options(path, 'prod', t0 + 13.5 * DAY * 1000), gc);
    expect(later.removedStreams).toEqual(['runs/gone']);
    const disabled = await stateGc(options(path), { ...gc, graceSeconds: 0 });
    expect(disabled.ok).toBe(false);
    expect(disabled.lines[0]).toMatch(/gc is disabled/);
  });

  it('stands the blob sweep down when an artifact record cannot be read', async () => {
    const path = join(tempDir(), 'state');
    const t0 = 1_700_000_000_000;
    await withStore(options(path, 'prod', t0), async (s) => {
      await s.artifactPut('global', 'f', new Uint8Array([1]));
      await s.append('artifacts/global', { name: 'broken' });
    });
    const r = await stateGc(options(path, 'prod', t0 + 30 * DAY * 1000), {
      keepJobs: [],
      keepScopes: [],
      graceSeconds: DAY,
      dryRun: true,
    });
    expect(r.blobSweepSkipped).toMatch(/without sha256/);
    expect(r.lines[1]).toMatch(/orphan-blob sweep skipped/);
  });
});

describe('state backup / restore', () => {
  it('round-trips records, documents, blobs and lease fences of one namespace (0600 .tar.gz)', async () => {
    const dir = tempDir();
    const src = join(dir, 'src');
    const { slot2, lock } = await populate(src);
    const file = join(dir, 'backups', 'state.tar.gz');
    const b = await stateBackup(options(src), file);
    expect(b.ok).toBe(true);
    expect(b.lines[0]).toMatch(
      /^state: backed up 11 item\(s\) \(5 record\(s\), 3 document\(s\), 1 blob\(s\), 2 lease\(s\)\)/,
    );
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(execFileSync('tar', ['tzf', file], { encoding: 'utf8' }).trim().split('\n').sort()).toEqual([
      'cronstable.db',
      'manifest.json',
    ]);
    const manifest = JSON.parse(execFileSync('tar', ['xzOf', file, 'manifest.json'], { encoding: 'utf8' }));
    expect(manifest).toMatchObject({
      format: 'cronstable-state-backup',
      formatVersion: 1,
      namespace: 'prod',
    });

    const dest = join(dir, 'dest');
    const r = await stateRestore(options(dest), file, { force: false });
    expect(r.ok).toBe(true);
    expect(existsSync(join(dest, 'cronstable.lock'))).toBe(false);
    await withStore(options(dest), async (s) => {
      expect((await s.list('runs/backup')).map((x) => x.data)).toEqual(
        [0, 1, 2].map((i) => ({ outcome: 'success', i })),
      );
      expect((await s.kvGet('global', 'pulse-count'))?.value).toBe(41);
      expect((await s.cursorGet('orders', 'watermark'))?.value).toBe('2024-05-01T00:00:00Z');
      expect((await s.idempotencyClaim('backup', 'nightly-2024-05-01', 0)).fresh).toBe(false);
      const art = await s.artifactGet('backup', 'report.csv');
      expect(art !== null && art !== 'gone' && new TextDecoder().decode(art.bytes)).toBe('a,b\n1,2\n');
      expect(await s.leaseRead('slots/backup')).toMatchObject({ holder: 'node-b#1', fence: slot2.fence });
      expect(await s.leaseRead('lock/global/x#0')).toMatchObject({ fence: lock.fence });
      await s.leaseRelease(slot2);
      expect((await s.leaseAcquire('slots/backup', 'node-c#1', 30))?.fence).toBe(slot2.fence + 1);
      expect(await s.kvGet('global', 'neighbour-only')).toBeNull();
    });
    await withStore(options(dest, 'neighbour'), async (s) => expect(await s.streams('')).toEqual([]));
  });

  it('chmods a pre-existing output file to 0600; refuses to back up a missing store', async () => {
    const dir = tempDir();
    await populate(join(dir, 'src'));
    const file = join(dir, 'b.tgz');
    writeFileSync(file, 'old', { mode: 0o644 });
    expect((await stateBackup(options(join(dir, 'src')), file)).ok).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const none = await stateBackup(options(join(dir, 'nothing-here')), join(dir, 'x.tgz'));
    expect(none.ok).toBe(false);
    expect(none.lines[0]).toMatch(/nothing to back up/);
  });

  it('refuses a non-empty namespace without force; with force merges keeping the higher fence', async () => {
    const dir = tempDir();
    const src = join(dir, 'src');
    await withStore(options(src), async (s) => {
      for (let i = 0; i < 3; i++) await s.leaseRelease((await s.leaseAcquire('low', 'a', 30))!); // fence 3
      for (let i = 0; i < 7; i++) await s.leaseRelease((await s.leaseAcquire('high', 'a', 30))!); // fence 7
      await s.kvSet('global', 'k', 'from-backup');
      await s.append('runs/j', { from: 'backup' });
    });
    const file = join(dir, 'b.tar.gz');
    await stateBackup(options(src), file);

    const dest = join(dir, 'dest');
    await withStore(options(dest), async (s) => {
      for (let i = 0; i < 5; i++) await s.leaseRelease((await s.leaseAcquire('low', 'b', 30))!); // fence 5
      for (let i = 0; i < 2; i++) await s.leaseRelease((await s.leaseAcquire('high', 'b', 30))!); // fence 2
      await s.append('runs/j', { from: 'dest' });
    });
    const refused = await stateRestore(options(dest), file, { force: false });
    expect(refused.ok).toBe(false);
    expect(refused.lines[0]).toMatch(/already holds data in namespace prod .*--force/);

    const merged = await stateRestore(options(dest), file, { force: true });
    expect(merged.ok).toBe(true);
    expect(merged.lines[0]).toMatch(/kept 1 lease\(s\) with a higher current fence/);
    await withStore(options(dest), async (s) => {
      expect((await s.leaseAcquire('low', 'c', 30))?.fence).toBe(6);
      expect((await s.leaseAcquire('high', 'c', 30))?.fence).toBe(8);
      expect((await s.kvGet('global', 'k'))?.value).toBe('from-backup');
      expect((await s.list('runs/j')).map((r) => r.data)).toEqual([{ from: 'dest' }, { from: 'backup' }]);
    });
    // Restoring the same archive again adds no duplicate records.
    await stateRestore(options(dest), file, { force: true });
    await withStore(options(dest), async (s) => expect(await s.list('runs/j')).toHaveLength(2));
  });

  it('refuses while another admin operation holds the lock, and rejects foreign archives', async () => {
    const dir = tempDir();
    await populate(join(dir, 'src'));
    const file = join(dir, 'b.tar.gz');
    await stateBackup(options(join(dir, 'src')), file);
    const dest = join(dir, 'dest');
    const release = acquireAdminLock(join(dest), 'migrate');
    const locked = await stateRestore(options(dest), file, { force: true });
    expect(locked.ok).toBe(false);
    expect(locked.lines[0]).toMatch(/locked by 'migrate'/);
    release();
    writeFileSync(join(dir, 'evil.txt'), 'x');
    execFileSync('tar', ['czf', join(dir, 'evil.tar.gz'), '-C', dir, 'evil.txt']);
    const evil = await stateRestore(options(dest), join(dir, 'evil.tar.gz'), { force: true });
    expect(evil.ok).toBe(false);
    expect(evil.lines[0]).toMatch(/not a cronstable state backup/);
    expect(readFileSync(file).length).toBeGreaterThan(0);
  });
});

describe('state migrate', () => {
  it('refuses the source itself, a nested destination, and a populated one without force', async () => {
    const dir = tempDir();
    const src = join(dir, 'src');
    await populate(src);
    expect((await stateMigrate(options(src), { dest: src, force: true })).lines[0]).toMatch(
      /is the source store/,
    );
    expect((await stateMigrate(options(src), { dest: join(src, 'inner'), force: true })).lines[0]).toMatch(
      /inside the source store/,
    );
    const dest = join(dir, 'dest');
    await withStore(options(dest), (s) => s.append('runs/x', {}));
    const populated = await stateMigrate(options(src), { dest, force: false });
    expect(populated.ok).toBe(false);
    expect(populated.lines[0]).toMatch(/already holds data/);
    expect((await stateMigrate(options(src), { dest: join(dir, 'none'), force: false })).ok).toBe(true);
    expect(
      (await stateMigrate(options(join(dir, 'missing')), { dest: join(dir, 'x'), force: false })).lines[0],
    ).toMatch(/nothing to migrate/);
  });

  it('copies the namespace (optionally renamed) with fences, leaving the source intact', async () => {
    const dir = tempDir();
    const src = join(dir, 'src');
    const { slot2 } = await populate(src);
    const dest = join(dir, 'dest');
    const r = await stateMigrate(options(src), { dest, destNamespace: 'prod-2', force: false });
    expect(r.ok).toBe(true);
    expect(r.lines[1]).toMatch(/point state.path at .*dest and state.deploymentId at prod-2/);
    await withStore(options(dest, 'prod-2'), async (s) => {
      expect(await s.list('runs/backup')).toHaveLength(3);
      expect((await s.leaseRead('slots/backup'))?.fence).toBe(slot2.fence);
      expect((await s.kvGet('global', 'pulse-count'))?.value).toBe(41);
    });
    await withStore(options(dest, 'prod'), async (s) => expect(await s.streams('')).toEqual([]));
    await withStore(options(src), async (s) => expect(await s.list('runs/backup')).toHaveLength(3));
    expect(existsSync(join(src, 'cronstable.lock'))).toBe(false);
    expect(existsSync(join(dest, 'cronstable.lock'))).toBe(false);
  });
});

// The filesystem backend's parts around the round (spec 05 §8.4, §14): settings, the mount and
// lock-fidelity checks, the @reboot ran-set, and the backend itself on a real store (start,
// ready log, report, reuse of the daemon's store, stop during start).
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  fidelityVerdict,
  lockAttemptFromAnotherProcess,
  mountRefusal,
  probeLockFidelity,
  topologyWarning,
} from '../../src/cluster/filesystem/checks.ts';
import { createFilesystemBackend, FilesystemBackend } from '../../src/cluster/filesystem/index.ts';
import { REBOOT_RAN_KEEP, REBOOT_RAN_STREAM, RebootRanSet } from '../../src/cluster/filesystem/reboot-ran.ts';
import { CLOCK_SKEW_ENV, filesystemSettings } from '../../src/cluster/filesystem/settings.ts';
import type { ClusterHost } from '../../src/cluster/types.ts';
import type { ClusterSection } from '../../src/config/file-schema.ts';
import { openStore } from '../../src/store/index.ts';
import { probeMount } from '../../src/store/topology.ts';
import type { Store, Topology } from '../../src/store/types.ts';
import { RealClock } from '../../src/util/clock.ts';

const require = createRequire(import.meta.url);
const Better = require('better-sqlite3') as new (
  file: string,
  opts?: { timeout?: number },
) => { exec(sql: string): void; close(): void };

const dirs: string[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'cronstable-fs-backend-'));
  dirs.push(d);
  return d;
}

/** The store in `dir`, closed after the test (before the directory goes). */
async function storeIn(dir: string, topology: Topology, placement: 'inline' | 'lanes'): Promise<Store> {
  const store = await openStore({ path: dir, namespace: 'default', topology, placement });
  cleanups.push(() => store.close());
  return store;
}

interface Logged {
  level: 'info' | 'warning' | 'error';
  message: string;
}

function host(nodeName: string, store: Store | null = null, jobSetId = 'v1:aaa') {
  const logs: Logged[] = [];
  const h: ClusterHost = {
    nodeName,
    clock: new RealClock(),
    jobSetId: () => jobSetId,
    jobSummaries: () => ({}),
    nodeStats: () => null,
    store,
    log: {
      info: (message) => logs.push({ level: 'info', message }),
      warning: (message) => logs.push({ level: 'warning', message }),
      error: (message) => logs.push({ level: 'error', message }),
    },
  };
  return { host: h, logs };
}

function section(
  path: string,
  extra: Partial<NonNullable<ClusterSection['filesystem']>> = {},
): ClusterSection {
  return { backend: 'filesystem', filesystem: { path, ttl: 3, ...extra } };
}

describe('settings', () => {
  it('applies the spec defaults and derives the cadence', () => {
    const s = filesystemSettings({ filesystem: { path: '/srv/state' } }, {});
    expect(s).toEqual({
      path: '/srv/state',
      namespace: 'default',
      electionName: 'cluster/leader',
      ttlSeconds: 15,
      topology: 'auto',
      cadence: { renewMs: 5000, roundMs: 9000, opMs: 2250 },
      skewMs: 0,
    });
    const t = filesystemSettings(
      {
        connectTimeout: 1,
        filesystem: {
          path: 'rel',
          ttl: 3,
          deploymentId: 'meridian-prod',
          electionName: 'x/y',
          topology: 'shared',
        },
      },
      { [CLOCK_SKEW_ENV]: '-1500' },
    );
    expect(t.path).toBe(join(process.cwd(), 'rel'));
    expect(t.namespace).toBe('meridian-prod');
    expect(t.electionName).toBe('x/y');
    expect(t.topology).toBe('shared');
    expect(t.cadence).toEqual({ renewMs: 1000, roundMs: 1000, opMs: 500 });
    expect(t.skewMs).toBe(-1500);
    expect(filesystemSettings({ filesystem: { path: '/x' } }, { [CLOCK_SKEW_ENV]: 'junk' }).skewMs).toBe(0);
  });

  it('refuses what the schema cannot: no path, ttl below 3', () => {
    expect(() => filesystemSettings({ backend: 'filesystem' }, {})).toThrow(/filesystem.path/);
    expect(() => filesystemSettings({ filesystem: { path: '/x', ttl: 2.5 } }, {})).toThrow(/ttl/);
    expect(() => filesystemSettings({ filesystem: { path: '/x', ttl: Number.NaN } }, {})).toThrow(/ttl/);
  });
});

describe('start-up checks', () => {
  const info = (opts: string, fs = 'nfs4', super_ = 'rw,vers=4.2') =>
    `36 25 0:42 / /mnt/shared rw,relatime shared:1 - ${fs} server:/export ${super_},${opts}\n` +
    '25 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n';

  it('refuses NFS mounts whose locks are host-local, in the spec’s words', () => {
    for (const o of ['nolock', 'local_lock=flock', 'local_lock=all']) {
      const probe = probeMount('/mnt/shared/state', info(o));
      expect(mountRefusal('/mnt/shared/state', probe)).toBe(
        `cluster.backend filesystem: refusing to elect over /mnt/shared/state: the nfs4 mount /mnt/shared uses nolock or local_lock=flock|all: its locks are host-local and cannot fence other nodes`,
      );
    }
    expect(
      mountRefusal('/mnt/shared/state', probeMount('/mnt/shared/state', info('local_lock=none'))),
    ).toBeNull();
    expect(mountRefusal('/mnt/shared/state', probeMount('/mnt/shared/state', info('hard')))).toBeNull();
    expect(mountRefusal('/srv', probeMount('/srv', info('nolock')))).toBeNull(); // on ext4, not the NFS mount
  });

  it('warns when the store is not shared', () => {
    expect(topologyWarning('/srv/s', 'shared')).toBeNull();
    expect(topologyWarning('/srv/s', 'single-node')).toMatch(
      /its locks only exclude processes on this host; set cluster.filesystem.topology: shared/,
    );
  });

  it('refuses when a second connection also gets the write lock, in the spec’s words', () => {
    expect(fidelityVerdict('/srv/s', ['busy', 'granted'])).toEqual({
      verdict: 'refuse',
      message:
        'cluster.backend filesystem: refusing to elect over /srv/s: /srv/s/cronstable.db grants two exclusive locks on one file (its locks are no-ops)',
    });
    expect(fidelityVerdict('/srv/s', ['granted'])).toMatchObject({ verdict: 'refuse' });
    expect(fidelityVerdict('/srv/s', ['busy', { error: 'x' }])).toEqual({ verdict: 'ok' });
    expect(fidelityVerdict('/srv/s', [{ error: 'disk I/O error' }])).toEqual({
      verdict: 'inconclusive',
      why: 'disk I/O error',
    });
  });

  it('another process meets the filesystem’s own lock: BUSY while held, granted when free', async () => {
    const dir = tempDir();
    await storeIn(dir, 'shared', 'inline');
    const file = join(dir, 'cronstable.db');
    expect(await lockAttemptFromAnotherProcess(file, 10_000)).toBe('granted');
    const holder = new Better(file, { timeout: 0 });
    holder.exec('BEGIN IMMEDIATE');
    try {
      expect(await lockAttemptFromAnotherProcess(file, 10_000)).toBe('busy');
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    const missing = await lockAttemptFromAnotherProcess(join(dir, 'nope.db'), 10_000);
    expect(missing).toMatchObject({ error: expect.stringMatching(/^lock probe process: error /) });
  });

  it('the lock-fidelity probe passes on a real SQLite file and is inconclusive while it is busy', async () => {
    const dir = tempDir();
    await storeIn(dir, 'single-node', 'inline');
    expect(await probeLockFidelity(dir)).toEqual({ verdict: 'ok' });
    const other = new Better(join(dir, 'cronstable.db'), { timeout: 0 });
    other.exec('BEGIN EXCLUSIVE');
    try {
      const busy = await probeLockFidelity(dir);
      expect(busy.verdict).toBe('inconclusive');
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect(await probeLockFidelity(dir)).toEqual({ verdict: 'ok' });
  });
});

describe('@reboot ran-set', () => {
  it('answers unknown until read, then per job-set id; a new leader re-reads before "not ran"', async () => {
    const dir = tempDir();
    const store = await storeIn(dir, 'single-node', 'inline');
    let id = 'v1:one';
    const a = new RebootRanSet(store, () => id);
    const b = new RebootRanSet(store, () => id);
    expect(a.has('boot')).toBe('unknown');
    await a.refresh();
    expect(a.has('boot')).toBe(false);
    await a.record('boot');
    expect(a.has('boot')).toBe(true);
    expect(b.has('boot')).toBe('unknown');
    await b.refresh();
    expect(b.has('boot')).toBe(true);
    expect(b.has('other')).toBe(false);
    b.invalidate();
    expect(b.has('boot')).toBe(true);
    expect(b.has('other')).toBe('unknown');
    id = 'v1:two'; // a reload changed the job set: once per job-set id
    await b.refresh();
    expect(b.has('boot')).toBe(false);
    const rows = await store.list(REBOOT_RAN_STREAM);
    expect(rows.map((r) => r.data)).toEqual([{ jobSetId: 'v1:one', job: 'boot' }]);
  });

  it('keeps the newest 512 records', async () => {
    const dir = tempDir();
    const store = await storeIn(dir, 'single-node', 'inline');
    const set = new RebootRanSet(store, () => 'v1:x');
    for (let i = 0; i < REBOOT_RAN_KEEP + 8; i++) await set.record(`job-${i}`);
    expect((await store.list(REBOOT_RAN_STREAM)).length).toBe(REBOOT_RAN_KEEP);
    const fresh = new RebootRanSet(store, () => 'v1:x');
    await fresh.refresh();
    expect(fresh.has('job-0')).toBe(false);
    expect(fresh.has(`job-${REBOOT_RAN_KEEP + 7}`)).toBe(true);
  });
});

describe('the backend on a real clock and store', () => {
  // Electing, renewing, the lease block on every node and the handover after a graceful stop
  // are the conformance suite's (lease-conformance-filesystem.test.ts), with every backend's.
  it('says where its election is ready, warns of a single-node store, and leads alone', async () => {
    const dir = tempDir();
    const a = host('node-a');
    const back = new FilesystemBackend(section(dir), a.host, { tokenSuffix: 'aaaaaaaaaaaa' });
    cleanups.push(() => back.stop());
    await back.start();
    expect(a.logs.map((l) => l.message)).toContain(
      `cluster: filesystem election ready at ${dir} (election=cluster/leader, identity=node-a, ttl=3)`,
    );
    expect(a.logs.some((l) => l.level === 'warning' && /topology 'single-node'/.test(l.message))).toBe(true);
    expect(back.decide('job', 'Leader')).toEqual({ run: true });
    expect(back.ownerOf()).toBeUndefined();
    expect(back.report()).toMatchObject({
      backend: 'filesystem',
      node_name: 'node-a',
      cluster_size: 1,
      quorum: 1,
      quorate: true,
      leader: 'node-a',
      is_leader: true,
      peers: [],
      fleet: false,
      lease: { path: dir, electionName: 'cluster/leader', identity: 'node-a', holder: 'node-a', fence: 1 },
    });
  });

  it('uses the daemon’s store (its lease lane) when it runs lanes on the same path and namespace', async () => {
    const dir = tempDir();
    const store = await storeIn(dir, 'single-node', 'lanes');
    const a = host('node-a', store);
    const back = createFilesystemBackend(section(dir), a.host);
    cleanups.push(() => back.stop());
    await back.start();
    expect(back.report().is_leader).toBe(true);
    expect(store.stats?.().ops.leaseAcquire).toBe(1);

    // Another namespace is another election: its own store.
    const other = host('node-b', store);
    const elsewhere = createFilesystemBackend(section(dir, { deploymentId: 'other' }), other.host);
    cleanups.push(() => elsewhere.stop());
    await elsewhere.start();
    expect(elsewhere.report().is_leader).toBe(true);
    expect(store.stats?.().ops.leaseAcquire).toBe(1);
  });

  it('a stop during start waits for it and then releases; a second start is refused', async () => {
    const dir = tempDir();
    const a = host('node-a');
    const back = createFilesystemBackend(section(dir), a.host);
    const started = back.start();
    const stopped = back.stop();
    await started;
    await stopped;
    expect(back.report().is_leader).toBe(false);
    await expect(back.start()).rejects.toThrow(/already started/);
    const b = host('node-b');
    const next = createFilesystemBackend(section(dir), b.host);
    cleanups.push(() => next.stop());
    await next.start();
    expect(next.report()).toMatchObject({ is_leader: true, lease: { fence: 2 } });
  });

  it('warns once that gossip-only keys do nothing here', async () => {
    const dir = tempDir();
    const a = host('node-a');
    const cluster = { ...section(dir), interval: 10, driftAfter: 2 };
    const back = createFilesystemBackend(cluster, a.host);
    cleanups.push(() => back.stop());
    await back.start();
    const advisories = a.logs.filter((l) => /ignored by the filesystem backend/.test(l.message));
    expect(advisories.map((l) => [l.level, l.message])).toEqual([
      ['warning', 'cluster: interval, driftAfter are ignored by the filesystem backend'],
    ]);
  });
});

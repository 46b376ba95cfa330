// The etcd backend against a real etcd (spec 05 §9), for what is etcd's own: the @reboot ran-set
// scoped to a job set, a stop during start, the fencing protocol on the wire, TLS and password
// auth. Acquire (with the /cluster lease block), renew, lose, fence, release, fail over, clock
// skew and an unreachable etcd are the conformance suite's (lease-conformance-*.test.ts), run
// against this backend like every other; a real kill -9 of a leading daemon is
// test/cluster/etcd.test.ts's.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ClusterCerts, generateClusterCerts } from '../../scripts/fleet/certs.ts';
import { EtcdClient } from '../../src/cluster/etcd/client.ts';
import { EtcdBackend } from '../../src/cluster/etcd/index.ts';
import { JsonTransport } from '../../src/cluster/json-transport.ts';
import type { ClusterSection } from '../../src/config/file-schema.ts';
import { cnLessClientCert, type EtcdServer, etcdBinary, startEtcd } from '../helpers/etcd.ts';
import { leaseTestHost, type TestHost } from '../helpers/lease-host.ts';

const HAVE_ETCD = etcdBinary() !== null;
if (!HAVE_ETCD) console.warn('cluster-etcd tests skipped: no `etcd` on PATH (CI installs etcd-server)');

describe.skipIf(!HAVE_ETCD)('etcd backend against a real etcd', () => {
  let etcd: EtcdServer;
  let election = 0;
  const running: EtcdBackend[] = [];

  beforeAll(async () => {
    etcd = await startEtcd();
  });
  afterAll(async () => {
    await etcd?.destroy();
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((b) => b.stop()));
  });

  /** A cluster section with its own election key, so tests never see each other's leases. */
  function section(ttl: number): ClusterSection {
    election++;
    return {
      backend: 'etcd',
      connectTimeout: 2,
      etcd: { endpoints: [etcd.url], electionName: `test/election-${election}`, ttl },
    };
  }

  function backend(cluster: ClusterSection, name: string): { b: EtcdBackend; host: TestHost } {
    const host = leaseTestHost(name);
    const b = new EtcdBackend(cluster, host);
    running.push(b);
    return { b, host };
  }

  it('the @reboot ran-set round-trips, merges concurrent writes and is scoped to the job set', async () => {
    const cluster = section(5);
    const a = backend(cluster, 'etcd-a');
    const b = backend(cluster, 'etcd-b');
    await Promise.all([a.b.start(), b.b.start()]);
    expect(a.b.rebootRan('warm-cache')).toBe(false);
    await Promise.all([a.b.recordRebootRan('warm-cache'), b.b.recordRebootRan('announce')]);
    const c = backend(cluster, 'etcd-c');
    expect(c.b.rebootRan('warm-cache')).toBe('unknown');
    await c.b.start();
    expect(c.b.rebootRan('warm-cache')).toBe(true);
    expect(c.b.rebootRan('announce')).toBe(true);
    expect(c.b.rebootRan('never-ran')).toBe(false);
    const d = backend(cluster, 'etcd-d');
    d.host.setJobSetId('v1:another-job-set');
    await d.b.start();
    expect(d.b.rebootRan('warm-cache')).toBe(false);
    await d.b.recordRebootRan('warm-cache');
    expect(d.b.rebootRan('warm-cache')).toBe(true);
  });

  it('stop() while start() is still running waits for it and leaves no key behind', async () => {
    const cluster = section(5);
    const a = backend(cluster, 'etcd-a');
    const starting = a.b.start();
    await a.b.stop();
    await starting;
    expect(a.b.report().is_leader).toBe(false);
    const transport = new JsonTransport();
    try {
      expect(
        await new EtcdClient(transport, [etcd.url], null, 2000).get(cluster.etcd!.electionName!),
      ).toBeNull();
    } finally {
      transport.close();
    }
  });

  it('fencing on the wire: a revoked lease id can neither create the key nor match the live one', async () => {
    // The backend-level fence (a stale holder refused, demoted, replaced) is a conformance case
    // (lease-conformance-*.test.ts); this pins the etcd protocol the backend relies on.
    const transport = new JsonTransport();
    try {
      const client = new EtcdClient(transport, [etcd.url], null, 2000);
      const key = section(5).etcd!.electionName!;
      const l1 = await client.grant(5);
      expect((await client.campaign(key, 'x', l1.id)).won).toBe(true);
      await client.revoke(l1.id);
      await expect(client.campaign(key, 'x', l1.id)).rejects.toThrow(/lease not found/);
      const l2 = await client.grant(5);
      expect(await client.campaign(key, 'y', l2.id)).toEqual({ won: true, holder: 'y', holderLease: l2.id });
      expect(await client.campaign(key, 'x', l1.id)).toEqual({ won: false, holder: 'y', holderLease: l2.id });
      expect(await client.keepAlive(l1.id)).toBeLessThanOrEqual(0);
      await client.revoke(l2.id);
    } finally {
      transport.close();
    }
  });
});

describe.skipIf(!HAVE_ETCD)('etcd backend over mutual TLS with authentication', () => {
  let etcd: EtcdServer;
  let dir: string;
  let certs: ClusterCerts;
  const running: EtcdBackend[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cronstable-etcd-tls-'));
    certs = generateClusterCerts(dir, [{ name: 'etcd-server', sans: ['IP:127.0.0.1'] }]);
    certs.nodes['cronstable-node'] = cnLessClientCert(dir, certs.ca, certs.caKey);
    // Tokens live 2 s, a round comes every 3 s: every round meets an expired token (401).
    etcd = await startEtcd({
      tls: { ca: certs.ca, ...certs.nodes['etcd-server']! },
      extraArgs: ['--auth-token-ttl', '2'],
    });
    const admin = new JsonTransport({
      ca: readFileSync(certs.ca, 'utf8'),
      cert: readFileSync(certs.nodes['cronstable-node']!.cert, 'utf8'),
      key: readFileSync(certs.nodes['cronstable-node']!.key, 'utf8'),
    });
    try {
      for (const [path, body] of [
        ['/v3/auth/role/add', { name: 'root' }],
        ['/v3/auth/user/add', { name: 'root', password: 'hunter2' }],
        ['/v3/auth/user/grant', { user: 'root', role: 'root' }],
        ['/v3/auth/enable', {}],
      ] as const) {
        const res = await admin.request({ method: 'POST', url: `${etcd.url}${path}`, body, timeoutMs: 5000 });
        expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
      }
      writeFileSync(join(dir, 'password'), 'hunter2\n');
    } finally {
      admin.close();
    }
  });
  afterAll(async () => {
    await Promise.all(running.splice(0).map((b) => b.stop()));
    await etcd?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  let attempt = 0;
  it('leads over https with a client certificate, re-authenticates on 401, and skips a dead endpoint', async () => {
    // An election and identity of its own per attempt: a retry must not meet the first attempt's
    // leader, which holds its lease until afterAll.
    attempt++;
    const cluster: ClusterSection = {
      backend: 'etcd',
      connectTimeout: 2,
      etcd: {
        // A dead first endpoint: rotation and failover within a round keep the election going.
        endpoints: ['https://127.0.0.1:1', etcd.url],
        electionName: `tls/election-${attempt}`,
        ttl: 9,
        username: 'root',
        password: { fromFile: join(dir, 'password') },
        tls: { ca: certs.ca, ...certs.nodes['cronstable-node']! },
      },
    };
    const host = leaseTestHost(`etcd-tls-${attempt}`);
    const b = new EtcdBackend(cluster, host);
    running.push(b);
    await b.start();
    expect(b.report().is_leader, host.lines.join('\n')).toBe(true);
    // Three more rounds, each past the token's life: every one must re-authenticate and renew.
    const end = performance.now() + 9500;
    while (performance.now() < end) {
      expect(b.report().is_leader).toBe(true);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(host.lines.filter((l) => l.includes('round failed'))).toEqual([]);
    // One login at start, then one per round whose token had expired (a 401, then a retry).
    expect(b.authentications()).toBeGreaterThanOrEqual(3);
    await b.recordRebootRan('warm-cache');
    expect(b.rebootRan('warm-cache')).toBe(true);
    // Without the password the same store refuses us: start succeeds, but nothing is ever won.
    const anon = new EtcdBackend(
      { ...cluster, etcd: { ...cluster.etcd, username: null, password: null } },
      leaseTestHost('anon'),
    );
    running.push(anon);
    await anon.start();
    expect(anon.report().is_leader).toBe(false);
    expect(anon.report().quorate).toBe(false);
  });
});

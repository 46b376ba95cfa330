// Gossip backends in this process, each with its own real mTLS listener on a loopback alias
// (127.0.0.11, .12, ... all route to lo), polling each other with short timings.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest, createServer as httpsServer, type Server } from 'node:https';
import { createServer as netServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ClusterCerts, generateClusterCerts } from '../../scripts/fleet/certs.ts';
import { freePort } from '../../scripts/fleet/ports.ts';
import {
  createFleetMesh,
  createGossipBackend,
  type FleetView,
  type GossipBackend,
} from '../../src/cluster/gossip/index.ts';
import { rendezvousOwner } from '../../src/cluster/rendezvous.ts';
import type { ClusterHost, JobSummary, NodeStats, PeerStatus } from '../../src/cluster/types.ts';
import type { ClusterSection } from '../../src/config/file-schema.ts';
import { RealClock } from '../../src/util/clock.ts';

const IPS = Array.from({ length: 9 }, (_, i) => `127.0.0.${11 + i}`);
const NAMES = 'abcdefghi'.split('').map((c) => `node-${c}`);
const JOB_SET = `v1:${'1'.repeat(64)}`;
const STATS: NodeStats = {
  cpu_percent: 12.5,
  cpu_count: 2,
  mem_percent: 40,
  mem_used_bytes: 1000,
  mem_total_bytes: 2500,
  proc_rss_bytes: 300,
  proc_cpu_percent: 1.5,
};

let dir: string;
let certs: ClusterCerts;
let foreign: ClusterCerts;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cronstable-gossip-'));
  certs = generateClusterCerts(join(dir, 'ca'), [
    ...NAMES.map((name, i) => ({ name, sans: [`IP:${IPS[i]}`] })),
    // A member cert whose SAN names another address than the one it is served at.
    { name: 'misnamed', sans: ['IP:127.0.0.99'] },
    { name: 'tester', sans: ['IP:127.0.0.1'] },
  ]);
  foreign = generateClusterCerts(join(dir, 'foreign'), [{ name: 'stranger', sans: [`IP:${IPS[8]}`] }], {
    caName: 'some-other-ca',
  });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface NodeSpec {
  name: string;
  ip: string;
  /** The cert set and leaf to serve with (default: the cluster CA, the leaf named like the node). */
  certs?: ClusterCerts;
  leaf?: string;
  distribution?: 'single-leader' | 'spread';
  electLeader?: boolean;
  jobSetId?: string;
  /** Peers by index into the fleet (default: everyone else). */
  peers?: number[];
  extraPeers?: string[];
  jobs?: Record<string, JobSummary>;
}

interface TestNode {
  spec: NodeSpec;
  addr: string;
  backend: GossipBackend;
  logs: string[];
  setJobSet(id: string): void;
  /** A new backend (new instance id) with the same config: a restarted process. */
  restart(): Promise<GossipBackend>;
}

const started: GossipBackend[] = [];
const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((b) => b.stop()));
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

function hostFor(spec: NodeSpec, logs: string[]): ClusterHost & { jobSet: string } {
  const host = {
    nodeName: spec.name,
    clock: new RealClock(),
    jobSet: spec.jobSetId ?? JOB_SET,
    jobSetId: () => host.jobSet,
    jobSummaries: () => spec.jobs ?? {},
    nodeStats: () => STATS,
    store: null,
    log: {
      info: (m: string) => logs.push(`INFO ${m}`),
      warning: (m: string) => logs.push(`WARNING ${m}`),
      error: (m: string) => logs.push(`ERROR ${m}`),
    },
  };
  return host;
}

async function fleet(specs: NodeSpec[], start = true): Promise<TestNode[]> {
  const addrs = await Promise.all(specs.map(async (s) => `${s.ip}:${await freePort(s.ip)}`));
  const nodes = specs.map((spec, i): TestNode => {
    const set = spec.certs ?? certs;
    const leaf = set.nodes[spec.leaf ?? spec.name];
    if (!leaf) throw new Error(`no cert for ${spec.leaf ?? spec.name}`);
    const peerIdx = spec.peers ?? specs.map((_, j) => j).filter((j) => j !== i);
    const cluster: ClusterSection = {
      backend: 'gossip',
      electLeader: spec.electLeader ?? true,
      distribution: spec.distribution ?? 'spread',
      interval: 1,
      connectTimeout: 1,
      driftAfter: 2,
      listen: addrs[i] as string,
      tls: { ca: set.ca, cert: leaf.cert, key: leaf.key },
      peers: [...peerIdx.map((j) => addrs[j] as string), ...(spec.extraPeers ?? [])].map((host) => ({
        host,
      })),
    };
    const logs: string[] = [];
    const host = hostFor(spec, logs);
    const backend = createGossipBackend(cluster, host) as GossipBackend;
    const restart = async () => {
      const again = createGossipBackend(cluster, host) as GossipBackend;
      started.push(again);
      await again.start();
      return again;
    };
    return { spec, addr: addrs[i] as string, backend, logs, setJobSet: (id) => (host.jobSet = id), restart };
  });
  if (start) {
    started.push(...nodes.map((n) => n.backend));
    await Promise.all(nodes.map((n) => n.backend.start()));
  }
  return nodes;
}

async function until(what: string, cond: () => boolean, timeoutMs = 8000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const statusOf = (n: TestNode, addr: string): PeerStatus | undefined =>
  n.backend.report().peers.find((p) => p.host === addr)?.status;

const allAgreed = (nodes: TestNode[]) =>
  nodes.every((n) => n.backend.report().peers.every((p) => p.status === 'agreed'));

const JOBS = Array.from({ length: 24 }, (_, i) => `job-${i}`);

describe('gossip backend over real mTLS', () => {
  it('a spread fleet agrees, owns consistently, re-homes only a stopped node’s jobs, and stands down without quorum', async () => {
    const nodes = await fleet(NAMES.slice(0, 5).map((name, i) => ({ name, ip: IPS[i] as string })));
    await until(
      'all agreed and quorate',
      () => allAgreed(nodes) && nodes.every((n) => n.backend.report().quorate),
    );
    for (const n of nodes) {
      const r = n.backend.report();
      expect(r).toMatchObject({
        cluster_size: 5,
        quorum: 3,
        leader: null,
        is_leader: false,
        conflict: false,
      });
    }
    const names = NAMES.slice(0, 5);
    const owners = new Map(JOBS.map((j) => [j, rendezvousOwner(j, names) as string]));
    await until('every node settled on the same owners', () =>
      nodes.every((n) => JOBS.every((j) => n.backend.ownerOf(j, 'Leader') === owners.get(j))),
    );
    // The never-skip gates hold until every node's view has settled (spec 05 §5.5 settle hold).
    await until('views settled', () => nodes.every((n) => n.backend.election().settled));
    for (const j of JOBS) {
      expect(nodes.filter((n) => n.backend.decide(j, 'Leader').run)).toHaveLength(1);
      expect(nodes.filter((n) => n.backend.decide(j, 'PreferLeader').run)).toHaveLength(1);
    }
    expect(new Set(owners.values()).size).toBeGreaterThan(1);

    // Stop node-a: unreachable within about one interval, and only its jobs move.
    const [a, ...rest] = nodes as [TestNode, ...TestNode[]];
    const stoppedAt = Date.now();
    await a.backend.stop();
    await until('node-a unreachable everywhere', () =>
      rest.every((n) => statusOf(n, a.addr) === 'unreachable'),
    );
    expect(Date.now() - stoppedAt).toBeLessThan(2500);
    const survivors = names.slice(1);
    for (const n of rest) {
      const r = n.backend.report();
      expect(r.quorate).toBe(true);
      expect(r.peers.find((p) => p.host === a.addr)?.last_error).toBeTruthy();
    }
    await until('owners re-homed', () =>
      rest.every((n) => JOBS.every((j) => n.backend.ownerOf(j, 'Leader') === rendezvousOwner(j, survivors))),
    );
    for (const j of JOBS)
      if (owners.get(j) !== 'node-a') expect(rendezvousOwner(j, survivors)).toBe(owners.get(j));
    expect(rest[0]?.logs.some((l) => l.startsWith('WARNING') && l.includes('unreachable'))).toBe(true);

    // Restart node-a (a new instance): exactly its former jobs move back, on every node.
    const a2 = await a.restart();
    const everyone = [a2, ...rest.map((n) => n.backend)];
    await until('node-a reclaimed its jobs', () =>
      everyone.every(
        (b) => !b.report().conflict && JOBS.every((j) => b.ownerOf(j, 'Leader') === owners.get(j)),
      ),
    );

    // Stop three: the two survivors lose quorum; Leader stands down, PreferLeader runs once.
    await Promise.all([a2.stop(), rest[0]?.backend.stop(), rest[1]?.backend.stop()]);
    const left = rest.slice(2);
    await until('quorum lost', () => left.every((n) => !n.backend.report().quorate));
    // Third-party gossip about the stopped nodes lasts until the survivors' next poll of each other.
    const onePreferRunner = () =>
      JOBS.every((j) => left.filter((n) => n.backend.decide(j, 'PreferLeader').run).length === 1);
    await until('PreferLeader settled on the survivors', onePreferRunner);
    for (const j of JOBS) {
      for (const n of left) {
        expect(n.backend.ownerOf(j, 'Leader')).toBeNull();
        expect(n.backend.decide(j, 'Leader')).toMatchObject({ run: false, transient: true });
      }
      expect(left.filter((n) => n.backend.decide(j, 'PreferLeader').run)).toHaveLength(1);
    }
    expect(left[0]?.logs.some((l) => l === 'INFO cluster: quorum lost (2 of 5, need 3)')).toBe(true);
  });

  it('single-leader: the lowest name leads on every node; the next lowest takes over; the lowest takes it back', async () => {
    const nodes = await fleet(
      NAMES.slice(0, 3).map((name, i) => ({
        name,
        ip: IPS[i] as string,
        distribution: 'single-leader' as const,
      })),
    );
    await until('leader agreed', () => nodes.every((n) => n.backend.report().leader === 'node-a'));
    expect(nodes.map((n) => n.backend.report().is_leader)).toEqual([true, false, false]);
    expect(nodes.map((n) => n.backend.decide('x', 'Leader').run)).toEqual([true, false, false]);
    expect(nodes[0]?.backend.ownerOf('x', 'Leader')).toBeUndefined();
    await nodes[0]?.backend.stop();
    await until('node-b leads', () => nodes.slice(1).every((n) => n.backend.report().leader === 'node-b'));
    expect(nodes[1]?.logs).toContain('INFO cluster: this node is the leader');
    // node-a back (a restarted process): the lowest name leads again, on every node.
    const a2 = await nodes[0]!.restart();
    const everyone = [a2, ...nodes.slice(1).map((n) => n.backend)];
    await until('node-a leads again', () => everyone.every((b) => b.report().leader === 'node-a'));
    expect(everyone.map((b) => b.report().is_leader)).toEqual([true, false, false]);
  });

  it('a stranger’s cert and a misnamed cert read untrusted and never count', async () => {
    const nodes = await fleet([
      { name: 'node-a', ip: IPS[0] as string },
      { name: 'node-b', ip: IPS[1] as string },
      { name: 'node-c', ip: IPS[2] as string },
      { name: 'node-x', ip: IPS[8] as string, certs: foreign, leaf: 'stranger' },
      { name: 'node-y', ip: IPS[5] as string, leaf: 'misnamed' },
    ]);
    const [a, , , x, y] = nodes as [TestNode, TestNode, TestNode, TestNode, TestNode];
    await until(
      'untrusted seen',
      () => statusOf(a, x.addr) === 'untrusted' && statusOf(a, y.addr) === 'untrusted',
    );
    await until('the three members quorate', () => a.backend.election().agreeingNames.length === 2);
    const r = a.backend.report();
    expect(r.cluster_size).toBe(5);
    expect(r.quorate).toBe(true);
    expect(a.backend.election().agreeingNames).toEqual(['node-b', 'node-c']);
    expect(r.peers.find((p) => p.host === y.addr)?.last_error).toMatch(
      /ERR_TLS_CERT_ALTNAME_INVALID|altnames/i,
    );
    // The stranger cannot reach anyone either: our listeners refuse its client cert.
    expect(
      x.backend.report().peers.every((p) => p.status === 'untrusted' || p.status === 'unreachable'),
    ).toBe(true);
    expect(x.backend.report().quorate).toBe(false);
    expect(a.logs.some((l) => l.startsWith('WARNING') && l.includes('untrusted'))).toBe(true);
  });

  it('a different job set reads syncing, then drifted after driftAfter rounds, and leaves A', async () => {
    const nodes = await fleet(NAMES.slice(0, 3).map((name, i) => ({ name, ip: IPS[i] as string })));
    const [a, , c] = nodes as [TestNode, TestNode, TestNode];
    await until('agreed', () => allAgreed(nodes));
    c.setJobSet(`v1:${'2'.repeat(64)}`);
    const seen: PeerStatus[] = [];
    await until(
      'drifted',
      () => {
        const s = statusOf(a, c.addr) as PeerStatus;
        if (seen.at(-1) !== s) seen.push(s);
        return s === 'drifted';
      },
      6000,
    );
    expect(seen).toEqual(['agreed', 'syncing', 'drifted']);
    const peer = a.backend.report().peers.find((p) => p.host === c.addr);
    expect(peer?.mismatch_streak).toBe(2);
    expect(peer?.job_set_id).toBe(`v1:${'2'.repeat(64)}`);
    expect(a.backend.election().agreeingNames).toEqual(['node-b']);
    expect(a.logs.some((l) => l.startsWith('WARNING') && l.includes('drifted'))).toBe(true);
    c.setJobSet(JOB_SET);
    await until('agreed again', () => statusOf(a, c.addr) === 'agreed');
  });

  it('two processes with one name: conflict_names on the observer, Leader stands down', async () => {
    const nodes = await fleet([
      { name: 'node-a', ip: IPS[0] as string },
      { name: 'node-b', ip: IPS[1] as string, peers: [0, 2] },
      { name: 'node-c', ip: IPS[2] as string, peers: [0, 1] },
      { name: 'node-b', ip: IPS[3] as string, leaf: 'node-d', peers: [0, 2] },
      { name: 'node-e', ip: IPS[4] as string },
    ]);
    const [a] = nodes as [TestNode];
    await until('conflict seen', () => a.backend.report().conflict_names.includes('node-b'));
    const r = a.backend.report();
    expect(r.conflict).toBe(true);
    expect(r.conflict_names).toEqual(['node-b']);
    expect(a.backend.decide('anything', 'Leader')).toMatchObject({ run: false, transient: true });
    expect(a.logs.some((l) => l.startsWith('ERROR cluster: conflict') && l.includes('node-b'))).toBe(true);
  });

  it('a peer declaring another size, or another policy, is a conflict and leaves A', async () => {
    const nodes = await fleet([
      { name: 'node-a', ip: IPS[0] as string },
      { name: 'node-b', ip: IPS[1] as string },
      { name: 'node-c', ip: IPS[2] as string, extraPeers: ['127.0.0.99:9'] },
      { name: 'node-d', ip: IPS[3] as string, distribution: 'single-leader' },
      { name: 'node-e', ip: IPS[4] as string },
    ]);
    const [a] = nodes as [TestNode];
    await until('conflicts seen', () => {
      const r = a.backend.report();
      return r.size_conflict && r.policy_conflict;
    });
    const r = a.backend.report();
    expect(r.conflicting_sizes).toEqual([6]);
    expect(r.conflicting_policies).toEqual(["distribution 'single-leader' != 'spread'"]);
    // b and e agree mutually once they have polled a back; c and d never count.
    await until('b and e mutual', () => a.backend.election().agreeingNames.length === 2);
    expect(a.backend.election().agreeingNames).toEqual(['node-b', 'node-e']);
    expect(a.backend.decide('j', 'Leader').run).toBe(false);
  });

  it('an oversized /peer body (after gunzip) is unreachable "oversized"', async () => {
    const big = JSON.stringify({ node_name: 'huge', job_set_id: JOB_SET, padding: 'x'.repeat(300 * 1024) });
    const leaf = certs.nodes['node-i'] as { cert: string; key: string };
    const server = httpsServer(
      { key: readFileSync(leaf.key), cert: readFileSync(leaf.cert) },
      (_req, res) => {
        const gz = gzipSync(big);
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gz);
      },
    );
    servers.push(server);
    const port = await freePort(IPS[8] as string);
    await new Promise<void>((r) => server.listen(port, IPS[8], r));
    const [a] = await fleet([
      { name: 'node-a', ip: IPS[0] as string, peers: [], extraPeers: [`${IPS[8]}:${port}`] },
    ]);
    const peer = a?.backend.report().peers[0];
    expect(peer?.status).toBe('unreachable');
    expect(peer?.last_error).toMatch(/oversized/);
  });

  it('a black-holed peer times out after connectTimeout and reads unreachable', async () => {
    const held: import('node:net').Socket[] = [];
    const hole = netServer((sock) => held.push(sock));
    const port = await freePort(IPS[8] as string);
    await new Promise<void>((r) => hole.listen(port, IPS[8], r));
    try {
      const t0 = Date.now();
      const [a] = await fleet([
        {
          name: 'node-a',
          ip: IPS[0] as string,
          peers: [],
          extraPeers: [`${IPS[8]}:${port}`],
          electLeader: false,
        },
      ]);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
      expect(a?.backend.report().peers[0]).toMatchObject({
        status: 'unreachable',
        last_error: expect.stringMatching(/timed out after 1000 ms/),
      });
    } finally {
      for (const s of held) s.destroy();
      await new Promise((r) => hole.close(r));
    }
  });

  it('polls conditionally: an unchanged ETag gets a 304 that replays the cached observation', async () => {
    const leaf = certs.nodes['node-i'] as { cert: string; key: string };
    const body = JSON.stringify({ node_name: 'node-i', job_set_id: JOB_SET, instance_id: 'f'.repeat(32) });
    const seen: string[] = [];
    const server = httpsServer({ key: readFileSync(leaf.key), cert: readFileSync(leaf.cert) }, (req, res) => {
      const tag = req.headers['if-none-match'];
      seen.push(tag === undefined ? '200' : '304');
      if (tag === '"t1"') res.writeHead(304, { etag: '"t1"' }).end();
      else res.writeHead(200, { etag: '"t1"', 'content-type': 'application/json' }).end(body);
    });
    servers.push(server);
    const port = await freePort(IPS[8] as string);
    await new Promise<void>((r) => server.listen(port, IPS[8], r));
    const [a] = await fleet([
      {
        name: 'node-a',
        ip: IPS[0] as string,
        peers: [],
        extraPeers: [`${IPS[8]}:${port}`],
        electLeader: false,
      },
    ]);
    await until('three polls', () => seen.length >= 3);
    expect(seen.slice(0, 3)).toEqual(['200', '304', '304']);
    const peer = a?.backend.report().peers[0];
    expect(peer).toMatchObject({ status: 'agreed', node_name: 'node-i', last_error: null });
    expect(Date.parse(peer?.last_seen as string)).toBeGreaterThan(Date.now() - 1500);
  });

  it('v43: a peer declaring an empty node_name fails its round and is neither agreed nor electable', async () => {
    const leaf = certs.nodes['node-i'] as { cert: string; key: string };
    const body = JSON.stringify({
      node_name: '',
      job_set_id: JOB_SET,
      instance_id: 'e'.repeat(32),
      distribution: 'single-leader',
      elect_leader: true,
      members: [{ node_name: '', instance_id: 'e'.repeat(32), agreed: true }],
      mutual_agreeing: ['', 'node-a'],
    });
    const server = httpsServer({ key: readFileSync(leaf.key), cert: readFileSync(leaf.cert) }, (_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(body),
    );
    servers.push(server);
    const port = await freePort(IPS[8] as string);
    await new Promise<void>((r) => server.listen(port, IPS[8], r));
    const [a] = (await fleet([
      {
        name: 'node-a',
        ip: IPS[0] as string,
        peers: [],
        extraPeers: [`${IPS[8]}:${port}`],
        distribution: 'single-leader',
      },
    ])) as [TestNode];
    await until('two rounds', () => a.backend.election().view.completedRounds >= 2);
    const peer = a.backend.report().peers[0];
    expect(peer?.status).not.toBe('agreed');
    expect(peer?.last_error).toContain(
      "malformed /peer response: 'node_name' is empty, over 256 chars or contains control characters",
    );
    expect(a.backend.election().agreeingNames).not.toContain('');
    expect(a.backend.election().availableContenders).not.toContain('');
    expect(a.backend.report().leader).not.toBe('');
  });

  it('a 304 without a cached ETag is a failure', async () => {
    const leaf = certs.nodes['node-i'] as { cert: string; key: string };
    const server = httpsServer({ key: readFileSync(leaf.key), cert: readFileSync(leaf.cert) }, (_req, res) =>
      res.writeHead(304).end(),
    );
    servers.push(server);
    const port = await freePort(IPS[8] as string);
    await new Promise<void>((r) => server.listen(port, IPS[8], r));
    const [a] = await fleet([
      {
        name: 'node-a',
        ip: IPS[0] as string,
        peers: [],
        extraPeers: [`${IPS[8]}:${port}`],
        electLeader: false,
      },
    ]);
    expect(a?.backend.report().peers[0]).toMatchObject({
      status: 'unreachable',
      last_error: expect.stringMatching(/304/),
    });
  });

  it('serves /peer with a strong ETag, 304 on a match, gzip, stats; takes /reboot-ran pushes', async () => {
    const jobs: Record<string, JobSummary> = {};
    for (let i = 0; i < 40; i++)
      jobs[`job-${i}`] = { running: false, enabled: true, scheduled_in: 30 + i, last: null };
    const nodes = await fleet(NAMES.slice(0, 3).map((name, i) => ({ name, ip: IPS[i] as string, jobs })));
    const [a, b] = nodes as [TestNode, TestNode];
    await until(
      'mutual agreement',
      () => allAgreed(nodes) && a.backend.election().agreeingNames.length === 2,
    );
    const tester = certs.nodes.tester as { cert: string; key: string };
    const call = (path: string, headers: Record<string, string> = {}, body?: string) =>
      new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
        const [host, port] = a.addr.split(':');
        const req = httpsRequest(
          {
            host,
            port: Number(port),
            path,
            method: body === undefined ? 'GET' : 'POST',
            headers,
            ca: readFileSync(certs.ca),
            cert: readFileSync(tester.cert),
            key: readFileSync(tester.key),
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
            );
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const first = await call('/peer', { 'accept-encoding': 'gzip' });
    expect(first.status).toBe(200);
    expect(first.headers['content-encoding']).toBe('gzip');
    const body = JSON.parse(gunzipSync(first.body).toString('utf8'));
    expect(body).toMatchObject({
      node_name: 'node-a',
      scheme_version: 'v1',
      cluster_size: 3,
      elect_leader: true,
    });
    expect(body.mutual_agreeing).toEqual(['node-b', 'node-c']);
    expect(Object.keys(body.job_summaries)).toHaveLength(40);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    expect(JSON.parse(first.headers['x-cronstable-node-stats'] as string)).toEqual(STATS);
    // The body is node-a's live view: a peer seen late on a loaded machine changes it, and with it
    // the tag. A 200 must then carry a new tag; the 304 comes once the view holds between two reads.
    let tag = etag;
    let again = await call('/peer', { 'if-none-match': tag });
    for (let i = 0; again.status === 200 && i < 5; i++) {
      expect(again.headers.etag).not.toBe(tag);
      tag = again.headers.etag as string;
      again = await call('/peer', { 'if-none-match': tag });
    }
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers['x-cronstable-node-stats']).toBeDefined();
    expect((await call('/peer', { 'if-none-match': '"nope"' })).status).toBe(200);
    expect((await call('/other')).status).toBe(404);
    // A body that stalls past connectTimeout gets 408.
    const [host, port] = a.addr.split(':');
    const tlsOpts = {
      ca: readFileSync(certs.ca),
      cert: readFileSync(tester.cert),
      key: readFileSync(tester.key),
    };
    const stalled = await new Promise<number>((resolve, reject) => {
      const req = httpsRequest(
        {
          host,
          port: Number(port),
          path: '/reboot-ran',
          method: 'POST',
          headers: { 'content-length': '100' },
          ...tlsOpts,
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
          req.destroy();
        },
      );
      req.on('error', reject);
      req.write('{"job_set_id"');
    });
    expect(stalled).toBe(408);
    // No client certificate, no conversation.
    const anonymous = await new Promise<string>((resolve) => {
      const req = httpsRequest({ host, port: Number(port), path: '/peer', ca: tlsOpts.ca }, (res) => {
        res.resume();
        resolve(`HTTP ${res.statusCode}`);
      });
      req.on('error', (err) => resolve((err as { code?: string }).code ?? err.message));
      req.end();
    });
    expect(anonymous).not.toMatch(/^HTTP/);
    expect((await call('/reboot-ran', {}, '{not json')).status).toBe(400);
    expect((await call('/reboot-ran', {}, 'x'.repeat(300 * 1024))).status).toBe(413);
    expect(
      (await call('/reboot-ran', {}, JSON.stringify({ job_set_id: 'v1:other', names: ['boot-x'] }))).status,
    ).toBe(204);
    expect(a.backend.rebootRan('boot-x')).toBe(false);
    expect(
      (await call('/reboot-ran', {}, JSON.stringify({ job_set_id: JOB_SET, names: ['boot-z'] }))).status,
    ).toBe(204);
    expect(a.backend.rebootRan('boot-z')).toBe(true);
    // A recorded one-shot reaches every peer at once, and rides the next /peer bodies.
    await b.backend.recordRebootRan('boot-y');
    expect(b.backend.rebootRan('boot-y')).toBe(true);
    await until('the record reached both peers', () =>
      [a, nodes[2] as TestNode].every((n) => n.backend.rebootRan('boot-y') === true),
    );
    // Peers see the stats header, and the fleet view carries every node's jobs.
    expect(a.backend.report().peers[0]?.node_stats).toEqual(STATS);
    const view = a.backend.fleet() as FleetView;
    expect(view).toMatchObject({ enabled: true, backend: 'gossip', node_name: 'node-a', interval: 1 });
    expect(view.nodes.map((n) => [n.node_name, n.self, n.status])).toEqual([
      ['node-a', true, 'self'],
      ['node-b', false, 'agreed'],
      ['node-c', false, 'agreed'],
    ]);
    expect(Object.keys(view.nodes[1]?.jobs ?? {})).toHaveLength(40);
    expect(view.nodes[1]?.jobs['job-0']?.scheduled_in).toBeLessThanOrEqual(30);
  });

  it('start rejects when the TLS files are missing or the address is taken', async () => {
    const [a] = await fleet([{ name: 'node-a', ip: IPS[0] as string, peers: [] }]);
    const taken = a?.addr as string;
    const cluster: ClusterSection = {
      listen: taken,
      tls: {
        ca: certs.ca,
        cert: certs.nodes['node-b']?.cert as string,
        key: certs.nodes['node-b']?.key as string,
      },
      peers: [],
    };
    const logs: string[] = [];
    const clash = createGossipBackend(cluster, hostFor({ name: 'node-b', ip: IPS[1] as string }, logs));
    await expect(clash.start()).rejects.toThrow(/cannot listen/);
    const missing = createGossipBackend(
      {
        ...cluster,
        listen: `${IPS[1]}:${await freePort(IPS[1] as string)}`,
        tls: { ...cluster.tls!, key: join(dir, 'nope.key') },
      },
      hostFor({ name: 'node-b', ip: IPS[1] as string }, logs),
    );
    await expect(missing.start()).rejects.toThrow(/TLS/);
  });

  it('the fleet mesh beside a lease backend gossips from the observability block, election-inert', async () => {
    const addrs = await Promise.all(
      [0, 1, 2].map(async (i) => `${IPS[i]}:${await freePort(IPS[i] as string)}`),
    );
    const meshes = [0, 1, 2].map((i) => {
      const name = NAMES[i] as string;
      const cluster: ClusterSection = {
        backend: 'filesystem',
        filesystem: { path: dir },
        observability: {
          listen: addrs[i],
          tls: {
            ca: certs.ca,
            cert: certs.nodes[name]?.cert as string,
            key: certs.nodes[name]?.key as string,
          },
          peers: addrs.filter((_, j) => j !== i).map((host) => ({ host })),
          interval: 1,
          connectTimeout: 1,
        },
      };
      return createFleetMesh(
        cluster,
        hostFor(
          {
            name,
            ip: IPS[i] as string,
            jobs: { [`only-${name}`]: { running: true, enabled: true, scheduled_in: null, last: null } },
          },
          [],
        ),
      );
    });
    started.push(...(meshes as GossipBackend[]));
    await Promise.all(meshes.map((m) => m.start()));
    await until('mesh agreed', () =>
      meshes.every((m) => m.report().peers.every((p) => p.status === 'agreed')),
    );
    const r = meshes[0]?.report();
    expect(r).toMatchObject({ elect_leader: false, distribution: 'single-leader', cluster_size: 3 });
    expect(meshes[0]?.decide('j', 'Leader')).toEqual({ run: true });
    expect(meshes[0]?.ownerOf('j', 'Leader')).toBeUndefined();
    const view = meshes[0]?.fleet?.() as FleetView;
    expect(view.elect_leader).toBe(false);
    expect(view.nodes.flatMap((n) => Object.keys(n.jobs)).sort()).toEqual([
      'only-node-a',
      'only-node-b',
      'only-node-c',
    ]);
  });
});

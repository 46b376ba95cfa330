// The cluster inside real daemon processes (spec 05 §3, §12): a gossip backend that cannot bind
// its listener leaves Leader jobs skipped and everything else running; a real three-node gossip
// fleet on loopback aliases sharing one store elects, reports on /cluster, /jobs, /fleet and
// /metrics, and runs every Leader slot exactly once (counted from the shared ledger). Spread
// owners on /jobs are test/cluster/gossip-spread.test.ts's; a filesystem holder's lease block and
// Leader slots, test/cluster/filesystem.test.ts's and the conformance suite's.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ClusterCerts, generateClusterCerts } from '../../scripts/fleet/certs.ts';
import { freePort } from '../../scripts/fleet/ports.ts';

const BUNDLE = join(import.meta.dirname, '..', '..', 'dist', 'cronstable.mjs');
const require = createRequire(import.meta.url);
type RawDb = { prepare(sql: string): { all(...p: unknown[]): unknown[] }; close(): void };
const Better = require('better-sqlite3') as new (file: string, o?: { readonly?: boolean }) => RawDb;

const IPS = ['127.0.0.11', '127.0.0.12', '127.0.0.13'];
const NAMES = ['node-a', 'node-b', 'node-c'];

let dir: string;
let certs: ClusterCerts;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cronstable-daemon-cluster-'));
  certs = generateClusterCerts(
    join(dir, 'certs'),
    NAMES.map((name, i) => ({ name, sans: [`IP:${IPS[i]}`] })),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Daemon {
  name: string;
  child: ChildProcess;
  web: string;
  err: () => string;
}

const running: Daemon[] = [];
const servers: Server[] = [];
afterEach(async () => {
  const all = running.splice(0);
  for (const d of all) d.child.kill('SIGTERM');
  await Promise.all(
    all.map((d) => new Promise((r) => (d.child.exitCode !== null ? r(null) : d.child.once('exit', r)))),
  );
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

function startDaemon(name: string, config: string, webPort: number): Daemon {
  const path = join(dir, `${name}-${webPort}.yaml`);
  writeFileSync(path, config);
  const child = spawn(process.execPath, [BUNDLE, '-c', path], {
    // One host name for every node, as on one machine: the ledger's node is cluster.nodeName.
    env: { ...process.env, HOSTNAME: 'one-machine' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const d = { name, child, web: `http://127.0.0.1:${webPort}`, err: () => err };
  running.push(d);
  return d;
}

async function getJson(d: Daemon, path: string): Promise<Record<string, unknown>> {
  const r = await fetch(`${d.web}${path}`);
  if (r.status !== 200) throw new Error(`${path}: HTTP ${r.status}`);
  return (await r.json()) as Record<string, unknown>;
}

async function metrics(d: Daemon): Promise<string> {
  return (await fetch(`${d.web}/metrics`)).text();
}

async function eventually<T>(
  what: string,
  timeoutMs: number,
  fn: () => Promise<T | null | false>,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown = null;
  while (Date.now() < end) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}

function query(stateDir: string, sql: string): Record<string, unknown>[] {
  const db = new Better(join(stateDir, 'cronstable.db'), { readonly: true });
  try {
    return db.prepare(sql).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

const JOBS = `jobs:
  - name: tick-leader
    command: "true"
    schedule: "* * * * * * *"
  - name: tick-prefer
    command: "true"
    schedule: "* * * * * * *"
    clusterPolicy: PreferLeader
  - name: tick-every
    command: "true"
    schedule: "* * * * * * *"
    clusterPolicy: EveryNode
`;

function clusterBlock(i: number, ports: number[], extra = ''): string {
  const name = NAMES[i]!;
  const peers = IPS.map((ip, j) => (j === i ? null : `    - host: ${ip}:${ports[j]}`)).filter(Boolean);
  return `cluster:
  nodeName: ${name}
  electLeader: true
  interval: 1
  driftAfter: 2
  connectTimeout: 1
  listen: ${IPS[i]}:${ports[i]}
  tls:
    ca: ${certs.ca}
    cert: ${certs.nodes[name]!.cert}
    key: ${certs.nodes[name]!.key}
  peers:
${peers.join('\n')}
${extra}`;
}

describe('a daemon whose gossip backend cannot start (spec 05 §3.1 row 3)', () => {
  it('skips Leader slots (recorded), runs PreferLeader and EveryNode, and says enabled: false', async () => {
    const ports = [await freePort(IPS[0]), await freePort(IPS[1]), await freePort(IPS[2])];
    // The test holds node-a's peer port: its listener cannot bind.
    const squatter = createServer();
    await new Promise<void>((r) => squatter.listen(ports[0], IPS[0], () => r()));
    servers.push(squatter);
    const state = join(dir, 'state-a');
    const web = await freePort();
    const d = startDaemon(
      'node-a',
      `${JOBS}state:\n  path: ${state}\nweb:\n  listen:\n    - http://127.0.0.1:${web}\n${clusterBlock(0, ports)}`,
      web,
    );
    const rows = await eventually('two slots of every job in the ledger', 30_000, async () => {
      const r = query(state, 'SELECT job, outcome, fail_reason FROM runs ORDER BY id');
      const count = (job: string) => r.filter((x) => x.job === job).length;
      return count('tick-leader') >= 2 && count('tick-prefer') >= 2 && count('tick-every') >= 2 ? r : null;
    });
    const of = (job: string) => rows.filter((r) => r.job === job);
    expect(new Set(of('tick-leader').map((r) => r.outcome))).toEqual(new Set(['skipped:gate']));
    expect(of('tick-leader')[0]!.fail_reason).toBe('the cluster backend is not running');
    expect(new Set(of('tick-prefer').map((r) => r.outcome))).toEqual(new Set(['success']));
    expect(new Set(of('tick-every').map((r) => r.outcome))).toEqual(new Set(['success']));
    expect(d.err()).toMatch(/cluster: the gossip backend could not start: .*EADDRINUSE/);

    expect(await getJson(d, '/cluster')).toEqual({ enabled: false, peers: [] });
    const jobs = (await getJson(d, '/jobs')) as unknown as { name: string; clusterPolicy?: string }[];
    expect(jobs.map((j) => [j.name, j.clusterPolicy])).toEqual([
      ['tick-leader', 'Leader'],
      ['tick-prefer', 'PreferLeader'],
      ['tick-every', 'EveryNode'],
    ]);
    expect(jobs.some((j) => 'clusterOwner' in j)).toBe(false);
    const text = await metrics(d);
    expect(text).toMatch(/^cronstable_cluster_enabled 0$/m);
    expect(text).toMatch(/^cronstable_cluster_leader_transitions_total 0$/m);
    expect(text).not.toMatch(/^cronstable_cluster_quorate/m);
  }, 60_000);
});

async function startFleet(): Promise<{ nodes: Daemon[]; state: string }> {
  const distribution = 'single-leader';
  const ports = [await freePort(IPS[0]), await freePort(IPS[1]), await freePort(IPS[2])];
  const state = join(dir, `state-fleet-${distribution}`);
  const nodes: Daemon[] = [];
  for (let i = 0; i < 3; i++) {
    const web = await freePort();
    nodes.push(
      startDaemon(
        NAMES[i]!,
        `${JOBS}state:\n  path: ${state}\n  topology: shared\nweb:\n  listen:\n    - http://127.0.0.1:${web}\n${clusterBlock(i, ports, `  distribution: ${distribution}\n`)}`,
        web,
      ),
    );
  }
  await eventually('a converged fleet', 45_000, async () => {
    const views = await Promise.all(nodes.map((n) => getJson(n, '/cluster')));
    // Agreed views settle within a round or two more: then one leader everywhere.
    return views.every(
      (v) =>
        v.quorate === true &&
        (v.peers as { status: string }[]).every((p) => p.status === 'agreed') &&
        v.leader === NAMES[0],
    );
  });
  return { nodes, state };
}

describe('a three-node gossip fleet in real daemons sharing one store', () => {
  it('single-leader: /cluster, /jobs and /metrics agree, and each Leader slot ran exactly once', async () => {
    const { nodes, state } = await startFleet();
    const views = await Promise.all(nodes.map((n) => getJson(n, '/cluster')));
    const ids = new Set(views.map((v) => v.job_set_id));
    expect(ids.size).toBe(1);
    views.forEach((v, i) => {
      expect(v).toMatchObject({
        enabled: true,
        backend: 'gossip',
        node_name: NAMES[i],
        cluster_size: 3,
        quorum: 2,
        elect_leader: true,
        distribution: 'single-leader',
        conflict: false,
        quorate: true,
        leader: 'node-a',
        is_leader: i === 0,
      });
      expect(String(v.job_set_id)).toMatch(/^v1:[0-9a-f]{64}$/);
      expect(v.node_stats).toMatchObject({ cpu_count: expect.any(Number) });
      expect((v.peers as unknown[]).length).toBe(2);
    });
    const jobs = (await getJson(nodes[1]!, '/jobs')) as unknown as Record<string, unknown>[];
    expect(jobs.map((j) => j.clusterPolicy)).toEqual(['Leader', 'PreferLeader', 'EveryNode']);
    expect(jobs.some((j) => 'clusterOwner' in j)).toBe(false);

    // The fleet view: every node with its job summaries (the daemon's scheduler as seen by peers).
    const fleet = await getJson(nodes[2]!, '/fleet');
    expect(fleet).toMatchObject({ enabled: true, backend: 'gossip', node_name: 'node-c' });
    const fleetNodes = fleet.nodes as { node_name: string; self: boolean; jobs: Record<string, unknown> }[];
    expect(fleetNodes.map((n) => n.node_name).sort()).toEqual(NAMES);
    for (const n of fleetNodes) {
      expect(Object.keys(n.jobs).sort()).toEqual(['tick-every', 'tick-leader', 'tick-prefer']);
      expect(n.jobs['tick-every']).toMatchObject({ enabled: true, running: expect.any(Boolean) });
    }

    // Transitions are counted on the one-second cadence: the first one may lag the view by a tick.
    const text = await eventually('a counted leadership transition', 5000, async () => {
      const t = await metrics(nodes[0]!);
      return /^cronstable_cluster_leader_transitions_total [1-9]\d*$/m.test(t) ? t : null;
    });
    for (const line of [
      'cronstable_cluster_enabled 1',
      'cronstable_cluster_size 3',
      'cronstable_cluster_quorum 2',
      'cronstable_cluster_quorate 1',
      'cronstable_cluster_is_leader 1',
      'cronstable_cluster_info{backend="gossip",node_name="node-a",distribution="single-leader"} 1',
      'cronstable_cluster_leader_info{leader="node-a"} 1',
      'cronstable_cluster_conflict{kind="nodename"} 0',
      'cronstable_cluster_conflict{kind="size"} 0',
      'cronstable_cluster_conflict{kind="policy"} 0',
      'cronstable_cluster_peers{status="agreed"} 2',
      'cronstable_cluster_peers{status="unknown"} 0',
    ])
      expect(text.split('\n')).toContain(line);
    expect(text).toMatch(/^cronstable_cluster_leader_transitions_total [1-9]\d*$/m);
    expect(text).toMatch(/^cronstable_job_set_info\{job_set_id="v1:[0-9a-f]{64}"\} 1$/m);
    expect(await metrics(nodes[1]!)).toMatch(/^cronstable_cluster_is_leader 0$/m);

    // Let the converged fleet run a few seconds, then count from the shared ledger.
    const since = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 4000));
    const leaderRuns = query(
      state,
      `SELECT scheduled_at, node FROM runs WHERE job = 'tick-leader' AND outcome IN ('success', 'failure')`,
    );
    const perSlot = new Map<string, number>();
    for (const r of leaderRuns)
      perSlot.set(String(r.scheduled_at), (perSlot.get(String(r.scheduled_at)) ?? 0) + 1);
    expect([...perSlot.values()].every((n) => n === 1)).toBe(true);
    const steady = leaderRuns.filter((r) => String(r.scheduled_at) > since);
    expect(steady.length).toBeGreaterThanOrEqual(2);
    expect(new Set(steady.map((r) => r.node))).toEqual(new Set(['node-a']));
    // EveryNode runs on all three; its slots are never claimed.
    const every = query(
      state,
      `SELECT DISTINCT node FROM runs WHERE job = 'tick-every' AND outcome = 'success'`,
    );
    expect(every.map((r) => r.node).sort()).toEqual(NAMES);
    const claims = query(state, `SELECT job, node FROM fire_claims`);
    expect(claims.some((c) => c.job === 'tick-every')).toBe(false);
    expect(claims.filter((c) => c.job === 'tick-leader').length).toBeGreaterThanOrEqual(steady.length);
  }, 90_000);
});

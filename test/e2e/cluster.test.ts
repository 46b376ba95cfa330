// The dashboard's cluster surfaces end to end (spec 05 §12.4, spec 06 §9.2): three real daemons
// (dist/cronstable.mjs) in a gossip cluster over mutual TLS on the loopback aliases 127.0.0.11-13,
// `electLeader: true`, `distribution: spread`, interval 1, one shared state directory; headless Chromium
// on node A's dashboard checks the cluster panel, the Owner column against `/jobs`, the fleet view, and,
// after two nodes stop, the `no quorum` owner cells and the cluster alert. Screenshots (CRONSTABLE_SCREENSHOTS=1) go to
// test/e2e/screenshots/.
// DOM types for the callbacks that run in the page (evaluate, $$eval).
/// <reference lib="dom" />
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, firstPage } from '../../scripts/chromium.ts';
import { generateClusterCerts } from '../../scripts/fleet/certs.ts';
import { freePort } from '../../scripts/fleet/ports.ts';
import { openContext } from '../helpers/browser.ts';
import { gossipNodeYaml } from '../helpers/gossip-node-yaml.ts';
import { shot } from '../helpers/shots.ts';
import { until } from '../helpers/until.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const DAEMON = join(ROOT, 'dist', 'cronstable.mjs');

const NODES = ['node-a', 'node-b', 'node-c'] as const;
type NodeName = (typeof NODES)[number];
const ADDR: Record<NodeName, string> = {
  'node-a': '127.0.0.11',
  'node-b': '127.0.0.12',
  'node-c': '127.0.0.13',
};

/** Leader-gated jobs (the Owner column shows their owner or `no quorum`) plus one EveryNode job (`all nodes`). */
const LEADER_JOBS = [
  'orders-ingest',
  'charge-subscriptions',
  'daily-reconcile',
  'tick-leader-only',
  'audit-ship',
];
const PREFER_JOB = 'tick-prefer-leader';
const EVERY_JOB = 'every-node-ping';

function jobsYaml(): string {
  const lines = ['jobs:'];
  for (const name of LEADER_JOBS) {
    lines.push(
      `  - name: ${name}`,
      '    command: "true"',
      '    schedule: "0 0 1 1 *"',
      '    clusterPolicy: Leader',
    );
  }
  lines.push(`  - name: ${PREFER_JOB}`, '    command: "true"', '    schedule: "0 0 1 1 *"');
  lines.push('    clusterPolicy: PreferLeader');
  lines.push(`  - name: ${EVERY_JOB}`, '    command: "true"', '    schedule: "0 0 1 1 *"');
  lines.push('    clusterPolicy: EveryNode');
  return lines.join('\n');
}

interface NodeConfig {
  name: NodeName;
  webPort: number;
  peerPort: number;
}

/** `extraPeers`: addresses listed beside the real peers (they raise this node's cluster size). */
function configYaml(
  me: NodeConfig,
  all: NodeConfig[],
  certDir: string,
  stateDir: string,
  extraPeers: string[] = [],
): string {
  const peers = [
    ...all.filter((n) => n.name !== me.name).map((n) => `${ADDR[n.name]}:${n.peerPort}`),
    ...extraPeers,
  ];
  const node = gossipNodeYaml({
    name: me.name,
    listen: `${ADDR[me.name]}:${me.peerPort}`,
    webPort: me.webPort,
    peers,
    certDir,
    stateDir,
  });
  return `${jobsYaml()}\n${node}`;
}

interface ClusterBody {
  enabled: boolean;
  node_name: string;
  quorate: boolean;
  quorum: number;
  cluster_size: number;
  distribution: string;
  peers: Array<{ host: string; status: string; node_name: string | null }>;
}

interface JobBody {
  name: string;
  clusterPolicy?: string;
  clusterOwner?: string | null;
}

interface Running {
  cfg: NodeConfig;
  proc: ChildProcess;
  logs: string;
  base: string;
}

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { headers: { Accept: 'application/json' } });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return (await res.json()) as T;
}

async function stop(node: Running): Promise<void> {
  if (node.proc.exitCode !== null || node.proc.signalCode !== null) return;
  const exited = new Promise((r) => node.proc.once('exit', r));
  node.proc.kill('SIGTERM');
  const timer = setTimeout(() => node.proc.kill('SIGKILL'), 8000);
  await exited;
  clearTimeout(timer);
}

describe('dashboard cluster surfaces (3 real gossip nodes + headless Chromium)', () => {
  let dir = '';
  const nodes = new Map<NodeName, Running>();
  let context: BrowserContext | null = null;
  let page: Page;
  const pageErrors: string[] = [];
  const nodeA = (): Running => nodes.get('node-a')!;
  const allLogs = (): string => [...nodes.values()].map((n) => `--- ${n.cfg.name}\n${n.logs}`).join('\n');
  let cfgs: NodeConfig[] = [];
  let certDir = '';
  let stateDir = '';

  const launch = (cfg: NodeConfig, extraPeers: string[] = []): Running => {
    const confDir = join(dir, cfg.name);
    mkdirSync(confDir, { recursive: true });
    writeFileSync(join(confDir, 'cronstable.yaml'), configYaml(cfg, cfgs, certDir, stateDir, extraPeers));
    const proc = spawn(process.execPath, [DAEMON, '-c', confDir], {
      cwd: confDir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const node: Running = { cfg, proc, logs: '', base: `http://127.0.0.1:${cfg.webPort}` };
    proc.stdout!.on('data', (c: Buffer) => {
      node.logs += c.toString();
    });
    proc.stderr!.on('data', (c: Buffer) => {
      node.logs += c.toString();
    });
    nodes.set(cfg.name, node);
    return node;
  };

  beforeAll(async () => {
    if (!existsSync(DAEMON)) throw new Error(`${DAEMON} is missing: run npm run build`);
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
    dir = mkdtempSync(join(tmpdir(), 'cronstable-e2e-cluster-'));
    certDir = join(dir, 'certs');
    generateClusterCerts(
      certDir,
      NODES.map((name) => ({ name, sans: [`IP:${ADDR[name]}`] })),
    );
    stateDir = join(dir, 'state');
    mkdirSync(stateDir);
    cfgs = [];
    for (const name of NODES)
      cfgs.push({ name, webPort: await freePort(), peerPort: await freePort(ADDR[name]) });
    for (const cfg of cfgs) launch(cfg);
    // Converged: every node quorate with both peers agreed (spec 05 §13 A0).
    for (const node of nodes.values()) {
      await until(`${node.cfg.name} to converge (logs:\n${allLogs()})`, 45_000, async () => {
        if (node.proc.exitCode !== null) throw new Error(`${node.cfg.name} exited: ${node.logs}`);
        const c = await getJson<ClusterBody>(`${node.base}/cluster`);
        return c.enabled && c.quorate && c.peers.every((p) => p.status === 'agreed') ? c : null;
      });
    }
    context = await openContext({
      viewport: { width: 1600, height: 1000 },
      colorScheme: 'dark',
    });
    page = await firstPage(context, pageErrors);
    // Poll every second so the page follows the cluster closely.
    await page.addInitScript({ content: "localStorage.setItem('cronstable.refresh', '1')" });
  }, 120_000);

  afterAll(async () => {
    await context?.close().catch(() => {});
    await Promise.all([...nodes.values()].map(stop));
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 40_000);

  it('all three nodes come to report the same owner for every leader-gated job', async () => {
    const ownersOf = (jobs: JobBody[]): Record<string, string | null | undefined> =>
      Object.fromEntries(jobs.map((j) => [j.name, j.clusterOwner]));
    // Quorate with every peer agreed is not yet settled ownership: each node must also learn that its peers
    // are quorate themselves (their gossiped mutual agreement, spec 05 §5.5), one or two rounds later.
    const first = await until('the three nodes to agree on every owner', 15_000, async () => {
      const views = await Promise.all([...nodes.values()].map((n) => getJson<JobBody[]>(`${n.base}/jobs`)));
      const owners = views.map(ownersOf);
      const same = owners.every((o) => JSON.stringify(o) === JSON.stringify(owners[0]));
      return same ? owners[0]! : null;
    });
    for (const name of [...LEADER_JOBS, PREFER_JOB]) expect(NODES).toContain(first[name]);
    expect(first[EVERY_JOB]).toBeUndefined();
  });

  it("node A's cluster panel shows 2/2 agreed, quorum ok, the spread role and the peer dots", async () => {
    const a = nodeA();
    await page.goto(`${a.base}/`);
    const summary = page.locator('[data-testid=cluster-summary]');
    await summary.waitFor();
    const jobs = await getJson<JobBody[]>(`${a.base}/jobs`);
    const owns = jobs.filter((j) => j.clusterOwner === 'node-a').length;
    await expect
      .poll(() => summary.textContent(), { timeout: 10_000 })
      .toContain(`node-a · 2/2 agreed · quorum ok (need 2) · spread (per-job owner) · owns ${owns}`);
    const peers = page.locator('table.peers tr.peer');
    await expect.poll(() => peers.count()).toBe(2);
    for (const name of ['node-b', 'node-c'] as const) {
      const row = page.locator(`tr.peer[data-peer="${ADDR[name]}:${nodes.get(name)!.cfg.peerPort}"]`);
      await expect.poll(() => row.getAttribute('data-status')).toBe('agreed');
      await expect.poll(() => row.locator('.peer-dot').getAttribute('class')).toContain('tone-good');
      const tip = await row.locator('.peer-dot').getAttribute('title');
      expect(tip).toContain('agreed');
      expect(tip).toMatch(/last seen \d{4}-\d{2}-\d{2}T/);
      await expect.poll(() => row.textContent()).toContain(name);
      const ownsPeer = jobs.filter((j) => j.clusterOwner === name).length;
      await expect.poll(() => row.locator('td').nth(3).textContent()).toBe(String(ownsPeer));
      // shareNodeStats: the peer's load rides its /peer answers (spec 05 §5.3).
      await expect
        .poll(() => row.locator('td').nth(2).textContent(), { timeout: 10_000 })
        .toMatch(/^\d+% \/ \d+%$/);
    }
    await expect
      .poll(() => page.locator('table.peers th').allTextContents())
      .toEqual(['Peer', 'Node', 'Load', 'Owns', 'Status', 'Job set']);
    expect(await page.locator('[data-testid=cluster-alert]').count()).toBe(0);
    expect(await page.locator('[data-testid=cluster-conflict]').count()).toBe(0);
  });

  it('the Owner column shows the owners /jobs reports, this node highlighted, EveryNode as all nodes', async () => {
    const a = nodeA();
    await expect.poll(() => page.locator('th.c-owner').count()).toBe(1);
    const jobs = await getJson<JobBody[]>(`${a.base}/jobs`);
    for (const j of jobs) {
      const cell = page.locator(`tr.job[data-job="${j.name}"] td.c-owner`);
      if (j.name === EVERY_JOB) {
        await expect.poll(() => cell.textContent()).toBe('all nodes');
        continue;
      }
      expect(typeof j.clusterOwner).toBe('string');
      await expect.poll(() => cell.textContent()).toBe(j.clusterOwner);
      const kind = j.clusterOwner === 'node-a' ? 'owner-self' : 'owner-node';
      await expect.poll(() => cell.locator('.owner').getAttribute('class')).toContain(kind);
    }
    // Sorting by owner: real owners alphabetically, then all nodes.
    await page.locator('th.c-owner button').click();
    const order = await page.locator('tr.job td.c-owner').allTextContents();
    const owners = order.filter((t) => t !== 'all nodes');
    expect(owners).toEqual([...owners].sort());
    expect(order.at(-1)).toBe('all nodes');
    await page.locator('[data-testid=cluster-panel]').scrollIntoViewIfNeeded();
    await shot(page, 'cluster-quorate.png', { fullPage: true });
  });

  it('the fleet view, reachable from the header, shows the three nodes and their jobs', async () => {
    await page.locator('[data-testid=fleet-button]').click();
    await expect.poll(() => page.evaluate('location.hash')).toBe('#fleet');
    const view = page.locator('[data-testid=fleet-view]');
    await view.waitFor();
    await expect
      .poll(() => page.locator('[data-testid=fleet-totals]').textContent(), { timeout: 10_000 })
      .toMatch(/^3 nodes · 7 jobs · /);
    for (const name of NODES)
      await expect.poll(() => page.locator(`th[data-node="${name}"]`).count()).toBe(1);
    await expect.poll(() => page.locator('.fleet-node.is-self').textContent()).toBe('node-a');
    for (const name of NODES) {
      await expect
        .poll(() => page.locator(`th[data-node="${name}"] .fleet-node-load`).textContent(), {
          timeout: 10_000,
        })
        .toMatch(/^cpu \d+% · mem \d+%$/);
    }
    await expect.poll(() => page.locator('table.fleet-matrix tbody tr[data-job]').count()).toBe(7);
    // The owner's cell of each spread job is framed.
    const jobs = await getJson<JobBody[]>(`${nodeA().base}/jobs`);
    const owned = jobs.filter((j) => typeof j.clusterOwner === 'string');
    await expect.poll(() => page.locator('td.fleet-cell.is-owner').count()).toBe(owned.length);
    await shot(page, 'cluster-fleet.png', { fullPage: true });
    await page.locator('[data-testid=fleet-button]').click();
    await expect.poll(() => page.evaluate('location.hash')).toBe('');
  });

  it('after two nodes stop: quorum lost, no quorum owner cells and the cluster alert', async () => {
    const a = nodeA();
    await Promise.all([stop(nodes.get('node-b')!), stop(nodes.get('node-c')!)]);
    await until('node A to lose quorum', 20_000, async () => {
      const c = await getJson<ClusterBody>(`${a.base}/cluster`);
      return c.quorate ? null : c;
    });
    const alert = page.locator('[data-testid=cluster-alert]');
    await alert.waitFor({ timeout: 10_000 });
    await expect.poll(() => alert.textContent()).toContain('CLUSTER ALERT — no quorum — Leader jobs paused');
    // Only the PreferLeader job keeps an owner without quorum (the available owner: this node).
    await expect
      .poll(() => page.locator('[data-testid=cluster-summary]').textContent(), { timeout: 10_000 })
      .toContain('node-a · 0/2 agreed · quorum lost (need 2) · spread (no quorum) · owns 1');
    await expect
      .poll(() => page.locator('[data-testid=fleet-button]').getAttribute('class'))
      .toContain('is-alert');

    const jobs = await getJson<JobBody[]>(`${a.base}/jobs`);
    for (const name of LEADER_JOBS) {
      expect(jobs.find((j) => j.name === name)?.clusterOwner).toBeNull();
      const cell = page.locator(`tr.job[data-job="${name}"] td.c-owner .owner`);
      await expect.poll(() => cell.textContent(), { timeout: 10_000 }).toBe('no quorum');
      expect(await cell.getAttribute('class')).toContain('owner-none');
      const style = `getComputedStyle(document.querySelector('tr.job[data-job="${name}"] td.c-owner .owner')).borderTopStyle`;
      expect(await page.evaluate(style)).toBe('dashed');
    }
    // PreferLeader keeps an available owner (this node, the only one left); EveryNode stays all nodes.
    const prefer = jobs.find((j) => j.name === PREFER_JOB)?.clusterOwner;
    expect(prefer).toBe('node-a');
    await expect
      .poll(() => page.locator(`tr.job[data-job="${PREFER_JOB}"] td.c-owner`).textContent())
      .toBe('node-a');
    await expect
      .poll(() => page.locator(`tr.job[data-job="${EVERY_JOB}"] td.c-owner`).textContent())
      .toBe('all nodes');
    for (const name of ['node-b', 'node-c'] as const) {
      const row = page.locator(`tr.peer[data-peer="${ADDR[name]}:${nodes.get(name)!.cfg.peerPort}"]`);
      await expect.poll(() => row.getAttribute('data-status'), { timeout: 10_000 }).toBe('unreachable');
      const tip = await row.locator('.peer-dot').getAttribute('title');
      expect(tip).toContain('unreachable');
      expect(tip).toContain('last error:');
    }
    await shot(page, 'cluster-no-quorum.png', { fullPage: true });
    expect(pageErrors).toEqual([]);
  });

  it('a peer back with a different cluster size: size conflict banner, standing down, cluster alert', async () => {
    const a = nodeA();
    // node-b returns listing a fourth, absent peer: it declares N = 4 while node A counts 3 (spec 05 §5.7).
    const ghost = `127.0.0.14:${await freePort('127.0.0.14')}`;
    launch(nodes.get('node-b')!.cfg, [ghost]);
    await until(`node A to see the size conflict (logs:\n${allLogs()})`, 30_000, async () => {
      const c = await getJson<ClusterBody & { size_conflict: boolean }>(`${a.base}/cluster`);
      return c.size_conflict ? c : null;
    });
    const notes = page.locator('[data-testid=cluster-conflict]');
    await expect
      .poll(() => notes.allTextContents(), { timeout: 10_000 })
      .toContain('⚠ cluster size mismatch: peers declare 4, this node 3 — Leader jobs paused');
    await expect
      .poll(() => page.locator('[data-testid=cluster-summary]').textContent())
      .toContain('· standing down (conflict) ·');
    await expect
      .poll(() => page.locator('[data-testid=cluster-alert]').textContent())
      .toContain('CLUSTER ALERT — conflict — Leader jobs paused');
    await page.locator('[data-testid=cluster-panel]').scrollIntoViewIfNeeded();
    await shot(page, 'cluster-conflict.png', { fullPage: true });
    expect(pageErrors).toEqual([]);
  });
});

// The lease flavour of the panel (spec 05 §12.4): two real daemons electing over the filesystem backend in one
// shared state directory; the holder's dashboard says `leader`, the other's `follower (leader: <holder>)`, both
// with the lease block, no peers, no Owner column (single-leader) and no alert.
describe('dashboard cluster panel on the filesystem lease backend (2 real nodes + headless Chromium)', () => {
  let dir = '';
  const procs: Running[] = [];
  let context: BrowserContext | null = null;
  let page: Page;
  const pageErrors: string[] = [];

  const leaseYaml = (name: string, webPort: number, stateDir: string): string => `${jobsYaml()}
state:
  path: ${stateDir}
  topology: shared
cluster:
  backend: filesystem
  nodeName: ${name}
  filesystem:
    path: ${stateDir}
    ttl: 3
    topology: shared
web:
  listen:
    - http://127.0.0.1:${webPort}
`;

  beforeAll(async () => {
    if (!existsSync(DAEMON)) throw new Error(`${DAEMON} is missing: run npm run build`);
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
    dir = mkdtempSync(join(tmpdir(), 'cronstable-e2e-lease-'));
    const stateDir = join(dir, 'state');
    mkdirSync(stateDir);
    for (const name of ['lease-a', 'lease-b']) {
      const webPort = await freePort();
      const confDir = join(dir, name);
      mkdirSync(confDir);
      writeFileSync(join(confDir, 'cronstable.yaml'), leaseYaml(name, webPort, stateDir));
      const proc = spawn(process.execPath, [DAEMON, '-c', confDir], {
        cwd: confDir,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const node: Running = {
        cfg: { name: name as NodeName, webPort, peerPort: 0 },
        proc,
        logs: '',
        base: `http://127.0.0.1:${webPort}`,
      };
      proc.stdout!.on('data', (c: Buffer) => {
        node.logs += c.toString();
      });
      proc.stderr!.on('data', (c: Buffer) => {
        node.logs += c.toString();
      });
      procs.push(node);
    }
    // Settled: both quorate (a fresh store read) and agreeing on one holder.
    await until(`one lease holder (logs:\n${procs.map((p) => p.logs).join('\n---\n')})`, 30_000, async () => {
      const views = await Promise.all(
        procs.map((p) =>
          getJson<{ quorate: boolean; leader: string | null; is_leader: boolean }>(`${p.base}/cluster`),
        ),
      );
      const leaders = views.filter((v) => v.is_leader).length;
      return views.every((v) => v.quorate && v.leader !== null && v.leader === views[0]!.leader) &&
        leaders === 1
        ? views
        : null;
    });
    context = await openContext({
      viewport: { width: 1600, height: 1000 },
      colorScheme: 'light',
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    await page.addInitScript({ content: "localStorage.setItem('cronstable.refresh', '1')" });
  }, 90_000);

  afterAll(async () => {
    await context?.close().catch(() => {});
    await Promise.all(procs.map(stop));
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('the holder reads leader, the other follower (leader: holder), each with the lease block', async () => {
    for (const p of procs) {
      const c = await getJson<{ leader: string; is_leader: boolean; lease: Record<string, unknown> }>(
        `${p.base}/cluster`,
      );
      const role = c.is_leader ? 'leader' : `follower (leader: ${c.leader})`;
      await page.goto(`${p.base}/`);
      const summary = page.locator('[data-testid=cluster-summary]');
      await summary.waitFor();
      await expect
        .poll(() => summary.textContent())
        .toMatch(
          new RegExp(`^${p.cfg.name} · filesystem lease · ${role.replace(/[()]/g, '\\$&')}( · this node|$)`),
        );
      const lease = page.locator('[data-testid=cluster-lease]');
      await expect.poll(() => lease.locator('dt').allTextContents()).toEqual(Object.keys(c.lease));
      await expect.poll(() => lease.textContent()).toContain(String(c.lease.fence));
      expect(await page.locator('table.peers').count()).toBe(0);
      expect(await page.locator('th.c-owner').count()).toBe(0);
      expect(await page.locator('[data-testid=cluster-alert]').count()).toBe(0);
      await expect.poll(() => page.locator('[data-testid=fleet-button]').isDisabled()).toBe(true);
      if (c.is_leader) await shot(page, 'cluster-lease.png', { fullPage: true });
    }
    expect(pageErrors).toEqual([]);
  });
});

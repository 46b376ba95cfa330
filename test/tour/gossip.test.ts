// The grand tour's gossip "Things to try" on one five-node fleet of the tour's real job set
// (example/grand-tour, through scripts/tour with test timings): the control API (11), the spread
// and re-homing of jobs and a DAG when a node stops, with two dashboards' Owner columns in
// Chromium (1), quorum loss with Leader vs PreferLeader (2), and single-leader vs spread across a
// fleet restart that the durable counter survives (3, 9). Who ran what is read from the shared
// store: the run ledger for jobs, the DAG task rows' host for the DAG. Five nodes keep the meaning of nine (quorum 3: stopping a
// majority still loses it) at a fraction of the cost.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { readRuns } from '../../scripts/fleet/ledger.ts';
import { expectedOwner, type FleetNode, waitOwners, waitUntil, waitViews } from '../cluster/harness.ts';
import { openContext } from '../helpers/browser.ts';
import { SCREENSHOTS, SHOTS } from '../helpers/shots.ts';
import { call, getJson, kvValue, query } from './helpers.ts';
import { FAST, useTour } from './tour-fleet.ts';

/** Runs that started a process, per node, for `job` scheduled at or after `fromMs`. */
function ranOn(tour: ReturnType<typeof useTour>, job: string, fromMs: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of readRuns(tour.stateDir, { ns: tour.ns, jobs: [job] })) {
    if (r.scheduledAt === null || r.scheduledAt < fromMs || r.attempt !== 0) continue;
    if (!['success', 'failure', 'cancelled', 'unknown'].includes(r.outcome)) continue;
    out[r.node] = (out[r.node] ?? 0) + 1;
  }
  return out;
}

/** Per host, the nightly-close DAG's scheduled runs dated at or after `fromMs` it ran tasks of. */
function dagRanOn(tour: ReturnType<typeof useTour>, fromMs: number): Record<string, number> {
  const rows = query<{ logical_date: string; host: string | null }>(
    tour.stateDir,
    `SELECT r.logical_date, t.host FROM dag_runs r JOIN dag_tasks t
       ON t.ns = r.ns AND t.dag = r.dag AND t.run_key = r.run_key
     WHERE r.ns = ? AND r.dag = 'nightly-close' AND r.kind = 'scheduled' AND t.state = 'success'`,
    tour.ns,
  );
  const runs: Record<string, Set<string>> = {};
  for (const r of rows) {
    if (!r.host || Date.parse(r.logical_date) < fromMs) continue;
    runs[r.host] ??= new Set();
    runs[r.host]!.add(r.logical_date);
  }
  return Object.fromEntries(Object.entries(runs).map(([host, set]) => [host, set.size]));
}

describe('grand tour on gossip: spread, quorum, single-leader, control API', () => {
  const tour = useTour({ nodes: 5, backend: 'gossip', distribution: 'spread', fast: FAST });
  const ids = () => tour.nodes.map((n) => n.id);
  /** The leader-gated jobs (`Leader`/`PreferLeader`), read from the first node's /jobs. */
  let gated: { name: string; policy: string }[] = [];

  beforeAll(async () => {
    await tour.fleet.waitConverged(45_000);
  }, 60_000);

  it('11: the control API answers /status, /jobs, /cluster, /job-set-id, /metrics and starts a job by hand', async () => {
    const a = tour.nodes[0]!;
    const status = await call(a, '/status');
    expect(status.status).toBe(200);
    expect(status.text).toContain('platform-pulse-counter');
    const jobs = await getJson<{ name: string; clusterPolicy?: string; clusterOwner?: string | null }[]>(
      a,
      '/jobs',
    );
    const names = jobs.map((j) => j.name);
    for (const want of ['orders-ingest', 'pulse-liveness', 'monthly-close-prep', 'run-schema-migration'])
      expect(names).toContain(want);
    gated = jobs
      .filter((j) => j.clusterPolicy && j.clusterPolicy !== 'EveryNode' && 'clusterOwner' in j)
      .map((j) => ({ name: j.name, policy: j.clusterPolicy! }));
    expect(gated.length).toBeGreaterThan(20);
    expect(gated.filter((g) => g.policy === 'PreferLeader').map((g) => g.name)).toContain('orders-ingest');

    const cluster = await tour.nodes[1]!.cluster();
    expect(cluster).toMatchObject({
      enabled: true,
      backend: 'gossip',
      cluster_size: 5,
      quorum: 3,
      quorate: true,
      leader: null,
      is_leader: false,
      distribution: 'spread',
      conflict: false,
    });
    expect(cluster.peers.map((p) => p.status)).toEqual(['agreed', 'agreed', 'agreed', 'agreed']);

    const setIds = await Promise.all(
      tour.nodes.map(
        async (n) => (await getJson<{ job_set_id: string; jobs: number }>(n, '/job-set-id')).job_set_id,
      ),
    );
    expect(new Set(setIds).size).toBe(1);
    expect(setIds[0]).toMatch(/^v1:[0-9a-f]{64}$/);

    const metrics = await call(a, '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(/^cronstable_cluster_quorate 1$/m);
    expect(metrics.text).toContain(`cronstable_job_set_info{job_set_id="${setIds[0]}"} 1`);

    // A manual start is not gated (spec 05 §3.2): it runs on the node asked, whoever owns the job.
    const asked = tour.nodes[2]!;
    const started = await call(asked, '/jobs/run-schema-migration/start', { method: 'POST' });
    expect(started.status).toBe(200);
    const run = await waitUntil(
      () =>
        readRuns(tour.stateDir, { ns: tour.ns, jobs: ['run-schema-migration'] }).find(
          (r) => r.trigger === 'manual' && r.outcome === 'success',
        ),
      { timeoutMs: 15_000, label: 'the manual run-schema-migration run in the ledger' },
    );
    expect(run.node).toBe(asked.id);
  });

  let stopped: FleetNode;

  it('1: every node reports the same rendezvous owners; two dashboards show them; a stopped node re-homes only its own jobs', async () => {
    const names = gated.map((g) => g.name);
    const owners = await waitOwners(tour.nodes, names, ids());
    expect(new Set(Object.values(owners)).size).toBeGreaterThanOrEqual(3);

    // A DAG is owned like a job named `dag:<name>`: nightly-close's runs are advanced by its owner.
    // Its first runs come once the owner seeds it (within a second of its gate opening, after the
    // mesh agreed): the dashboards are checked meanwhile.
    const dagOwner = expectedOwner('dag:nightly-close', ids());
    const t0 = Date.now();
    await Promise.all([
      dashboards(tour.nodes.slice(0, 2), owners),
      waitUntil(() => (dagRanOn(tour, t0)[dagOwner] ?? 0) >= 2, {
        timeoutMs: 30_000,
        label: `nightly-close runs on ${dagOwner}`,
      }),
    ]);
    expect(Object.keys(dagRanOn(tour, t0))).toEqual([dagOwner]);

    // Stop the node that owns the durable counter: its runs must move to the new owner.
    stopped = tour.fleet.node(owners['platform-pulse-counter']!);
    await stopped.stop();
    const at = Date.now();
    const survivors = tour.nodes.filter((n) => n !== stopped);
    const members = survivors.map((n) => n.id);
    const after = await waitOwners(survivors, names, members, 20_000);
    // Runs are judged from when every survivor reports the new owners (at least 4 s after the
    // stop): before that, on a loaded machine, the survivors' views can differ for a moment (a slow
    // peer counted out as well), and two of them may each take a slot as its owner.
    const settled = Math.max(at + 4000, Date.now() + 1000);
    for (const name of names) {
      if (owners[name] === stopped.id) expect(after[name]).toBe(expectedOwner(name, members));
      else expect(after[name], `${name} must keep its owner`).toBe(owners[name]);
    }
    const moved = names.filter((n) => owners[n] === stopped.id);
    expect(moved.length).toBeGreaterThan(0);
    // The re-homed counter runs on its new owner at its next firings, nowhere else.
    const newOwner = after['platform-pulse-counter']!;
    await waitUntil(() => (ranOn(tour, 'platform-pulse-counter', settled)[newOwner] ?? 0) >= 2, {
      timeoutMs: 20_000,
      label: `platform-pulse-counter runs on ${newOwner}`,
    });
    expect(Object.keys(ranOn(tour, 'platform-pulse-counter', settled))).toEqual([newOwner]);
    // The DAG re-homes only if it was the stopped node's.
    const dagAfter = expectedOwner('dag:nightly-close', members);
    expect(dagAfter === dagOwner).toBe(dagOwner !== stopped.id);
    await waitUntil(() => (dagRanOn(tour, settled)[dagAfter] ?? 0) >= 2, {
      // The new owner seeds the DAG within a second of its gate opening, then creates its runs.
      timeoutMs: 35_000,
      label: `nightly-close runs on ${dagAfter}`,
    });
    expect(Object.keys(dagRanOn(tour, settled))).toEqual([dagAfter]);
  }, 90_000);

  let counterBefore = 0;

  it('2: stopping a majority stands Leader jobs down (no quorum) while PreferLeader jobs keep running', async () => {
    // With one node already down, two more make three of five: a majority.
    const more = tour.nodes.filter((n) => n !== stopped).slice(0, 2);
    await Promise.all(more.map((n) => n.stop()));
    const survivors = tour.fleet.running();
    expect(survivors).toHaveLength(2);
    await waitViews(tour.fleet, 'the survivors to lose quorum', (v) =>
      Object.values(v).every((c) => c.quorate === false),
    );
    const lost = Date.now();
    const members = survivors.map((n) => n.id);
    // Leader owners are null (the dashboard's `no quorum`); PreferLeader owners are recomputed
    // over the reachable pair.
    const leaders = gated.filter((g) => g.policy === 'Leader').map((g) => g.name);
    const prefer = gated.filter((g) => g.policy === 'PreferLeader').map((g) => g.name);
    await waitOwners(survivors, leaders, null);
    await waitOwners(survivors, prefer, members);
    const metrics = await call(survivors[0]!, '/metrics');
    expect(metrics.text).toMatch(/^cronstable_cluster_quorate 0$/m);

    // Over the next firings: the fast PreferLeader job keeps running on its available owner; the
    // Leader counter runs nowhere and its durable count stands still.
    counterBefore = Number(kvValue(tour.stateDir, tour.ns, 'global', 'pulse-count'));
    const from = lost + 2000;
    await waitUntil(
      () => (ranOn(tour, 'orders-ingest', from)[expectedOwner('orders-ingest', members)] ?? 0) >= 2,
      {
        timeoutMs: 20_000,
        label: 'orders-ingest to keep running without quorum',
      },
    );
    expect(Object.keys(ranOn(tour, 'orders-ingest', from))).toEqual([
      expectedOwner('orders-ingest', members),
    ]);
    expect(ranOn(tour, 'platform-pulse-counter', from)).toEqual({});
    expect(dagRanOn(tour, from), 'the Leader DAG stands down too').toEqual({});
    expect(Number(kvValue(tour.stateDir, tour.ns, 'global', 'pulse-count'))).toBe(counterBefore);
    expect(counterBefore).toBeGreaterThan(0);
  }, 60_000);

  it('3 + 9: restarted as single-leader, every owned job collapses onto the leader and the durable counter continues', async () => {
    await tour.fleet.stopAll();
    for (const n of tour.nodes) tour.tour.nodeEnv[n.id] = { DISTRIBUTION: 'single-leader' };
    const restarted = Date.now();
    await tour.fleet.startAll();
    await tour.fleet.waitConverged(45_000);
    const leader = tour.nodes[0]!.id; // the lowest name leads when all are up (spec 05 §6.3)
    await waitViews(tour.fleet, `${leader} to lead everywhere`, (v) =>
      Object.entries(v).every(([id, c]) => c.leader === leader && c.is_leader === (id === leader)),
    );
    // While the mesh re-forms, a node that agrees with only part of it may lead that part, or run
    // its PreferLeader jobs alone (they never skip): the collapse is checked from the first firing
    // after one leader is known everywhere.
    const led = Date.now() + 1000;
    for (const n of tour.nodes) {
      const jobs = await n.jobs();
      expect(Object.values(jobs).filter((j) => 'clusterOwner' in j)).toEqual([]);
      expect((await n.cluster()).distribution).toBe('single-leader');
    }
    // Both fast jobs (a Leader and a PreferLeader one) now run on the leader only.
    await waitUntil(
      () =>
        (ranOn(tour, 'platform-pulse-counter', led)[leader] ?? 0) >= 2 &&
        (ranOn(tour, 'orders-ingest', led)[leader] ?? 0) >= 2,
      { timeoutMs: 25_000, label: 'the fast jobs to run on the leader' },
    );
    expect(Object.keys(ranOn(tour, 'platform-pulse-counter', led))).toEqual([leader]);
    expect(Object.keys(ranOn(tour, 'orders-ingest', led))).toEqual([leader]);
    // (The DAG follows too, seeded by its new owner within a second: test 1 already shows a DAG
    // moving with its owner.)

    // 9: the counter lives in the shared store: after the restart it counts on from where it
    // stood, one per fired slot (not from zero). Slots, not runs: while the mesh re-formed, one
    // slot may have run on two nodes that read the same count.
    const runsSince = () =>
      new Set(
        readRuns(tour.stateDir, { ns: tour.ns, jobs: ['platform-pulse-counter'] })
          .filter((r) => r.scheduledAt !== null && r.scheduledAt >= restarted && r.outcome === 'success')
          .map((r) => r.scheduledAt),
      ).size;
    await waitUntil(
      () => {
        const r = runsSince();
        return (
          r >= 2 && Number(kvValue(tour.stateDir, tour.ns, 'global', 'pulse-count')) === counterBefore + r
        );
      },
      { timeoutMs: 20_000, label: `pulse-count to read ${counterBefore} + the runs since the restart` },
    );
  }, 120_000);
});

/** Node a's and b's dashboards side by side: the Owner column shows what /jobs says. */
async function dashboards(nodes: FleetNode[], owners: Record<string, string | null>): Promise<void> {
  let context: BrowserContext | null = null;
  const shots: Buffer[] = [];
  try {
    context = await openContext({
      // Tall enough that the virtualised jobs table renders every row of the tour.
      viewport: { width: 1280, height: 4200 },
      colorScheme: 'dark',
    });
    for (const node of nodes) {
      const page = await context.newPage();
      await page.goto(node.url);
      await expect.poll(() => page.locator('th.c-owner').count(), { timeout: 15_000 }).toBe(1);
      for (const job of ['platform-pulse-counter', 'orders-ingest', 'monthly-close-prep']) {
        const cell = page.locator(`tr.job[data-job="${job}"] td.c-owner`);
        await expect.poll(() => cell.textContent(), { timeout: 10_000 }).toBe(owners[job]);
        const kind = owners[job] === node.id ? 'owner-self' : 'owner-node';
        expect(await cell.locator('.owner').getAttribute('class')).toContain(kind);
      }
      await expect
        .poll(() => page.locator('tr.job[data-job="pulse-liveness"] td.c-owner').textContent())
        .toBe('all nodes');
      if (SCREENSHOTS) {
        await page.setViewportSize({ width: 1280, height: 1000 });
        mkdirSync(SHOTS, { recursive: true });
        shots.push(await page.screenshot({ path: join(SHOTS, `tour-owner-${node.id}.png`) }));
      }
      await page.close();
    }
    if (!SCREENSHOTS) return;
    // The two side by side, as the tour's "watch the spread" has a person look at them.
    const page = await context.newPage();
    await page.setViewportSize({ width: 2560, height: 1000 });
    const imgs = shots.map((b) => `<img src="data:image/png;base64,${b.toString('base64')}" width="1280">`);
    await page.setContent(`<body style="margin:0;display:flex;gap:0">${imgs.join('')}</body>`);
    await page.screenshot({ path: join(SHOTS, 'tour-owners-side-by-side.png') });
    await page.close();
  } finally {
    await context?.close();
  }
}

// Spec 05 §13 on three gossip daemons with `distribution: spread`, every `/peer` link behind a
// LinkProxy: boot, a kill -9 of an owner, a SIGSTOPped owner, a partition, a one-way cut. After
// each, every slot of every Leader job in the window ran exactly once fleet-wide, counted from
// the shared ledger. A graceful stop re-homing only the stopped node's jobs (and its return
// taking them back) is test/integration/cluster-gossip.test.ts's, and on daemons with the
// dashboards' Owner column, test/tour/gossip.test.ts's.
import { describe, expect, it } from 'vitest';
import { readRuns, tallySlots } from '../../scripts/fleet/ledger.ts';
import {
  everyNodeSlots,
  expectEverySlotRan,
  expectExactlyOnce,
  expectedOwner,
  jobsYaml,
  ledgerWindow,
  runsPerNode,
  secondFromNow,
  sleep,
  useFleet,
  waitOwners,
  waitViews,
} from './harness.ts';

const ALL = ['node-a', 'node-b', 'node-c'];
// Owners over a, b, c (spec 05 §6.1): lead-1 c, lead-2 a, daily-reconcile b, lead-3 c.
const LEADER = ['lead-1', 'lead-2', 'daily-reconcile', 'lead-3'];

describe.sequential('gossip, 3 nodes, spread', () => {
  const t = useFleet({
    nodes: 3,
    backend: 'gossip',
    distribution: 'spread',
    proxy: true,
    jobsYaml: jobsYaml([
      ...LEADER.map((name) => ({ name, policy: 'Leader' as const })),
      { name: 'prefer', policy: 'PreferLeader' },
      { name: 'every', policy: 'EveryNode' },
    ]),
  });
  const others = (id: string) => t.fleet.nodes.filter((n) => n.id !== id);

  it('A0: boots converged, owners by rendezvous, every Leader slot once', async () => {
    await t.fleet.waitConverged(15_000);
    const views = await t.fleet.views();
    for (const v of Object.values(views)) {
      expect(v).toMatchObject({
        enabled: true,
        backend: 'gossip',
        cluster_size: 3,
        quorum: 2,
        quorate: true,
        leader: null,
        is_leader: false,
        conflict: false,
        distribution: 'spread',
      });
      expect(v.peers.map((p) => p.status)).toEqual(['agreed', 'agreed']);
    }
    const owners = await waitOwners(t.fleet.nodes, LEADER, ALL);
    expect(new Set(Object.values(owners)).size).toBe(3);
    const from = secondFromNow(300);
    const report = await expectExactlyOnce(t.fleet, [...LEADER, 'prefer'], from, from + 1000);
    for (const job of LEADER) expect(report.runners[job]).toEqual([owners[job]]);
    const every = await everyNodeSlots(t.fleet, 'every', from, from + 1000);
    expect(every.length).toBeGreaterThanOrEqual(2);
    for (const ran of every) expect(ran).toEqual(ALL);
  });

  it('kill -9 of an owner: its jobs move, no slot runs twice across the failover', async () => {
    const victim = expectedOwner('lead-2', ALL); // node-a
    const start = secondFromNow(300);
    await sleep(start - Date.now());
    await t.node(victim).kill();
    const survivors = others(victim);
    await waitOwners(
      survivors,
      LEADER,
      ALL.filter((n) => n !== victim),
      8000,
    );
    const settled = secondFromNow(300);
    await expectExactlyOnce(t.fleet, LEADER, settled, settled + 1000);
    const whole = await ledgerWindow(t.fleet, LEADER, start, settled + 1000);
    expect(whole.duplicates).toEqual([]);
    // Detection within ~interval + connectTimeout: a handful of lost slots, not more.
    expect(whole.missing.length).toBeLessThanOrEqual(8);
    expect(runsPerNode(t.fleet, 'lead-2', start + 1000, settled + 1000)[victim] ?? 0).toBe(0);
    await t.node(victim).start();
    await t.fleet.waitConverged(10_000);
    await waitOwners(t.fleet.nodes, LEADER, ALL);
  });

  it('SIGSTOP of an owner: after SIGCONT no slot runs twice, and the fleet re-converges', async () => {
    const victim = 'node-c';
    const start = secondFromNow(300);
    await sleep(start - Date.now());
    t.node(victim).pause();
    const survivors = others(victim);
    let woke = 0;
    try {
      await waitOwners(survivors, LEADER, ['node-a', 'node-b'], 8000);
      await sleep(1500);
    } finally {
      // A failed wait must not leave the node stopped for the retry and the file's later tests.
      woke = Date.now();
      t.node(victim).resume();
    }
    await t.fleet.waitConverged(10_000);
    await waitOwners(t.fleet.nodes, LEADER, ALL);
    // Third-party gossip from before the pause lingers for ~1-2 intervals (spec 05 §5.6): a
    // transient skip, never a double run, which the whole-window check below covers.
    await waitViews(t.fleet, 'no conflict anywhere', (v) => Object.values(v).every((x) => !x.conflict));
    await sleep(1500);
    const settled = secondFromNow(300);
    await expectExactlyOnce(t.fleet, LEADER, settled, settled + 1000);
    // Across the pause and the wake-up (stale view, late timers, catch-up): never twice.
    const whole = await ledgerWindow(t.fleet, LEADER, start, settled + 1000);
    expect(whole.duplicates).toEqual([]);
    expect(woke).toBeGreaterThan(start);
  });

  it('a partition by the proxy: the isolated node loses quorum and runs no Leader slot', async () => {
    const isolated = 'node-b';
    const majority = others(isolated);
    t.mesh!.partition([isolated], ['node-a', 'node-c']);
    try {
      await waitViews(t.fleet, `${isolated} without quorum`, (v) => v[isolated]?.quorate === false, 8000);
      await waitOwners([t.node(isolated)], LEADER, null, 5000);
      await waitOwners(majority, LEADER, ['node-a', 'node-c'], 8000);
      const from = secondFromNow(300);
      const to = from + 1000;
      const report = await expectExactlyOnce(t.fleet, LEADER, from, to);
      for (const job of LEADER) expect(report.runners[job]).not.toContain(isolated);
      // PreferLeader never skips: the isolated node tries every slot itself (the shared store's
      // fire claim still lets one node per slot run it), the majority too.
      await expectEverySlotRan(t.fleet, ['prefer'], from, to);
      const rows = readRuns(t.fleet.stateDir, { ns: 'fleet', jobs: ['prefer'] });
      for (const slot of tallySlots(rows, ['prefer'], from, to).values())
        expect([...slot.ranOn, ...slot.claimedElsewhere]).toContain(isolated);
      // EveryNode everywhere.
      for (const ran of await everyNodeSlots(t.fleet, 'every', from, to)) expect(ran).toEqual(ALL);
    } finally {
      t.mesh!.heal();
    }
    await t.fleet.waitConverged(10_000);
  });

  it('a one-way cut (black hole) never fakes a majority: mutual attestation only', async () => {
    const cut = 'node-a';
    // node-a's polls of the others time out; theirs of node-a still work.
    t.mesh!.partition([cut], ['node-b', 'node-c'], 'blackhole', true);
    try {
      await waitViews(t.fleet, `${cut} without quorum`, (v) => v[cut]?.quorate === false, 8000);
      for (const n of others(cut)) expect((await n.peer(cut))?.status).toBe('agreed');
      await waitOwners(others(cut), LEADER, ['node-b', 'node-c'], 8000);
      const from = secondFromNow(300);
      const report = await expectExactlyOnce(t.fleet, LEADER, from, from + 1000);
      for (const job of LEADER) expect(report.runners[job]).not.toContain(cut);
    } finally {
      t.mesh!.heal();
    }
    await t.fleet.waitConverged(10_000);
    await waitOwners(t.fleet.nodes, LEADER, ALL);
  });
});

// Spec 05 §13 A0 and A2 on nine gossip daemons (spread, N 9, Q 5) with short timings: boot and
// spread, then five stopped (no quorum: Leader nowhere, PreferLeader once per slot on a survivor,
// EveryNode on all four), then quorum restored. A1 (one node stopped re-homes exactly its jobs,
// its return takes them back) is test/integration/cluster-gossip.test.ts's, and on daemons
// test/cluster/gossip-spread.test.ts's (kill -9) and test/tour/gossip.test.ts's.
import { describe, expect, it } from 'vitest';
import {
  everyNodeSlots,
  expectExactlyOnce,
  jobsYaml,
  runsPerNode,
  secondFromNow,
  useFleet,
  waitOwners,
  waitViews,
} from './harness.ts';

const ALL = 'abcdefghi'.split('').map((c) => `node-${c}`);
// Owners over the nine (spec 05 §6.1): c, e, c, i, a, h.
const LEADER = ['lead-1', 'lead-2', 'lead-3', 'lead-4', 'lead-5', 'lead-6'];

describe.sequential('gossip, 9 nodes, spread', () => {
  const t = useFleet({
    nodes: 9,
    backend: 'gossip',
    distribution: 'spread',
    jobsYaml: jobsYaml([
      ...LEADER.map((name) => ({ name, policy: 'Leader' as const })),
      { name: 'prefer', policy: 'PreferLeader' },
      { name: 'every', policy: 'EveryNode', schedule: '*/2 * * * * * *' },
    ]),
  });

  it('A0: nine nodes converge (N 9, Q 5), agree on spread owners, run each Leader slot once', async () => {
    await t.fleet.waitConverged(30_000);
    const ids = new Set<string>();
    for (const n of t.fleet.nodes) {
      const v = await n.cluster();
      expect(v).toMatchObject({ cluster_size: 9, quorum: 5, quorate: true, leader: null, is_leader: false });
      expect(v.conflict).toBe(false);
      ids.add(await (await fetch(`${n.url}/job-set-id`)).text());
    }
    expect(ids.size).toBe(1);
    const owners = await waitOwners(t.fleet.nodes, LEADER, ALL);
    expect(new Set(Object.values(owners)).size).toBeGreaterThanOrEqual(4);
    const from = secondFromNow(300);
    const report = await expectExactlyOnce(t.fleet, [...LEADER, 'prefer'], from, from + 1000);
    for (const job of LEADER) expect(report.runners[job]).toEqual([owners[job]]);
    // Nine daemons converging on a loaded 2-core machine may use all of waitConverged's 30 s.
  }, 60_000);

  it('A2: five of nine stopped, the four survivors stand down; one back restores quorum', async () => {
    const stopped = ['node-a', 'node-b', 'node-c', 'node-d', 'node-e'];
    await Promise.all(stopped.map((id) => t.node(id).stop()));
    const survivors = t.fleet.nodes.filter((n) => !stopped.includes(n.id));
    await waitViews(
      t.fleet,
      'the survivors without quorum',
      (v) => Object.values(v).every((x) => x.quorate === false),
      10_000,
      survivors,
    );
    await waitOwners(survivors, LEADER, null, 5000);
    const metrics = await (await fetch(`${survivors[0]!.url}/metrics`)).text();
    expect(metrics).toMatch(/^cronstable_cluster_quorate 0$/m);
    const from = secondFromNow(1300);
    const to = from + 1000;
    const report = await expectExactlyOnce(t.fleet, ['prefer'], from, to);
    expect(report.runners.prefer).toHaveLength(1);
    for (const job of LEADER) expect(runsPerNode(t.fleet, job, from, to)).toEqual({});
    const everyRan = await everyNodeSlots(t.fleet, 'every', from, to);
    expect(everyRan.length).toBeGreaterThanOrEqual(1);
    for (const ran of everyRan) expect(ran).toEqual(survivors.map((n) => n.id));
    // Back to five: quorate again, Leader jobs resume (owners over the five).
    await t.node('node-e').start();
    const five = [...survivors, t.node('node-e')];
    await waitViews(t.fleet, 'quorum back', (v) => Object.values(v).every((x) => x.quorate), 15_000, five);
    await waitOwners(
      five,
      LEADER,
      five.map((n) => n.id),
      10_000,
    );
    const again = secondFromNow(300);
    await expectExactlyOnce(t.fleet, LEADER, again, again + 1000);
  });
});

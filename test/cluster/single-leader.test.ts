// Spec 05 §13 A3 on three gossip nodes, `distribution: single-leader`: node-a leads everywhere;
// kill -9 of the leader hands leadership to node-b within a few intervals with no slot run twice;
// a mixed roll-out (one node switched to spread) is a policy conflict and Leader jobs stand down.
import { describe, expect, it } from 'vitest';
import {
  expectExactlyOnce,
  jobsYaml,
  ledgerWindow,
  runsPerNode,
  secondFromNow,
  sleep,
  useFleet,
  waitViews,
} from './harness.ts';

const LEADER = ['lead-1', 'lead-2'];

describe.sequential('gossip, 3 nodes, single-leader', () => {
  const t = useFleet({
    nodes: 3,
    backend: 'gossip',
    distribution: 'single-leader',
    jobsYaml: jobsYaml([
      ...LEADER.map((name) => ({ name, policy: 'Leader' as const })),
      { name: 'prefer', policy: 'PreferLeader' },
    ]),
  });

  it('A3: node-a leads on every node; Leader and PreferLeader jobs run there only', async () => {
    await t.fleet.waitConverged(15_000);
    await waitViews(t.fleet, 'leader node-a everywhere', (v) =>
      Object.values(v).every((x) => x.leader === 'node-a'),
    );
    const views = await t.fleet.views();
    for (const [id, v] of Object.entries(views)) {
      expect(v.is_leader).toBe(id === 'node-a');
      expect(v.distribution).toBe('single-leader');
    }
    for (const job of Object.values(await t.node('node-b').jobs())) expect(job.clusterOwner).toBeUndefined();
    const from = secondFromNow(300);
    const report = await expectExactlyOnce(t.fleet, [...LEADER, 'prefer'], from, from + 1000);
    for (const job of [...LEADER, 'prefer']) expect(report.runners[job]).toEqual(['node-a']);
  });

  it('A3: kill -9 of the leader: node-b leads everywhere within 3 intervals, nothing runs twice', async () => {
    const start = secondFromNow(300);
    await sleep(start - Date.now());
    await t.node('node-a').kill();
    const survivors = [t.node('node-b'), t.node('node-c')];
    await waitViews(
      t.fleet,
      'leader node-b on the survivors',
      (v) => Object.values(v).every((x) => x.leader === 'node-b' && x.quorate),
      3 * 1000 + 3000,
      survivors,
    );
    expect((await t.node('node-b').cluster()).is_leader).toBe(true);
    const settled = secondFromNow(300);
    const report = await expectExactlyOnce(t.fleet, LEADER, settled, settled + 1000);
    for (const job of LEADER) expect(report.runners[job]).toEqual(['node-b']);
    const whole = await ledgerWindow(t.fleet, LEADER, start, settled + 1000);
    expect(whole.duplicates).toEqual([]);
    await t.node('node-a').start();
    await t.fleet.waitConverged(10_000);
    await waitViews(t.fleet, 'node-a leads again', (v) =>
      Object.values(v).every((x) => x.leader === 'node-a'),
    );
  });

  it('A3: a mixed roll-out (node-c on spread) is a policy conflict; Leader jobs stand down', async () => {
    const c = t.node('node-c');
    await c.stop();
    c.spec.clusterOverrides = { distribution: 'spread' };
    await c.start();
    try {
      await waitViews(
        t.fleet,
        'policy_conflict on node-a and node-b',
        (v) => ['node-a', 'node-b'].every((id) => v[id]?.policy_conflict === true),
        10_000,
      );
      const views = await t.fleet.views();
      expect(views['node-a']!.conflicting_policies).toEqual(["distribution 'spread' != 'single-leader'"]);
      const from = secondFromNow(300);
      const to = from + 1000;
      await ledgerWindow(t.fleet, LEADER, from, to);
      for (const job of LEADER) {
        const ran = runsPerNode(t.fleet, job, from, to);
        expect(ran['node-a'] ?? 0).toBe(0);
        expect(ran['node-b'] ?? 0).toBe(0);
      }
    } finally {
      await c.stop();
      c.spec.clusterOverrides = {};
      await c.start();
    }
    await t.fleet.waitConverged(10_000);
  });
});

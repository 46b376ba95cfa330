// Spec 05 §13 A5 on three gossip daemons (spread): a node restarted with a different job set
// (the daemon's job-set id moves with its jobs file) drifts and stands down, and Leader slots
// stay exactly-once on the other two. A6-A8 (a reused node name, another cluster size or policy,
// a certificate from another CA: each visible, never counted, Leader standing down) are
// test/integration/cluster-gossip.test.ts's, on the backend the daemon runs.
import { describe, expect, it } from 'vitest';
import {
  expectExactlyOnce,
  jobsYaml,
  secondFromNow,
  useFleet,
  waitOwners,
  waitUntil,
  waitViews,
} from './harness.ts';

const LEADER = ['lead-1', 'lead-2', 'daily-reconcile', 'lead-3'];
const JOBS = [
  ...LEADER.map((name) => ({ name, policy: 'Leader' as const })),
  { name: 'prefer', policy: 'PreferLeader' as const },
];

describe.sequential('gossip, 3 nodes: drift', () => {
  const t = useFleet({ nodes: 3, backend: 'gossip', distribution: 'spread', jobsYaml: jobsYaml(JOBS) });

  it('A5: a restart with a different job set drifts after driftAfter rounds and stands down', async () => {
    await t.fleet.waitConverged(15_000);
    const c = t.node('node-c');
    await c.stop();
    c.spec.jobsYaml = jobsYaml(
      JOBS.map((j) => (j.name === 'lead-1' ? { ...j, command: 'echo changed' } : j)),
    );
    await c.start();
    const seen = new Set<string>();
    await waitUntil(
      async () => {
        const p = await t.node('node-a').peer('node-c');
        if (p) seen.add(p.status);
        return p?.status === 'drifted';
      },
      { timeoutMs: 10_000, label: 'node-c drifted on node-a' },
    );
    expect(seen.has('drifted')).toBe(true);
    expect((await t.node('node-b').peer('node-c'))?.status).toMatch(/syncing|drifted/);
    // node-c sees two drifted peers: alone, no quorum, stands down.
    await waitViews(t.fleet, 'node-c without quorum', (v) => v['node-c']?.quorate === false, 8000);
    await waitOwners([t.node('node-a'), t.node('node-b')], LEADER, ['node-a', 'node-b'], 8000);
    const from = secondFromNow(300);
    const report = await expectExactlyOnce(t.fleet, LEADER, from, from + 1000);
    for (const job of LEADER) expect(report.runners[job]).not.toContain('node-c');
  });
});

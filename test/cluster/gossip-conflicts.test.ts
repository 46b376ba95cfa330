// Spec 05 §13 A5-A8 on three gossip nodes (spread): a node restarted with a different job set
// drifts and stands down; a process reusing another node's name, a node declaring another
// cluster size and a node with a certificate from another CA are each visible and never
// counted. Leader slots stay exactly-once (or, where every node stands down, run nowhere).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateClusterCerts } from '../../scripts/fleet/certs.ts';
import {
  expectEverySlotRan,
  expectExactlyOnce,
  jobsYaml,
  runsPerNode,
  secondFromNow,
  useFleet,
  waitOwners,
  waitUntil,
  waitViews,
} from './harness.ts';

const ALL = ['node-a', 'node-b', 'node-c'];
const LEADER = ['lead-1', 'lead-2', 'daily-reconcile', 'lead-3'];
const JOBS = [
  ...LEADER.map((name) => ({ name, policy: 'Leader' as const })),
  { name: 'prefer', policy: 'PreferLeader' as const },
];

describe.sequential('gossip, 3 nodes: drift and conflicts', () => {
  const t = useFleet({ nodes: 3, backend: 'gossip', distribution: 'spread', jobsYaml: jobsYaml(JOBS) });
  const ab = () => [t.node('node-a'), t.node('node-b')];

  /** Restarts node-c from a changed spec, runs `check`, then restores it and re-converges. */
  async function withNodeC(change: () => void, check: () => Promise<void>): Promise<void> {
    const c = t.node('node-c');
    const saved = structuredClone(c.spec);
    await c.stop();
    change();
    await c.start();
    try {
      await check();
    } finally {
      await c.stop();
      Object.assign(c.spec, saved);
      await c.start();
      await t.fleet.waitConverged(15_000);
    }
  }

  it('A5: a restart with a different job set drifts after driftAfter rounds and stands down', async () => {
    await t.fleet.waitConverged(15_000);
    await withNodeC(
      () => {
        t.node('node-c').spec.jobsYaml = jobsYaml(
          JOBS.map((j) => (j.name === 'lead-1' ? { ...j, command: 'echo changed' } : j)),
        );
      },
      async () => {
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
        await waitOwners(ab(), LEADER, ['node-a', 'node-b'], 8000);
        const from = secondFromNow(300);
        const report = await expectExactlyOnce(t.fleet, LEADER, from, from + 1000);
        for (const job of LEADER) expect(report.runners[job]).not.toContain('node-c');
      },
    );
  });

  it('A6: a process reusing node-b’s name is a visible conflict; Leader jobs stand down', async () => {
    await withNodeC(
      () => {
        t.node('node-c').spec.nodeName = 'node-b';
      },
      async () => {
        await waitViews(
          t.fleet,
          'conflict_names [node-b] on node-a and node-b',
          (v) =>
            ['node-a', 'node-b'].every(
              (id) => v[id]?.conflict === true && JSON.stringify(v[id]?.conflict_names) === '["node-b"]',
            ),
          10_000,
        );
        expect((await t.node('node-b').peer('node-c'))?.status).toBe('conflict');
        const from = secondFromNow(300);
        const to = from + 1000;
        await expectEverySlotRan(t.fleet, ['prefer'], from, to); // PreferLeader is not gated by conflicts
        for (const job of LEADER) {
          const ran = runsPerNode(t.fleet, job, from, to);
          expect(ran['node-a'] ?? 0).toBe(0);
          expect(ran['node-b'] ?? 0).toBe(0);
        }
      },
    );
    const views = await t.fleet.views();
    for (const v of Object.values(views)) expect(v.conflict).toBe(false);
  });

  it('A7: a node declaring another cluster size is a size conflict; Leader jobs stand down', async () => {
    await withNodeC(
      () => {
        const c = t.node('node-c').spec;
        // A fourth (absent) peer: node-c counts N = 4.
        c.peers = [...c.peers, '127.0.0.250:9'];
        c.peerIds = [...c.peerIds, 'ghost'];
      },
      async () => {
        await waitViews(
          t.fleet,
          'size_conflict [4] on node-a and node-b',
          (v) =>
            ['node-a', 'node-b'].every(
              (id) => v[id]?.size_conflict === true && JSON.stringify(v[id]?.conflicting_sizes) === '[4]',
            ),
          10_000,
        );
        const from = secondFromNow(300);
        const to = from + 1000;
        await expectEverySlotRan(t.fleet, ['prefer'], from, to);
        for (const job of LEADER) expect(runsPerNode(t.fleet, job, from, to)).toEqual({});
      },
    );
  });

  it('A8: a peer with a certificate from another CA is untrusted and never counted', async () => {
    await withNodeC(
      () => {
        const c = t.node('node-c').spec;
        const rogue = generateClusterCerts(
          join(t.fleet.root, 'rogue-ca'),
          [{ name: 'node-c', sans: [`IP:${c.ip}`] }],
          { caName: 'rogue-ca' },
        );
        c.tls = { ca: rogue.ca, ...rogue.nodes['node-c']! };
      },
      async () => {
        await waitUntil(
          async () => {
            for (const n of ab()) if ((await n.peer('node-c'))?.status !== 'untrusted') return false;
            return true;
          },
          { timeoutMs: 8000, label: 'node-c untrusted on node-a and node-b' },
        );
        for (const n of ab()) expect((await n.cluster()).quorate).toBe(true);
        await waitOwners(ab(), LEADER, ['node-a', 'node-b'], 8000);
        const from = secondFromNow(300);
        const report = await expectExactlyOnce(t.fleet, LEADER, from, from + 1000);
        for (const job of LEADER) expect(report.runners[job]).not.toContain('node-c');
      },
    );
    await waitOwners(t.fleet.nodes, LEADER, ALL);
  });
});

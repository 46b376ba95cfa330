// The exactly-once backstop (DESIGN.md §4 step 3, issue 10 item 4): two nodes that both believe
// they lead (two one-node gossip clusters with electLeader and no peers, sharing one state
// directory) still run each slot of a Leader job once; the loser records `claimed-elsewhere`.
import { describe, expect, it } from 'vitest';
import { readRuns } from '../../scripts/fleet/ledger.ts';
import { expectExactlyOnce, jobsYaml, secondFromNow, startFleet } from './harness.ts';

describe('fire claims', () => {
  it('two self-declared leaders on one store: one run per slot, the other claimed-elsewhere', async () => {
    const { fleet } = await startFleet({
      nodes: 2,
      backend: 'gossip',
      distribution: 'single-leader',
      start: false,
      jobsYaml: jobsYaml([{ name: 'tick', policy: 'Leader' }]),
    });
    try {
      for (const n of fleet.nodes) {
        n.spec.peers = [];
        n.spec.peerIds = [];
      }
      await fleet.startAll();
      const views = await fleet.views();
      for (const [id, v] of Object.entries(views)) {
        expect(v).toMatchObject({ cluster_size: 1, quorate: true, leader: id, is_leader: true });
      }
      const from = secondFromNow(300);
      const report = await expectExactlyOnce(fleet, ['tick'], from, from + 3000);
      expect(report.claimedElsewhere).toBe(report.expected);
      // Both nodes won some claims over time, or at least one did and the other lost each one.
      const losers = readRuns(fleet.stateDir, { ns: 'fleet', jobs: ['tick'] }).filter(
        (r) => r.outcome === 'claimed-elsewhere' && r.scheduledAt! >= from && r.scheduledAt! <= from + 3000,
      );
      expect(losers).toHaveLength(report.expected);
    } finally {
      await fleet.close();
    }
  });
});

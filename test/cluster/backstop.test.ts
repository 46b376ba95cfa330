// The exactly-once backstop (DESIGN.md §4 step 3, issue 10 item 4): two nodes that both believe
// they lead still run each slot of a Leader job once; the loser records `claimed-elsewhere`.
// Two ways to make two leaders over one state directory: two filesystem elections under
// different names, and two one-node gossip clusters (electLeader, no peers).
import { describe, expect, it } from 'vitest';
import type { FleetBackend } from '../../scripts/fleet/config.ts';
import { readRuns } from '../../scripts/fleet/ledger.ts';
import {
  expectExactlyOnce,
  jobsYaml,
  readmeDuplicates,
  secondFromNow,
  startFleet,
  waitViews,
} from './harness.ts';

async function twoLeaders(backend: FleetBackend): Promise<void> {
  const { fleet } = await startFleet({
    nodes: 2,
    backend,
    distribution: 'single-leader',
    start: false,
    jobsYaml: jobsYaml([{ name: 'tick', policy: 'Leader' }]),
  });
  try {
    for (const n of fleet.nodes) {
      if (backend === 'gossip') {
        // Its own address only: a self-listing entry is dropped at load, so N = 1 (there is no
        // way to write an empty peer list: a blank value is not a list).
        n.spec.peers = [`${n.spec.ip}:${n.spec.peerPort}`];
        n.spec.peerIds = [n.id];
      } else {
        n.spec.clusterOverrides = {
          filesystem: {
            path: fleet.stateDir,
            ttl: 3,
            deploymentId: 'fleet',
            topology: 'shared',
            electionName: `split/${n.id}`,
          },
          observability: null,
        };
      }
    }
    await fleet.startAll();
    await waitViews(fleet, 'both nodes leading', (v) => Object.values(v).every((x) => x.is_leader), 10_000);
    for (const [id, v] of Object.entries(await fleet.views()))
      expect(v).toMatchObject({ cluster_size: 1, quorate: true, leader: id, is_leader: true });
    const from = secondFromNow(300);
    const report = await expectExactlyOnce(fleet, ['tick'], from, from + 2000);
    // Every slot was contested: one node ran it, the other recorded the claim it lost.
    expect(report.claimedElsewhere).toBe(report.expected);
    const losers = readRuns(fleet.stateDir, { ns: 'fleet', jobs: ['tick'] }).filter(
      (r) => r.outcome === 'claimed-elsewhere' && r.scheduledAt! >= from && r.scheduledAt! <= from + 2000,
    );
    expect(losers).toHaveLength(report.expected);
    expect(readmeDuplicates(fleet)).toEqual([]);
  } finally {
    await fleet.close();
  }
}

describe('fire claims', () => {
  it('two filesystem elections on one store: one run per slot, the other claimed-elsewhere', async () => {
    await twoLeaders('filesystem');
  }, 60_000);

  it('two one-node gossip clusters on one store: one run per slot, the other claimed-elsewhere', async () => {
    await twoLeaders('gossip');
  }, 60_000);
});

import { describe, expect, it } from 'vitest';
import { elect } from '../../src/cluster/election.ts';
import type { ReceivedBody } from '../../src/cluster/gossip/body.ts';
import { blankPeer, observeFailure, observeSuccess, withStats } from '../../src/cluster/gossip/peer-table.ts';
import type { GossipSettings } from '../../src/cluster/gossip/settings.ts';
import { fleetView, peerBody } from '../../src/cluster/gossip/views.ts';
import type { JobSummary, NodeStats } from '../../src/cluster/types.ts';

const settings: GossipSettings = {
  nodeName: 'node-a',
  listen: '127.0.0.11:8443',
  tls: { ca: '', cert: '', key: '' },
  peers: [],
  intervalS: 10,
  driftAfter: 2,
  connectTimeoutS: 5,
  electLeader: true,
  distribution: 'spread',
  shareNodeStats: true,
};
const MY_ID = 'a'.repeat(32);
const who = { me: 'node-a', instanceId: MY_ID, jobSetId: 'v1:ours', driftAfter: 2, now: 1_000_000 };
const job = (inS: number | null): JobSummary => ({
  running: false,
  enabled: true,
  scheduled_in: inS,
  last: null,
});

function body(name: string, over: Partial<ReceivedBody> = {}): ReceivedBody {
  return {
    nodeName: name,
    jobSetId: 'v1:ours',
    schemeVersion: 'v1',
    instanceId: name.padEnd(32, '0'),
    clusterSize: 4,
    distribution: 'spread',
    electLeader: true,
    members: [{ nodeName: 'node-a', instanceId: MY_ID, agreed: true }],
    mutualAgreeing: ['node-a'],
    quorateVouched: [],
    ranRebootJobs: [],
    jobSummaries: { [`${name}-job`]: job(20) },
    jobSummariesTruncated: false,
    ...over,
  };
}

const peers = [
  observeSuccess(blankPeer('b:1'), body('node-b'), who),
  observeSuccess(blankPeer('c:1'), body('node-c', { jobSetId: 'v1:theirs' }), who),
  observeFailure(observeSuccess(blankPeer('d:1'), body('node-d'), who), 'unreachable', 'gone'),
  observeSuccess(blankPeer('e:1'), body('node-a', { instanceId: MY_ID }), who),
];

describe('our /peer body', () => {
  it('lists itself and every peer it holds a fresh observation of, with the election sets', () => {
    const view = {
      me: 'node-a',
      instanceId: MY_ID,
      distribution: 'spread' as const,
      electLeader: true,
      peers: peers.map((p) => ({ ...p })),
      completedRounds: 4,
    };
    const e = elect(view);
    const out = peerBody(
      {
        settings,
        instanceId: MY_ID,
        jobSetId: 'v1:ours',
        ranRebootJobs: ['z', 'b'],
        jobSummaries: { x: job(5) },
      },
      peers,
      e,
    );
    expect(out.members).toEqual([
      { node_name: 'node-a', instance_id: MY_ID, agreed: true },
      { node_name: 'node-b', instance_id: 'node-b'.padEnd(32, '0'), agreed: true },
      { node_name: 'node-c', instance_id: 'node-c'.padEnd(32, '0'), agreed: false },
    ]);
    expect(out).toMatchObject({
      cluster_size: 4,
      mutual_agreeing: ['node-b'],
      ran_reboot_jobs: ['b', 'z'],
      job_summaries: { x: job(5) },
      scheme_version: 'v1',
    });
  });
});

describe('the fleet view (spec 05 §11)', () => {
  it('puts this node first, skips self entries, counts next fires down and expires stats', () => {
    const stats = { cpu_percent: 3 } as NodeStats;
    const withStat = peers.map((p, i) => (i === 0 ? withStats(p, stats, 0) : p));
    const view = fleetView(settings, { jobSummaries: { mine: job(null) }, nodeStats: stats }, withStat, {
      now: who.now + 5000,
      mono: 1000,
      statsTtlMs: 30_000,
    });
    expect(view).toMatchObject({ enabled: true, backend: 'gossip', node_name: 'node-a', interval: 10 });
    expect(view.nodes.map((n) => [n.node_name, n.host, n.self, n.status])).toEqual([
      ['node-a', '127.0.0.11:8443', true, 'self'],
      ['node-b', 'b:1', false, 'agreed'],
      ['node-c', 'c:1', false, 'syncing'],
      ['node-d', 'd:1', false, 'unreachable'],
    ]);
    expect(view.nodes[1]?.jobs).toEqual({ 'node-b-job': job(15) });
    expect(view.nodes[1]?.node_stats).toEqual(stats);
    expect(view.nodes[1]?.as_of).toBe(new Date(who.now).toISOString());
    const later = fleetView(settings, { jobSummaries: {}, nodeStats: null }, withStat, {
      now: who.now,
      mono: 31_000,
      statsTtlMs: 30_000,
    });
    expect(later.nodes[1]?.node_stats).toBeNull();
  });
});

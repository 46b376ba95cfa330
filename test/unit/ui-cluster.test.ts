// The dashboard's cluster wording (spec 05 §12.4, spec 06 §9.2): role text, summary line, conflict notes, peer
// tones, the Owner cell and its sort order, the cluster alert, and the fleet matrix cells.
import { describe, expect, it } from 'vitest';
import {
  clusterAlert,
  compareOwners,
  conflictNotes,
  ownerCell,
  peerTone,
  peerTooltip,
  roleText,
  showOwnerColumn,
  summaryLine,
} from '../../src/dashboard/cluster.ts';
import {
  failingSomewhere,
  fleetCell,
  fleetJobNames,
  fleetNodeStatus,
  fleetTotals,
} from '../../src/dashboard/fleet.ts';
import { sortRows, toRows } from '../../src/dashboard/table.ts';
import type { ApiCluster, ApiFleet, ApiJob, ApiPeer } from '../../src/dashboard/types.ts';
import { apiJob } from '../helpers/api-job.ts';
import { noConflicts } from '../helpers/no-conflicts.ts';

function peer(
  host: string,
  status: ApiPeer['status'],
  node_name: string | null = host.split(':')[0]!,
): ApiPeer {
  return {
    host,
    status,
    node_name,
    job_set_id: 'v1:abc',
    last_seen: null,
    last_error: null,
    mismatch_streak: 0,
    node_stats: null,
  };
}

function gossip(over: Partial<ApiCluster> = {}): ApiCluster {
  return {
    enabled: true,
    backend: 'gossip',
    node_name: 'node-a',
    job_set_id: 'v1:abc',
    cluster_size: 3,
    quorum: 2,
    elect_leader: true,
    distribution: 'single-leader',
    ...noConflicts(),
    quorate: true,
    leader: 'node-a',
    is_leader: true,
    peers: [peer('node-b:8443', 'agreed'), peer('node-c:8443', 'agreed')],
    ...over,
  };
}

function lease(over: Partial<ApiCluster> = {}): ApiCluster {
  return {
    ...gossip(),
    backend: 'filesystem',
    cluster_size: 1,
    quorum: 1,
    peers: [],
    lease: { path: '/state', electionName: 'cluster/leader', holder: 'node-a', fence: 3, expiry: null },
    fleet: false,
    ...over,
  };
}

const job = (name: string, over: Partial<ApiJob> = {}): ApiJob =>
  apiJob(name, { schedule: '* * * * *', command: 'true', timezone: null, scheduled_in: 10, ...over });

describe('cluster role text (gossip)', () => {
  it('names the leader, a follower with and without a known leader, and no quorum', () => {
    expect(roleText(gossip())).toBe('leader');
    expect(roleText(gossip({ is_leader: false, leader: 'node-b' }))).toBe('follower (leader: node-b)');
    expect(roleText(gossip({ is_leader: false, leader: null }))).toBe('follower');
    expect(roleText(gossip({ quorate: false, is_leader: false, leader: null }))).toBe('no quorum');
  });

  it('says spread (per-job owner) or spread (no quorum) under spread', () => {
    expect(roleText(gossip({ distribution: 'spread', leader: null, is_leader: false }))).toBe(
      'spread (per-job owner)',
    );
    expect(roleText(gossip({ distribution: 'spread', quorate: false, leader: null }))).toBe(
      'spread (no quorum)',
    );
  });

  it('puts a conflict before everything else', () => {
    for (const over of [
      { conflict: true, conflict_names: ['node-b'] },
      { conflict: true, size_conflict: true, conflicting_sizes: [4] },
      {
        conflict: true,
        policy_conflict: true,
        conflicting_policies: ["distribution 'spread' != 'single-leader'"],
      },
    ]) {
      expect(roleText(gossip({ ...over, distribution: 'spread' }))).toBe('standing down (conflict)');
      expect(roleText(gossip(over))).toBe('standing down (conflict)');
    }
  });

  it('has no role when the cluster only observes (electLeader off) and none when disabled', () => {
    expect(roleText(gossip({ elect_leader: false, leader: null, is_leader: false }))).toBeNull();
    expect(roleText({ enabled: false, peers: [] })).toBeNull();
  });
});

describe('cluster role text (lease backends)', () => {
  it('reads leader / follower / no quorum (store unreachable)', () => {
    expect(roleText(lease())).toBe('leader');
    expect(roleText(lease({ is_leader: false, leader: 'node-b' }))).toBe('follower (leader: node-b)');
    expect(roleText(lease({ is_leader: false, leader: null }))).toBe('follower');
    expect(roleText(lease({ quorate: false, is_leader: false, leader: null }))).toBe(
      'no quorum (store unreachable)',
    );
    for (const backend of ['etcd', 'kubernetes'] as const)
      expect(roleText(lease({ backend, quorate: false }))).toContain('store');
  });
});

describe('cluster summary line', () => {
  it('counts agreed peers over the peers that are not this node, with the quorum and the role', () => {
    const c = gossip({
      peers: [peer('node-b:8443', 'agreed'), peer('node-c:8443', 'syncing'), peer('127.0.0.1:8443', 'self')],
    });
    expect(summaryLine(c, [])).toBe('node-a · 1/2 agreed · quorum ok (need 2) · leader');
  });

  it('reports a lost quorum with what it needs', () => {
    const c = gossip({
      quorate: false,
      leader: null,
      is_leader: false,
      peers: [peer('node-b:8443', 'unreachable'), peer('node-c:8443', 'unreachable')],
    });
    expect(summaryLine(c, [])).toBe('node-a · 0/2 agreed · quorum lost (need 2) · no quorum');
  });

  it('adds owns K under spread, counting the jobs this node owns', () => {
    const c = gossip({ distribution: 'spread', leader: null, is_leader: false });
    const jobs = [
      job('a', { clusterPolicy: 'Leader', clusterOwner: 'node-a' }),
      job('b', { clusterPolicy: 'Leader', clusterOwner: 'node-b' }),
      job('c', { clusterPolicy: 'PreferLeader', clusterOwner: 'node-a' }),
      job('d', { clusterPolicy: 'EveryNode' }),
    ];
    expect(summaryLine(c, jobs)).toBe(
      'node-a · 2/2 agreed · quorum ok (need 2) · spread (per-job owner) · owns 2',
    );
    const lost = gossip({ distribution: 'spread', quorate: false, leader: null, is_leader: false });
    expect(summaryLine(lost, [job('a', { clusterOwner: null })])).toBe(
      'node-a · 2/2 agreed · quorum lost (need 2) · spread (no quorum) · owns 0',
    );
  });

  it('stops after the agreement count when the cluster only observes', () => {
    expect(summaryLine(gossip({ elect_leader: false, leader: null, is_leader: false }), [])).toBe(
      'node-a · 2/2 agreed',
    );
  });

  it('names the lease backend and the role for lease backends', () => {
    expect(summaryLine(lease({ is_leader: false, leader: 'node-b' }), [])).toBe(
      'node-a · filesystem lease · follower (leader: node-b)',
    );
  });
});

describe('conflict notes', () => {
  it('name the duplicate names, the sizes and the policies', () => {
    const c = gossip({
      conflict: true,
      conflict_names: ['node-b', 'node-c'],
      size_conflict: true,
      conflicting_sizes: [4, 5],
      policy_conflict: true,
      conflicting_policies: ["distribution 'spread' != 'single-leader'", 'electLeader False != True'],
    });
    const notes = conflictNotes(c);
    expect(notes).toHaveLength(3);
    expect(notes[0]).toContain('duplicate nodeName: node-b, node-c');
    expect(notes[1]).toContain('cluster size mismatch: peers declare 4, 5, this node 3');
    expect(notes[2]).toContain("distribution 'spread' != 'single-leader'; electLeader False != True");
    for (const n of notes) expect(n).toContain('Leader jobs paused');
    expect(conflictNotes(gossip())).toEqual([]);
  });
});

describe('peer dots', () => {
  it('colour by status with drifted, untrusted and conflict as bad', () => {
    expect(peerTone('agreed')).toBe('good');
    expect(peerTone('syncing')).toBe('warn');
    for (const s of ['drifted', 'untrusted', 'conflict']) expect(peerTone(s)).toBe('bad');
    expect(peerTone('unreachable')).toBe('gone');
    expect(peerTone('self')).toBe('self');
    expect(peerTone('unknown')).toBe('faint');
    expect(peerTone('something-new')).toBe('faint');
  });

  it('tooltip carries host, status, last seen and last error', () => {
    const tip = peerTooltip({
      ...peer('node-b:8443', 'unreachable'),
      last_seen: '2026-12-01T06:00:00Z',
      last_error: 'connect ECONNREFUSED',
    });
    expect(tip).toContain('node-b:8443 · unreachable');
    expect(tip).toContain('last seen 2026-12-01T06:00:00Z');
    expect(tip).toContain('last error: connect ECONNREFUSED');
    expect(peerTooltip(peer('node-c:8443', 'unknown'))).toContain('last seen never');
  });
});

describe('Owner column', () => {
  it('shows under spread or when any job carries clusterOwner, not otherwise', () => {
    const plain = [job('a'), job('b', { clusterPolicy: 'Leader' })];
    expect(showOwnerColumn(null, plain)).toBe(false);
    expect(showOwnerColumn({ enabled: false, peers: [] }, plain)).toBe(false);
    expect(showOwnerColumn(gossip(), plain)).toBe(false);
    expect(showOwnerColumn(gossip({ distribution: 'spread' }), plain)).toBe(true);
    expect(showOwnerColumn(null, [job('a', { clusterOwner: null })])).toBe(true);
  });

  it('cells: owner (self when this node), no quorum, all nodes, dash', () => {
    expect(ownerCell(job('a', { clusterOwner: 'node-a' }), 'node-a')).toEqual({
      text: 'node-a',
      kind: 'self',
    });
    expect(ownerCell(job('a', { clusterOwner: 'node-b' }), 'node-a')).toEqual({
      text: 'node-b',
      kind: 'node',
    });
    expect(ownerCell(job('a', { clusterOwner: null }), 'node-a')).toEqual({
      text: 'no quorum',
      kind: 'none',
    });
    expect(ownerCell(job('a', { clusterPolicy: 'EveryNode' }), 'node-a')).toEqual({
      text: 'all nodes',
      kind: 'all',
    });
    expect(ownerCell(job('a', { clusterPolicy: 'Leader' }), 'node-a')).toEqual({ text: '—', kind: 'other' });
    expect(ownerCell(job('a'), null)).toEqual({ text: '—', kind: 'other' });
  });

  it('sorts real owners alphabetically, then no quorum, then all nodes, then the rest', () => {
    const jobs = [
      job('j1'),
      job('j2', { clusterPolicy: 'EveryNode' }),
      job('j3', { clusterOwner: null }),
      job('j4', { clusterOwner: 'node-c' }),
      job('j5', { clusterOwner: 'node-a' }),
      job('j6', { clusterOwner: 'node-b' }),
      job('j7', { clusterOwner: null }),
    ];
    const cells = jobs.map((j) => ownerCell(j, 'node-b')).sort(compareOwners);
    expect(cells.map((c) => c.text)).toEqual([
      'node-a',
      'node-b',
      'node-c',
      'no quorum',
      'no quorum',
      'all nodes',
      '—',
    ]);
    const rows = sortRows(toRows(jobs, 0), 'owner', false);
    expect(rows.map((r) => r.job.name)).toEqual(['j5', 'j6', 'j4', 'j3', 'j7', 'j2', 'j1']);
    const desc = sortRows(toRows(jobs, 0), 'owner', true);
    expect(desc.map((r) => r.job.name)).toEqual(['j1', 'j2', 'j3', 'j7', 'j4', 'j6', 'j5']);
  });
});

describe('cluster alert', () => {
  it('is absent while healthy, without a cluster, and when the cluster only observes', () => {
    expect(clusterAlert(null)).toBeNull();
    expect(clusterAlert({ enabled: false, peers: [] })).toBeNull();
    expect(clusterAlert(gossip())).toBeNull();
    expect(clusterAlert(gossip({ elect_leader: false, quorate: false }))).toBeNull();
    expect(clusterAlert(lease())).toBeNull();
  });

  it('raises on lost quorum with the agreeing count and what is needed', () => {
    const a = clusterAlert(
      gossip({
        quorate: false,
        peers: [peer('node-b:8443', 'unreachable'), peer('node-c:8443', 'unreachable')],
      }),
    );
    expect(a?.title).toBe('no quorum — Leader jobs paused');
    expect(a?.detail).toBe('1 of 3 nodes agree, 2 needed');
  });

  it('raises on a conflict, naming it, even with observe-only election', () => {
    const a = clusterAlert(gossip({ conflict: true, conflict_names: ['node-b'], elect_leader: false }));
    expect(a?.title).toBe('conflict — Leader jobs paused');
    expect(a?.detail).toContain('duplicate nodeName: node-b');
  });

  it('says the lease store is unreachable on a lease backend without a fresh read', () => {
    expect(clusterAlert(lease({ quorate: false }))?.title).toBe(
      'lease store unreachable — Leader jobs failing closed',
    );
  });
});

describe('fleet matrix', () => {
  const now = Date.parse('2026-12-01T06:10:00Z');
  const fleet: ApiFleet = {
    enabled: true,
    backend: 'gossip',
    node_name: 'node-a',
    distribution: 'spread',
    elect_leader: true,
    interval: 1,
    nodes: [
      {
        node_name: 'node-a',
        host: 'node-a:8443',
        self: true,
        status: 'self',
        as_of: '2026-12-01T06:10:00Z',
        truncated: false,
        node_stats: null,
        jobs: {
          beta: { running: true, enabled: true, scheduled_in: null, last: null },
          alpha: {
            running: false,
            enabled: true,
            scheduled_in: 5,
            last: { outcome: 'failure', finished_at: '2026-12-01T06:08:00Z', duration: 1, exit_code: 2 },
          },
        },
      },
      {
        node_name: 'node-b',
        host: 'node-b:8443',
        self: false,
        status: 'agreed',
        as_of: '2026-12-01T06:09:54Z',
        truncated: false,
        node_stats: null,
        jobs: {
          alpha: {
            running: false,
            enabled: true,
            scheduled_in: 5,
            last: { outcome: 'success', finished_at: '2026-12-01T06:09:30Z', duration: 1, exit_code: 0 },
          },
          gamma: { running: false, enabled: false, scheduled_in: null, last: null },
        },
      },
      {
        node_name: 'node-c',
        host: 'node-c:8443',
        self: false,
        status: 'unreachable',
        as_of: null,
        truncated: false,
        node_stats: null,
        jobs: null,
      },
    ],
  };

  it('unions and sorts the job names of every node', () => {
    expect(fleetJobNames(fleet)).toEqual(['alpha', 'beta', 'gamma']);
  });

  it('cells read running, off, idle, the last outcome with its age, or absent', () => {
    const [a, b] = fleet.nodes;
    expect(fleetCell(a!.jobs!.beta, now)).toEqual({ text: 'running', tone: 'run', age: '' });
    expect(fleetCell(a!.jobs!.alpha, now)).toEqual({ text: 'failure', tone: 'fail', age: '2m' });
    expect(fleetCell(b!.jobs!.alpha, now)).toEqual({ text: 'ok', tone: 'ok', age: '30s' });
    expect(fleetCell(b!.jobs!.gamma, now)).toEqual({ text: 'off', tone: 'off', age: '' });
    expect(fleetCell({ running: false, enabled: true, scheduled_in: 1, last: null }, now).tone).toBe('idle');
    expect(fleetCell(undefined, now).tone).toBe('none');
  });

  it('node heads and totals', () => {
    expect(fleetNodeStatus(fleet.nodes[0]!, now)).toBe('this node · live');
    expect(fleetNodeStatus(fleet.nodes[1]!, now)).toBe('agreed · 6s ago');
    expect(fleetNodeStatus(fleet.nodes[2]!, now)).toBe('unreachable');
    expect(fleetTotals(fleet)).toEqual({ nodes: 3, jobs: 3, running: 1, failing: 1 });
    expect(failingSomewhere(fleet, 'alpha')).toBe(true);
    expect(failingSomewhere(fleet, 'beta')).toBe(false);
  });
});

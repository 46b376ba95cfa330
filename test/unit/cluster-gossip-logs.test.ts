import { describe, expect, it } from 'vitest';
import { type ElectionPeer, elect } from '../../src/cluster/election.ts';
import { classifyError } from '../../src/cluster/gossip/client.ts';
import { conflictKey, type RoundSnapshot, roundLogs } from '../../src/cluster/gossip/transitions.ts';
import type { PeerStatus } from '../../src/cluster/types.ts';

const peer = (name: string, status: PeerStatus, over: Partial<ElectionPeer> = {}): ElectionPeer => ({
  host: `${name}:1`,
  status,
  nodeName: name,
  instanceId: name.padEnd(32, '0'),
  clusterSize: 3,
  distribution: 'single-leader',
  electLeader: true,
  members: [{ nodeName: 'node-a', instanceId: 'a'.repeat(32), agreed: true }],
  mutualAgreeing: ['node-a'],
  quorateVouched: [],
  ...over,
});

const electWith = (peers: ElectionPeer[]) =>
  elect({
    me: 'node-a',
    instanceId: 'a'.repeat(32),
    distribution: 'single-leader',
    electLeader: true,
    peers,
    completedRounds: 5,
  });

function snap(peers: ElectionPeer[]): RoundSnapshot {
  const e = electWith(peers);
  return {
    statuses: new Map(peers.map((p) => [p.host, { status: p.status, error: 'boom', jobSetId: 'v1:x' }])),
    quorate: e.quorate,
    leader: e.leader,
    conflictKey: conflictKey(e),
  };
}

describe('round logs (spec 05 §5.7)', () => {
  it('first round: quorum and leadership at INFO', () => {
    const peers = [peer('node-b', 'agreed'), peer('node-c', 'agreed')];
    expect(roundLogs(null, snap(peers), electWith(peers))).toEqual([
      { level: 'info', message: 'cluster: quorum formed (3 of 3, need 2)' },
      { level: 'info', message: 'cluster: this node is the leader' },
    ]);
  });

  it('WARNING on transitions to unreachable, untrusted, drifted; ERROR on conflict onset only', () => {
    const ok = [peer('node-b', 'agreed'), peer('node-c', 'agreed')];
    const bad = [peer('node-b', 'unreachable'), peer('node-c', 'agreed', { clusterSize: 4 })];
    const logs = roundLogs(snap(ok), snap(bad), electWith(bad));
    expect(logs).toEqual([
      { level: 'warning', message: 'cluster: peer node-b:1 is unreachable (was agreed): boom' },
      {
        level: 'error',
        message: 'cluster: conflict (peers declare cluster sizes 4 (ours 3)); Leader jobs stand down',
      },
      { level: 'info', message: 'cluster: quorum lost (1 of 3, need 2)' },
      { level: 'info', message: 'cluster: no leader' },
    ]);
    expect(roundLogs(snap(bad), snap(bad), electWith(bad))).toEqual([]);
    const drift = [peer('node-b', 'agreed'), peer('node-c', 'drifted')];
    expect(roundLogs(snap(ok), snap(drift), electWith(drift))[0]).toEqual({
      level: 'warning',
      message: 'cluster: peer node-c:1 is drifted (was agreed): its job set v1:x differs from ours',
    });
  });
});

describe('round logs of an observe-only mesh', () => {
  it('say nothing about quorum or leadership, and gate nothing on conflict', () => {
    const peers = [
      peer('node-b', 'agreed', { electLeader: false }),
      peer('node-c', 'agreed', { electLeader: false, clusterSize: 9 }),
    ];
    const e = elect({
      me: 'node-a',
      instanceId: 'a'.repeat(32),
      distribution: 'single-leader',
      electLeader: false,
      peers,
      completedRounds: 5,
    });
    const after: RoundSnapshot = {
      statuses: new Map(peers.map((p) => [p.host, { status: p.status, error: null, jobSetId: 'v1:x' }])),
      quorate: e.quorate,
      leader: e.leader,
      conflictKey: conflictKey(e),
    };
    expect(roundLogs(null, after, e)).toEqual([
      {
        level: 'error',
        message: 'cluster: conflict (peers declare cluster sizes 9 (ours 3)); observe-only, nothing is gated',
      },
    ]);
  });
});

describe('TLS error classification (spec 05 §14)', () => {
  it.each([
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'untrusted'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'untrusted'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'untrusted'],
    ['CERT_HAS_EXPIRED', 'untrusted'],
    ['ERR_SSL_TLSV1_ALERT_UNKNOWN_CA', 'untrusted'],
    ['ECONNREFUSED', 'unreachable'],
    ['ECONNRESET', 'unreachable'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'unreachable'],
  ])('%s is %s', (code, status) => {
    expect(classifyError(Object.assign(new Error('x'), { code }))).toBe(status);
  });

  it('an error without a code is unreachable', () => {
    expect(classifyError(new Error('timed out'))).toBe('unreachable');
  });
});

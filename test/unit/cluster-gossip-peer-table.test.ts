import { describe, expect, it } from 'vitest';
import { isSelfListing, peerHosts, splitHostPort } from '../../src/cluster/gossip/address.ts';
import type { ReceivedBody } from '../../src/cluster/gossip/body.ts';
import {
  blankPeer,
  currentStats,
  observeFailure,
  observeSuccess,
  type PeerRecord,
  summariesAt,
  toPeerReport,
  withStats,
} from '../../src/cluster/gossip/peer-table.ts';
import { fleetMeshSettings, gossipSettings } from '../../src/cluster/gossip/settings.ts';

const ME = 'node-a';
const MY_ID = 'a'.repeat(32);
const who = { me: ME, instanceId: MY_ID, jobSetId: 'v1:ours', driftAfter: 2, now: 1_000_000 };

function body(over: Partial<ReceivedBody> = {}): ReceivedBody {
  return {
    nodeName: 'node-b',
    jobSetId: 'v1:ours',
    schemeVersion: 'v1',
    instanceId: 'b'.repeat(32),
    clusterSize: 3,
    distribution: 'spread',
    electLeader: true,
    members: [{ nodeName: ME, instanceId: MY_ID, agreed: true }],
    mutualAgreeing: [ME],
    quorateVouched: [ME],
    ranRebootJobs: ['boot'],
    jobSummaries: {},
    jobSummariesTruncated: false,
    ...over,
  };
}

const fresh = () => blankPeer('node-b:8443');

describe('peer status machine (spec 05 §5.4)', () => {
  it('starts unknown', () => {
    expect(fresh()).toMatchObject({ status: 'unknown', lastSeen: null, mismatchStreak: 0 });
  });

  it('same job set: agreed, streak reset', () => {
    const r = observeSuccess({ ...fresh(), mismatchStreak: 1 }, body(), who);
    expect(r).toMatchObject({ status: 'agreed', mismatchStreak: 0, lastSeen: who.now, lastError: null });
  });

  it('different job set: syncing, then drifted at driftAfter; failures neither advance nor reset', () => {
    let r: PeerRecord = observeSuccess(fresh(), body({ jobSetId: 'v1:theirs' }), who);
    expect(r).toMatchObject({ status: 'syncing', mismatchStreak: 1 });
    r = observeFailure(r, 'unreachable', 'ECONNREFUSED');
    expect(r).toMatchObject({ status: 'unreachable', mismatchStreak: 1 });
    r = observeSuccess(r, body({ jobSetId: 'v1:theirs' }), who);
    expect(r).toMatchObject({ status: 'drifted', mismatchStreak: 2 });
  });

  it('another scheme version drifts at once', () => {
    expect(observeSuccess(fresh(), body({ schemeVersion: 'v2' }), who).status).toBe('drifted');
  });

  it('my name with another instance id: conflict, streak untouched', () => {
    const r = observeSuccess({ ...fresh(), mismatchStreak: 1 }, body({ nodeName: ME }), who);
    expect(r).toMatchObject({ status: 'conflict', mismatchStreak: 1 });
  });

  it('my name and my instance (or none): self, latched through later failures', () => {
    const r = observeSuccess(
      { ...fresh(), mismatchStreak: 1 },
      body({ nodeName: ME, instanceId: MY_ID }),
      who,
    );
    expect(r).toMatchObject({ status: 'self', mismatchStreak: 0, selfLatch: true });
    expect(observeFailure(r, 'unreachable', 'x').status).toBe('self');
    expect(observeSuccess(fresh(), body({ nodeName: ME, instanceId: null }), who).status).toBe('self');
    expect(observeFailure(observeSuccess(r, body(), who), 'untrusted', 'x').status).toBe('untrusted');
  });

  it('a failure drops the gossiped sets and records the error', () => {
    const r = observeFailure(observeSuccess(fresh(), body(), who), 'untrusted', 'CERT_HAS_EXPIRED');
    expect(r).toMatchObject({
      status: 'untrusted',
      lastError: 'CERT_HAS_EXPIRED',
      members: [],
      mutualAgreeing: [],
      quorateVouched: [],
      ranRebootJobs: [],
      lastSeen: who.now,
    });
  });

  it('stats expire after their time to live; the report uses wire names', () => {
    const r = withStats(observeSuccess(fresh(), body(), who), { cpu_percent: 1 } as never, 100);
    expect(currentStats(r, 100 + 3000, 3000)).toEqual({ cpu_percent: 1 });
    expect(currentStats(r, 100 + 3001, 3000)).toBeNull();
    expect(withStats(r, null, 5000).statsAt).toBe(100);
    expect(toPeerReport(r, null)).toEqual({
      host: 'node-b:8443',
      status: 'agreed',
      job_set_id: 'v1:ours',
      node_name: 'node-b',
      last_seen: new Date(who.now).toISOString(),
      last_error: null,
      mismatch_streak: 0,
      node_stats: null,
    });
  });

  it('job summaries count down from when they were read, and a 304 replay keeps that reading', () => {
    const summary = { running: false, enabled: true, scheduled_in: 60, last: null };
    const r = observeSuccess(fresh(), body({ jobSummaries: { j: summary } }), who);
    expect(summariesAt(r, who.now + 15_000).j?.scheduled_in).toBe(45);
    const replayed = observeSuccess(
      r,
      body({ jobSummaries: { j: summary } }),
      { ...who, now: who.now + 20_000 },
      true,
    );
    expect(summariesAt(replayed, who.now + 20_000).j?.scheduled_in).toBe(40);
  });
});

describe('peer addresses and the self-listing drop rules (spec 05 §2.2)', () => {
  it('splits host:port with bracketed IPv6', () => {
    expect(splitHostPort('[::1]:8443')).toEqual({ host: '::1', port: 8443 });
    expect(splitHostPort('a.example:1')).toEqual({ host: 'a.example', port: 1 });
    expect(splitHostPort(':8443')).toEqual({ host: '', port: 8443 });
    expect(splitHostPort('::1:8443')).toBeNull();
    expect(splitHostPort('host:0')).toBeNull();
  });

  it('drops exact duplicates and provable self entries only', () => {
    expect(peerHosts('10.0.0.1:8443', ['b:8443', 'b:8443', '10.0.0.1:8443', 'c:8443'], 'node-a')).toEqual([
      'b:8443',
      'c:8443',
    ]);
    expect(isSelfListing('node-a:8443', '0.0.0.0:8443', 'node-a')).toBe(true);
    expect(isSelfListing('node-a:9443', '0.0.0.0:8443', 'node-a')).toBe(false);
    expect(isSelfListing('node-a:8443', '10.0.0.1:8443', 'node-a')).toBe(false);
    expect(isSelfListing('127.0.0.1:8443', '0.0.0.0:8443', 'node-a')).toBe(true);
    expect(isSelfListing('[::1]:8443', '0.0.0.0:8443', 'node-a')).toBe(false);
    expect(isSelfListing('[::1]:8443', '[::]:8443', 'node-a')).toBe(true);
    expect(isSelfListing('127.0.0.1:8443', ':8443', 'node-a')).toBe(true);
    // Two loopback aliases are two nodes (the local fleet runs that way).
    expect(isSelfListing('127.0.0.12:8443', '127.0.0.11:8443', 'node-a')).toBe(false);
  });
});

describe('gossip settings', () => {
  const tls = { ca: 'ca.pem', cert: 'a.pem', key: 'a.key' };
  it('resolve defaults and drop self listings', () => {
    const s = gossipSettings(
      {
        listen: '0.0.0.0:8443',
        tls,
        peers: [{ host: 'node-a:8443' }, { host: 'b:8443' }, { host: 'b:8443' }],
      },
      'node-a',
    );
    expect(s).toMatchObject({
      peers: ['b:8443'],
      intervalS: 30,
      driftAfter: 3,
      connectTimeoutS: 10,
      electLeader: false,
      distribution: 'single-leader',
      shareNodeStats: true,
    });
  });

  it('the fleet mesh reads the observability block and nothing else, election off', () => {
    const lease = {
      backend: 'filesystem' as const,
      electLeader: true,
      distribution: 'spread' as const,
      connectTimeout: 4,
      observability: {
        listen: '10.0.0.1:8443',
        tls,
        peers: [{ host: 'b:8443' }],
        nodeName: 'mesh-a',
        interval: 5,
      },
    };
    expect(fleetMeshSettings(lease, 'node-a')).toMatchObject({
      nodeName: 'mesh-a',
      listen: '10.0.0.1:8443',
      peers: ['b:8443'],
      intervalS: 5,
      connectTimeoutS: 4,
      electLeader: false,
      distribution: 'single-leader',
    });
    // One shape: the mesh lives in the observability block, never at the top of the section.
    const topLevel = {
      backend: 'gossip' as const,
      electLeader: true,
      listen: '10.0.0.1:8443',
      tls,
      peers: [],
    };
    expect(() => fleetMeshSettings(topLevel, 'node-a')).toThrow(/an 'observability' block/);
    const noPeers = { ...lease, observability: { listen: '10.0.0.1:8443', tls } };
    expect(() => fleetMeshSettings(noPeers, 'node-a')).toThrow(/'observability\.peers'/);
  });
});

// The shared lease semantics (spec 05 §7) on a fake clock: leadership deadlines, freshness,
// the PreferLeader availability rule, holder tokens and the /cluster body of a lease backend.
import { describe, expect, it } from 'vitest';
import {
  displayHolder,
  expiryIso,
  holderToken,
  LeaseState,
  leaseCadence,
  leaseClusterReport,
  processTokenSuffix,
  UNKNOWN_HOLDER,
} from '../../src/cluster/lease-state.ts';
import { FakeClock } from '../../src/util/clock.ts';
import { noConflicts } from '../helpers/no-conflicts.ts';

const T0 = 1_800_000_000_000;
const ME = holderToken('node-a', 'aaaaaaaaaaaa');
const OTHER = holderToken('node-b', 'bbbbbbbbbbbb');

function setup(ttlSeconds = 3) {
  const clock = new FakeClock(T0);
  const state = new LeaseState({ clock, token: ME, ttlSeconds });
  const wall = () => clock.now() / 1000;
  return { clock, state, wall };
}

describe('holder tokens', () => {
  it('is <identity>#<12 hex>, one suffix per process', () => {
    const s = processTokenSuffix();
    expect(s).toMatch(/^[0-9a-f]{12}$/);
    expect(processTokenSuffix()).toBe(s);
    expect(holderToken('meridian-a')).toBe(`meridian-a#${s}`);
    expect(() => holderToken('x', 'nothex')).toThrow();
  });

  it('display strips the #suffix only', () => {
    expect(displayHolder('meridian-a#0123456789ab')).toBe('meridian-a');
    expect(displayHolder('we#ird#0123456789ab')).toBe('we#ird');
    expect(displayHolder('plain')).toBe('plain');
    expect(displayHolder(UNKNOWN_HOLDER)).toBe('<unknown holder>');
    expect(displayHolder('etcd-name#short')).toBe('etcd-name#short');
  });
});

describe('leaseCadence', () => {
  it('follows spec 05 §8.3 for the filesystem backend', () => {
    expect(leaseCadence(15, 10)).toEqual({ renewMs: 5000, roundMs: 9000, opMs: 2250 });
    expect(leaseCadence(3, 10)).toEqual({ renewMs: 1000, roundMs: 1000, opMs: 500 });
    expect(leaseCadence(60, 1)).toEqual({ renewMs: 20_000, roundMs: 39_000, opMs: 1000 });
  });

  it('takes etcd’s round/5 without a floor', () => {
    const c = leaseCadence(9, 10, 5, 0);
    expect(c.renewMs).toBe(3000);
    expect(c.roundMs).toBe(5000);
    expect(c.opMs).toBe(1000);
  });
});

describe('LeaseState leadership', () => {
  it('starts as a non-quorate follower with no leader', () => {
    const { state } = setup();
    expect(state.isLeader()).toBe(false);
    expect(state.isQuorate()).toBe(false);
    expect(state.leaderName()).toBeNull();
    expect(state.role()).toBe('no quorum');
    expect(state.held()).toBeNull();
  });

  it('leads from the write until t0 + ttl − 1 s, with no I/O', async () => {
    const { clock, state, wall } = setup(3);
    await clock.advance(500);
    const t0 = state.sampleWriteStart();
    await clock.advance(300); // the write itself took 300 ms
    state.won(t0, { holder: ME, fence: 1, expiresAt: wall() + 3 });
    expect(state.isLeader()).toBe(true);
    expect(state.leaderName()).toBe('node-a');
    expect(state.role()).toBe('leader');
    expect(state.leaderDeadline()).toBe(t0 + 2000);
    await clock.advance(2000 - 300 - 1);
    expect(state.isLeader()).toBe(true);
    await clock.advance(1);
    expect(state.isLeader()).toBe(false); // self-demoted exactly at the deadline
    expect(state.isQuorate()).toBe(true); // the observation (at t0) is fresh for ttl
    expect(state.role()).toBe('follower');
    await clock.advance(1000);
    expect(state.isQuorate()).toBe(false);
    expect(state.role()).toBe('no quorum');
    expect(state.leaderName()).toBeNull();
  });

  it('a wall-clock jump changes nothing (monotonic deadlines)', async () => {
    const { clock, state } = setup(3);
    state.won(state.sampleWriteStart(), { holder: ME, fence: 1, expiresAt: 0 });
    clock.jumpWall(-3_600_000);
    expect(state.isLeader()).toBe(true);
    clock.jumpWall(7_200_000);
    expect(state.isLeader()).toBe(true);
    await clock.advance(2000);
    expect(state.isLeader()).toBe(false);
  });

  it('a renew extends from the new sample, not the old deadline', async () => {
    const { clock, state } = setup(3);
    state.won(state.sampleWriteStart(), { holder: ME, fence: 4, expiresAt: 0 });
    await clock.advance(1000);
    const t1 = state.sampleWriteStart();
    state.won(t1, { holder: ME, fence: 4, expiresAt: 0 });
    await clock.advance(1999);
    expect(state.isLeader()).toBe(true);
    await clock.advance(1);
    expect(state.isLeader()).toBe(false);
  });

  it('lost() ends leadership at once and forgets our lease', () => {
    const { state } = setup();
    state.won(state.sampleWriteStart(), { holder: ME, fence: 1, expiresAt: 0 });
    state.lost();
    expect(state.isLeader()).toBe(false);
    expect(state.held()).toBeNull();
    expect(state.holder()).toBeNull();
    expect(state.isQuorate()).toBe(true);
  });

  it('observing another holder demotes us', () => {
    const { state } = setup();
    state.won(state.sampleWriteStart(), { holder: ME, fence: 1, expiresAt: 0 });
    state.observed({ holder: OTHER, fence: 2, expiresAt: 0 });
    expect(state.isLeader()).toBe(false);
    expect(state.held()).toBeNull();
    expect(state.leaderName()).toBe('node-b');
  });

  it('observing our own token keeps our lease', () => {
    const { state } = setup();
    state.won(state.sampleWriteStart(), { holder: ME, fence: 1, expiresAt: 0 });
    state.observed({ holder: ME, fence: 1, expiresAt: 0 });
    expect(state.isLeader()).toBe(true);
  });

  it('an older observation never moves freshness back', async () => {
    const { clock, state } = setup(3);
    await clock.advance(2000);
    const late = clock.monotonic();
    state.observed(null, late);
    state.observed(null, late - 1500);
    await clock.advance(2999);
    expect(state.isQuorate()).toBe(true);
    await clock.advance(1);
    expect(state.isQuorate()).toBe(false);
  });

  it('adopt() takes back a lease under our own token only, and does not lead by itself', () => {
    const { state } = setup();
    state.observed({ holder: ME, fence: 7, expiresAt: 0 });
    state.adopt({ holder: ME, fence: 7, expiresAt: 0 });
    expect(state.held()).toEqual({ holder: ME, fence: 7, expiresAt: 0 });
    expect(state.isLeader()).toBe(false);
    expect(() => state.adopt({ holder: OTHER, fence: 7, expiresAt: 0 })).toThrow();
  });

  it('a narrower granted ttl shortens deadlines and freshness', async () => {
    const { clock, state } = setup(10);
    state.setEffectiveTtl(4);
    expect(state.ttlSeconds).toBe(4);
    state.won(state.sampleWriteStart(), { holder: ME, fence: '99', expiresAt: null });
    await clock.advance(3000);
    expect(state.isLeader()).toBe(false);
    await clock.advance(1000);
    expect(state.isQuorate()).toBe(false);
    expect(() => state.setEffectiveTtl(0)).toThrow();
    expect(() => new LeaseState({ clock, token: ME, ttlSeconds: 0 })).toThrow();
  });
});

describe('LeaseState.decide', () => {
  const names = ['job-a', 'dag:etl', ''];

  it('Leader runs only while leading; the same answer for every name', async () => {
    const { clock, state } = setup(3);
    state.won(state.sampleWriteStart(), { holder: ME, fence: 1, expiresAt: 0 });
    for (const n of names) expect(state.decide(n, 'Leader')).toEqual({ run: true });
    await clock.advance(2000);
    for (const n of names)
      expect(state.decide(n, 'Leader')).toEqual({
        run: false,
        reason: 'lease deadline passed before it was renewed',
        transient: true,
      });
    await clock.advance(1000);
    expect(state.decide('job-a', 'Leader')).toEqual({
      run: false,
      reason: 'no quorum (lease store unreachable)',
      transient: true,
      noQuorum: true,
    });
  });

  it('Leader on a follower: a named holder ends retries, no holder defers them', () => {
    const { state } = setup();
    state.observed({ holder: OTHER, fence: 3, expiresAt: 0 });
    expect(state.decide('j', 'Leader')).toEqual({
      run: false,
      reason: 'not the leader (leader: node-b)',
      transient: false,
    });
    state.observed(null);
    expect(state.decide('j', 'Leader')).toEqual({
      run: false,
      reason: 'no lease holder yet',
      transient: true,
    });
    state.observedUnknownWinner();
    expect(state.decide('j', 'Leader')).toEqual({
      run: false,
      reason: 'not the leader (leader: <unknown holder>)',
      transient: false,
    });
  });

  it('PreferLeader: runs when not quorate', () => {
    const { state } = setup();
    for (const n of names) expect(state.decide(n, 'PreferLeader')).toEqual({ run: true });
  });

  it('PreferLeader: runs when we hold it, and as a self-demoted former holder', async () => {
    const { clock, state } = setup(3);
    state.won(state.sampleWriteStart(), { holder: ME, fence: 1, expiresAt: 0 });
    expect(state.decide('j', 'PreferLeader')).toEqual({ run: true });
    await clock.advance(2500); // deadline passed, still quorate, still believe we won
    expect(state.isLeader()).toBe(false);
    expect(state.isQuorate()).toBe(true);
    expect(state.decide('j', 'PreferLeader')).toEqual({ run: true });
  });

  it('PreferLeader: runs when no holder is known, defers to a named or unknown holder', async () => {
    const { clock, state } = setup(3);
    state.observed(null);
    expect(state.decide('j', 'PreferLeader')).toEqual({ run: true });
    state.observed({ holder: OTHER, fence: 1, expiresAt: 0 });
    expect(state.decide('j', 'PreferLeader')).toEqual({
      run: false,
      reason: 'not the leader (leader: node-b)',
      transient: false,
    });
    state.observedUnknownWinner();
    expect(state.decide('j', 'PreferLeader').run).toBe(false);
    expect(state.leaderName()).toBe(UNKNOWN_HOLDER);
    await clock.advance(3000); // the observation goes stale: isolated ⇒ run
    expect(state.decide('j', 'PreferLeader')).toEqual({ run: true });
  });

  it('PreferLeader compares tokens, never display names', () => {
    const { state } = setup();
    state.observed({ holder: holderToken('node-a', 'cccccccccccc'), fence: 1, expiresAt: 0 });
    expect(state.leaderName()).toBe('node-a');
    expect(state.decide('j', 'PreferLeader').run).toBe(false);
    state.observed({ holder: ME, fence: 1, expiresAt: 0 });
    expect(state.decide('j', 'PreferLeader').run).toBe(true);
  });
});

describe('leaseClusterReport', () => {
  it('is size 1, quorum 1, no peers, no conflicts, single-leader, elect_leader', () => {
    const { state, wall } = setup();
    const lease = { path: '/x', electionName: 'cluster/leader' };
    const empty = leaseClusterReport('filesystem', 'node-a', state, lease);
    expect(empty).toEqual({
      backend: 'filesystem',
      node_name: 'node-a',
      cluster_size: 1,
      quorum: 1,
      elect_leader: true,
      distribution: 'single-leader',
      ...noConflicts(),
      quorate: false,
      leader: null,
      is_leader: false,
      peers: [],
      lease,
      fleet: false,
    });
    state.won(state.sampleWriteStart(), { holder: ME, fence: 1, expiresAt: wall() + 3 });
    const leading = leaseClusterReport('etcd', 'node-a', state, {}, true);
    expect(leading).toMatchObject({
      backend: 'etcd',
      quorate: true,
      leader: 'node-a',
      is_leader: true,
      fleet: true,
    });
  });

  it('expiryIso renders epoch seconds, null for released or unknown', () => {
    expect(expiryIso(1_800_000_000.5)).toBe('2027-01-15T08:00:00.500Z');
    expect(expiryIso(0)).toBeNull();
    expect(expiryIso(null)).toBeNull();
    expect(expiryIso(undefined)).toBeNull();
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  availableOwnerOf,
  decide,
  type ElectionPeer,
  type ElectionView,
  effectiveSize,
  elect,
  ownerOf,
  pyRepr,
  quorumOf,
  twinDefers,
} from '../../src/cluster/election.ts';
import { rendezvousOwner } from '../../src/cluster/rendezvous.ts';

const ME = 'node-a';
const MY_ID = '5'.repeat(32);
const idOf = (name: string) => Buffer.from(name).toString('hex').padEnd(32, '0').slice(0, 32);

/** An agreed, mutual peer of a fleet of size n, unless overridden. */
function peer(name: string, over: Partial<ElectionPeer> = {}): ElectionPeer {
  return {
    host: `${name}:8443`,
    status: 'agreed',
    nodeName: name,
    instanceId: idOf(name),
    clusterSize: null,
    distribution: 'single-leader',
    electLeader: true,
    members: [{ nodeName: ME, instanceId: MY_ID, agreed: true }],
    mutualAgreeing: [],
    quorateVouched: [],
    ...over,
  };
}

function view(peers: ElectionPeer[], over: Partial<ElectionView> = {}): ElectionView {
  const base: ElectionView = {
    me: ME,
    instanceId: MY_ID,
    distribution: 'single-leader',
    electLeader: true,
    peers,
    completedRounds: 5,
    ...over,
  };
  // Peers declare the fleet's size unless a test says otherwise.
  const n = effectiveSize(base.peers);
  base.peers = base.peers.map((p) =>
    p.clusterSize === null && p.status === 'agreed' ? { ...p, clusterSize: n } : p,
  );
  base.peers = base.peers.map((p) =>
    p.distribution === 'single-leader' && base.distribution === 'spread'
      ? { ...p, distribution: 'spread' }
      : p,
  );
  return base;
}

describe('effective N and Q', () => {
  it('Q = floor(N/2) + 1', () => {
    expect([1, 3, 5, 7, 9, 10].map(quorumOf)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('excludes self entries and a second address of one instance', () => {
    const peers = [
      peer('node-b'),
      peer('node-b', { host: 'other:8443' }),
      peer(ME, { status: 'self', instanceId: MY_ID }),
      peer('node-c', { status: 'unreachable' }),
    ];
    expect(effectiveSize(peers)).toBe(3);
    expect(elect(view(peers)).n).toBe(3);
  });
});

describe('agreeing set A', () => {
  it('counts only mutual, same-size, same-policy agreed peers, once per instance', () => {
    const e = elect(
      view([
        peer('node-b'),
        peer('node-b', { host: 'b2:8443' }),
        peer('node-c', { members: [] }),
        peer('node-d', { members: [{ nodeName: ME, instanceId: MY_ID, agreed: false }] }),
        peer('node-e', { members: null }),
        peer('node-f', { status: 'syncing' }),
        peer('node-g', { clusterSize: 99 }),
        peer('node-h', { distribution: 'spread' }),
        peer('node-i', { electLeader: false }),
        peer('node-j', { nodeName: null }),
      ]),
    );
    expect(e.agreeingNames).toEqual(['node-b', 'node-e']);
    expect(e.n).toBe(10);
    expect(e.q).toBe(6);
    expect(e.quorate).toBe(false);
  });

  it('quorate when self + |A| >= Q', () => {
    expect(elect(view([peer('node-b'), peer('node-c', { status: 'unreachable' })])).quorate).toBe(true);
    expect(
      elect(view([peer('node-b', { status: 'unreachable' }), peer('node-c', { status: 'untrusted' })]))
        .quorate,
    ).toBe(false);
  });
});

describe('eligible set, leader and contenders', () => {
  it('direct eligible: A members that are quorate themselves', () => {
    const e = elect(
      view([
        peer('node-b', { mutualAgreeing: [ME, 'node-c'] }),
        peer('node-c', { mutualAgreeing: [] }),
        peer('node-d', { status: 'unreachable' }),
        peer('node-e', { status: 'unreachable' }),
      ]),
    );
    expect(e.q).toBe(3);
    expect(e.quorate).toBe(true);
    expect(e.directEligible).toEqual(['node-b']);
    expect(e.leader).toBe(ME);
  });

  it('bridge candidates: an unseen name witnessed by >= Q-1 members of A', () => {
    const peers = [
      peer('node-b', { mutualAgreeing: [ME, 'node-c', 'node-0'] }),
      peer('node-c', { mutualAgreeing: [ME, 'node-b', 'node-0'] }),
      peer('node-0', { status: 'unreachable' }),
      peer('node-x', { status: 'unreachable' }),
    ];
    const e = elect(view(peers));
    expect(e.bridgeCandidates).toEqual(['node-0']);
    expect(e.eligible).toEqual(['node-0', 'node-b', 'node-c']);
    // The bridge makes the unseen lower name the leader everywhere.
    expect(e.leader).toBe('node-0');
    const thin = elect(
      view([
        peer('node-b', { mutualAgreeing: [ME, 'node-0'] }),
        peer('node-c', { mutualAgreeing: [ME] }),
        peer('node-0', { status: 'unreachable' }),
        peer('node-x', { status: 'unreachable' }),
      ]),
    );
    expect(thin.bridgeCandidates).toEqual([]);
  });

  it('no leader without quorum; available leader never none', () => {
    const e = elect(
      view([peer('node-0', { status: 'unreachable' }), peer('node-b', { status: 'unreachable' })]),
    );
    expect(e.leader).toBeNull();
    expect(e.availableLeader).toBe(ME);
  });

  it('available contenders come from A members mutual lists', () => {
    const e = elect(
      view(
        [
          peer('node-b', { mutualAgreeing: [ME, 'node-0'], electLeader: false }),
          peer('node-0', { status: 'unreachable' }),
        ],
        { electLeader: false },
      ),
    );
    expect(e.availableContenders).toEqual(['node-0']);
    expect(e.availableLeader).toBe('node-0');
  });

  it('vouched contenders join the owner candidates under spread', () => {
    const peers = [
      peer('node-b', { mutualAgreeing: [ME, 'node-c'], quorateVouched: ['node-v', 'node-c'] }),
      peer('node-c', { mutualAgreeing: [ME, 'node-b'] }),
      peer('node-v', { status: 'unreachable' }),
      peer('node-w', { status: 'unreachable' }),
    ];
    const e = elect(view(peers, { distribution: 'spread' }));
    expect(e.vouchedContenders).toEqual(['node-v']);
    const members = [ME, 'node-b', 'node-c', 'node-v'];
    for (const job of ['a', 'b', 'c', 'd', 'e', 'f'])
      expect(ownerOf(e, job)).toBe(rendezvousOwner(job, members));
    expect(availableOwnerOf(e, 'x')).toBe(rendezvousOwner('x', [ME, 'node-b', 'node-c']));
  });
});

describe('settle hold', () => {
  it('holds while a peer is unknown, and for 3 rounds while an agreed peer does not list me', () => {
    expect(elect(view([peer('node-b', { status: 'unknown' }), peer('node-c')])).settled).toBe(false);
    const notYet = [peer('node-b', { members: [] }), peer('node-c')];
    expect(elect(view(notYet, { completedRounds: 2 })).settled).toBe(false);
    expect(elect(view(notYet, { completedRounds: 3 })).settled).toBe(true);
    expect(elect(view([peer('node-b'), peer('node-c')], { completedRounds: 1 })).settled).toBe(true);
  });
});

describe('conflicts (§5.7)', () => {
  it('a name with two first-party instance ids conflicts', () => {
    const e = elect(view([peer('node-b'), peer(ME, { status: 'conflict', instanceId: 'f'.repeat(32) })]));
    expect(e.conflicts.names).toEqual([ME]);
    expect(e.conflict).toBe(true);
  });

  it('transitive ids need two distinct reporters', () => {
    const twin = { nodeName: 'node-c', instanceId: 'e'.repeat(32), agreed: true };
    const self = { nodeName: ME, instanceId: MY_ID, agreed: true };
    const one = elect(view([peer('node-b', { members: [self, twin] }), peer('node-c'), peer('node-d')]));
    expect(one.conflicts.names).toEqual([]);
    const two = elect(
      view([
        peer('node-b', { members: [self, twin] }),
        peer('node-c'),
        peer('node-d', { members: [self, twin] }),
      ]),
    );
    expect(two.conflicts.names).toEqual(['node-c']);
  });

  it('size and policy conflicts from agreed peers, sorted and de-duplicated, with descriptors', () => {
    const e = elect(
      view([
        peer('node-b', { clusterSize: 10 }),
        peer('node-c', { clusterSize: 4 }),
        peer('node-d', { clusterSize: 10, distribution: 'spread', electLeader: false }),
        peer('node-e', { distribution: 'spread' }),
        peer('node-f', { status: 'syncing', clusterSize: 7 }),
      ]),
    );
    expect(e.conflicts.sizes).toEqual([4, 10]);
    expect(e.conflicts.policies).toEqual([
      "distribution 'spread' != 'single-leader'",
      'electLeader False != True',
    ]);
    expect(e.agreeingNames).toEqual([]);
  });

  it('pyRepr quotes like Python', () => {
    expect(pyRepr("it's")).toBe('"it\'s"');
    expect(pyRepr('a\\b')).toBe("'a\\\\b'");
    expect(pyRepr(`'"`)).toBe(`'\\'"'`);
    expect(pyRepr(true)).toBe('True');
  });
});

describe('decide (§3.1 rows 4-7)', () => {
  const healthy = (over: Partial<ElectionView> = {}) =>
    elect(
      view(
        [
          peer('node-b', { mutualAgreeing: [ME, 'node-c'] }),
          peer('node-c', { mutualAgreeing: [ME, 'node-b'] }),
        ],
        over,
      ),
    );

  it('row 1: election off runs everything', () => {
    expect(decide(healthy({ electLeader: false }), 'j', 'Leader')).toEqual({ run: true });
  });

  it('row 7: single-leader Leader runs on the leader only, skips on conflict and without quorum', () => {
    expect(decide(healthy(), 'j', 'Leader')).toEqual({ run: true });
    const asB = elect(
      view([
        peer('node-0', { mutualAgreeing: [ME, 'node-b'] }),
        peer('node-b', { mutualAgreeing: [ME, 'node-0'] }),
      ]),
    );
    expect(decide(asB, 'j', 'Leader')).toEqual({ run: false, reason: 'leader is node-0', transient: false });
    const lonely = elect(
      view([peer('node-b', { status: 'unreachable' }), peer('node-c', { status: 'unreachable' })]),
    );
    expect(decide(lonely, 'j', 'Leader')).toEqual({
      run: false,
      reason: 'no quorum',
      transient: true,
      noQuorum: true,
    });
    const conflicted = elect(view([peer('node-b', { clusterSize: 5 }), peer('node-c')]));
    expect(decide(conflicted, 'j', 'Leader')).toMatchObject({ run: false, transient: true });
  });

  it('row 6: single-leader PreferLeader runs on the available leader, even alone', () => {
    const lonely = elect(
      view([peer('node-0', { status: 'unreachable' }), peer('node-b', { status: 'unreachable' })]),
    );
    expect(decide(lonely, 'j', 'PreferLeader')).toEqual({ run: true });
    const under = elect(view([peer('node-0'), peer('node-b', { status: 'unreachable' })]));
    expect(decide(under, 'j', 'PreferLeader')).toMatchObject({ run: false, transient: false });
    const settling = elect(view([peer('node-b', { status: 'unknown' }), peer('node-c')]));
    expect(decide(settling, 'j', 'PreferLeader')).toMatchObject({ run: false, transient: true });
  });

  it('rows 4-5: spread gates per job by owner', () => {
    const e = healthy({ distribution: 'spread' });
    const members = [ME, 'node-b', 'node-c'];
    for (const job of ['j1', 'j2', 'j3', 'j4', 'j5', 'j6', 'j7', 'j8']) {
      const mine = rendezvousOwner(job, members) === ME;
      expect(decide(e, job, 'Leader').run).toBe(mine);
      expect(decide(e, job, 'PreferLeader').run).toBe(mine);
    }
    const lonely = elect(
      view([peer('node-b', { status: 'unreachable' }), peer('node-c', { status: 'unreachable' })], {
        distribution: 'spread',
      }),
    );
    expect(ownerOf(lonely, 'j1')).toBeNull();
    expect(decide(lonely, 'j1', 'Leader').run).toBe(false);
    expect(decide(lonely, 'j1', 'PreferLeader').run).toBe(true);
  });

  it('duplicate-name tie-break: the higher instance id defers to a twin that would run it', () => {
    const lowTwin = peer(ME, { status: 'conflict', instanceId: '0'.repeat(32), mutualAgreeing: [] });
    const e = elect(view([lowTwin, peer('node-b', { status: 'unreachable' })]));
    expect(twinDefers(e, null)).toBe(true);
    expect(decide(e, 'j', 'PreferLeader')).toMatchObject({ run: false, transient: true });
    const highTwin = peer(ME, { status: 'conflict', instanceId: 'f'.repeat(32) });
    expect(
      decide(elect(view([highTwin, peer('node-b', { status: 'unreachable' })])), 'j', 'PreferLeader'),
    ).toEqual({
      run: true,
    });
  });
});

// A fleet simulator: node i polls node j iff reach[i][j]. Every node's peer table follows from
// the links, then the election runs over each node's own table.
function simulate(
  names: string[],
  reach: boolean[][],
  alive: boolean[],
  distribution: 'single-leader' | 'spread' = 'spread',
): ReturnType<typeof elect>[] {
  const ids = names.map(idOf);
  const n = names.length;
  const sees = (i: number, j: number) => alive[i] && alive[j] && i !== j && (reach[i]?.[j] ?? false);
  // Round 1: each node's fresh set and members; mutual = a link both ways.
  const mutual = names.map((_, i) => names.map((_, j) => sees(i, j) && sees(j, i)));
  const tables = (vouched: string[][]): ElectionView[] =>
    names.map((me, i) => ({
      me,
      instanceId: ids[i] as string,
      distribution,
      electLeader: true,
      completedRounds: 5,
      peers: names
        .map((name, j) => ({ name, j }))
        .filter(({ j }) => j !== i)
        .map(({ name, j }) => ({
          host: `${name}:1`,
          status: sees(i, j) ? 'agreed' : 'unreachable',
          nodeName: name,
          instanceId: ids[j] as string,
          clusterSize: n,
          distribution,
          electLeader: true,
          members: sees(i, j)
            ? names.flatMap((m, k) =>
                k === j || sees(j, k) ? [{ nodeName: m, instanceId: ids[k] as string, agreed: true }] : [],
              )
            : [],
          mutualAgreeing: sees(i, j) ? names.filter((_, k) => mutual[j]?.[k]) : [],
          quorateVouched: sees(i, j) ? (vouched[j] ?? []) : [],
        })),
    }));
  const first = tables(names.map(() => [])).map(elect);
  return tables(first.map((e) => e.eligible)).map(elect);
}

const fleetNames = (k: number) => Array.from({ length: k }, (_, i) => `n${String.fromCharCode(97 + i)}`);
const full = (k: number) => Array.from({ length: k }, () => Array.from({ length: k }, () => true));

describe('election properties', () => {
  it('two disjoint sides of one fleet are never both quorate, whatever one-way links cross', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 3, max: 9 }).chain((k) =>
          fc.tuple(
            fc.constant(k),
            fc.array(fc.boolean(), { minLength: k, maxLength: k }),
            fc.array(fc.array(fc.boolean(), { minLength: k, maxLength: k }), {
              minLength: k,
              maxLength: k,
            }),
          ),
        ),
        ([k, side, noise]) => {
          const names = fleetNames(k);
          // Links inside a side are full; across, only one direction (the noise) ever works.
          const reach = names.map((_, i) =>
            names.map((_, j) => side[i] === side[j] || (side[i] === true && !!noise[i]?.[j])),
          );
          const views = simulate(
            names,
            reach,
            names.map(() => true),
          );
          const quorateSides = new Set(views.flatMap((e, i) => (e.quorate ? [side[i]] : [])));
          expect(quorateSides.size).toBeLessThanOrEqual(1);
        },
      ),
    );
  });

  it('a healthy quorate fleet agrees on one owner per job, always a live member, one leader', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 3, max: 9 }),
        fc.array(fc.string({ minLength: 1, maxLength: 16 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.boolean(), { minLength: 9, maxLength: 9 }),
        (k, jobs, down) => {
          const names = fleetNames(k);
          const alive = names.map((_, i) => !down[i] || i >= k - quorumOf(k));
          const views = simulate(names, full(k), alive);
          const live = views.filter((_, i) => alive[i]);
          expect(live.every((e) => e.quorate)).toBe(true);
          for (const job of jobs) {
            const owners = new Set(live.map((e) => ownerOf(e, job)));
            expect(owners.size).toBe(1);
            const owner = [...owners][0] as string;
            expect(names.filter((_, i) => alive[i])).toContain(owner);
            expect(live.filter((e) => decide(e, job, 'Leader').run)).toHaveLength(1);
            expect(live.filter((e) => decide(e, job, 'PreferLeader').run)).toHaveLength(1);
          }
          const single = simulate(names, full(k), alive, 'single-leader').filter((_, i) => alive[i]);
          expect(single.filter((e) => decide(e, 'j', 'Leader').run)).toHaveLength(1);
          expect(new Set(single.map((e) => e.leader))).toEqual(new Set([names.find((_, i) => alive[i])]));
        },
      ),
    );
  });

  it('removing a non-owner never changes an owner', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 5, max: 9 }),
        fc.string({ minLength: 1, maxLength: 16 }),
        fc.nat(),
        (k, job, pick) => {
          const names = fleetNames(k);
          const before = simulate(
            names,
            full(k),
            names.map(() => true),
          );
          const owner = ownerOf(before[0] as ReturnType<typeof elect>, job);
          const others = names.filter((n) => n !== owner);
          const gone = others[pick % others.length] as string;
          const alive = names.map((n) => n !== gone);
          const after = simulate(names, full(k), alive).filter((_, i) => alive[i]);
          for (const e of after) expect(ownerOf(e, job)).toBe(owner);
        },
      ),
    );
  });
});

// The filesystem backend's election round (spec 05 §8.3) over a real SQLite file, several
// contenders each with its own connection, on fake clocks: renew, follow, challenger margin,
// takeover with fence + 1, release, adoption, lost races, strict reads and bounded calls.
import { describe, expect, it } from 'vitest';
import { Election, type LeaseStorePort } from '../../src/cluster/filesystem/election.ts';
import { holderToken, LeaseState, leaseCadence, UNKNOWN_HOLDER } from '../../src/cluster/lease-state.ts';
import { openStore } from '../../src/store/index.ts';
import type { Lease, Store } from '../../src/store/types.ts';
import { FakeClock } from '../../src/util/clock.ts';
import { storeScratch } from '../helpers/store-scratch.ts';

const TTL = 3;
const NAME = 'cluster/leader';
const START = 1_800_000_000_000;

const { tempDir, keep } = storeScratch('fs-election');

interface Contender {
  name: string;
  clock: FakeClock;
  store: Store;
  state: LeaseState;
  election: Election;
}

/** One node: its own connection to the shared file, its own clocks (skewMs shifts its wall). */
async function contender(
  dir: string,
  name: string,
  clock: FakeClock,
  skewMs = 0,
  port?: (s: Store) => LeaseStorePort,
): Promise<Contender> {
  const wall = () => clock.now() + skewMs;
  const store = await openStore({
    path: dir,
    namespace: 'default',
    topology: 'single-node',
    placement: 'inline',
    now: wall,
  });
  keep(store);
  const suffix = Buffer.from(name.padEnd(6, '_')).toString('hex').slice(0, 12);
  const state = new LeaseState({
    clock: { now: wall, monotonic: () => clock.monotonic() },
    token: holderToken(name, suffix),
    ttlSeconds: TTL,
  });
  const election = new Election({
    store: port ? port(store) : store,
    state,
    clock,
    wallMs: wall,
    electionName: NAME,
    ttlSeconds: TTL,
    cadence: leaseCadence(TTL, 10),
  });
  return { name, clock, store, state, election };
}

async function fleet(n: number) {
  const dir = tempDir();
  const clock = new FakeClock(START);
  const nodes: Contender[] = [];
  for (let i = 0; i < n; i++) nodes.push(await contender(dir, `node-${String.fromCharCode(97 + i)}`, clock));
  return { dir, clock, nodes };
}

function leaders(nodes: Contender[]): string[] {
  return nodes.filter((c) => c.state.isLeader()).map((c) => c.name);
}

describe('election rounds on one SQLite file', () => {
  it('the first contender acquires fence 1; the others follow it by name', async () => {
    const { nodes } = await fleet(3);
    const [a, b, c] = nodes as [Contender, Contender, Contender];
    expect(await a.election.round()).toEqual({ step: 'acquired' });
    expect(a.state.holder()?.fence).toBe(1);
    expect(await b.election.round()).toEqual({ step: 'following' });
    expect(await c.election.round()).toEqual({ step: 'following' });
    expect(leaders(nodes)).toEqual(['node-a']);
    for (const n of nodes) {
      expect(n.state.isQuorate()).toBe(true);
      expect(n.state.leaderName()).toBe('node-a');
    }
    expect(b.state.decide('job', 'Leader')).toEqual({
      run: false,
      reason: 'not the leader (leader: node-a)',
      transient: false,
    });
    expect(b.state.decide('job', 'PreferLeader').run).toBe(false);
    expect(a.state.decide('job', 'PreferLeader').run).toBe(true);
  });

  it('the holder renews with the same fence and keeps leading across rounds', async () => {
    const { clock, nodes } = await fleet(2);
    const [a, b] = nodes as [Contender, Contender];
    await a.election.round();
    for (let i = 0; i < 10; i++) {
      await clock.advance(1000);
      expect(await a.election.round()).toEqual({ step: 'renewed' });
      expect(await b.election.round()).toEqual({ step: 'following' });
      expect(leaders(nodes)).toEqual(['node-a']);
    }
    expect(a.state.holder()?.fence).toBe(1);
    const row = await b.store.leaseRead(NAME);
    expect(row?.expiresAt).toBe(clock.now() / 1000 + TTL);
  });

  it('a stalled holder self-demotes at t0 + ttl − 1 s; a challenger takes over only ≥ 1 s after the written expiry, fence + 1', async () => {
    const { clock, nodes } = await fleet(2);
    const [a, b] = nodes as [Contender, Contender];
    await a.election.round();
    const writtenExpiry = (await b.store.leaseRead(NAME))!.expiresAt;
    // a stalls: no more rounds. It stops leading 1 s before its written expiry, with no I/O.
    await clock.advance(1999);
    expect(a.state.isLeader()).toBe(true);
    await clock.advance(1);
    expect(a.state.isLeader()).toBe(false);
    expect(await b.election.round()).toEqual({ step: 'following' });
    // The written expiry is now 1 s past... minus 1 ms: still a live holder to b.
    await clock.advance(1999);
    expect(clock.now() / 1000).toBeCloseTo(writtenExpiry + 0.999, 6);
    expect(await b.election.round()).toEqual({ step: 'following' });
    expect(leaders(nodes)).toEqual([]);
    await clock.advance(1);
    expect(await b.election.round()).toEqual({ step: 'acquired' });
    expect(b.state.holder()?.fence).toBe(2);
    expect(leaders(nodes)).toEqual(['node-b']);
    // The stalled holder wakes: its renew is refused (fence moved), it follows b.
    expect(await a.election.round()).toEqual({ step: 'lost' });
    expect(a.state.leaderName()).toBe('node-b');
    expect(a.state.held()).toBeNull();
    expect(leaders(nodes)).toEqual(['node-b']);
  });

  it('a graceful release keeps the fence; the next challenger round takes over with fence + 1', async () => {
    const { clock, nodes } = await fleet(3);
    const [a, b, c] = nodes as [Contender, Contender, Contender];
    await a.election.round();
    await b.election.round();
    expect(await a.election.release()).toEqual({ ok: true, value: undefined });
    expect(a.state.isLeader()).toBe(false);
    const raw = await a.store.leaseRead(NAME);
    expect(raw).toBeNull(); // a released lease reads as absent
    expect(await a.election.release()).toBeNull(); // nothing held any more
    await clock.advance(10);
    expect(await b.election.round()).toEqual({ step: 'acquired' });
    expect(b.state.holder()?.fence).toBe(2);
    expect(await c.election.round()).toEqual({ step: 'following' });
    expect(c.state.leaderName()).toBe('node-b');
  });

  it('a rebuilt backend in the same process adopts its own lease and renews it next round', async () => {
    const { dir, clock, nodes } = await fleet(1);
    const a = nodes[0]!;
    await a.election.round();
    const again = await contender(dir, 'node-a', clock);
    expect(again.state.token).toBe(a.state.token);
    expect(await again.election.round()).toEqual({ step: 'adopted' });
    expect(again.state.isLeader()).toBe(false);
    expect(again.state.decide('j', 'PreferLeader').run).toBe(true);
    await clock.advance(1000);
    expect(await again.election.round()).toEqual({ step: 'renewed' });
    expect(again.state.isLeader()).toBe(true);
    expect(again.state.holder()?.fence).toBe(1);
  });

  it('stopping after an acquire whose answer never came still releases what it wrote', async () => {
    const dir = tempDir();
    const clock = new FakeClock(START);
    const a = await contender(dir, 'node-a', clock, 0, (s) => ({
      leaseRead: (n) => s.leaseRead(n),
      leaseRenew: (l, t) => s.leaseRenew(l, t),
      leaseRelease: (l) => s.leaseRelease(l),
      // The write lands, but its answer arrives only after the call's bound.
      leaseAcquire: (n, h, t) => {
        const written = s.leaseAcquire(n, h, t);
        return new Promise<Lease | null>((r) => clock.setTimer(() => r(written), 5000));
      },
    }));
    const b = await contender(dir, 'node-b', clock);
    const pending = a.election.round();
    await new Promise((r) => setImmediate(r)); // the read answers; the acquire is under way
    await clock.advance(500);
    expect((await pending).step).toBe('failed');
    expect(a.state.held()).toBeNull();
    expect((await b.store.leaseRead(NAME))?.holder).toBe(a.state.token);
    expect((await a.election.release())?.ok).toBe(true);
    expect(await b.store.leaseRead(NAME)).toBeNull();
    expect(await b.election.round()).toEqual({ step: 'acquired' });
    expect(b.state.holder()?.fence).toBe(2);
  });

  it('a lost race is confirmed by a read and followed', async () => {
    const dir = tempDir();
    const clock = new FakeClock(START);
    const c = await contender(dir, 'node-c', clock);
    // b's read sees a free lease, then c wins between b's read and b's acquire.
    const b = await contender(dir, 'node-b', clock, 0, (s) => ({
      leaseRead: (n) => s.leaseRead(n),
      leaseRenew: (l, t) => s.leaseRenew(l, t),
      leaseRelease: (l) => s.leaseRelease(l),
      leaseAcquire: async (n, h, t) => {
        await c.election.round();
        return s.leaseAcquire(n, h, t);
      },
    }));
    expect(await b.election.round()).toEqual({ step: 'denied' });
    expect(c.state.isLeader()).toBe(true);
    expect(b.state.isLeader()).toBe(false);
    expect(b.state.leaderName()).toBe('node-c');
    expect(b.state.decide('j', 'PreferLeader').run).toBe(false);
  });

  it('a lost race whose winner cannot be named defers to <unknown holder>', async () => {
    const dir = tempDir();
    const clock = new FakeClock(START);
    let reads = 0;
    const b = await contender(dir, 'node-b', clock, 0, (s) => ({
      leaseRead: (n) => (++reads === 1 ? s.leaseRead(n) : Promise.reject(new Error('disk I/O error'))),
      leaseRenew: (l, t) => s.leaseRenew(l, t),
      leaseRelease: (l) => s.leaseRelease(l),
      leaseAcquire: async () => null,
    }));
    expect(await b.election.round()).toEqual({ step: 'denied' });
    expect(b.state.leaderName()).toBe(UNKNOWN_HOLDER);
    expect(b.state.isQuorate()).toBe(true);
    expect(b.state.decide('j', 'PreferLeader').run).toBe(false);
    expect(b.state.decide('j', 'Leader').run).toBe(false);
  });
});

describe('strict reads and bounded calls', () => {
  it('a store error fails the round and changes nothing; quorum lapses after ttl', async () => {
    const { clock, nodes } = await fleet(2);
    const [a, b] = nodes as [Contender, Contender];
    await a.election.round();
    await b.election.round();
    await b.store.close(); // every call now rejects: never read as "absent"
    await a.store.close();
    await clock.advance(1000);
    const failed = await a.election.round();
    expect(failed.step).toBe('failed');
    expect(failed.error).toMatch(/renew failed: .*closed/);
    const bFailed = await b.election.round();
    expect(bFailed.step).toBe('failed');
    expect(bFailed.error).toMatch(/read failed/);
    expect(a.state.isLeader()).toBe(true); // the deadline of the last good renew still holds
    expect(b.state.leaderName()).toBe('node-a');
    await clock.advance(1000);
    expect(a.state.isLeader()).toBe(false);
    await clock.advance(999);
    expect(b.state.isQuorate()).toBe(true);
    await clock.advance(1);
    for (const n of nodes) {
      expect(n.state.isQuorate()).toBe(false);
      expect(n.state.leaderName()).toBeNull();
      expect(n.state.decide('j', 'Leader')).toEqual({
        run: false,
        reason: 'no quorum (lease store unreachable)',
        transient: true,
        noQuorum: true,
      });
      expect(n.state.decide('j', 'PreferLeader')).toEqual({ run: true });
    }
  });

  it('a hung call is abandoned after min(connectTimeout, max(0.5, round/4)) and changes nothing', async () => {
    const dir = tempDir();
    const clock = new FakeClock(START);
    let hang = false;
    const a = await contender(dir, 'node-a', clock, 0, (s) => ({
      leaseRead: (n) => (hang ? new Promise<Lease | null>(() => undefined) : s.leaseRead(n)),
      leaseRenew: (l, t) => (hang ? new Promise<Lease | null>(() => undefined) : s.leaseRenew(l, t)),
      leaseRelease: (l) => s.leaseRelease(l),
      leaseAcquire: (n, h, t) => s.leaseAcquire(n, h, t),
    }));
    await a.election.round();
    const deadline = a.state.leaderDeadline();
    hang = true;
    await clock.advance(1000);
    const pending = a.election.round();
    let settled = false;
    void pending.then(() => {
      settled = true;
    });
    await clock.advance(499);
    expect(settled).toBe(false);
    await clock.advance(1);
    expect(await pending).toEqual({
      step: 'failed',
      error: 'renew did not answer within 500 ms (outcome unknown)',
    });
    expect(a.state.leaderDeadline()).toBe(deadline);
    expect(a.state.held()).not.toBeNull();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('the round deadline bounds the sum of its calls', async () => {
    const dir = tempDir();
    const clock = new FakeClock(START);
    const slow = (ms: number) => new Promise<void>((r) => clock.setTimer(r, ms));
    const a = await contender(dir, 'node-a', clock, 0, (s) => ({
      leaseRead: async (n) => {
        await slow(450);
        return s.leaseRead(n);
      },
      leaseRenew: (l, t) => s.leaseRenew(l, t),
      leaseRelease: (l) => s.leaseRelease(l),
      leaseAcquire: async () => {
        await slow(450);
        return null;
      },
    }));
    const pending = a.election.round();
    await clock.advance(1000);
    const result = await pending;
    // read 450 + acquire 450 (denied) leave 100 ms: the confirm-read is cut at the round's end.
    expect(result).toEqual({ step: 'denied' });
    expect(a.state.leaderName()).toBe(UNKNOWN_HOLDER);
    expect(clock.monotonic()).toBe(1000);
  });
});

describe('clock skew (spec 05 §8.3 budget)', () => {
  async function skewed(holderSkew: number, challengerSkew: number) {
    const dir = tempDir();
    const clock = new FakeClock(START);
    const a = await contender(dir, 'node-a', clock, holderSkew);
    const b = await contender(dir, 'node-b', clock, challengerSkew);
    await a.election.round();
    // a's renewals stop; b polls every 100 ms. Any instant with two leaders is an overlap.
    let overlapMs = 0;
    for (let t = 0; t < 8000; t += 100) {
      await clock.advance(100);
      await b.election.round();
      if (a.state.isLeader() && b.state.isLeader()) overlapMs += 100;
    }
    return { overlapMs, takeover: b.state.isLeader() };
  }

  it('under 2 s of skew never gives two leaders', async () => {
    for (const [h, c] of [
      [-950, 950],
      [0, 1900],
      [950, -950],
      [0, 0],
    ] as const) {
      const r = await skewed(h, c);
      expect(r, `holder ${h} ms, challenger ${c} ms`).toEqual({ overlapMs: 0, takeover: true });
    }
  });

  it('more than 2 s of skew can (the budget is real)', async () => {
    const r = await skewed(-1500, 1500);
    expect(r.takeover).toBe(true);
    expect(r.overlapMs).toBeGreaterThan(0);
  });
});

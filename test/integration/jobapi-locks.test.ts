// Job locks over the job API against the real store (spec 03 §6.5 "Mutex / semaphore").
import { afterEach, describe, expect, it } from 'vitest';
import { call, type Kit, registerRun, sleep, startKit } from './fixtures/jobapi-kit.ts';

let kit: Kit | null = null;
afterEach(async () => {
  await kit?.close();
  kit = null;
});

async function setup(opts: Parameters<typeof startKit>[0] = {}) {
  kit = await startKit(opts);
  return kit;
}

type Acquired = {
  acquired: boolean;
  token?: string;
  slot?: number;
  fence?: number;
  ttl?: number;
  runEnded?: boolean;
};

async function acquire(k: Kit, token: string, body: Record<string, unknown>): Promise<Acquired> {
  const r = await call(k, 'POST', '/v1/lock/acquire', { token, json: body });
  expect(r.status, r.text).toBe(200);
  return r.json as Acquired;
}

async function release(k: Kit, token: string, hold: string): Promise<boolean> {
  const r = await call(k, 'POST', '/v1/lock/release', { token, json: { token: hold } });
  expect(r.status).toBe(200);
  return (r.json as { released: boolean }).released;
}

describe('job locks', () => {
  it('is a mutex by default, with lease name lock/<scope>/<name>#<slot>', async () => {
    const k = await setup();
    const a = registerRun(k).token;
    const b = registerRun(k).token;
    const got = await acquire(k, a, { name: 'deploy' });
    expect(got).toEqual({
      acquired: true,
      token: expect.stringMatching(/^[0-9a-f]{32}$/),
      slot: 0,
      fence: expect.any(Number),
      ttl: 5,
    });
    const lease = await k.store.leaseRead('lock/etl/deploy#0');
    expect(lease?.holder).toMatch(new RegExp(`^test-host#[0-9a-f]+#${got.token}$`));
    expect(await acquire(k, b, { name: 'deploy' })).toEqual({ acquired: false });
    // Another scope is another lock.
    expect((await acquire(k, b, { name: 'deploy', scope: 'global' })).acquired).toBe(true);
    // Only the owning run may release.
    expect(await release(k, b, got.token!)).toBe(false);
    expect(await release(k, a, got.token!)).toBe(true);
    expect(await release(k, a, got.token!)).toBe(false);
    expect(await k.store.leaseRead('lock/etl/deploy#0')).toBeNull();
    const again = await acquire(k, b, { name: 'deploy' });
    expect(again.acquired).toBe(true);
    expect(again.fence).toBeGreaterThan(got.fence!);
  });

  it('is a semaphore with 2 permits across 3 runs (lowest free slot wins)', async () => {
    const k = await setup();
    const [r1, r2, r3] = [registerRun(k).token, registerRun(k).token, registerRun(k).token];
    const h1 = await acquire(k, r1, { name: 'pool', permits: 2, scope: 'global' });
    const h2 = await acquire(k, r2, { name: 'pool', permits: 2, scope: 'global' });
    expect([h1.slot, h2.slot]).toEqual([0, 1]);
    expect(await acquire(k, r3, { name: 'pool', permits: 2, scope: 'global' })).toEqual({ acquired: false });
    expect(await release(k, r1, h1.token!)).toBe(true);
    const h3 = await acquire(k, r3, { name: 'pool', permits: 2, scope: 'global' });
    expect(h3).toMatchObject({ acquired: true, slot: 0 });
    expect(k.server.holdCount).toBe(2);
  });

  it('waits for a release with wait/blockSeconds', async () => {
    const k = await setup();
    const a = registerRun(k).token;
    const b = registerRun(k).token;
    const held = await acquire(k, a, { name: 'm' });
    const t0 = Date.now();
    const waiting = acquire(k, b, { name: 'm', wait: true, blockSeconds: 10 });
    await sleep(700);
    await release(k, a, held.token!);
    const got = await waiting;
    expect(got).toMatchObject({ acquired: true, slot: 0 });
    expect(Date.now() - t0).toBeLessThan(9000); // well before the 10 s block
    // Without anyone releasing, a bounded wait gives up.
    const t1 = Date.now();
    expect(await acquire(k, a, { name: 'm', wait: true, blockSeconds: 1 })).toEqual({ acquired: false });
    expect(Date.now() - t1).toBeGreaterThanOrEqual(900);
    // wait without blockSeconds is a single pass.
    expect(await acquire(k, a, { name: 'm', wait: true })).toEqual({ acquired: false });
  });

  it('validates the request', async () => {
    const k = await setup();
    const a = registerRun(k).token;
    for (const body of [
      { name: 'x', permits: 0 },
      { name: 'x', permits: 1025 },
      { name: 'x', permits: 'two' },
      { name: 'x', ttl: 'long' },
      { name: 'x', blockSeconds: 'forever' },
      { permits: 1 },
    ]) {
      const r = await call(k, 'POST', '/v1/lock/acquire', { token: a, json: body });
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
    expect((await call(k, 'POST', '/v1/lock/release', { token: a, json: {} })).json).toEqual({
      error: 'token is required',
    });
    const r = await call(k, 'POST', '/v1/lock/acquire', { token: a, json: { name: 'x', scope: 'payroll' } });
    expect(r.status).toBe(403);
    // ttl is floored at 5 s.
    expect(await acquire(k, a, { name: 'x', ttl: 1 })).toMatchObject({ acquired: true, ttl: 5 });
  });

  it('releases every lock of a run at unregister', async () => {
    const k = await setup();
    const a = registerRun(k).token;
    const b = registerRun(k).token;
    await acquire(k, a, { name: 'one', scope: 'global' });
    await acquire(k, a, { name: 'two', scope: 'global', permits: 3 });
    const bHold = await acquire(k, b, { name: 'three', scope: 'global' });
    expect(k.server.holdCount).toBe(3);
    await k.server.unregister(a);
    expect(k.server.holdCount).toBe(1);
    expect(await k.store.leaseRead('lock/global/one#0')).toBeNull();
    expect(await k.store.leaseRead('lock/global/two#0')).toBeNull();
    expect((await acquire(k, b, { name: 'one', scope: 'global' })).acquired).toBe(true);
    expect(await release(k, b, bHold.token!)).toBe(true);
  });

  it('answers {acquired:false, runEnded:true} when the run ends while blocked', async () => {
    const k = await setup();
    const a = registerRun(k).token;
    const b = registerRun(k).token;
    await acquire(k, a, { name: 'm' });
    const t0 = Date.now();
    const blocked = call(k, 'POST', '/v1/lock/acquire', {
      token: b,
      json: { name: 'm', wait: true, blockSeconds: 20 },
    });
    await sleep(300);
    await k.server.unregister(b);
    const r = await blocked;
    expect(r.json).toEqual({ acquired: false, runEnded: true });
    expect(Date.now() - t0).toBeLessThan(15_000); // not the 20 s block
  });

  it('releases a lease won after the run ended', async () => {
    const k = await setup();
    const a = registerRun(k).token;
    const b = registerRun(k).token;
    const held = await acquire(k, a, { name: 'm' });
    const blocked = call(k, 'POST', '/v1/lock/acquire', {
      token: b,
      json: { name: 'm', wait: true, blockSeconds: 20 },
    });
    await sleep(200);
    // Release and end the blocked run in the same tick: whichever pass runs next must not keep a hold.
    void release(k, a, held.token!);
    await k.server.unregister(b);
    expect((await blocked).json).toEqual({ acquired: false, runEnded: true });
    await sleep(100);
    expect(k.server.holdCount).toBe(0);
    expect(await k.store.leaseRead('lock/etl/m#0')).toBeNull();
  });

  it('renews held leases and marks a refused renewal as lost', async () => {
    const k = await setup();
    const a = registerRun(k).token;
    const tAcquire = Date.now();
    const held = await acquire(k, a, { name: 'r', ttl: 5 });
    const first = await k.store.leaseRead('lock/etl/r#0');
    // Renew period = max(1, 5/3) ≈ 1.67 s.
    const t0 = Date.now();
    let renewed = first;
    while (renewed!.expiresAt === first!.expiresAt && Date.now() - t0 < 10_000) {
      await sleep(100);
      renewed = await k.store.leaseRead('lock/etl/r#0');
    }
    expect(Date.now() - tAcquire).toBeGreaterThanOrEqual(1600);
    expect(renewed!.expiresAt).toBeGreaterThan(first!.expiresAt);
    expect(renewed!.fence).toBe(first!.fence);
    // Someone else releases the lease (as if taken over): the next renewal is refused.
    await k.store.leaseRelease(renewed!);
    const lost = () => k.warnings.some((w) => /lock 'r'.*was lost/.test(w));
    const t1 = Date.now();
    while (!lost() && Date.now() - t1 < 10_000) await sleep(100);
    expect(lost()).toBe(true);
    // Releasing a lost hold is still the owner's release, and does not touch the store.
    expect(await release(k, a, held.token!)).toBe(true);
    expect(k.server.holdCount).toBe(0);
  });

  it('releases every hold at stop()', async () => {
    const k = await setup();
    const a = registerRun(k).token;
    await acquire(k, a, { name: 's1', scope: 'global' });
    await acquire(k, a, { name: 's2', scope: 'global' });
    await k.server.stop();
    expect(k.server.holdCount).toBe(0);
    expect(await k.store.leaseRead('lock/global/s1#0')).toBeNull();
    expect(await k.store.leaseRead('lock/global/s2#0')).toBeNull();
    expect(() => registerRun(k)).toThrow(/stopped/);
  });
});

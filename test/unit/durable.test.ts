import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { crc32, downtimeMissed, missedSlots } from '../../src/scheduler/durable/catchup-plan.ts';
import { writeTree } from '../helpers/tmp.ts';

function job(schedule: string, extra = '') {
  const dir = writeTree({
    'c.yaml': `state:\n  path: /tmp/unused\njobs:\n  - name: j\n    command: x\n    schedule: "${schedule}"\n${extra}`,
  });
  return loadConfig(join(dir, 'c.yaml'), { nowMs: 0 }).jobs[0]!;
}

describe('catch-up planning (spec 03 §8.2)', () => {
  const w = Date.parse('2026-01-07T10:00:00Z');
  const now = Date.parse('2026-01-07T14:30:00Z');

  it('owes nothing under skip, the latest slot under run-once, every slot under run-all', () => {
    expect(missedSlots(job('0 * * * *'), w, now).slots).toEqual([]);
    expect(
      missedSlots(job('0 * * * *', '    onMissed: run-once\n'), w, now).slots.map((s) =>
        new Date(s).toISOString(),
      ),
    ).toEqual(['2026-01-07T14:00:00.000Z']);
    expect(
      missedSlots(job('0 * * * *', '    onMissed: run-all\n'), w, now).slots.map((s) =>
        new Date(s).toISOString(),
      ),
    ).toEqual([
      '2026-01-07T11:00:00.000Z',
      '2026-01-07T12:00:00.000Z',
      '2026-01-07T13:00:00.000Z',
      '2026-01-07T14:00:00.000Z',
    ]);
  });

  it('records the downtime slots the plan does not run as missed', () => {
    const iso = (xs: number[]) => xs.map((s) => new Date(s).toISOString());
    const once = job('0 * * * *', '    onMissed: run-once\n');
    const plan = missedSlots(once, w, now).slots;
    expect(iso(downtimeMissed(once, w, now, plan).instants)).toEqual([
      '2026-01-07T11:00:00.000Z',
      '2026-01-07T12:00:00.000Z',
      '2026-01-07T13:00:00.000Z',
    ]);
    expect(downtimeMissed(job('0 * * * *'), w, now, []).instants).toHaveLength(4);
    const all = job('* * * * *', '    onMissed: run-all\n');
    expect(downtimeMissed(all, w, now, missedSlots(all, w, now).slots).instants).toHaveLength(170);
    expect(downtimeMissed(all, w, now, [], 10)).toMatchObject({ atLeast: true });
  });

  it('caps run-all at 100 and reports the dropped rest', () => {
    const plan = missedSlots(job('* * * * *', '    onMissed: run-all\n'), w, now);
    expect(plan.slots).toHaveLength(100);
    expect(plan.dropped).toBe(270 - 100);
  });

  it('steps the schedule in the job timezone across DST', () => {
    const spring = missedSlots(
      job('30 2 * * *', '    onMissed: run-all\n    timezone: America/New_York\n'),
      Date.parse('2026-03-07T00:00:00Z'),
      Date.parse('2026-03-09T12:00:00Z'),
    );
    expect(spring.slots.map((s) => new Date(s).toISOString())).toEqual([
      '2026-03-07T07:30:00.000Z',
      '2026-03-08T07:30:00.000Z',
      '2026-03-09T06:30:00.000Z',
    ]);
  });

  it('computes the standard crc32 used for the deterministic jitter', () => {
    expect(crc32('123456789')).toBe(0xcbf43926);
    expect(crc32('')).toBe(0);
  });
});

import { DurableFeatures } from '../../src/scheduler/durable.ts';
import { openStore } from '../../src/store/index.ts';
import { FakeClock } from '../../src/util/clock.ts';
import { Logger, setSink } from '../../src/util/log.ts';

describe('onStoreUnavailable (spec 03 §8.9) with a store that cannot answer', () => {
  async function features(policy: 'degrade' | 'fail-closed') {
    const store = await openStore({
      path: writeTree({}),
      namespace: 'x',
      topology: 'single-node',
      inline: true,
    });
    await store.close();
    setSink(() => {});
    return new DurableFeatures({
      store,
      registry: null,
      clock: new FakeClock(Date.parse('2026-01-07T12:00:00Z')),
      log: new Logger('cronstable'),
      host: 'node-a',
      onStoreUnavailable: policy,
      maxRunsPerJob: 10,
      slotTtlSeconds: 30,
      bootId: 'boot-1',
    });
  }
  const cluster = () => job('* * * * *', '    concurrencyPolicy: Forbid\n    concurrencyScope: cluster\n');

  it('degrade: decides from memory, runs @reboot, launches with node-local enforcement', async () => {
    const f = await features('degrade');
    expect(await f.lastOutcome(job('* * * * *'), 'failure')).toBe('failure');
    expect(await f.lastOutcome(job('* * * * *'), null)).toBeNull();
    expect(await f.rebootAllowed(job('@reboot'))).toBe(true);
    const grant = await f.claimSlot(cluster());
    expect('skip' in grant).toBe(false);
  });

  it('fail-closed: blocks onlyIfLastSucceeded, skips @reboot and cluster-slot launches', async () => {
    const f = await features('fail-closed');
    expect(await f.lastOutcome(job('* * * * *'), null)).toBe('blocked');
    expect(await f.rebootAllowed(job('@reboot'))).toBe(false);
    const grant = await f.claimSlot(cluster());
    expect(grant).toEqual({ skip: expect.stringContaining('cannot be claimed (state store unavailable') });
  });
});

describe('catch-up at start', () => {
  const now = Date.parse('2026-01-07T12:00:30Z');
  const j = job('0 * * * * *', '    onMissed: run-once\n');

  /** Durable features on `store` at `now`, with a scheduler that records the backfills it is asked for. */
  async function rig(store: Awaited<ReturnType<typeof openStore>>) {
    const lines: string[] = [];
    setSink((r) => lines.push(r.message));
    const clock = new FakeClock(now);
    const f = new DurableFeatures({
      store,
      registry: null,
      clock,
      log: new Logger('cronstable'),
      host: 'node-a',
      onStoreUnavailable: 'degrade',
      maxRunsPerJob: 10,
      slotTtlSeconds: 30,
      bootId: 'boot-1',
    });
    const backfilled: string[] = [];
    const control = {
      shuttingDown: false,
      job: (name: string) => (name === j.name ? j : undefined),
      rearmRetry: () => true,
      restoreHistory: () => {},
      runBackfill: async (_name: string, at: number) => {
        backfilled.push(new Date(at).toISOString());
        return 'success' as const;
      },
      cancelJob: async () => 'not-running' as const,
    };
    await f.start(control, [j]);
    return { lines, clock, backfilled };
  }

  const realStore = () =>
    openStore({ path: writeTree({}), namespace: 'x', topology: 'single-node', inline: true });

  it('retries after 2 s, then 5 s, and runs the missed slot once the store answers', async () => {
    const real = await realStore();
    await real.append('runs/j', { outcome: 'success', finished_at: '2026-01-07T11:57:10.000Z' });
    // The real store, but its first two catch-up reads fail as a store timing out at boot would.
    let failures = 2;
    const store = new Proxy(real, {
      get(target, key, receiver) {
        if (key === 'maxField')
          return (stream: string, field: string) => {
            if (failures > 0) {
              failures--;
              return Promise.reject(new Error('store call timed out'));
            }
            return target.maxField(stream, field);
          };
        const v = Reflect.get(target, key, receiver);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    try {
      const { lines, clock, backfilled } = await rig(store);
      await clock.advance(0);
      expect(lines.join('\n')).toMatch(/the catch-up of j failed: store call timed out; retrying in 2 s/);
      await clock.advance(1900);
      expect(backfilled).toEqual([]);
      await clock.advance(100);
      expect(lines.join('\n')).toMatch(/the catch-up of j failed: store call timed out; retrying in 5 s/);
      await clock.advance(5000);
      // The watermark (11:57:10) was read once the store answered: the latest missed slot runs.
      await vi.waitFor(() => expect(backfilled).toEqual(['2026-01-07T12:00:00.000Z']));
    } finally {
      setSink(() => {});
      await real.close();
    }
  });

  it('a row this boot wrote before the read (a slot refused for want of quorum) does not end the downtime', async () => {
    const store = await realStore();
    await store.append('runs/j', { outcome: 'success', finished_at: '2026-01-07T11:57:10.000Z' });
    // A fleet forming its quorum after the start refuses the next slot and records it first.
    await store.append('runs/j', {
      outcome: 'no-quorum',
      finished_at: '2026-01-07T12:01:00.004Z',
      scheduled_at: '2026-01-07T12:01:00.000Z',
    });
    try {
      const { lines, backfilled } = await rig(store);
      await vi.waitFor(() => expect(backfilled).toEqual(['2026-01-07T12:00:00.000Z']));
      expect(lines.join('\n')).toMatch(/Job j: catching up 1 missed run\(s\)/);
    } finally {
      setSink(() => {});
      await store.close();
    }
  });
});

// The grand tour's "swap the leadership backend" (4) on three nodes of the tour's real job set with
// `BACKEND=filesystem` (single-leader over one lease row in the shared store, ttl 3): one holder
// that every node names, the Leader jobs running there only; stop the holder and a follower adopts
// the lease within a TTL, fence + 1, and the Leader jobs follow it.
import { describe, expect, it } from 'vitest';
import { readRuns } from '../../scripts/fleet/ledger.ts';
import { waitUntil } from '../cluster/harness.ts';
import { query } from './helpers.ts';
import { FAST, useTour } from './tour-fleet.ts';

const TTL = 3;

interface Holder {
  leader: string;
  fence: number;
}

describe('grand tour on the filesystem backend', () => {
  const tour = useTour({ nodes: 3, backend: 'filesystem', distribution: 'single-leader', fast: FAST });

  /** The holder every running node agrees on (all quorate, one is_leader, one fence), or null. */
  async function agreedHolder(): Promise<Holder | null> {
    const views = Object.entries(await tour.fleet.views());
    const leaders = views.filter(([, v]) => v.is_leader).map(([id]) => id);
    const names = new Set(views.map(([, v]) => v.leader));
    const fences = new Set(views.map(([, v]) => (v.lease as { fence?: number } | undefined)?.fence));
    if (leaders.length !== 1 || names.size !== 1 || fences.size !== 1) return null;
    if (
      !views.every(([, v]) => v.quorate && v.backend === 'filesystem' && v.distribution === 'single-leader')
    )
      return null;
    if (!names.has(leaders[0]!)) return null;
    return { leader: leaders[0]!, fence: [...fences][0] as number };
  }

  const counterRuns = (fromMs: number) => {
    const out: Record<string, number> = {};
    for (const r of readRuns(tour.stateDir, { ns: tour.ns, jobs: ['platform-pulse-counter'] }))
      if (r.scheduledAt !== null && r.scheduledAt >= fromMs && r.outcome === 'success')
        out[r.node] = (out[r.node] ?? 0) + 1;
    return out;
  };

  it('4: one lease holder; stopping it, a follower adopts the lease within a TTL and the Leader jobs follow', async () => {
    const first = await waitUntil(agreedHolder, { timeoutMs: 30_000, label: 'one agreed lease holder' });
    const t0 = Date.now();
    await waitUntil(() => (counterRuns(t0)[first.leader] ?? 0) >= 1, {
      timeoutMs: 20_000,
      label: `platform-pulse-counter on ${first.leader}`,
    });
    expect(Object.keys(counterRuns(t0))).toEqual([first.leader]);

    // A graceful stop releases the lease; a follower's next election round takes it.
    await tour.fleet.node(first.leader).stop();
    const stopped = Date.now();
    const next = await waitUntil(
      async () => {
        const h = await agreedHolder();
        return h && h.leader !== first.leader ? h : null;
      },
      { timeoutMs: 4 * TTL * 1000, label: 'a follower to hold the lease' },
    );
    const tookMs = Date.now() - stopped;
    // Within a TTL of the stop (plus a round of slack for a loaded 2-core CI box).
    expect(tookMs, `takeover after ${tookMs} ms`).toBeLessThanOrEqual(2 * TTL * 1000);
    expect(next.fence).toBe(first.fence + 1);
    // The election is one lease row in the shared store: its holder and fence are what the nodes say.
    const [row] = query<{ holder: string; fence: number }>(
      tour.stateDir,
      "SELECT holder, fence FROM leases WHERE name = 'cluster/leader'",
    );
    expect(row!.fence).toBe(next.fence);
    expect(row!.holder.startsWith(next.leader)).toBe(true);
    const t1 = Date.now() + 1000;
    await waitUntil(() => (counterRuns(t1)[next.leader] ?? 0) >= 1, {
      timeoutMs: 20_000,
      label: `platform-pulse-counter on ${next.leader}`,
    });
    expect(Object.keys(counterRuns(t1))).toEqual([next.leader]);
  }, 90_000);
});

// Three daemons on `backend: etcd` against a real etcd (started on free ports, ttl 3): one
// leader, its Leader jobs running there once per slot; kill -9 of it hands over within ttl + 2 s
// with no slot run twice. The election itself, an unreachable etcd failing every node closed and
// its return included, is the conformance suite's (lease-conformance-etcd.test.ts).
import { describe, expect, it } from 'vitest';
import type { Fleet } from '../../scripts/fleet/fleet.ts';
import {
  expectExactlyOnce,
  jobsYaml,
  ledgerWindow,
  secondFromNow,
  sleep,
  useFleet,
  waitUntil,
} from './harness.ts';

const LEADER = ['lead-1', 'lead-2'];
const TTL = 3;

async function leaderOf(fleet: Fleet): Promise<string | null> {
  const views = Object.entries(await fleet.views());
  const leaders = views.filter(([, v]) => v.is_leader).map(([id]) => id);
  if (leaders.length !== 1) return null;
  return views.every(([, v]) => v.quorate && v.leader === leaders[0]) ? leaders[0]! : null;
}

describe.sequential('etcd backend, 3 nodes', () => {
  const t = useFleet({
    nodes: 3,
    backend: 'etcd',
    jobsYaml: jobsYaml(LEADER.map((name) => ({ name, policy: 'Leader' as const }))),
  });

  it('one leader, named on every node; Leader jobs run there once per slot', async () => {
    const leader = await waitUntil(() => leaderOf(t.fleet), { timeoutMs: 15_000, label: 'one etcd leader' });
    expect((await t.node(leader).cluster()).backend).toBe('etcd');
    const from = secondFromNow(300);
    const report = await expectExactlyOnce(t.fleet, LEADER, from, from + 1000);
    for (const job of LEADER) expect(report.runners[job]).toEqual([leader]);
  });

  it('kill -9 of the leader: another node leads within ttl + 2 s; no slot runs twice', async () => {
    const old = await waitUntil(() => leaderOf(t.fleet), { timeoutMs: 8000, label: 'a leader' });
    const start = secondFromNow(300);
    await sleep(start - Date.now());
    const killedAt = Date.now();
    await t.node(old).kill();
    const next = await waitUntil(
      async () => {
        const l = await leaderOf(t.fleet);
        return l && l !== old ? l : null;
      },
      { timeoutMs: (TTL + 2) * 1000 + 4000, label: 'a new etcd leader' },
    );
    expect(Date.now() - killedAt).toBeLessThan((TTL + 2) * 1000 + 4000);
    const settled = secondFromNow(300);
    const report = await expectExactlyOnce(t.fleet, LEADER, settled, settled + 1000);
    for (const job of LEADER) expect(report.runners[job]).toEqual([next]);
    expect((await ledgerWindow(t.fleet, LEADER, start, settled + 1000)).duplicates).toEqual([]);
  });
});

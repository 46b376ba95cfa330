// Failover time of each leadership backend, measured on a real 3-node local fleet: the leader
// is killed (SIGKILL, no release) and we read from the shared ledger when the first fire of a
// per-second Leader job started on another node. Budgets (issue 10): gossip <= 5 s, filesystem
// and etcd <= ttl + 2 s. Measured, not asserted.
import { Fleet, waitUntil } from '../scripts/fleet/fleet.ts';
import { firstRunElsewhere, readRuns } from '../scripts/fleet/ledger.ts';
import type { Metric } from './metric.ts';

const JOBS = `defaults:
  shell: /bin/sh
jobs:
  - name: tick
    command: "true"
    schedule: "* * * * * * *"
    clusterPolicy: Leader
`;

/** The gossip fleet's interval and the lease ttl (seconds) the figures are for. */
const INTERVAL = 2;
const TTL = 3;

async function leaderOf(fleet: Fleet): Promise<string | null> {
  const views = Object.entries(await fleet.views());
  const leaders = views.filter(([, v]) => v.is_leader).map(([id]) => id);
  if (leaders.length !== 1) return null;
  return views.every(([, v]) => v.quorate && v.leader === leaders[0]) ? leaders[0]! : null;
}

async function failover(backend: 'gossip' | 'filesystem' | 'etcd'): Promise<number> {
  const fleet = await Fleet.create({
    nodes: 3,
    backend,
    distribution: 'single-leader',
    jobsYaml: JOBS,
    timings: { interval: INTERVAL, driftAfter: 2, connectTimeout: 1, ttl: TTL },
    webPortBase: 'free',
    peerPort: 'free',
    shutdownTimeout: 2,
  });
  try {
    const leader = await waitUntil(() => leaderOf(fleet), {
      timeoutMs: 30_000,
      label: `a ${backend} leader`,
    });
    const ns = fleet.shape.deploymentId;
    // The leader is really running the job before we kill it.
    const since = Date.now();
    await waitUntil(
      () =>
        readRuns(fleet.stateDir, { ns, jobs: ['tick'] }).some(
          (r) => r.node === leader && (r.startedAt ?? 0) >= since,
        ),
      { timeoutMs: 10_000, label: `${leader} running tick` },
    );
    const killedAt = Date.now();
    await fleet.node(leader).kill();
    const next = await waitUntil(
      () => firstRunElsewhere(fleet.stateDir, { ns, job: 'tick', afterMs: killedAt, notOn: leader }),
      { timeoutMs: 60_000, label: `a run of tick off ${leader}`, everyMs: 100 },
    );
    return ((next.startedAt ?? next.scheduledAt ?? killedAt) - killedAt) / 1000;
  } finally {
    await fleet.close();
  }
}

export async function run(): Promise<Metric[]> {
  const out: Metric[] = [];
  const budgets = { gossip: 5, filesystem: TTL + 2, etcd: TTL + 2 } as const;
  for (const backend of ['gossip', 'filesystem', 'etcd'] as const) {
    const s = await failover(backend);
    out.push({
      metric: `cluster.failover_${backend}_s`,
      value: Number(s.toFixed(2)),
      unit: 's',
      budget: budgets[backend],
    });
  }
  return out;
}

// The durable-state and cluster metric families (spec 06 §6.2), read at scrape time from the
// daemon context. A failing store read omits the block, never fails the scrape.
import { Counter, Gauge, type Metric } from 'prom-client';
import type { StoreStats } from '../store/types.ts';
import type { WebContext } from './context.ts';
import { clearSeries } from './exposition.ts';

const PEER_STATUSES = [
  'agreed',
  'syncing',
  'drifted',
  'unreachable',
  'untrusted',
  'self',
  'conflict',
  'unknown',
];

/** The families in exposition order; `context()` is the attached daemon context (or null). */
export function stateAndClusterFamilies(context: () => WebContext | null): Metric<string>[] {
  const registers: never[] = [];
  const storeStats = (): StoreStats | null => {
    const store = context()?.store;
    if (!store?.stats) return null;
    try {
      return store.stats();
    } catch {
      return null;
    }
  };

  const stateInfo = new Gauge({
    name: 'cronstable_state_info',
    help: 'The durable state store.',
    labelNames: ['backend', 'topology'],
    registers,
    collect() {
      this.reset();
      const store = context()?.store;
      if (!store) return;
      this.set({ backend: storeStats()?.backend ?? 'sqlite', topology: store.topology }, 1);
    },
  });
  const opCounter = (name: string, help: string, pick: 'ops' | 'errors' | 'seconds') =>
    new Counter({
      name,
      help,
      labelNames: ['op'],
      registers,
      collect() {
        this.reset();
        const stats = storeStats();
        if (!stats) return;
        for (const op of Object.keys(stats[pick]).sort()) this.inc({ op }, stats[pick][op] ?? 0);
      },
    });
  const onceNonzero = (name: string, help: string, pick: (s: StoreStats) => number) =>
    new Counter({
      name,
      help,
      registers,
      collect() {
        this.reset();
        const stats = storeStats();
        const n = stats ? pick(stats) : 0;
        if (n > 0) this.inc(n);
        else clearSeries(this);
      },
    });

  const clusterEnabled = new Gauge({
    name: 'cronstable_cluster_enabled',
    help: 'Whether a cluster leadership backend runs (1) or not (0).',
    registers,
    collect() {
      this.set(context()?.cluster().enabled ? 1 : 0);
    },
  });
  const clusterInfo = new Gauge({
    name: 'cronstable_cluster_info',
    help: 'The cluster backend of this node.',
    labelNames: ['backend', 'node_name', 'distribution'],
    registers,
    collect() {
      this.reset();
      const c = context()?.cluster();
      if (!c?.enabled) return;
      this.set(
        {
          backend: c.backend ?? 'unknown',
          node_name: c.nodeName,
          distribution: c.distribution ?? 'single-leader',
        },
        1,
      );
    },
  });
  const clusterIsLeader = new Gauge({
    name: 'cronstable_cluster_is_leader',
    help: 'Whether this node is the leader (1) or not (0).',
    registers,
    collect() {
      const c = context()?.cluster();
      if (c?.enabled) this.set(c.leader !== null && c.leader === c.nodeName ? 1 : 0);
      else clearSeries(this);
    },
  });
  const clusterLeaderInfo = new Gauge({
    name: 'cronstable_cluster_leader_info',
    help: 'The current leader, when one is known.',
    labelNames: ['leader'],
    registers,
    collect() {
      this.reset();
      const c = context()?.cluster();
      if (c?.enabled && c.leader !== null) this.set({ leader: c.leader }, 1);
    },
  });
  const clusterPeers = new Gauge({
    name: 'cronstable_cluster_peers',
    help: 'Peers of this node by status.',
    labelNames: ['status'],
    registers,
    collect() {
      this.reset();
      const c = context()?.cluster();
      if (!c?.enabled || c.peers.length === 0) return;
      const counts = new Map<string, number>(PEER_STATUSES.map((s) => [s, 0]));
      for (const p of c.peers) {
        const st = (p as { status?: unknown } | null)?.status;
        const key = typeof st === 'string' && counts.has(st) ? st : 'unknown';
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      for (const [status, n] of counts) this.set({ status }, n);
    },
  });

  return [
    stateInfo,
    opCounter('cronstable_state_ops_total', 'Store operations by op.', 'ops'),
    opCounter('cronstable_state_op_errors_total', 'Failed store operations by op.', 'errors'),
    opCounter('cronstable_state_op_seconds_total', 'Seconds spent in store operations by op.', 'seconds'),
    onceNonzero(
      'cronstable_state_throttled_ops_total',
      'Store operations delayed by the rate limit.',
      (s) => s.throttledOps,
    ),
    onceNonzero(
      'cronstable_state_throttle_wait_seconds_total',
      'Seconds store operations waited for the rate limit.',
      (s) => s.throttleWaitSeconds,
    ),
    clusterEnabled,
    clusterInfo,
    clusterIsLeader,
    clusterLeaderInfo,
    clusterPeers,
  ] as Metric<string>[];
}

// The durable-state and cluster metric families (spec 06 §6.2), read at scrape time from the
// daemon context. A failing store read omits the block, never fails the scrape.
import type { Metric } from 'prom-client';
import type { WebContext } from '../api/context.ts';
import type { ClusterReport, PeerStatus } from '../cluster/types.ts';
import type { StoreStats } from '../store/types.ts';
import { clearSeries } from './exposition.ts';
import { Counter, Gauge } from './prom.ts';

// Every PeerStatus (cluster/peer-status.ts PEER_STATUSES), in the exposition order the scrape has
// always used: a different order would reorder the series of every existing scrape.
const PEER_EXPOSITION_ORDER: readonly PeerStatus[] = [
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

  /** The running backend's `/cluster` view, or null. */
  const report = (): ClusterReport | null => {
    const c = context()?.cluster();
    return c?.enabled ? (c.report ?? null) : null;
  };
  const gauge = (name: string, help: string, pick: (r: ClusterReport) => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        const r = report();
        if (r) this.set(pick(r));
        else clearSeries(this);
      },
    });
  /** Emitted when election is configured or once the count is non-zero (spec 05 §12.3). */
  const transitions = (name: string, help: string, pick: 'leader' | 'quorum') =>
    new Counter({
      name,
      help,
      registers,
      collect() {
        this.reset();
        const c = context()?.cluster();
        const n = c?.transitions?.[pick] ?? 0;
        if (c?.electLeader || n > 0) this.inc(n);
        else clearSeries(this);
      },
    });

  const clusterEnabled = new Gauge({
    name: 'cronstable_cluster_enabled',
    help: 'Whether a cluster leadership backend runs (1) or not (0).',
    registers,
    collect() {
      this.set(report() ? 1 : 0);
    },
  });
  const clusterInfo = new Gauge({
    name: 'cronstable_cluster_info',
    help: 'The cluster backend of this node.',
    labelNames: ['backend', 'node_name', 'distribution'],
    registers,
    collect() {
      this.reset();
      const r = report();
      if (r) this.set({ backend: r.backend, node_name: r.node_name, distribution: r.distribution }, 1);
    },
  });
  const clusterLeaderInfo = new Gauge({
    name: 'cronstable_cluster_leader_info',
    help: 'The current leader, when one is known.',
    labelNames: ['leader'],
    registers,
    collect() {
      this.reset();
      const r = report();
      if (r && r.leader !== null) this.set({ leader: r.leader }, 1);
    },
  });
  const clusterConflict = new Gauge({
    name: 'cronstable_cluster_conflict',
    help: 'Whether this node sees a conflict of the given kind (1) or not (0).',
    labelNames: ['kind'],
    registers,
    collect() {
      this.reset();
      const r = report();
      if (!r) return;
      this.set({ kind: 'nodename' }, r.conflict_names.length > 0 ? 1 : 0);
      this.set({ kind: 'size' }, r.size_conflict ? 1 : 0);
      this.set({ kind: 'policy' }, r.policy_conflict ? 1 : 0);
    },
  });
  const clusterPeers = new Gauge({
    name: 'cronstable_cluster_peers',
    help: 'Peers of this node by status.',
    labelNames: ['status'],
    registers,
    collect() {
      this.reset();
      const r = report();
      if (!r || r.peers.length === 0) return;
      const counts = new Map<string, number>(PEER_EXPOSITION_ORDER.map((s) => [s, 0]));
      for (const p of r.peers) {
        const key = counts.has(p.status) ? p.status : 'unknown';
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
    transitions(
      'cronstable_cluster_leader_transitions_total',
      'Times this node gained or lost leadership.',
      'leader',
    ),
    transitions(
      'cronstable_cluster_quorum_transitions_total',
      'Times this node joined or left quorum.',
      'quorum',
    ),
    clusterInfo,
    gauge('cronstable_cluster_size', 'Effective cluster size N.', (r) => r.cluster_size),
    gauge('cronstable_cluster_quorum', 'Nodes needed for quorum.', (r) => r.quorum),
    gauge('cronstable_cluster_quorate', 'Whether this node is quorate (1) or not (0).', (r) =>
      r.quorate ? 1 : 0,
    ),
    gauge('cronstable_cluster_is_leader', 'Whether this node is the leader (1) or not (0).', (r) =>
      r.is_leader ? 1 : 0,
    ),
    clusterLeaderInfo,
    clusterConflict,
    clusterPeers,
  ] as Metric<string>[];
}

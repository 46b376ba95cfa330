// The contract between the cluster backends (gossip, filesystem, etcd, kubernetes) and the rest
// of the daemon (spec 05, DESIGN.md §9). A backend keeps its own view of the fleet up to date in
// the background; the scheduler's gate asks it synchronously, per fire, whether this node may run
// a leader-gated job. Nothing here does I/O.
import type { ClusterSection } from '../config/file-schema.ts';
import type { Store } from '../store/types.ts';
import type { BackendKind } from '../util/backend-kinds.ts';
import type { Clock } from '../util/clock.ts';
import type { PeerStatus } from './peer-status.ts';

export type { BackendKind } from '../util/backend-kinds.ts';
export { PEER_STATUSES, type PeerStatus } from './peer-status.ts';

export type Distribution = 'single-leader' | 'spread';
/** The two gated policies; `EveryNode` never reaches a backend (spec 05 §3.1 row 2). */
export type GatedPolicy = 'Leader' | 'PreferLeader';

/** The live load a node shares with its peers (`X-Cronstable-Node-Stats`, spec 05 §5.3). */
export interface NodeStats {
  cpu_percent: number | null;
  cpu_count: number | null;
  mem_percent: number | null;
  mem_used_bytes: number | null;
  mem_total_bytes: number | null;
  proc_rss_bytes: number | null;
  proc_cpu_percent: number | null;
}

/** One configured peer as `/cluster` shows it (spec 05 §5.4), in its wire names. */
export interface PeerReport {
  host: string;
  status: PeerStatus;
  job_set_id: string | null;
  node_name: string | null;
  /** ISO-8601 UTC of the last successful poll, or null. */
  last_seen: string | null;
  last_error: string | null;
  mismatch_streak: number;
  node_stats: NodeStats | null;
}

/**
 * What `GET /cluster` shows of a running backend (spec 05 §12.1), in its wire names. The web
 * layer adds `enabled: true`, `job_set_id` and this node's `node_stats`.
 */
export interface ClusterReport {
  backend: BackendKind;
  node_name: string;
  cluster_size: number;
  quorum: number;
  elect_leader: boolean;
  distribution: Distribution;
  conflict: boolean;
  conflict_names: string[];
  size_conflict: boolean;
  conflicting_sizes: number[];
  policy_conflict: boolean;
  conflicting_policies: string[];
  /** Gossip only: the full count of electable names when over the 512-name advertisement cap, else 0. */
  candidates_truncated?: number;
  quorate: boolean;
  /** Leader (single-leader) or lease holder display name; always null under spread. */
  leader: string | null;
  is_leader: boolean;
  peers: PeerReport[];
  /** Lease backends: their lease block (spec 05 §8.4, §9, §10). */
  lease?: Record<string, unknown>;
  /** Lease backends: whether an observability mesh runs beside them (spec 05 §11). */
  fleet?: boolean;
}

/**
 * A backend's answer for one leader-gated fire (spec 05 §3.1 rows 4-7). `transient` marks a
 * denial that may clear by itself soon (no quorum yet, conflict, unsettled view): a retry is
 * deferred rather than ended (spec 05 §3.2).
 */
/** A gate answer; `noQuorum` marks a denial for want of quorum (the slot's outcome is then `no-quorum`). */
export type Leadership = { run: true } | { run: false; reason: string; transient: boolean; noQuorum?: true };

/** One job as the fleet view shows it (spec 05 §5.3 `job_summaries`). */
export interface JobSummary {
  running: boolean;
  enabled: boolean;
  scheduled_in: number | null;
  last: null | {
    outcome: 'success' | 'failure' | 'cancelled';
    finished_at: string;
    duration: number | null;
    exit_code: number | null;
  };
}

/** What a backend may read of the daemon it runs in. Every getter reads the current value. */
export interface ClusterHost {
  /** The effective `cluster.nodeName` (the system hostname when unset). */
  nodeName: string;
  clock: Clock;
  /** The current job-set id (changes on reload). */
  jobSetId(): string;
  /** Fleet view summaries of this node's jobs (gossip `job_summaries`). */
  jobSummaries(): Record<string, JobSummary>;
  /** This node's live load, or null when not shared. */
  nodeStats(): NodeStats | null;
  /** The durable store, when a `state:` section is configured and open. */
  store: Store | null;
  /** `level logger message` lines, logger `cronstable.cluster`. */
  log: {
    info(message: string): void;
    warning(message: string): void;
    error(message: string): void;
  };
}

/** A leadership backend (DESIGN.md §9). */
export interface ClusterBackend {
  readonly kind: BackendKind;
  /**
   * Starts the backend and resolves once its first round is done (gossip polls once inline
   * before the first scheduling pass, spec 05 §5.1). Rejects when the backend cannot run
   * (listener bind failed, bad certs, lock probe refused, ...): spec 05 §3.1 row 3 then applies.
   */
  start(): Promise<void>;
  /** Graceful stop: lease backends release their lease so a survivor takes over at once. */
  stop(): Promise<void>;
  /**
   * May this node run the fire of `name` (a job name, or `dag:<name>` for a DAG) under
   * `policy`? Synchronous and pure over the backend's current view; a throw is treated as a
   * skip (fail closed, spec 05 §3.1 row 8).
   */
  decide(name: string, policy: GatedPolicy): Leadership;
  /**
   * Under `distribution: spread`, the owner `/jobs` shows as `clusterOwner` (quorum-gated for
   * `Leader`, available for `PreferLeader`; null = none, i.e. no quorum). `undefined` when the
   * backend does not distribute (single-leader, lease backends).
   */
  ownerOf(name: string, policy: GatedPolicy): string | null | undefined;
  /** The `/cluster` body (spec 05 §12.1). */
  report(): ClusterReport;
  /**
   * `@reboot` under election (spec 05 §3.3): true once the fleet recorded the one-shot `job` as
   * run under the current job set; 'unknown' until the backend could read its persisted set.
   */
  rebootRan(job: string): boolean | 'unknown';
  /** Records the one-shot as run (gossip: pushed to peers; lease backends: persisted). */
  recordRebootRan(job: string): Promise<void>;
  /** The fleet view (`GET /fleet`, spec 05 §11), when this backend runs a gossip mesh. */
  fleet?(): unknown;
}

/**
 * Each backend module (`src/cluster/<kind>/index.ts`) exports one of these as
 * `create<Kind>Backend`; the manager picks it by `cluster.backend`. Constructing does no I/O.
 */
export type BackendFactory = (cluster: ClusterSection, host: ClusterHost) => ClusterBackend;

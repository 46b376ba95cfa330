// JSON shapes of the web API the dashboard reads (spec 06 §5). Only the fields the dashboard uses are typed;
// optional ones may be absent on older or newer daemons.

import type { PeerStatus } from '../api/wire/core.schema.ts';
import type { ApiResourceStats } from './resources.ts';

export type Outcome = 'success' | 'failure' | 'cancelled' | 'unknown';

/** A finished run (`last_run`, entries of `/jobs/{name}/runs`). */
export interface ApiRun {
  outcome: Outcome;
  exit_code: number | null;
  started_at: string | null;
  finished_at: string;
  duration: number | null;
  fail_reason: string | null;
  /** CPU and peak memory of a monitored run (spec 06 §5.4); absent or null otherwise */
  resources?: { cpu_total_seconds: number | null; max_rss_bytes: number | null } | null;
}

/** One `history` entry of `/jobs` (oldest first, at most 20). */
export interface ApiHistoryEntry {
  outcome: Outcome;
  duration: number | null;
}

export interface ApiFinding {
  code: string;
  level: string;
  message: string;
}

/** One element of `GET /jobs`. */
export interface ApiJob {
  name: string;
  enabled: boolean;
  schedule: string;
  command: string;
  captureStdout?: boolean;
  captureStderr?: boolean;
  utc: boolean;
  timezone: string | null;
  running: boolean;
  pids: number[];
  scheduled_in: number | null;
  never_fires: boolean;
  schedule_findings?: ApiFinding[];
  last_run: ApiRun | null;
  history: ApiHistoryEntry[];
  schedule_resolved?: string;
  /** The job's DST policy when it is not the default first / shift (issue 15). */
  dst?: { repeated: 'first' | 'last' | 'both'; skipped: 'shift' | 'skip' };
  retry?: { attempt: number; maxAttempts: number | null; nextRetryAt: string | null; delaySeconds: number };
  rebootPending?: boolean;
  clusterPolicy?: 'Leader' | 'PreferLeader' | 'EveryNode';
  /** present only under `distribution: spread`; null = no quorum */
  clusterOwner?: string | null;
}

/** `GET /jobs/{name}/runs`. */
export interface ApiRuns {
  name: string;
  runs: ApiRun[];
  stats: ApiRunStats & Partial<Pick<ApiResourceStats, 'avg_cpu_seconds' | 'max_rss_bytes'>>;
}

import type { ApiRunStats } from '../api/wire/jobs.schema.ts';

export type { ApiRunStats };

/** `GET /node`: this node's name and live CPU / memory (null when unavailable). */
export interface ApiNode {
  node_name: string;
  resources: { cpu_percent: number; cpu_count: number; mem_percent: number } | null;
  /** Absent on daemons older than the overload report. */
  overload?: {
    overloaded: boolean;
    missed_fires: number;
    last_missed_at: string | null;
    waiting_launches: number;
    launch_lag_seconds: number;
  };
}

/** Live load a node shares with its peers (spec 05 §5.3 node-stats header); any field may be null. */
export interface ApiNodeStats {
  cpu_percent: number | null;
  cpu_count?: number | null;
  mem_percent: number | null;
  mem_used_bytes?: number | null;
  mem_total_bytes?: number | null;
  proc_rss_bytes?: number | null;
  proc_cpu_percent?: number | null;
}

export type { PeerStatus };

/** One configured gossip peer on `/cluster` (spec 05 §5.4). */
export interface ApiPeer {
  host: string;
  status: PeerStatus | string;
  job_set_id?: string | null;
  node_name?: string | null;
  last_seen?: string | null;
  last_error?: string | null;
  mismatch_streak?: number;
  node_stats?: ApiNodeStats | null;
}

/**
 * `GET /cluster` (spec 05 §12.1). `{enabled: false, peers: []}` without a running backend; every other field is
 * present when a backend runs (optional here so a partial answer never breaks the page).
 */
export interface ApiCluster {
  enabled: boolean;
  backend?: 'gossip' | 'filesystem' | 'etcd' | 'kubernetes' | string;
  node_name?: string;
  job_set_id?: string;
  cluster_size?: number;
  quorum?: number;
  elect_leader?: boolean;
  distribution?: 'single-leader' | 'spread' | string;
  conflict?: boolean;
  conflict_names?: string[];
  size_conflict?: boolean;
  conflicting_sizes?: number[];
  policy_conflict?: boolean;
  conflicting_policies?: string[];
  quorate?: boolean;
  leader?: string | null;
  is_leader?: boolean;
  peers: ApiPeer[];
  /** Lease backends: the lease block (filesystem / etcd / kubernetes shapes differ). */
  lease?: Record<string, unknown>;
  /** Lease backends: whether an observability mesh feeds `/fleet`. */
  fleet?: boolean;
  node_stats?: ApiNodeStats | null;
}

/** One job of a fleet node (spec 05 §5.3 `job_summaries`). */
export interface ApiJobSummary {
  running: boolean;
  enabled: boolean;
  scheduled_in: number | null;
  last: null | {
    outcome: 'success' | 'failure' | 'cancelled' | string;
    finished_at: string;
    duration: number | null;
    exit_code: number | null;
  };
}

export interface ApiFleetNode {
  node_name: string | null;
  host: string | null;
  self: boolean;
  status: PeerStatus | string;
  /** ISO-8601 of the observation these jobs come from. */
  as_of: string | null;
  jobs: Record<string, ApiJobSummary> | null;
  truncated: boolean;
  node_stats: ApiNodeStats | null;
}

/** `GET /fleet` (spec 05 §11); `{enabled: false, nodes: []}` without a gossip mesh. */
export interface ApiFleet {
  enabled: boolean;
  backend?: string;
  node_name?: string;
  distribution?: string;
  elect_leader?: boolean;
  interval?: number;
  nodes: ApiFleetNode[];
}

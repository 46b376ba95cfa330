// JSON shapes of the web API the dashboard reads (spec 06 §5). Only the fields the dashboard uses are typed;
// optional ones may be absent on older or newer daemons.

export type Outcome = 'success' | 'failure' | 'cancelled' | 'unknown';

/** A finished run (`last_run`, entries of `/jobs/{name}/runs`). */
export interface ApiRun {
  outcome: Outcome;
  exit_code: number | null;
  started_at: string | null;
  finished_at: string;
  duration: number | null;
  fail_reason: string | null;
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
  stats: {
    total: number;
    success: number;
    failure: number;
    cancelled: number;
    unknown: number;
    success_rate: number | null;
    avg_duration: number | null;
    min_duration: number | null;
    max_duration: number | null;
    last_duration: number | null;
  };
}

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

/** `GET /cluster` (the fields the dashboard reads). */
export interface ApiCluster {
  enabled: boolean;
  backend?: string;
  node_name?: string;
  leader?: string | null;
  quorate?: boolean;
  distribution?: string;
  peers: Array<{ host?: string; status?: string; node_name?: string | null }>;
}

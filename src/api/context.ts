// What the web server reads from the running daemon. The daemon builds one WebContext and
// the server never reaches around it, so tests can run the server against a real scheduler.
import type { ClusterReport, Distribution, GatedPolicy } from '../cluster/types.ts';
import type { WebSection } from '../config/file-schema.ts';
import type { LoadedConfig } from '../config/types.ts';
import type { LiveTaskOutput } from '../dag/engine/tasks.ts';
import type { PushService } from '../report/push/service.ts';
import type { SlaMonitor } from '../scheduler/sla/monitor.ts';
import type { SchedulerView } from '../scheduler/view.ts';
import type { Store } from '../store/types.ts';
import type { Clock } from '../util/clock.ts';

export interface WebContext {
  version: string;
  hostname: string;
  clock: Clock;
  /** The config currently running (changes on reload). */
  config(): LoadedConfig;
  jobSetId(): string;
  /**
   * Jobs, status, history, live runs, manual start/cancel, and the event stream (recorded runs,
   * slot outcomes, output lines) that metrics, `/status` and the log streams subscribe to.
   */
  scheduler: SchedulerView;
  /** The durable store when a `state:` section is configured. */
  store: Store | null;
  /** The cluster view. */
  cluster(): ClusterView;
  /**
   * The daemon-owned Prometheus registry (spec 06 §1.4: counters survive server restarts).
   * When absent the server makes a private one for its own lifetime.
   */
  metrics?: MetricsRegistry;
  /** Outcome of the last config parse, for `cronstable_config_last_reload_*` (absent before the first). */
  configReload?(): { successful: boolean; atMs: number | null } | null;
  /**
   * Drains and stops this node as SIGTERM does (`POST /shutdown`, spec 10 §4.7); absent where nothing
   * owns the process (an embedded server), and the route then refuses.
   */
  requestShutdown?(): void;
  /** The DAG engine's HTTP surface; absent until DAGs exist (every DAG route then answers 404). */
  dags?: DagWebApi;
  /** The SLA monitor (spec 09 §2): each job's `sla` object and the two metric families. */
  sla?(): Pick<SlaMonitor, 'view' | 'series'> | null;
  /**
   * The push channel (spec 10 §6): null without a `push:` section, `unavailable` when the section is
   * applied but its registry could not open (no store).
   */
  push?(): PushService | 'unavailable' | null;
}

/** The cluster as the web API shows it (spec 05 §12). */
export interface ClusterView {
  /** A leadership backend runs: `report` is its `/cluster` body. */
  enabled: boolean;
  /** `cluster.nodeName`, or the host name. */
  nodeName: string;
  /** Election is configured (`clusterPolicy` in force): `/jobs` shows each job's policy. */
  electLeader?: boolean;
  /** The configured distribution: under spread `/jobs` shows each gated job's owner. */
  distribution?: Distribution;
  report?: ClusterReport | null;
  /** The owner `/jobs` shows as `clusterOwner` under spread (undefined: not distributed). */
  ownerOf?(name: string, policy: GatedPolicy): string | null | undefined;
  /** The `/fleet` body of the gossip mesh, or null without one. */
  fleet?(): unknown;
  /** Leadership / quorum transitions of this node so far (metrics). */
  transitions?: { leader: number; quorum: number };
}

/** A DAG route's answer: a JSON body, or an error status with its message (spec 04 §9). */
export type DagAnswer =
  | { ok: true; body: unknown }
  | { ok: false; status: 400 | 404 | 409 | 500; error: string };

/** What the DAG routes delegate to (spec 04 §9, spec 06 §5.13). */
export interface DagWebApi {
  list(): Promise<unknown[]>;
  runs(dag: string, limit: number): Promise<DagAnswer>;
  run(dag: string, runKey: string): Promise<DagAnswer>;
  xcom(dag: string, runKey: string): Promise<DagAnswer>;
  trigger(dag: string): Promise<DagAnswer>;
  /** `body` is the parsed JSON request body (already checked to be an object). */
  backfill(dag: string, body: Record<string, unknown>): Promise<DagAnswer>;
  decide(dag: string, runKey: string, task: string, body: Record<string, unknown>): Promise<DagAnswer>;
  /** What `backfill` would create, creating nothing (same refusals); the MCP backfill's dry run. */
  backfillPreview?(dag: string, body: Record<string, unknown>): DagAnswer;
  /**
   * Live output of a running task instance here; null when unknown DAG, 'idle' when nothing runs.
   * `published` counts the lines the instance ever wrote (the ring keeps the newest), `startedAt`
   * (epoch ms) tells one instance from the next.
   */
  taskOutput?(dag: string, runKey: string, task: string): LiveTaskOutput | 'idle' | null;
}

export type { LiveSink as LiveLineSink } from '../dag/engine/tasks.ts';

/**
 * What the server needs of the Prometheus registry (implemented by `Metrics` in metrics.ts);
 * declared here so that the registry can read the context without an import cycle.
 */
export interface MetricsRegistry {
  configure(web: WebSection | null | undefined): void;
  /** Subscribes to the context's runs; returns the detach. */
  attach(ctx: WebContext): () => void;
  exposition(accept: string | undefined): Promise<{ contentType: string; body: string }>;
  /** Counts one MCP `tools/call` of a visible tool by outcome (ok, error, refused, internal). */
  mcpToolCall?(tool: string, outcome: string): void;
}

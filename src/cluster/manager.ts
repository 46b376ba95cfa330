// The cluster manager (spec 05 §2, §5.1, §7, §11, §12.3): builds the leadership backend named by
// `cluster.backend`, starts it (a rejected start leaves no running backend: §3.1 row 3), rebuilds
// it when the cluster config or its TLS files change, stops it (graceful release) on shutdown,
// and follows its view on a one-second cadence to count and log leadership and quorum changes.
import { readFileSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import type { ClusterSection } from '../config/file-schema.ts';
import type { Store } from '../store/types.ts';
import type { Clock, TimerHandle } from '../util/clock.ts';
import { errorText } from '../util/errors.ts';
import { BACKENDS, type BackendLoader, FLEET_MESH } from './backends.ts';
import type { GateSource } from './gate.ts';
import { NodeLoad } from './node-stats.ts';
import type {
  BackendKind,
  ClusterBackend,
  ClusterHost,
  ClusterReport,
  Distribution,
  GatedPolicy,
  JobSummary,
  NodeStats,
} from './types.ts';

export interface ManagerLog {
  info(message: string): void;
  warning(message: string): void;
  error(message: string): void;
}

export interface ClusterManagerOptions {
  clock: Clock;
  /** Logger `cronstable.cluster`. */
  log: ManagerLog;
  jobSetId(): string;
  jobSummaries(): Record<string, JobSummary>;
  /** The open store, when a `state:` section is configured. */
  store(): Store | null;
  /** Backend loaders by kind (default: this build's registry). */
  backends?: Partial<Record<BackendKind, BackendLoader>>;
  /** The observability mesh of lease backends (default: this build's). */
  fleetMesh?: BackendLoader | null;
  /** How long `apply` waits for a backend's first round before the daemon goes on, ms. */
  startWaitMs?: number;
  /** Cadence of the leadership/quorum follow-up, ms. */
  cadenceMs?: number;
  /** How often the TLS files are checked for changes, ms (spec 05 §5.1: about once a minute). */
  tlsCheckMs?: number;
  /** The system hostname (default os.hostname()). */
  hostname?: string;
  /** Told each leadership or quorum flip this node sees (spec 09 §5.2); never at shutdown. */
  onRoleChange?(change: RoleChange): void;
}

/** One flip of this node's role; `reload`: a reload stopped the manager (leader is then unknown). */
export interface RoleChange {
  what: 'leader' | 'quorum';
  /** The new value: leader (or quorate) now. */
  now: boolean;
  leader: string | null;
  reload: boolean;
}

/** Whether the section puts `clusterPolicy` in force (spec 05 §2.1: lease backends always). */
export function electionConfigured(cluster: ClusterSection | null): boolean {
  if (!cluster) return false;
  return (cluster.backend ?? 'gossip') === 'gossip' ? (cluster.electLeader ?? false) : true;
}

/** The TLS files whose (mtime, size) rebuild the backend when they change (spec 05 §5.1). */
export function tlsFilesOf(cluster: ClusterSection): string[] {
  const files = [cluster.tls, cluster.observability?.tls, cluster.etcd?.tls].flatMap((t) =>
    t ? [t.ca, t.cert, t.key] : [],
  );
  return files.filter((f): f is string => typeof f === 'string' && f !== '');
}

function stamp(path: string): string {
  try {
    const s = statSync(path);
    return `${s.mtimeMs}:${s.size}`;
  } catch {
    return 'missing';
  }
}

/** Changes whenever the backend must be rebuilt: its config or one of its TLS files. */
export function rebuildKey(cluster: ClusterSection): string {
  return JSON.stringify([cluster, tlsFilesOf(cluster).map((f) => [f, stamp(f)])]);
}

/** The first TLS file that cannot be read, or null. */
function unreadableTls(cluster: ClusterSection): string | null {
  for (const f of tlsFilesOf(cluster)) {
    try {
      readFileSync(f);
    } catch (e) {
      return `${f}: ${errorText(e)}`;
    }
  }
  return null;
}

/** Whether a lease backend's section asks for the observability mesh (spec 05 §11). */
export function wantsMesh(cluster: ClusterSection): boolean {
  const o = cluster.observability;
  return (cluster.backend ?? 'gossip') !== 'gossip' && Boolean(o?.listen && o.tls && o.peers);
}

interface Role {
  leader: boolean;
  quorate: boolean;
  leaderName: string | null;
}

const NO_ROLE: Role = { leader: false, quorate: false, leaderName: null };

export class ClusterManager implements GateSource {
  private section: ClusterSection | null = null;
  private key: string | null = null;
  private generation = 0;
  /** Built and started (or starting); `running` once its start resolved. */
  private built: ClusterBackend | null = null;
  private running: ClusterBackend | null = null;
  private meshBuilt: ClusterBackend | null = null;
  private meshRunning: ClusterBackend | null = null;
  private queue: Promise<void> = Promise.resolve();
  private timer: TimerHandle | null = null;
  private lastTlsCheck = 0;
  private role: Role = NO_ROLE;
  private stopped = false;
  private readonly load = new NodeLoad();
  private readonly backends: Partial<Record<BackendKind, BackendLoader>>;
  private readonly mesh: BackendLoader | null;
  /** Times this node gained or lost leadership / joined or left quorum (spec 05 §12.3). */
  leaderTransitions = 0;
  quorumTransitions = 0;

  constructor(private readonly o: ClusterManagerOptions) {
    this.backends = o.backends ?? BACKENDS;
    this.mesh = o.fleetMesh === undefined ? FLEET_MESH : o.fleetMesh;
  }

  /** `cluster.nodeName`, else the system hostname. */
  get nodeName(): string {
    return this.section?.nodeName || this.o.hostname || hostname();
  }

  /** A `cluster:` section is configured. */
  configured(): boolean {
    return this.section !== null;
  }

  electionOn(): boolean {
    return electionConfigured(this.section);
  }

  /** The configured distribution (spread is gossip-only and needs election). */
  distribution(): Distribution {
    const c = this.section;
    return c && (c.backend ?? 'gossip') === 'gossip' && c.distribution === 'spread'
      ? 'spread'
      : 'single-leader';
  }

  backend(): ClusterBackend | null {
    return this.running;
  }

  /** `/cluster` of the running backend (null without one); lease backends say whether a mesh runs. */
  report(): ClusterReport | null {
    const b = this.running;
    if (!b) return null;
    try {
      const r = b.report();
      if (b.kind === 'gossip') return r;
      // Lease backends say whether the observability overlay is configured (spec 05 §12.1).
      return { ...r, fleet: r.fleet === true || (this.section !== null && wantsMesh(this.section)) };
    } catch (e) {
      this.o.log.warning(`cluster: the ${b.kind} backend's report failed: ${errorText(e)}`);
      return null;
    }
  }

  /** `/fleet`: the mesh's (lease backends) or the gossip backend's fleet view, or null. */
  fleet(): unknown {
    const source = this.meshRunning ?? this.running;
    try {
      return source?.fleet?.() ?? null;
    } catch (e) {
      this.o.log.warning(`cluster: the fleet view failed: ${errorText(e)}`);
      return null;
    }
  }

  /**
   * `/jobs` `clusterOwner` (spec 05 §12.2): only under spread; without a running backend a
   * Leader job has no owner and a PreferLeader job runs here (§3.1 row 3).
   */
  ownerOf(name: string, policy: GatedPolicy): string | null | undefined {
    if (!this.electionOn() || this.distribution() !== 'spread') return undefined;
    const b = this.running;
    if (!b) return policy === 'PreferLeader' ? this.nodeName : null;
    try {
      const owner = b.ownerOf(name, policy);
      return owner === undefined ? null : owner;
    } catch {
      return null;
    }
  }

  /**
   * Installs the `cluster:` section at start and on every reload. The backend is rebuilt only
   * when the section or its TLS files changed; `advisories` (the config's cluster warnings) are
   * logged once per (re)build, not on every reload (spec 05 §2.2).
   */
  apply(cluster: ClusterSection | null, advisories: readonly string[] = []): Promise<void> {
    const next = this.queue.then(() => this.applyNow(cluster, advisories));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async applyNow(cluster: ClusterSection | null, advisories: readonly string[]): Promise<void> {
    if (this.stopped) return;
    this.armCadence();
    const key = cluster ? rebuildKey(cluster) : null;
    if (key === this.key) return;
    if (cluster && this.running) {
      const bad = unreadableTls(cluster);
      if (bad) {
        this.o.log.warning(
          `cluster: the new TLS files do not load yet (${bad}); keeping the running backend and retrying at the next check`,
        );
        return;
      }
    }
    if (this.built || this.meshBuilt)
      this.o.log.info('cluster: the cluster configuration changed; rebuilding');
    await this.teardown();
    this.section = cluster;
    this.key = key;
    if (!cluster) return;
    for (const a of advisories) this.o.log.warning(a);
    await this.build(cluster);
  }

  private host(cluster: ClusterSection, nodeName: string): ClusterHost {
    const o = this.o;
    const share = cluster.observability !== undefined && (cluster.observability.shareNodeStats ?? true);
    return {
      nodeName,
      clock: o.clock,
      jobSetId: () => o.jobSetId(),
      jobSummaries: () => o.jobSummaries(),
      nodeStats: () => (share ? this.nodeStats() : null),
      get store() {
        return o.store();
      },
      log: o.log,
    };
  }

  /** This node's live load, in the cluster's wire names. */
  nodeStats(): NodeStats {
    return { ...this.load.read() };
  }

  private async build(cluster: ClusterSection): Promise<void> {
    const kind = cluster.backend ?? 'gossip';
    const generation = ++this.generation;
    const node = this.nodeName;
    const started = this.startOne(kind, this.backends[kind], cluster, node, generation, false);
    const mesh = wantsMesh(cluster)
      ? this.startOne('gossip', this.mesh, cluster, cluster.observability?.nodeName ?? node, generation, true)
      : null;
    const wait = this.o.startWaitMs ?? 30_000;
    let timer: TimerHandle | null = null;
    const late = new Promise<void>((resolve) => {
      timer = this.o.clock.setTimer(resolve, wait);
    });
    await Promise.race([Promise.all([started, mesh]), late]);
    if (timer) this.o.clock.clearTimer(timer);
  }

  private async startOne(
    kind: BackendKind,
    loader: BackendLoader | null | undefined,
    cluster: ClusterSection,
    nodeName: string,
    generation: number,
    isMesh: boolean,
  ): Promise<void> {
    const what = isMesh ? 'observability mesh' : `${kind} backend`;
    const consequence = isMesh
      ? '/fleet stays empty'
      : 'Leader jobs are skipped, PreferLeader and EveryNode jobs run';
    if (!loader) {
      this.o.log.error(`cluster: the ${what} is not available in this build; ${consequence}`);
      return;
    }
    let backend: ClusterBackend;
    try {
      backend = (await loader())(cluster, this.host(cluster, nodeName));
    } catch (e) {
      this.o.log.error(`cluster: the ${what} could not be built: ${errorText(e)}; ${consequence}`);
      return;
    }
    if (generation !== this.generation) return;
    if (isMesh) this.meshBuilt = backend;
    else this.built = backend;
    try {
      await backend.start();
    } catch (e) {
      if (generation === this.generation) {
        this.o.log.error(`cluster: the ${what} could not start: ${errorText(e)}; ${consequence}`);
        if (isMesh) this.meshBuilt = null;
        else this.built = null;
      }
      await backend.stop().catch(() => undefined);
      return;
    }
    if (generation !== this.generation) return;
    if (isMesh) this.meshRunning = backend;
    else {
      this.running = backend;
      this.o.log.info(`cluster: the ${kind} backend runs as node ${nodeName}`);
      this.follow();
    }
  }

  /** Stops what runs (graceful release), so a survivor can take over at once. */
  private async teardown(): Promise<void> {
    this.generation++;
    const all = [this.built, this.running, this.meshBuilt, this.meshRunning].filter(
      (b, i, list): b is ClusterBackend => b !== null && list.indexOf(b) === i,
    );
    this.built = this.running = this.meshBuilt = this.meshRunning = null;
    this.follow(this.stopped ? 'shutdown' : 'reload');
    await Promise.all(
      all.map((b) =>
        b
          .stop()
          .catch((e) =>
            this.o.log.warning(`cluster: stopping the ${b.kind} backend failed: ${errorText(e)}`),
          ),
      ),
    );
  }

  /** Shutdown: release leadership before the store closes; nothing is rebuilt afterwards. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) this.o.clock.clearTimer(this.timer);
    this.timer = null;
    await this.queue;
    await this.teardown();
  }

  private armCadence(): void {
    if (this.timer || this.stopped) return;
    this.timer = this.o.clock.setTimer(() => {
      this.timer = null;
      this.tick();
      this.armCadence();
    }, this.o.cadenceMs ?? 1000);
  }

  private tick(): void {
    this.follow();
    const every = this.o.tlsCheckMs ?? 60_000;
    const now = this.o.clock.monotonic();
    if (now - this.lastTlsCheck < every) return;
    this.lastTlsCheck = now;
    const section = this.section;
    if (section && tlsFilesOf(section).length > 0 && rebuildKey(section) !== this.key)
      void this.apply(section).catch((e) => this.o.log.error(`cluster: rebuilding failed: ${errorText(e)}`));
  }

  /** Compares the backend's view with the last one: counts and logs leadership and quorum changes. */
  private follow(cause: 'view' | 'reload' | 'shutdown' = 'view'): void {
    let now = NO_ROLE;
    const b = this.running;
    if (b) {
      try {
        const r = b.report();
        now = { leader: r.is_leader, quorate: r.quorate, leaderName: r.leader };
      } catch {
        now = NO_ROLE;
      }
    }
    const before = this.role;
    this.role = now;
    const log = this.o.log;
    const tell = (what: RoleChange['what'], flipped: boolean) => {
      if (cause !== 'shutdown')
        this.o.onRoleChange?.({ what, now: flipped, leader: now.leaderName, reload: cause === 'reload' });
    };
    if (now.quorate !== before.quorate) {
      this.quorumTransitions++;
      log.info(now.quorate ? 'cluster: quorum reached' : 'cluster: quorum lost');
      tell('quorum', now.quorate);
    }
    if (now.leader !== before.leader) {
      this.leaderTransitions++;
      log.info(
        now.leader
          ? 'cluster: this node is now the leader'
          : `cluster: this node is no longer the leader (leader: ${now.leaderName ?? 'none'})`,
      );
      tell('leader', now.leader);
    }
  }
}

// The filesystem leadership backend (spec 05 §7, §8, §14): the lease is a fenced row of the
// shared SQLite store at `<cluster.filesystem.path>/cronstable.db`, taken and renewed on the
// store's lease lane in rounds every max(1, ttl/3) s. Start-up refuses mounts whose locks
// cannot fence other nodes; a refusal rejects start() so the gate skips Leader jobs.
import { mkdir, realpath } from 'node:fs/promises';
import type { ClusterSection } from '../../config/file-schema.ts';
import { openStore } from '../../store/index.ts';
import { probeMount, resolveTopology } from '../../store/topology.ts';
import type { Store } from '../../store/types.ts';
import type { TimerHandle } from '../../util/clock.ts';
import { gossipKeysAdvisory } from '../lease-advisory.ts';
import { displayHolder, expiryIso, holderToken, LeaseState, leaseClusterReport } from '../lease-state.ts';
import type {
  BackendFactory,
  ClusterBackend,
  ClusterHost,
  ClusterReport,
  GatedPolicy,
  Leadership,
} from '../types.ts';
import { mountRefusal, probeLockFidelity, topologyWarning } from './checks.ts';
import { bounded, Election, type RoundResult } from './election.ts';
import { RebootRanSet } from './reboot-ran.ts';
import { CLOCK_SKEW_ENV, type FilesystemSettings, filesystemSettings } from './settings.ts';

export { CLOCK_SKEW_ENV };

/** The ran-set is re-read this often (and on gaining leadership). */
export const REBOOT_RAN_REFRESH_MS = 60_000;
/** A failing round repeats its WARNING at most this often while the message stays the same. */
const REPEAT_WARNING_MS = 60_000;

export interface FilesystemBackendOptions {
  /** Holder token suffix (tests run several contenders in one process); default per process. */
  tokenSuffix?: string;
  /** Process environment (the clock-skew test hook); default process.env. */
  env?: Record<string, string | undefined>;
}

/** Whether the daemon's store is this election's store and runs off the main thread. */
function reusable(store: Store | null, s: FilesystemSettings): store is Store {
  if (!store || store.path !== s.path || store.namespace !== s.namespace) return false;
  // An inline store would run a contended BEGIN IMMEDIATE on the event loop (busy_timeout
  // 5 s): the lease needs the lease lane's short, bounded calls.
  if (!store.stats?.().backend.includes('worker lanes')) return false;
  // The skew hook needs a store whose wall clock it can shift.
  return s.skewMs === 0;
}

export class FilesystemBackend implements ClusterBackend {
  readonly kind = 'filesystem' as const;
  private readonly settings: FilesystemSettings;
  private readonly state: LeaseState;
  private store: Store | null = null;
  private ownStore = false;
  private election: Election | null = null;
  private ranSet: RebootRanSet | null = null;
  private timer: TimerHandle | null = null;
  private running: Promise<void> | null = null;
  private starting: Promise<void> | null = null;
  private stopped = false;
  private lastRanRefresh = Number.NEGATIVE_INFINITY;
  private lastWarning: { text: string; at: number; repeats: number } | null = null;
  private wasLeader = false;

  constructor(
    private readonly cluster: ClusterSection,
    private readonly host: ClusterHost,
    opts: FilesystemBackendOptions = {},
  ) {
    this.settings = filesystemSettings(cluster, opts.env);
    this.state = new LeaseState({
      clock: { now: () => this.wallMs(), monotonic: () => host.clock.monotonic() },
      token: holderToken(host.nodeName, opts.tokenSuffix),
      ttlSeconds: this.settings.ttlSeconds,
    });
  }

  /** The wall clock that writes and judges lease expiry (plus the test-only skew). */
  private wallMs(): number {
    return this.host.clock.now() + this.settings.skewMs;
  }

  start(): Promise<void> {
    if (this.starting) return Promise.reject(new Error('the filesystem backend was already started'));
    this.starting = this.startOnce();
    return this.starting;
  }

  private async startOnce(): Promise<void> {
    const s = this.settings;
    const log = this.host.log;
    const advisory = gossipKeysAdvisory(this.cluster, 'filesystem');
    if (advisory) log.warning(advisory);
    if (s.skewMs !== 0)
      log.warning(`cluster: test hook ${CLOCK_SKEW_ENV}=${s.skewMs} shifts the lease wall clock`);

    await mkdir(s.path, { recursive: true, mode: 0o700 });
    const probe = probeMount(await realpath(s.path));
    const refusal = mountRefusal(s.path, probe);
    if (refusal) {
      log.error(refusal);
      throw new Error(refusal);
    }
    const topology = resolveTopology(s.topology, probe).topology;
    const warn = topologyWarning(s.path, topology);
    if (warn) log.warning(warn);

    if (reusable(this.host.store, s)) this.store = this.host.store;
    else {
      this.store = await openStore({
        path: s.path,
        namespace: s.namespace,
        topology,
        placement: 'lanes',
        opTimeoutMs: Math.max(500, Math.ceil(s.cadence.opMs)),
        now: () => this.wallMs(),
        writer: this.state.token,
        onWarning: (m) => log.warning(`cluster: store: ${m}`),
      });
      this.ownStore = true;
    }
    const store = this.store;

    const fidelity = await probeLockFidelity(store.path);
    if (fidelity.verdict === 'refuse') {
      log.error(fidelity.message);
      await this.closeOwnStore();
      throw new Error(fidelity.message);
    }
    if (fidelity.verdict === 'inconclusive')
      log.warning(`cluster: filesystem lock probe inconclusive (${fidelity.why}); electing anyway`);

    this.election = new Election({
      store,
      state: this.state,
      clock: this.host.clock,
      wallMs: () => this.wallMs(),
      electionName: s.electionName,
      ttlSeconds: s.ttlSeconds,
      cadence: s.cadence,
    });
    this.ranSet = new RebootRanSet(store, () => this.host.jobSetId());

    await this.tick(false);
    log.info(
      `cluster: filesystem election ready at ${s.path} (election=${s.electionName}, identity=${this.host.nodeName}, ttl=${s.ttlSeconds})`,
    );
    this.schedule(s.cadence.renewMs);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = this.host.clock.setTimer(() => {
      this.timer = null;
      const began = this.host.clock.monotonic();
      this.running = this.tick(true).finally(() => {
        this.running = null;
        const next = began + this.settings.cadence.renewMs - this.host.clock.monotonic();
        this.schedule(Math.max(0, next));
      });
    }, delayMs);
  }

  /** One round plus its consequences: logs, the ran-set refresh. */
  private async tick(background: boolean): Promise<void> {
    const election = this.election;
    if (!election || this.stopped) return;
    let result: RoundResult;
    try {
      result = await election.round();
    } catch (e) {
      result = { step: 'failed', error: (e as Error)?.message ?? String(e) };
    }
    this.logRound(result);
    const leading = this.state.isLeader();
    const gained = leading && !this.wasLeader;
    if (leading !== this.wasLeader) {
      const h = this.state.holder();
      this.host.log.info(
        leading
          ? `cluster: this node leads ${this.settings.electionName} (fence ${h?.fence ?? '?'})`
          : `cluster: this node no longer leads ${this.settings.electionName}`,
      );
    }
    this.wasLeader = leading;
    const now = this.host.clock.monotonic();
    if (gained) this.ranSet?.invalidate();
    if (gained || now - this.lastRanRefresh >= REBOOT_RAN_REFRESH_MS) {
      this.lastRanRefresh = now;
      const refresh = this.refreshRanSet();
      if (!background) await refresh;
    }
  }

  private async refreshRanSet(): Promise<void> {
    const ranSet = this.ranSet;
    if (!ranSet) return;
    const answer = await bounded(this.host.clock, this.settings.cadence.roundMs, 'reboot-ran read', () =>
      ranSet.refresh(),
    );
    if (!answer.ok) {
      this.host.log.warning(`cluster: filesystem @reboot ran-set not read: ${answer.why}`);
      this.lastRanRefresh = Number.NEGATIVE_INFINITY;
    }
  }

  private logRound(result: RoundResult): void {
    if (result.step !== 'failed') {
      if (this.lastWarning) this.host.log.info('cluster: filesystem election rounds succeed again');
      this.lastWarning = null;
      return;
    }
    const text = result.error ?? 'unknown error';
    const now = this.host.clock.monotonic();
    const last = this.lastWarning;
    if (last && last.text === text && now - last.at < REPEAT_WARNING_MS) {
      last.repeats++;
      return;
    }
    const again =
      last && last.text === text && last.repeats > 0 ? ` (failed ${last.repeats} more times since)` : '';
    this.host.log.warning(`cluster: filesystem election round failed: ${text}${again}`);
    this.lastWarning = { text, at: now, repeats: 0 };
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    // A stop during start waits for it (bounded: the store open and one round), then undoes it.
    await this.starting?.catch(() => undefined);
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) this.host.clock.clearTimer(this.timer);
    this.timer = null;
    if (this.running) await this.running;
    const released = await this.election?.release();
    if (released && !released.ok)
      this.host.log.warning(`cluster: filesystem lease not released: ${released.why}`);
    else if (released) this.host.log.info(`cluster: released ${this.settings.electionName}`);
    this.wasLeader = false;
    await this.closeOwnStore();
  }

  private async closeOwnStore(): Promise<void> {
    if (this.ownStore && this.store) await this.store.close().catch(() => undefined);
    this.ownStore = false;
  }

  decide(name: string, policy: GatedPolicy): Leadership {
    return this.state.decide(name, policy);
  }

  ownerOf(): undefined {
    return undefined;
  }

  report(): ClusterReport {
    const h = this.state.holder();
    const lease = {
      path: this.settings.path,
      electionName: this.settings.electionName,
      identity: this.host.nodeName,
      holder: h ? displayHolder(h.holder) : null,
      fence: h?.fence ?? null,
      expiry: expiryIso(h?.expiresAt),
    };
    return leaseClusterReport(
      'filesystem',
      this.host.nodeName,
      this.state,
      lease,
      Boolean(this.cluster.observability?.listen),
    );
  }

  rebootRan(job: string): boolean | 'unknown' {
    return this.ranSet?.has(job) ?? 'unknown';
  }

  async recordRebootRan(job: string): Promise<void> {
    if (!this.ranSet) throw new Error('the filesystem backend is not running');
    await this.ranSet.record(job);
  }

  /** The store the election runs on (the daemon's, or its own), once started. */
  get storeInUse(): Store | null {
    return this.store;
  }
}

export const createFilesystemBackend: BackendFactory = (cluster, host) =>
  new FilesystemBackend(cluster, host);

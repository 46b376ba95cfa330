// The filesystem leadership backend (spec 05 §7, §8, §14): the lease is a fenced row of the
// shared SQLite store at `<cluster.filesystem.path>/cronstable.db`, taken and renewed on the
// store's lease lane in rounds every max(1, ttl/3) s (election.ts). Start-up refuses mounts whose
// locks cannot fence other nodes; a refusal rejects start() so the gate skips Leader jobs.
import { mkdir, realpath } from 'node:fs/promises';
import type { ClusterSection } from '../../config/file-schema.ts';
import { openStore } from '../../store/index.ts';
import { probeMount, resolveTopology } from '../../store/topology.ts';
import type { Store } from '../../store/types.ts';
import { LeaseBackend } from '../backend.ts';
import { displayHolder, expiryIso, holderToken, LeaseState } from '../lease-state.ts';
import type { ClusterHost } from '../types.ts';
import { mountRefusal, probeLockFidelity, topologyWarning } from './checks.ts';
import { bounded, Election } from './election.ts';
import { RebootRanSet } from './reboot-ran.ts';
import { CLOCK_SKEW_ENV, type FilesystemSettings, filesystemSettings } from './settings.ts';

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

export class FilesystemBackend extends LeaseBackend {
  private readonly settings: FilesystemSettings;
  private store: Store | null = null;
  private ownStore = false;
  private election: Election | null = null;
  private ranSet: RebootRanSet | null = null;

  constructor(cluster: ClusterSection, host: ClusterHost, opts: FilesystemBackendOptions = {}) {
    const settings = filesystemSettings(cluster, opts.env);
    // The wall clock that writes and judges lease expiry (plus the test-only skew).
    const wallMs = () => host.clock.now() + settings.skewMs;
    super(
      'filesystem',
      cluster,
      host,
      new LeaseState({
        clock: { now: wallMs, monotonic: () => host.clock.monotonic() },
        token: holderToken(host.nodeName, opts.tokenSuffix),
        ttlSeconds: settings.ttlSeconds,
      }),
    );
    this.settings = settings;
  }

  private wallMs(): number {
    return this.host.clock.now() + this.settings.skewMs;
  }

  protected async connect(): Promise<void> {
    const s = this.settings;
    const log = this.host.log;
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
  }

  protected readyDetail(): string {
    const s = this.settings;
    return `${s.path} (election=${s.electionName}, identity=${this.host.nodeName}, ttl=${s.ttlSeconds})`;
  }

  protected electionLabel(): string {
    return this.settings.electionName;
  }

  protected roundPeriodMs(): number {
    return this.settings.cadence.renewMs;
  }

  /** Fencing lives in the store's lease primitives (a renew names the fence it holds). */
  protected async round(): Promise<void> {
    const result = await this.election!.round();
    if (result.step === 'failed') throw new Error(result.error ?? 'unknown error');
  }

  protected async release(): Promise<void> {
    const released = await this.election?.release();
    if (released && !released.ok)
      this.host.log.warning(`cluster: filesystem lease not released: ${released.why}`);
    await this.closeOwnStore();
  }

  private async closeOwnStore(): Promise<void> {
    if (this.ownStore && this.store) await this.store.close().catch(() => undefined);
    this.ownStore = false;
  }

  protected leaseBlock(): Record<string, unknown> {
    const h = this.state.holder();
    return {
      path: this.settings.path,
      electionName: this.settings.electionName,
      identity: this.host.nodeName,
      holder: h ? displayHolder(h.holder) : null,
      fence: h?.fence ?? null,
      expiry: expiryIso(h?.expiresAt),
    };
  }

  protected override invalidateRanSet(): void {
    this.ranSet?.invalidate();
  }

  protected override async refreshRanSet(): Promise<void> {
    const ranSet = this.ranSet;
    if (!ranSet) return;
    const answer = await bounded(this.host.clock, this.settings.cadence.roundMs, 'reboot-ran read', () =>
      ranSet.refresh(),
    );
    if (!answer.ok) throw new Error(answer.why);
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

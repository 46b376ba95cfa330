// The Kubernetes leadership backend (spec 05 §10): a coordination.k8s.io/v1 Lease, read every
// `retryPeriodSeconds` and written with the observed `resourceVersion`. The API server's
// optimistic concurrency is the fence: of two writers that read the same version, exactly one
// PUT lands and the other gets 409, so a stale holder can never overwrite a newer holder's record.
// Our own leadership ends by our monotonic clock (write instant + duration − 1 s), with no I/O.
import type { ClusterSection } from '../../config/file-schema.ts';
import { JsonTransport } from '../json-transport.ts';
import { gossipKeysAdvisory } from '../lease-advisory.ts';
import {
  expiryIso,
  holderToken,
  LeaseState,
  leaseClusterReport,
  type ObservedLease,
} from '../lease-state.ts';
import type { ClusterBackend, ClusterHost, ClusterReport, GatedPolicy, Leadership } from '../types.ts';
import { LeaseClient } from './client.ts';
import { resolveCredentials } from './credentials.ts';
import {
  createBody,
  decideRound,
  type LeaseObject,
  type Observation,
  observe,
  parseTime,
  type RanSet,
  readRanSetAnnotation,
  releaseBody,
  withRanJob,
  writeBody,
} from './lease-object.ts';
import { type KubernetesSettings, kubernetesSettings, requestTimeoutMs } from './settings.ts';

const RAN_SET_WRITE_ATTEMPTS = 3;

export class KubernetesBackend implements ClusterBackend {
  readonly kind = 'kubernetes' as const;
  private readonly settings: KubernetesSettings;
  private readonly state: LeaseState;
  private transport: JsonTransport | null = null;
  private client: LeaseClient | null = null;
  private seen: Observation | null = null;
  /** The object as last read or written (its resourceVersion is what the next write carries). */
  private last: LeaseObject | null = null;
  private ranSet: RanSet | null = null;
  private ranSetKnown = false;
  private timer: ReturnType<ClusterHost['clock']['setTimer']> | null = null;
  private inflight: Promise<void> | null = null;
  private stopped = false;
  private starting: Promise<void> | null = null;
  private lastRoundError: string | null = null;

  constructor(
    private readonly cluster: ClusterSection,
    private readonly host: ClusterHost,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    this.settings = kubernetesSettings(cluster, host.nodeName);
    this.state = new LeaseState({
      clock: host.clock,
      token: holderToken(this.settings.identity),
      ttlSeconds: this.settings.durationSeconds,
    });
  }

  start(): Promise<void> {
    this.starting ??= this.startOnce();
    return this.starting;
  }

  private async startOnce(): Promise<void> {
    const s = this.settings;
    if (s.clientLibrary === 'library')
      throw new Error(
        "cluster.kubernetes.clientLibrary: 'library' needs a native Kubernetes client, which this build does not include; use 'auto' or 'http'",
      );
    const advisory = gossipKeysAdvisory(this.cluster, 'kubernetes');
    if (advisory) this.host.log.warning(advisory);
    const creds = await resolveCredentials(s, this.env);
    this.transport = new JsonTransport(creds.tls);
    this.client = new LeaseClient(this.transport, creds, s.leaseName, requestTimeoutMs(s), () =>
      this.host.clock.monotonic(),
    );
    // stop() may have begun while we read files: it waits for us, then cleans up.
    if (this.stopped) return;
    await this.runRound();
    if (this.stopped) return;
    this.host.log.info(
      `cluster: kubernetes election ready at ${creds.baseUrl} (lease=${creds.namespace}/${s.leaseName}, identity=${s.identity}, duration=${s.durationSeconds}, via ${creds.source})`,
    );
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = this.host.clock.setTimer(() => {
      this.timer = null;
      void this.runRound().then(() => this.schedule());
    }, this.settings.retryPeriodSeconds * 1000);
  }

  private runRound(): Promise<void> {
    this.inflight ??= this.round()
      .catch((e: unknown) => {
        const msg = e instanceof Error ? e.message : String(e);
        if (msg !== this.lastRoundError)
          this.host.log.warning(`cluster: kubernetes election round failed: ${msg}`);
        this.lastRoundError = msg;
      })
      .finally(() => {
        this.inflight = null;
      });
    return this.inflight;
  }

  /**
   * Takes in a read of the object (null = 404) sampled at monotonic `at`, and returns who holds
   * it as the round will report it. Losing the lease to someone else takes effect at once; the
   * freshness the read proves is applied only once the whole round has succeeded (spec 05 §10:
   * quorate = a successful apiserver *round* within the last duration).
   */
  private absorb(lease: LeaseObject | null, at: number): ObservedLease | null {
    const token = this.state.token;
    this.seen = observe(this.seen, lease, at, this.settings.durationSeconds);
    this.last = lease;
    this.ranSet = readRanSetAnnotation(lease);
    this.ranSetKnown = true;
    const seen = this.seen;
    if (!lease && seen && seen.holder !== '' && seen.holder !== token) {
      // Deleted under a holder whose lease still runs by our clock: it is still the holder.
      if (at - seen.since < seen.durationSeconds * 1000) return this.state.holder();
    }
    const holder = lease?.spec.holderIdentity ?? '';
    if (holder === '') {
      if (this.state.held()) this.state.lost();
      return null;
    }
    const renewed = parseTime(lease!.spec.renewTime);
    const duration = lease!.spec.leaseDurationSeconds ?? this.settings.durationSeconds;
    const observed = {
      holder,
      fence: lease!.spec.leaseTransitions ?? 0,
      expiresAt: renewed === null ? null : renewed / 1000 + duration,
    };
    if (holder === token) {
      // Our own token on a record we do not remember writing: this process wrote it before a
      // manager rebuild (or a write whose answer we lost); renew it rather than wait it out.
      if (!this.state.held()) this.state.adopt(observed);
    } else if (this.state.held()) this.state.lost();
    return observed;
  }

  /**
   * One round (spec 05 §10 round table), bounded by `renewDeadlineSeconds`. A 409 means someone
   * wrote since our read: re-read once and decide again (an annotation write by a follower must
   * not cost the holder its renewal); a second 409 loses the round.
   */
  private async round(): Promise<void> {
    const client = this.client!;
    const clock = this.host.clock;
    client.roundDeadline = clock.monotonic() + this.settings.renewDeadlineSeconds * 1000;
    try {
      let at = clock.monotonic();
      let lease = await client.get();
      if (this.stopped) return;
      let view = this.absorb(lease, at);
      let won = false;
      for (let attempt = 0; attempt < 2; attempt++) {
        const action = decideRound(lease, this.seen, this.state.token, clock.monotonic());
        if (action === 'wait') break;
        const t0 = this.state.sampleWriteStart();
        const w = {
          token: this.state.token,
          durationSeconds: this.settings.durationSeconds,
          nowMs: clock.now(),
        };
        const res =
          action === 'create'
            ? await client.create(createBody(client.namespace, this.settings.leaseName, w))
            : await client.replace(writeBody(lease!, action, w));
        // Recorded even when stop() began meanwhile: it then releases what this write took.
        if (res.ok) {
          this.last = res.lease;
          this.seen = observe(this.seen, res.lease, t0, this.settings.durationSeconds);
          this.state.won(t0, {
            holder: this.state.token,
            fence: res.lease.spec.leaseTransitions ?? 0,
            expiresAt: w.nowMs / 1000 + this.settings.durationSeconds,
          });
          won = true;
          break;
        }
        at = clock.monotonic();
        try {
          lease = await client.get();
        } catch (e) {
          // Lost a race to a winner we cannot name: defer to someone rather than to no one.
          if (this.state.held()) this.state.lost();
          this.state.observedUnknownWinner(at);
          throw e;
        }
        view = this.absorb(lease, at);
        if (attempt === 1 && lease?.spec.holderIdentity === this.state.token) {
          // Two conflicts in one round: our record, but we could not renew it. Not leader.
          this.state.lost();
        }
      }
      if (!won) this.state.observed(view, at);
      if (this.lastRoundError !== null)
        this.host.log.info('cluster: kubernetes election round succeeded again');
      this.lastRoundError = null;
    } finally {
      client.roundDeadline = null;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.starting?.catch(() => undefined);
    if (this.timer) this.host.clock.clearTimer(this.timer);
    this.timer = null;
    await this.inflight;
    const held = this.state.held() !== null;
    this.state.lost();
    if (held && this.client) {
      // Clearing holderIdentity lets a survivor acquire on its next round instead of waiting out
      // a lease duration.
      try {
        await this.release(this.client);
      } catch (e) {
        this.host.log.warning(
          `cluster: kubernetes lease release failed (it expires by itself): ${(e as Error).message}`,
        );
      }
    }
    this.transport?.close();
  }

  private async release(client: LeaseClient): Promise<void> {
    let lease = this.last;
    for (let attempt = 0; attempt < 2; attempt++) {
      if (!lease || lease.spec.holderIdentity !== this.state.token) return;
      const res = await client.replace(releaseBody(lease));
      if (res.ok) return;
      lease = await client.get();
    }
  }

  decide(name: string, policy: GatedPolicy): Leadership {
    return this.state.decide(name, policy);
  }

  ownerOf(): undefined {
    return undefined;
  }

  report(): ClusterReport {
    const holder = this.state.holder();
    return leaseClusterReport('kubernetes', this.host.nodeName, this.state, {
      name: this.settings.leaseName,
      namespace: this.client?.namespace ?? this.settings.leaseNamespace,
      identity: this.settings.identity,
      holder: this.state.leaderName(),
      expiry: expiryIso(holder?.expiresAt),
    });
  }

  rebootRan(job: string): boolean | 'unknown' {
    if (!this.ranSetKnown) return 'unknown';
    const set = this.ranSet;
    return set !== null && set.jobSetId === this.host.jobSetId() && set.jobs.includes(job);
  }

  async recordRebootRan(job: string): Promise<void> {
    const client = this.client;
    if (!client) throw new Error('kubernetes backend is not running');
    for (let attempt = 1; attempt <= RAN_SET_WRITE_ATTEMPTS; attempt++) {
      const lease = await client.get();
      if (!lease)
        throw new Error('kubernetes: the lease does not exist yet; cannot record the @reboot ran-set');
      const { body, set } = withRanJob(lease, this.host.jobSetId(), job);
      const res = await client.replace(body);
      if (res.ok) {
        this.ranSet = set;
        this.ranSetKnown = true;
        return;
      }
    }
    throw new Error(
      `kubernetes: the lease kept changing under ${RAN_SET_WRITE_ATTEMPTS} ran-set write attempts`,
    );
  }
}

// The Kubernetes leadership backend (spec 05 §10): a coordination.k8s.io/v1 Lease, read every
// `retryPeriodSeconds` and written with the observed `resourceVersion`. The API server's
// optimistic concurrency is the fence: of two writers that read the same version, exactly one
// PUT lands and the other gets 409, so a stale holder can never overwrite a newer holder's record.
// Our own leadership ends by our monotonic clock (write instant + duration − 1 s), with no I/O.
import type { ClusterSection } from '../../config/file-schema.ts';
import { errorText } from '../../util/errors.ts';
import { LeaseBackend } from '../backend.ts';
import { JsonTransport } from '../json-transport.ts';
import { expiryIso, holderToken, LeaseState, type ObservedLease } from '../lease-state.ts';
import type { ClusterHost } from '../types.ts';
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

export class KubernetesBackend extends LeaseBackend {
  private readonly settings: KubernetesSettings;
  private transport: JsonTransport | null = null;
  private client: LeaseClient | null = null;
  /** Where the lease lives, once the credentials were resolved (for the ready line). */
  private where = '';
  private seen: Observation | null = null;
  /** The object as last read or written (its resourceVersion is what the next write carries). */
  private last: LeaseObject | null = null;
  private ranSet: RanSet | null = null;
  private ranSetKnown = false;

  constructor(
    cluster: ClusterSection,
    host: ClusterHost,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    const settings = kubernetesSettings(cluster, host.nodeName);
    super(
      'kubernetes',
      cluster,
      host,
      new LeaseState({
        clock: host.clock,
        token: holderToken(settings.identity),
        ttlSeconds: settings.durationSeconds,
      }),
    );
    this.settings = settings;
  }

  protected async connect(): Promise<void> {
    const s = this.settings;
    if (s.clientLibrary === 'library')
      throw new Error(
        "cluster.kubernetes.clientLibrary: 'library' needs a native Kubernetes client, which this build does not include; use 'auto' or 'http'",
      );
    const creds = await resolveCredentials(s, this.env);
    this.transport = new JsonTransport(creds.tls);
    this.client = new LeaseClient(this.transport, creds, s.leaseName, requestTimeoutMs(s), () =>
      this.host.clock.monotonic(),
    );
    this.where = `${creds.baseUrl} (lease=${creds.namespace}/${s.leaseName}, identity=${s.identity}, duration=${s.durationSeconds}, via ${creds.source})`;
  }

  protected readyDetail(): string {
    return this.where;
  }

  protected electionLabel(): string {
    return `${this.client?.namespace ?? this.settings.leaseNamespace ?? ''}/${this.settings.leaseName}`;
  }

  protected roundPeriodMs(): number {
    return this.settings.retryPeriodSeconds * 1000;
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
  protected async round(): Promise<void> {
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
    } finally {
      client.roundDeadline = null;
    }
  }

  protected async release(): Promise<void> {
    const held = this.state.held() !== null;
    this.state.lost();
    if (held && this.client) {
      // Clearing holderIdentity lets a survivor acquire on its next round instead of waiting out
      // a lease duration.
      try {
        await this.clearHolder(this.client);
      } catch (e) {
        this.host.log.warning(
          `cluster: kubernetes lease release failed (it expires by itself): ${errorText(e)}`,
        );
      }
    }
    this.transport?.close();
  }

  private async clearHolder(client: LeaseClient): Promise<void> {
    let lease = this.last;
    for (let attempt = 0; attempt < 2; attempt++) {
      if (!lease || lease.spec.holderIdentity !== this.state.token) return;
      const res = await client.replace(releaseBody(lease));
      if (res.ok) return;
      lease = await client.get();
    }
  }

  protected leaseBlock(): Record<string, unknown> {
    return {
      name: this.settings.leaseName,
      namespace: this.client?.namespace ?? this.settings.leaseNamespace,
      identity: this.settings.identity,
      holder: this.state.leaderName(),
      expiry: expiryIso(this.state.holder()?.expiresAt),
    };
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

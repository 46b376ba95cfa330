// The etcd leadership backend (spec 05 §9): a lease kept alive every round and an election key
// bound to it, created only when absent. Fencing is etcd's: the key dies with the lease, so a
// holder that stops renewing loses the key on the server, and a stale lease id can neither create
// the key (the put fails: lease not found) nor match the live key's lease on the range.
import { readFile } from 'node:fs/promises';
import type { ClusterSection } from '../../config/file-schema.ts';
import type { SecretSource } from '../../config/types.ts';
import { errorText } from '../../util/errors.ts';
import { LeaseBackend } from '../backend.ts';
import { JsonTransport, type TlsFiles } from '../json-transport.ts';
import { type LeaseCadence, LeaseState } from '../lease-state.ts';
import type { ClusterHost } from '../types.ts';
import { EtcdClient, type EtcdCredentials, EtcdError } from './client.ts';
import { readRanSet, writeRanSet } from './ran-set.ts';
import { type EtcdSettings, etcdCadence, etcdSettings, lowTtlAdvisory } from './settings.ts';
import type { RanSet } from './wire.ts';

/** A follower's campaign cadence between its lease renewals. */
const FOLLOWER_CAMPAIGN_MS = 1000;
/**
 * A round renews once its lease is this close to a renew period old. Rounds are counted from one
 * start to the next, so a holder's round can find its lease a few ms short of the period: it must
 * renew then, not a period later. Follower campaigns (every second) in between do not renew.
 */
const RENEW_SLACK_MS = 500;

async function resolvePassword(src: SecretSource | null, env: NodeJS.ProcessEnv): Promise<string> {
  if (src?.value) return src.value;
  if (src?.fromFile) {
    const text = (await readFile(src.fromFile, 'utf8')).trim();
    if (text === '') throw new Error(`etcd.password.fromFile ${src.fromFile} is empty`);
    return text;
  }
  if (src?.fromEnvVar) {
    const v = env[src.fromEnvVar];
    if (!v) throw new Error(`etcd.password.fromEnvVar ${src.fromEnvVar} is unset or empty`);
    return v;
  }
  throw new Error('etcd.username is set without a password');
}

async function readTls(tls: EtcdSettings['tls']): Promise<TlsFiles> {
  const read = (p: string | null) => (p ? readFile(p, 'utf8') : Promise.resolve(undefined));
  const [ca, cert, key] = await Promise.all([read(tls.ca), read(tls.cert), read(tls.key)]);
  return { ca, cert, key };
}

export class EtcdBackend extends LeaseBackend {
  private readonly settings: EtcdSettings;
  private cadence: LeaseCadence;
  private transport: JsonTransport | null = null;
  private client: EtcdClient | null = null;
  private leaseId: string | null = null;
  /** Monotonic instant sampled just before the write that last extended our lease. */
  private leaseT0: number | null = null;
  /** Wall-clock epoch seconds our lease runs to, as of its last renewal (for `/cluster`). */
  private leaseExpiresAt: number | null = null;
  private warnedTtl = false;
  private roundFailed = false;
  private ranSet: RanSet | null = null;
  /** False until a ran-set read succeeded, and again from gaining leadership to the re-read. */
  private ranSetKnown = false;

  constructor(
    cluster: ClusterSection,
    host: ClusterHost,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    const settings = etcdSettings(cluster);
    super(
      'etcd',
      cluster,
      host,
      new LeaseState({ clock: host.clock, token: host.nodeName, ttlSeconds: settings.ttl }),
    );
    this.settings = settings;
    this.cadence = etcdCadence(settings.ttl, settings.connectTimeout);
  }

  protected async connect(): Promise<void> {
    const s = this.settings;
    const credentials: EtcdCredentials | null = s.username
      ? { username: s.username, password: await resolvePassword(s.password, this.env) }
      : null;
    this.transport = new JsonTransport(await readTls(s.tls));
    this.client = new EtcdClient(this.transport, s.endpoints, credentials, this.cadence.opMs, () =>
      this.host.clock.monotonic(),
    );
  }

  protected readyDetail(): string {
    const s = this.settings;
    return `${s.endpoints.join(',')} (election=${s.electionName}, identity=${this.host.nodeName}, ttl=${this.state.ttlSeconds})`;
  }

  protected electionLabel(): string {
    return this.settings.electionName;
  }

  /**
   * The holder runs a round every renew period. A follower campaigns every second in between
   * (the same create-if-absent txn, so it cannot take a live key): it then wins within about a
   * second of a crashed holder's lease expiring, instead of up to a renew period later, which
   * keeps failover within ttl + 2 s (issue 10). Its own lease is still renewed once per period.
   * A holder whose round failed also retries after a second, while its deadline still runs.
   */
  protected roundPeriodMs(): number {
    const steady = this.state.isLeader() && !this.roundFailed;
    return steady ? this.cadence.renewMs : Math.min(this.cadence.renewMs, FOLLOWER_CAMPAIGN_MS);
  }

  /** Narrows ttl, cadence and per-POST timeout to what the server granted. */
  private applyGrantedTtl(granted: number): void {
    const eff = Math.min(granted, this.settings.ttl);
    if (eff === this.state.ttlSeconds) return;
    this.state.setEffectiveTtl(eff);
    this.cadence = etcdCadence(eff, this.settings.connectTimeout);
    if (this.client) this.client.timeoutMs = this.cadence.opMs;
    const advisory = lowTtlAdvisory(eff, this.settings.ttl);
    if (advisory && !this.warnedTtl) {
      this.warnedTtl = true;
      this.host.log.warning(advisory);
    }
  }

  protected async round(): Promise<void> {
    this.roundFailed = true;
    await this.campaignRound();
    this.roundFailed = false;
  }

  /**
   * One round: renew (or get) the lease, then campaign. An answer that the lease is gone ends our
   * leadership at once; an unreachable store changes nothing, and the deadline lapses by itself.
   */
  private async campaignRound(): Promise<void> {
    const client = this.client!;
    const clock = this.host.clock;
    client.rotate();
    client.roundDeadline = clock.monotonic() + this.cadence.roundMs;
    try {
      const renewDue =
        this.leaseT0 === null ||
        clock.monotonic() - this.leaseT0 >=
          this.cadence.renewMs - Math.min(RENEW_SLACK_MS, this.cadence.renewMs / 2);
      if (this.leaseId && renewDue) {
        const t0 = this.state.sampleWriteStart();
        const wall0 = clock.now();
        const ttl = await client.keepAlive(this.leaseId);
        if (ttl <= 0) {
          // Fence: etcd dropped the lease, and the election key with it. Nothing we write under
          // this id can land again, so we stop claiming it here and now.
          this.host.log.warning(`cluster: etcd lease ${this.leaseId} was lost; granting a new one`);
          this.leaseId = null;
          this.leaseT0 = null;
          this.leaseExpiresAt = null;
          this.state.lost();
        } else {
          this.leaseT0 = t0;
          this.leaseExpiresAt = wall0 / 1000 + this.state.ttlSeconds;
        }
      }
      if (!this.leaseId) {
        const t0 = this.state.sampleWriteStart();
        const wall0 = clock.now();
        const g = await client.grant(this.settings.ttl);
        this.applyGrantedTtl(g.ttl);
        this.leaseId = g.id;
        this.leaseT0 = t0;
        this.leaseExpiresAt = wall0 / 1000 + this.state.ttlSeconds;
      }
      const leaseId = this.leaseId;
      const tc = clock.monotonic();
      const r = await client.campaign(this.settings.electionName, this.host.nodeName, leaseId);
      if (this.stopped) return;
      if (r.won && this.leaseT0 !== null) {
        // The deadline counts from the write that last extended this lease (its grant or its
        // latest keepalive), not from the campaign: the key lives exactly as long as the lease.
        this.state.won(this.leaseT0, {
          holder: this.host.nodeName,
          fence: leaseId,
          expiresAt: this.leaseExpiresAt,
        });
      } else {
        // Not won. Also when the key carries our name on another lease: a twin process with our
        // nodeName holds it, and fencing is by lease id, never by name.
        this.state.lost();
        this.state.observed(
          r.holder === null ? null : { holder: r.holder, fence: r.holderLease, expiresAt: null },
          tc,
        );
      }
    } finally {
      client.roundDeadline = null;
    }
  }

  protected async release(): Promise<void> {
    const id = this.leaseId;
    this.leaseId = null;
    this.leaseT0 = null;
    this.state.lost();
    if (id && this.client) {
      // Revoking deletes the election key with the lease, so a survivor wins its next round.
      try {
        await this.client.revoke(id);
      } catch (e) {
        if (!(e instanceof EtcdError && e.answered))
          this.host.log.warning(`cluster: etcd lease revoke failed (it expires by itself): ${errorText(e)}`);
      }
    }
    this.transport?.close();
  }

  protected leaseBlock(): Record<string, unknown> {
    const leader = this.state.isLeader();
    return {
      electionName: this.settings.electionName,
      identity: this.host.nodeName,
      holder: this.state.leaderName(),
      leaseId: this.leaseId,
      expiry:
        leader && this.leaseExpiresAt !== null ? new Date(this.leaseExpiresAt * 1000).toISOString() : null,
    };
  }

  protected override invalidateRanSet(): void {
    this.ranSetKnown = false;
  }

  protected override async refreshRanSet(): Promise<void> {
    if (!this.client) return;
    this.ranSet = await readRanSet(this.client, this.settings.electionName);
    this.ranSetKnown = true;
  }

  rebootRan(job: string): boolean | 'unknown' {
    if (!this.ranSetKnown) return 'unknown';
    const set = this.ranSet;
    return set !== null && set.jobSetId === this.host.jobSetId() && set.jobs.includes(job);
  }

  async recordRebootRan(job: string): Promise<void> {
    if (!this.client) throw new Error('etcd backend is not running');
    this.ranSet = await writeRanSet(this.client, this.settings.electionName, this.host.jobSetId(), job);
    this.ranSetKnown = true;
  }

  /** Test hook: how many times this backend logged in to etcd. */
  authentications(): number {
    return this.client?.authentications ?? 0;
  }

  /** Test hook: the lease id this node holds now (null when none). */
  currentLeaseId(): string | null {
    return this.leaseId;
  }
}

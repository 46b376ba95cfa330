// The gossip backend (spec 05 §5): polls every peer each interval over mutual TLS, keeps the
// peer table, answers `/peer` from it, and gates fires by the election over its current view.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { TimerHandle } from '../../util/clock.ts';
import { errorText } from '../../util/errors.ts';
import { availableOwnerOf, decide, type Election, type ElectionView, elect, ownerOf } from '../election.ts';
import type { ClusterBackend, ClusterHost, ClusterReport, GatedPolicy, Leadership } from '../types.ts';
import { splitHostPort } from './address.ts';
import { etagOf, formatNodeStats, MAX_RAN_JOBS, type PeerBody, parseRebootRan } from './body.ts';
import { PeerClient, type PollResult } from './client.ts';
import {
  blankPeer,
  currentStats,
  observeFailure,
  observeSuccess,
  type PeerRecord,
  toElectionPeer,
  toPeerReport,
  withStats,
} from './peer-table.ts';
import { type PeerServer, startPeerServer, type TlsMaterial } from './server.ts';
import type { GossipSettings } from './settings.ts';
import { conflictKey, type RoundSnapshot, roundLogs } from './transitions.ts';
import {
  candidatesOver,
  type FleetView,
  fleetView,
  MAX_ADVERTISED_NAMES,
  peerBody,
  sortedNames,
} from './views.ts';

export class GossipBackend implements ClusterBackend {
  readonly kind = 'gossip' as const;
  /** Per backend instance: a rebuilt manager is a new process as far as peers can tell. */
  readonly instanceId = randomUUID().replaceAll('-', '');
  private peers: PeerRecord[];
  private rounds = 0;
  private running = false;
  private stopped = false;
  private timer: TimerHandle | null = null;
  private server: PeerServer | null = null;
  private client: PeerClient | null = null;
  private inflight: Promise<void> | null = null;
  private version = 0;
  private cached: {
    version: number;
    jobSetId: string;
    election: Election;
    /** Owners per job and policy: `/jobs` asks for every job, the gate once per fire. */
    owners: Map<string, string | null>;
  } | null = null;
  private snapshot: RoundSnapshot | null = null;
  private ran = new Set<string>();
  private ranFor: string | null = null;
  private readonly pushes = new Set<Promise<void>>();

  constructor(
    readonly settings: GossipSettings,
    private readonly host: ClusterHost,
  ) {
    this.peers = settings.peers.map(blankPeer);
  }

  async start(): Promise<void> {
    const s = this.settings;
    const addr = splitHostPort(s.listen);
    if (!addr) throw new Error(`cluster: bad listen address ${s.listen}`);
    let tls: TlsMaterial;
    try {
      const [ca, cert, key] = await Promise.all([
        readFile(s.tls.ca),
        readFile(s.tls.cert),
        readFile(s.tls.key),
      ]);
      tls = { ca, cert, key };
    } catch (err) {
      throw new Error(`cluster: cannot read the gossip TLS files: ${errorText(err)}`);
    }
    const server = await startPeerServer({
      host: addr.host,
      port: addr.port,
      tls,
      readTimeoutMs: s.connectTimeoutS * 1000,
      // Longer than a round, so the pollers' kept-alive connections survive between rounds.
      keepAliveMs: (s.intervalS * 2 + 5) * 1000,
      handlers: { peer: () => this.peerPayload(), rebootRan: (text) => this.absorbRebootRan(text) },
    });
    if (this.stopped) {
      // stop() came while we were binding: it found nothing to close, so close it here.
      await server.close();
      return;
    }
    this.server = server;
    this.client = new PeerClient(tls, s.connectTimeoutS * 1000);
    this.running = true;
    this.host.log.info(
      `cluster: gossip listening on ${s.listen} as ${s.nodeName} (${this.peers.length} peers, instance ${this.instanceId})`,
    );
    await this.runRound();
    this.schedule(s.intervalS * 1000);
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.running = false;
    if (this.timer) this.host.clock.clearTimer(this.timer);
    this.timer = null;
    await Promise.all(this.pushes);
    this.client?.close();
    await this.inflight?.catch(() => {});
    await this.server?.close();
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = this.host.clock.setTimer(() => {
      const t0 = this.host.clock.monotonic();
      void this.runRound().then(() => {
        const spent = this.host.clock.monotonic() - t0;
        this.schedule(Math.max(0, this.settings.intervalS * 1000 - spent));
      });
    }, delayMs);
  }

  private runRound(): Promise<void> {
    this.inflight = this.round().catch((err) =>
      this.host.log.warning(`cluster: gossip round failed: ${errorText(err)}`),
    );
    return this.inflight;
  }

  /** One round: poll every peer at once, then fold the outcomes into the table. */
  private async round(): Promise<void> {
    const client = this.client;
    if (!client) return;
    const results = await Promise.all(this.peers.map((p) => client.poll(p.host, p.etag)));
    if (this.stopped) return;
    const jobSetId = this.currentRanSet();
    const who = {
      me: this.settings.nodeName,
      instanceId: this.instanceId,
      jobSetId,
      driftAfter: this.settings.driftAfter,
      now: this.host.clock.now(),
    };
    const mono = this.host.clock.monotonic();
    this.peers = this.peers.map((rec, i) => this.apply(rec, results[i] as PollResult, who, mono));
    for (const rec of this.peers)
      if (rec.status === 'agreed') for (const job of rec.ranRebootJobs) this.addRan(job);
    this.rounds++;
    this.version++;
    this.logRound();
  }

  private apply(
    rec: PeerRecord,
    result: PollResult,
    who: Parameters<typeof observeSuccess>[2],
    mono: number,
  ): PeerRecord {
    if (result.kind === 'failure') return observeFailure(rec, result.status, result.error);
    if (result.kind === 'not-modified') {
      if (rec.etag === null || rec.cached === null)
        return observeFailure(rec, 'unreachable', '304 Not Modified without a cached ETag');
      return withStats(observeSuccess(rec, rec.cached, who, true), result.stats, mono);
    }
    const next = observeSuccess(rec, result.body, who);
    return withStats(
      { ...next, etag: result.etag, cached: result.etag === null ? null : result.body },
      result.stats,
      mono,
    );
  }

  private logRound(): void {
    const e = this.election();
    const after: RoundSnapshot = {
      statuses: new Map(
        this.peers.map((p) => [p.host, { status: p.status, error: p.lastError, jobSetId: p.jobSetId }]),
      ),
      quorate: e.quorate,
      leader: e.leader,
      conflictKey: conflictKey(e),
    };
    for (const line of roundLogs(this.snapshot, after, e)) this.host.log[line.level](line.message);
    this.snapshot = after;
  }

  /** The election over the current view, recomputed only when the table or job set changed. */
  election(): Election {
    const jobSetId = this.host.jobSetId();
    const c = this.cached;
    if (c && c.version === this.version && c.jobSetId === jobSetId) return c.election;
    const view: ElectionView = {
      me: this.settings.nodeName,
      instanceId: this.instanceId,
      distribution: this.settings.distribution,
      electLeader: this.settings.electLeader,
      peers: this.peers.map(toElectionPeer),
      completedRounds: this.rounds,
    };
    const election = elect(view);
    this.cached = { version: this.version, jobSetId, election, owners: new Map() };
    return election;
  }

  decide(name: string, policy: GatedPolicy): Leadership {
    return decide(this.election(), name, policy);
  }

  ownerOf(name: string, policy: GatedPolicy): string | null | undefined {
    if (!this.settings.electLeader || this.settings.distribution !== 'spread') return undefined;
    const e = this.election();
    const memo = this.cached?.owners;
    const key = `${policy}\u0000${name}`;
    if (memo?.has(key)) return memo.get(key) as string | null;
    const owner = policy === 'Leader' ? ownerOf(e, name) : availableOwnerOf(e, name);
    memo?.set(key, owner);
    return owner;
  }

  private statsTtlMs(): number {
    return 3 * this.settings.intervalS * 1000;
  }

  report(): ClusterReport {
    const e = this.election();
    const spread = this.settings.distribution === 'spread';
    const mono = this.host.clock.monotonic();
    return {
      backend: 'gossip',
      node_name: this.settings.nodeName,
      cluster_size: e.n,
      quorum: e.q,
      elect_leader: this.settings.electLeader,
      distribution: this.settings.distribution,
      conflict: e.conflict,
      conflict_names: e.conflicts.names,
      size_conflict: e.conflicts.sizes.length > 0,
      conflicting_sizes: e.conflicts.sizes,
      policy_conflict: e.conflicts.policies.length > 0,
      conflicting_policies: e.conflicts.policies,
      candidates_truncated: candidatesOver(e),
      quorate: e.quorate,
      leader: spread ? null : e.leader,
      is_leader: !spread && e.quorate && e.leader === this.settings.nodeName,
      peers: this.peers.map((p) => toPeerReport(p, currentStats(p, mono, this.statsTtlMs()))),
    };
  }

  fleet(): FleetView {
    return fleetView(
      this.settings,
      {
        jobSummaries: this.host.jobSummaries(),
        nodeStats: this.settings.shareNodeStats ? this.host.nodeStats() : null,
      },
      this.peers,
      { now: this.host.clock.now(), mono: this.host.clock.monotonic(), statsTtlMs: this.statsTtlMs() },
    );
  }

  /** Our `/peer` body as of now. */
  peerBody(): PeerBody {
    const own = {
      settings: this.settings,
      instanceId: this.instanceId,
      jobSetId: this.currentRanSet(),
      ranRebootJobs: this.ran,
      jobSummaries: this.host.jobSummaries(),
    };
    const e = this.election();
    this.noteCandidateCap(candidatesOver(e));
    return peerBody(own, this.peers, e);
  }

  private overCap = false;

  /** One warning per episode of more electable names than an advertisement carries (spec 10 §4.6). */
  private noteCandidateCap(over: number): void {
    if (over > 0 && !this.overCap)
      this.host.log.warning(
        `cluster: ${over} agreeing or electable node names exceed the ${MAX_ADVERTISED_NAMES}-name advertisement cap; the ${MAX_ADVERTISED_NAMES} lowest names are gossiped and the rest are dropped, so a \`spread\` job whose owner falls in the dropped tail may run on more than one node.`,
      );
    this.overCap = over > 0;
  }

  private peerPayload() {
    const body = this.peerBody();
    const stats = this.settings.shareNodeStats ? this.host.nodeStats() : null;
    return {
      json: JSON.stringify(body),
      etag: etagOf(body, this.host.clock.now()),
      stats: stats === null ? null : formatNodeStats(stats),
    };
  }

  /** The ran-set belongs to one job set: a reload to another set starts it afresh. */
  private currentRanSet(): string {
    const id = this.host.jobSetId();
    if (this.ranFor !== id) {
      this.ran = new Set();
      this.ranFor = id;
    }
    return id;
  }

  private addRan(job: string): void {
    if (this.ran.has(job)) return;
    this.ran.add(job);
    this.version++;
  }

  private absorbRebootRan(text: string): boolean {
    const parsed = parseRebootRan(text);
    if (!parsed) return false;
    if (parsed.jobSetId === this.currentRanSet()) for (const job of parsed.names) this.addRan(job);
    return true;
  }

  rebootRan(job: string): boolean | 'unknown' {
    if (this.rounds === 0) return 'unknown';
    this.currentRanSet();
    return this.ran.has(job);
  }

  /**
   * Records the one-shot locally (that is what `/peer` gossips from now on), then pushes it to
   * every peer in the background: a launch never waits on a slow or dead peer.
   */
  async recordRebootRan(job: string): Promise<void> {
    const jobSetId = this.currentRanSet();
    this.addRan(job);
    const client = this.client;
    if (!client || !this.running) return;
    const json = JSON.stringify({
      job_set_id: jobSetId,
      names: sortedNames(this.ran).slice(0, MAX_RAN_JOBS),
    });
    const push = Promise.all(
      this.peers.filter((p) => p.status !== 'self').map((p) => client.post(p.host, '/reboot-ran', json)),
    ).then(() => {
      this.pushes.delete(push);
    });
    this.pushes.add(push);
  }
}

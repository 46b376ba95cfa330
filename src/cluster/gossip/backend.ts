// The gossip backend (spec 05 §5): polls every peer each interval over mutual TLS, keeps the
// peer table, answers `/peer` from it, and gates fires by the election over its current view.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { TimerHandle } from '../../util/clock.ts';
import { availableOwnerOf, decide, type Election, type ElectionView, elect, ownerOf } from '../election.ts';
import type {
  ClusterBackend,
  ClusterHost,
  ClusterReport,
  GatedPolicy,
  JobSummary,
  Leadership,
  NodeStats,
} from '../types.ts';
import { splitHostPort } from './address.ts';
import {
  etagOf,
  formatNodeStats,
  limitSummaries,
  MAX_RAN_JOBS,
  type PeerBody,
  parseRebootRan,
  SCHEME_VERSION,
} from './body.ts';
import { PeerClient, type PollResult } from './client.ts';
import {
  blankPeer,
  currentStats,
  observeFailure,
  observeSuccess,
  type PeerRecord,
  summariesAt,
  toElectionPeer,
  toPeerReport,
  withStats,
} from './peer-table.ts';
import { type PeerServer, startPeerServer, type TlsMaterial } from './server.ts';
import type { GossipSettings } from './settings.ts';
import { conflictKey, type RoundSnapshot, roundLogs } from './transitions.ts';

/** One entry of `GET /fleet` (spec 05 §11). */
export interface FleetNode {
  node_name: string | null;
  host: string;
  self: boolean;
  status: string;
  as_of: string | null;
  jobs: Record<string, JobSummary>;
  truncated: boolean;
  node_stats: NodeStats | null;
}

export interface FleetView {
  enabled: true;
  backend: 'gossip';
  node_name: string;
  distribution: string;
  elect_leader: boolean;
  interval: number;
  nodes: FleetNode[];
}

const sortedNames = (names: Iterable<string>) =>
  [...new Set(names)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

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
  private cached: { version: number; jobSetId: string; election: Election } | null = null;
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
      throw new Error(`cluster: cannot read the gossip TLS files: ${(err as Error).message}`);
    }
    this.server = await startPeerServer({
      host: addr.host,
      port: addr.port,
      tls,
      readTimeoutMs: s.connectTimeoutS * 1000,
      // Longer than a round, so the pollers' kept-alive connections survive between rounds.
      keepAliveMs: (s.intervalS * 2 + 5) * 1000,
      handlers: { peer: () => this.peerPayload(), rebootRan: (text) => this.absorbRebootRan(text) },
    });
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
      this.host.log.warning(`cluster: gossip round failed: ${(err as Error).message}`),
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
    this.cached = { version: this.version, jobSetId, election };
    return election;
  }

  decide(name: string, policy: GatedPolicy): Leadership {
    return decide(this.election(), name, policy);
  }

  ownerOf(name: string, policy: GatedPolicy): string | null | undefined {
    if (!this.settings.electLeader || this.settings.distribution !== 'spread') return undefined;
    const e = this.election();
    return policy === 'Leader' ? ownerOf(e, name) : availableOwnerOf(e, name);
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
      quorate: e.quorate,
      leader: spread ? null : e.leader,
      is_leader: !spread && e.quorate && e.leader === this.settings.nodeName,
      peers: this.peers.map((p) => toPeerReport(p, currentStats(p, mono, this.statsTtlMs()))),
    };
  }

  fleet(): FleetView {
    const now = this.host.clock.now();
    const mono = this.host.clock.monotonic();
    const own = limitSummaries(this.host.jobSummaries());
    const nodes: FleetNode[] = [
      {
        node_name: this.settings.nodeName,
        host: this.settings.listen,
        self: true,
        status: 'self',
        as_of: new Date(now).toISOString(),
        jobs: own.summaries,
        truncated: own.truncated,
        node_stats: this.settings.shareNodeStats ? this.host.nodeStats() : null,
      },
    ];
    for (const p of this.peers) {
      if (p.status === 'self') continue;
      nodes.push({
        node_name: p.nodeName,
        host: p.host,
        self: false,
        status: p.status,
        as_of: p.lastSeen === null ? null : new Date(p.lastSeen).toISOString(),
        jobs: summariesAt(p, now),
        truncated: p.summariesTruncated,
        node_stats: currentStats(p, mono, this.statsTtlMs()),
      });
    }
    return {
      enabled: true,
      backend: 'gossip',
      node_name: this.settings.nodeName,
      distribution: this.settings.distribution,
      elect_leader: this.settings.electLeader,
      interval: this.settings.intervalS,
      nodes,
    };
  }

  /** Our `/peer` body as of now. */
  peerBody(): PeerBody {
    const e = this.election();
    const members: PeerBody['members'] = [
      { node_name: this.settings.nodeName, instance_id: this.instanceId, agreed: true },
    ];
    for (const p of this.peers) {
      const fresh =
        p.status === 'agreed' || p.status === 'syncing' || p.status === 'drifted' || p.status === 'conflict';
      if (fresh && p.nodeName !== null && p.instanceId !== null)
        members.push({ node_name: p.nodeName, instance_id: p.instanceId, agreed: p.status === 'agreed' });
    }
    const summaries = limitSummaries(this.host.jobSummaries());
    return {
      node_name: this.settings.nodeName,
      job_set_id: this.currentRanSet(),
      scheme_version: SCHEME_VERSION,
      instance_id: this.instanceId,
      cluster_size: e.n,
      distribution: this.settings.distribution,
      elect_leader: this.settings.electLeader,
      members,
      mutual_agreeing: e.agreeingNames,
      quorate_vouched: e.eligible,
      ran_reboot_jobs: sortedNames(this.ran).slice(0, MAX_RAN_JOBS),
      job_summaries: summaries.summaries,
      job_summaries_truncated: summaries.truncated,
    };
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

// One configured peer's record and the status machine of spec 05 §5.4: every poll outcome maps
// the old record to a new one. Pure: time comes in as arguments.
import type { ElectionPeer } from '../election.ts';
import type { JobSummary, NodeStats, PeerReport, PeerStatus } from '../types.ts';
import { type ReceivedBody, SCHEME_VERSION } from './body.ts';

/** A job summary as received, with its next fire made absolute at the time we read it. */
export interface HeldSummary {
  summary: JobSummary;
  nextFireAt: number | null;
}

/** What a record keeps of the peer's last accepted body, field for field as received. */
type HeldBodyFields = Pick<
  ReceivedBody,
  | 'instanceId'
  | 'clusterSize'
  | 'distribution'
  | 'electLeader'
  | 'members'
  | 'mutualAgreeing'
  | 'quorateVouched'
  | 'ranRebootJobs'
>;

export interface PeerRecord extends HeldBodyFields {
  host: string;
  status: PeerStatus;
  /** Once a host answered as this very process, its failures keep it `self` (N does not flap). */
  selfLatch: boolean;
  nodeName: string | null;
  jobSetId: string | null;
  summaries: Record<string, HeldSummary>;
  summariesTruncated: boolean;
  /** Epoch ms of the last successful poll. */
  lastSeen: number | null;
  lastError: string | null;
  mismatchStreak: number;
  nodeStats: NodeStats | null;
  /** Monotonic ms of the stats reading (they expire after 3 intervals). */
  statsAt: number | null;
  /** The last stored ETag and the observation it stands for (replayed on a 304). */
  etag: string | null;
  cached: ReceivedBody | null;
}

export function blankPeer(host: string): PeerRecord {
  return {
    host,
    status: 'unknown',
    selfLatch: false,
    nodeName: null,
    instanceId: null,
    jobSetId: null,
    clusterSize: null,
    distribution: null,
    electLeader: null,
    members: [],
    mutualAgreeing: [],
    quorateVouched: [],
    ranRebootJobs: [],
    summaries: {},
    summariesTruncated: false,
    lastSeen: null,
    lastError: null,
    mismatchStreak: 0,
    nodeStats: null,
    statsAt: null,
    etag: null,
    cached: null,
  };
}

export interface Observer {
  me: string;
  instanceId: string;
  jobSetId: string;
  driftAfter: number;
  /** Epoch ms. */
  now: number;
}

function holdSummaries(body: ReceivedBody, now: number): Record<string, HeldSummary> {
  const out: Record<string, HeldSummary> = {};
  for (const [name, summary] of Object.entries(body.jobSummaries))
    out[name] = {
      summary,
      nextFireAt: summary.scheduled_in === null ? null : now + summary.scheduled_in * 1000,
    };
  return out;
}

/**
 * A successful poll. `replayed` marks a 304: the observation is the cached one, so the absolute
 * next-fire times read with it stay as they were.
 */
export function observeSuccess(
  rec: PeerRecord,
  body: ReceivedBody,
  who: Observer,
  replayed = false,
): PeerRecord {
  const next: PeerRecord = {
    ...rec,
    selfLatch: false,
    nodeName: body.nodeName,
    instanceId: body.instanceId,
    jobSetId: body.jobSetId,
    clusterSize: body.clusterSize,
    distribution: body.distribution,
    electLeader: body.electLeader,
    members: body.members,
    mutualAgreeing: body.mutualAgreeing,
    quorateVouched: body.quorateVouched,
    ranRebootJobs: body.ranRebootJobs,
    summaries: replayed ? rec.summaries : holdSummaries(body, who.now),
    summariesTruncated: body.jobSummariesTruncated,
    lastSeen: who.now,
    lastError: null,
  };
  if (body.nodeName === who.me) {
    if (body.instanceId !== null && body.instanceId !== who.instanceId)
      return { ...next, status: 'conflict' };
    return { ...next, status: 'self', selfLatch: true, mismatchStreak: 0 };
  }
  if (body.schemeVersion !== SCHEME_VERSION)
    return {
      ...next,
      status: 'drifted',
      lastError: `scheme_version ${body.schemeVersion} is not ${SCHEME_VERSION}`,
    };
  if (body.jobSetId === who.jobSetId) return { ...next, status: 'agreed', mismatchStreak: 0 };
  const streak = rec.mismatchStreak + 1;
  return { ...next, status: streak >= who.driftAfter ? 'drifted' : 'syncing', mismatchStreak: streak };
}

/** A failed poll: the peer's gossip is no longer current, so nothing it said still counts. */
export function observeFailure(
  rec: PeerRecord,
  status: 'untrusted' | 'unreachable',
  error: string,
): PeerRecord {
  return {
    ...rec,
    status: rec.selfLatch ? 'self' : status,
    lastError: error,
    members: [],
    mutualAgreeing: [],
    quorateVouched: [],
    ranRebootJobs: [],
  };
}

/** A fresh stats reading rides 200 and 304 alike; no header leaves the old one to expire. */
export function withStats(rec: PeerRecord, stats: NodeStats | null, monoNow: number): PeerRecord {
  return stats === null ? rec : { ...rec, nodeStats: stats, statsAt: monoNow };
}

export function toElectionPeer(rec: PeerRecord): ElectionPeer {
  return {
    host: rec.host,
    status: rec.status,
    nodeName: rec.nodeName,
    instanceId: rec.instanceId,
    clusterSize: rec.clusterSize,
    distribution: rec.distribution,
    electLeader: rec.electLeader,
    members: rec.members,
    mutualAgreeing: rec.mutualAgreeing,
    quorateVouched: rec.quorateVouched,
  };
}

export function currentStats(rec: PeerRecord, monoNow: number, ttlMs: number): NodeStats | null {
  return rec.statsAt !== null && monoNow - rec.statsAt <= ttlMs ? rec.nodeStats : null;
}

export function toPeerReport(rec: PeerRecord, stats: NodeStats | null): PeerReport {
  return {
    host: rec.host,
    status: rec.status,
    job_set_id: rec.jobSetId,
    node_name: rec.nodeName,
    last_seen: rec.lastSeen === null ? null : new Date(rec.lastSeen).toISOString(),
    last_error: rec.lastError,
    mismatch_streak: rec.mismatchStreak,
    node_stats: stats,
  };
}

/** The peer's summaries as of `now`: `scheduled_in` counted down from when we read it. */
export function summariesAt(rec: PeerRecord, now: number): Record<string, JobSummary> {
  const out: Record<string, JobSummary> = {};
  for (const [name, held] of Object.entries(rec.summaries))
    out[name] = {
      ...held.summary,
      scheduled_in:
        held.nextFireAt === null ? null : Math.max(0, Math.round((held.nextFireAt - now) / 100) / 10),
    };
  return out;
}

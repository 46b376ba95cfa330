// What this node shows of its gossip state: the `/peer` body it serves (spec 05 §5.3) and the
// `GET /fleet` view (§11). Pure over the peer table and the election.
import type { Election } from '../election.ts';
import type { JobSummary, NodeStats } from '../types.ts';
import { limitSummaries, MAX_RAN_JOBS, type PeerBody, SCHEME_VERSION } from './body.ts';
import { currentStats, type PeerRecord, summariesAt } from './peer-table.ts';
import type { GossipSettings } from './settings.ts';

/** One entry of `GET /fleet`. */
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

export const sortedNames = (names: Iterable<string>): string[] =>
  [...new Set(names)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** The most node names a `/peer` list advertises (spec 10 §4.6). */
export const MAX_ADVERTISED_NAMES = 512;

/**
 * The names a node may elect, as advertised: sorted before the cut so every node keeps the same lowest
 * 512; `over` is the full count when the cut dropped any, else 0 (`/cluster` `candidates_truncated`).
 */
export function advertisedNames(names: Iterable<string>): { names: string[]; over: number } {
  const all = sortedNames(names);
  return all.length > MAX_ADVERTISED_NAMES
    ? { names: all.slice(0, MAX_ADVERTISED_NAMES), over: all.length }
    : { names: all, over: 0 };
}

/** How many names the advertisement of `e` cut (its longer list's full count), or 0. */
export function candidatesOver(e: Election): number {
  return Math.max(advertisedNames(e.agreeingNames).over, advertisedNames(e.eligible).over);
}

export interface OwnState {
  settings: GossipSettings;
  instanceId: string;
  jobSetId: string;
  ranRebootJobs: Iterable<string>;
  jobSummaries: Record<string, JobSummary>;
}

export function peerBody(own: OwnState, peers: readonly PeerRecord[], e: Election): PeerBody {
  const members: PeerBody['members'] = [
    { node_name: own.settings.nodeName, instance_id: own.instanceId, agreed: true },
  ];
  for (const p of peers) {
    // Peers we hold a current observation of; a `self` entry is us again and adds nothing.
    const fresh =
      p.status === 'agreed' || p.status === 'syncing' || p.status === 'drifted' || p.status === 'conflict';
    if (fresh && p.nodeName !== null && p.instanceId !== null)
      members.push({ node_name: p.nodeName, instance_id: p.instanceId, agreed: p.status === 'agreed' });
  }
  const summaries = limitSummaries(own.jobSummaries);
  return {
    node_name: own.settings.nodeName,
    job_set_id: own.jobSetId,
    scheme_version: SCHEME_VERSION,
    instance_id: own.instanceId,
    cluster_size: e.n,
    distribution: own.settings.distribution,
    elect_leader: own.settings.electLeader,
    members,
    mutual_agreeing: advertisedNames(e.agreeingNames).names,
    quorate_vouched: advertisedNames(e.eligible).names,
    ran_reboot_jobs: sortedNames(own.ranRebootJobs).slice(0, MAX_RAN_JOBS),
    job_summaries: summaries.summaries,
    job_summaries_truncated: summaries.truncated,
  };
}

export function fleetView(
  settings: GossipSettings,
  own: { jobSummaries: Record<string, JobSummary>; nodeStats: NodeStats | null },
  peers: readonly PeerRecord[],
  at: { now: number; mono: number; statsTtlMs: number },
): FleetView {
  const mine = limitSummaries(own.jobSummaries);
  const nodes: FleetNode[] = [
    {
      node_name: settings.nodeName,
      host: settings.listen,
      self: true,
      status: 'self',
      as_of: new Date(at.now).toISOString(),
      jobs: mine.summaries,
      truncated: mine.truncated,
      node_stats: own.nodeStats,
    },
  ];
  for (const p of peers) {
    if (p.status === 'self') continue;
    nodes.push({
      node_name: p.nodeName,
      host: p.host,
      self: false,
      status: p.status,
      as_of: p.lastSeen === null ? null : new Date(p.lastSeen).toISOString(),
      jobs: summariesAt(p, at.now),
      truncated: p.summariesTruncated,
      node_stats: currentStats(p, at.mono, at.statsTtlMs),
    });
  }
  return {
    enabled: true,
    backend: 'gossip',
    node_name: settings.nodeName,
    distribution: settings.distribution,
    elect_leader: settings.electLeader,
    interval: settings.intervalS,
    nodes,
  };
}

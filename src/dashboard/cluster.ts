// What the dashboard says about the cluster (spec 05 §12.4, spec 06 §9.2): the role text, the summary line,
// the conflict notes, peer dot tones, the Owner column's cell and sort order, and the cluster alert. Pure: every
// function reads the `/cluster` and `/jobs` answers it is given, nothing else.
import { isLeaseBackendKind } from '../util/backend-kinds.ts';
import type { ApiCluster, ApiJob, ApiNodeStats, ApiPeer } from './types.ts';

/** True for the filesystem / etcd / kubernetes lease backends (no peers, a lease block instead). */
export function isLeaseBackend(c: ApiCluster): boolean {
  return isLeaseBackendKind(c.backend);
}

/** Whether `/fleet` has something to show: an enabled gossip cluster, or one whose daemon says it serves a fleet. */
export function hasFleetView(c: ApiCluster | null): boolean {
  return c?.enabled === true && (c.backend === 'gossip' || c.fleet === true);
}

export function isSpread(c: ApiCluster | null): boolean {
  return c?.enabled === true && c.distribution === 'spread';
}

/** Whether any of the three conflicts of spec 05 §5.7 is visible. */
export function hasConflict(c: ApiCluster): boolean {
  return (
    c.conflict === true ||
    (c.conflict_names?.length ?? 0) > 0 ||
    c.size_conflict === true ||
    c.policy_conflict === true
  );
}

/**
 * This node's role (spec 05 §12.4). Null when the cluster only observes (gossip without `electLeader`): then no
 * node leads and the summary stops after the agreement count.
 */
export function roleText(c: ApiCluster): string | null {
  if (!c.enabled) return null;
  if (isLeaseBackend(c)) {
    if (c.quorate !== true) return 'no quorum (store unreachable)';
    if (c.is_leader === true) return 'leader';
    return c.leader ? `follower (leader: ${c.leader})` : 'follower';
  }
  if (hasConflict(c)) return 'standing down (conflict)';
  if (c.elect_leader !== true) return null;
  if (c.distribution === 'spread')
    return c.quorate === true ? 'spread (per-job owner)' : 'spread (no quorum)';
  if (c.quorate !== true) return 'no quorum';
  if (c.is_leader === true) return 'leader';
  return c.leader ? `follower (leader: ${c.leader})` : 'follower';
}

/** Peers that count toward agreement: every configured peer except addresses that turned out to be this node. */
/** The header chip's role: `roleText`, else `lease` for a lease backend, `observing` for gossip without election. */
export function roleLabel(c: ApiCluster): string {
  return roleText(c) ?? (isLeaseBackend(c) ? 'lease' : 'observing');
}

export function agreement(c: ApiCluster): { agreed: number; counted: number } {
  const counted = c.peers.filter((p) => p.status !== 'self');
  return { agreed: counted.filter((p) => p.status === 'agreed').length, counted: counted.length };
}

/** Jobs whose owner (`clusterOwner`) is `node`. */
export function ownsCount(jobs: readonly ApiJob[], node: string): number {
  let n = 0;
  for (const j of jobs) if (j.clusterOwner === node) n++;
  return n;
}

/**
 * `<node> · <agreed>/<counted> agreed · quorum ok|lost (need Q) · <role>` (+ `· owns K` under spread). Lease
 * backends have no peers to agree with: `<node> · <backend> lease · <role>`.
 */
export function summaryLine(c: ApiCluster, jobs: readonly ApiJob[]): string {
  const node = c.node_name ?? '?';
  const role = roleText(c);
  if (isLeaseBackend(c)) return [node, `${c.backend} lease`, role ?? ''].filter(Boolean).join(' · ');
  const { agreed, counted } = agreement(c);
  const parts = [node, `${agreed}/${counted} agreed`];
  if (c.elect_leader === true) {
    parts.push(`quorum ${c.quorate === true ? 'ok' : 'lost'} (need ${c.quorum ?? '?'})`);
  }
  if (role !== null) parts.push(role);
  if (c.elect_leader === true && c.distribution === 'spread') parts.push(`owns ${ownsCount(jobs, node)}`);
  return parts.join(' · ');
}

/** One ⚠ note per visible conflict, naming what clashes (spec 05 §5.7, §12.4). */
export function conflictNotes(c: ApiCluster): string[] {
  const notes: string[] = [];
  const names = c.conflict_names ?? [];
  if (names.length > 0) {
    notes.push(`duplicate nodeName: ${names.join(', ')} — Leader jobs paused`);
  }
  if (c.size_conflict === true) {
    const sizes = (c.conflicting_sizes ?? []).join(', ');
    notes.push(
      `cluster size mismatch: peers declare ${sizes || '?'}, this node ${c.cluster_size ?? '?'} — Leader jobs paused`,
    );
  }
  if (c.policy_conflict === true) {
    const policies = (c.conflicting_policies ?? []).join('; ');
    notes.push(`coordination policy mismatch: ${policies || '?'} — Leader jobs paused`);
  }
  if (notes.length === 0 && c.conflict === true) notes.push('conflict — Leader jobs paused');
  return notes;
}

export type PeerTone = 'good' | 'warn' | 'bad' | 'gone' | 'self' | 'faint';

const PEER_TONES: Record<string, PeerTone> = {
  agreed: 'good',
  syncing: 'warn',
  drifted: 'bad',
  untrusted: 'bad',
  conflict: 'bad',
  unreachable: 'gone',
  self: 'self',
  unknown: 'faint',
};

/** Dot colour of a peer status: agreed green, syncing amber, drifted/untrusted/conflict red, unreachable grey. */
export function peerTone(status: string): PeerTone {
  return PEER_TONES[status] ?? 'faint';
}

/** The peer dot's tooltip: host, status, last seen, last error. */
export function peerTooltip(p: ApiPeer): string {
  const lines = [`${p.host} · ${p.status}`];
  if (p.node_name) lines.push(`node ${p.node_name}`);
  lines.push(`last seen ${p.last_seen ?? 'never'}`);
  if (p.last_error) lines.push(`last error: ${p.last_error}`);
  if ((p.mismatch_streak ?? 0) > 0) lines.push(`job set mismatch ${p.mismatch_streak} rounds`);
  return lines.join('\n');
}

/** `67% / 19%` (CPU / memory), or null when the node shares no load. */
export function loadText(s: ApiNodeStats | null | undefined): string | null {
  if (!s || typeof s.cpu_percent !== 'number' || typeof s.mem_percent !== 'number') return null;
  return `${Math.round(s.cpu_percent)}% / ${Math.round(s.mem_percent)}%`;
}

export type OwnerKind = 'self' | 'node' | 'none' | 'all' | 'other';

export interface OwnerCell {
  text: string;
  kind: OwnerKind;
}

/**
 * The Owner cell (spec 05 §12.4): the owner's name (`self` when it is this node), `no quorum` when
 * `clusterOwner` is null, `all nodes` for EveryNode, `—` otherwise (no owner: single-leader, unclustered).
 */
export function ownerCell(job: ApiJob, nodeName: string | null): OwnerCell {
  if (job.clusterOwner !== undefined) {
    if (job.clusterOwner === null) return { text: 'no quorum', kind: 'none' };
    return { text: job.clusterOwner, kind: job.clusterOwner === nodeName ? 'self' : 'node' };
  }
  if (job.clusterPolicy === 'EveryNode') return { text: 'all nodes', kind: 'all' };
  return { text: '—', kind: 'other' };
}

/** The Owner column shows when the cluster view says spread or any job carries `clusterOwner`. */
export function showOwnerColumn(c: ApiCluster | null, jobs: readonly ApiJob[]): boolean {
  return isSpread(c) || jobs.some((j) => j.clusterOwner !== undefined);
}

const OWNER_RANK: Record<OwnerKind, number> = { self: 0, node: 0, none: 1, all: 2, other: 3 };

/** Owner sort: real owners alphabetically, then no quorum, then all nodes, then the rest. */
export function compareOwners(a: OwnerCell, b: OwnerCell): number {
  const r = OWNER_RANK[a.kind] - OWNER_RANK[b.kind];
  if (r !== 0) return r;
  if (OWNER_RANK[a.kind] !== 0) return 0;
  return a.text < b.text ? -1 : a.text > b.text ? 1 : 0;
}

export interface ClusterAlert {
  title: string;
  detail: string;
}

/**
 * The red CLUSTER ALERT (spec 06 §9.2): lost quorum or a visible conflict pauses the Leader jobs; on a lease
 * backend an unreachable store makes them fail closed. Null while the cluster is healthy or absent.
 */
export function clusterAlert(c: ApiCluster | null): ClusterAlert | null {
  if (c === null || !c.enabled) return null;
  if (isLeaseBackend(c)) {
    if (c.quorate === true) return null;
    return {
      title: 'lease store unreachable — Leader jobs failing closed',
      detail: `${c.node_name ?? 'this node'} has no fresh read of the ${c.backend} lease`,
    };
  }
  if (hasConflict(c)) {
    return { title: 'conflict — Leader jobs paused', detail: conflictNotes(c).join(' · ') };
  }
  if (c.elect_leader === true && c.quorate !== true) {
    const { agreed, counted } = agreement(c);
    return {
      title: 'no quorum — Leader jobs paused',
      detail: `${agreed + 1} of ${counted + 1} nodes agree, ${c.quorum ?? '?'} needed`,
    };
  }
  return null;
}

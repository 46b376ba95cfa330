// The gossip election (spec 05 §5.5) and its conflicts (§5.7) as pure functions of one snapshot
// of the peer table. There are no terms or epochs: every node recomputes from its current view
// on every decision, so two nodes with the same view always reach the same answer.
import { compareNames, rendezvousOwner } from './rendezvous.ts';
import type { Distribution, GatedPolicy, Leadership, PeerStatus } from './types.ts';

/** One entry of a peer's gossiped `members` list. */
export interface MemberEntry {
  nodeName: string;
  instanceId: string;
  agreed: boolean;
}

/** What the election reads of one configured peer. */
export interface ElectionPeer {
  host: string;
  status: PeerStatus;
  nodeName: string | null;
  /** The last instance id the peer reported (kept across failures, for de-duplicating N). */
  instanceId: string | null;
  /** The peer's declared `cluster_size`, `distribution`, `elect_leader` (null: not declared). */
  clusterSize: number | null;
  distribution: string | null;
  electLeader: boolean | null;
  /** Its `members` list; null when its body had none (a legacy peer). Dropped on failure. */
  members: readonly MemberEntry[] | null;
  mutualAgreeing: readonly string[];
  quorateVouched: readonly string[];
}

export interface ElectionView {
  me: string;
  instanceId: string;
  distribution: Distribution;
  electLeader: boolean;
  peers: readonly ElectionPeer[];
  /** Poll rounds completed since start (the settle hold lasts 3). */
  completedRounds: number;
}

export interface Conflicts {
  names: string[];
  sizes: number[];
  policies: string[];
}

export interface Election {
  view: ElectionView;
  n: number;
  q: number;
  /** The agreeing set A, one entry per instance. */
  agreeing: ElectionPeer[];
  agreeingNames: string[];
  quorate: boolean;
  directEligible: string[];
  bridgeCandidates: string[];
  eligible: string[];
  /** Quorum-gated leader (single-leader), null without quorum. */
  leader: string | null;
  vouchedContenders: string[];
  availableContenders: string[];
  availableLeader: string;
  /** False while the settle hold keeps the never-skip (available) gates closed. */
  settled: boolean;
  conflicts: Conflicts;
  conflict: boolean;
}

/** Statuses that come from a successful poll (the peer's gossip is current). */
const FRESH: ReadonlySet<PeerStatus> = new Set(['agreed', 'syncing', 'drifted', 'conflict', 'self']);

export const isFresh = (status: PeerStatus): boolean => FRESH.has(status);

const sorted = (names: Iterable<string>): string[] => [...new Set(names)].sort(compareNames);

const minName = (names: Iterable<string>): string => sorted(names)[0] as string;

export const quorumOf = (n: number): number => Math.floor(n / 2) + 1;

/** `len(peers) + 1`, less peers that are this node and extra addresses of one instance. */
export function effectiveSize(peers: readonly ElectionPeer[]): number {
  let n = peers.length + 1;
  const seen = new Set<string>();
  for (const p of peers) {
    if (p.status === 'self') n--;
    else if (p.instanceId !== null) {
      if (seen.has(p.instanceId)) n--;
      else seen.add(p.instanceId);
    }
  }
  return n;
}

function listsMe(peer: ElectionPeer, instanceId: string): boolean {
  return peer.members === null || peer.members.some((m) => m.instanceId === instanceId && m.agreed);
}

/** Agreed peers that agree back, declare my size and policy, one per instance. */
export function agreeingSet(view: ElectionView, n: number): ElectionPeer[] {
  const out: ElectionPeer[] = [];
  const seen = new Set<string>();
  for (const p of view.peers) {
    if (p.status !== 'agreed' || p.nodeName === null) continue;
    if (!listsMe(p, view.instanceId)) continue;
    if (p.clusterSize !== null && p.clusterSize !== n) continue;
    if (p.distribution !== null && p.distribution !== view.distribution) continue;
    if (p.electLeader !== null && p.electLeader !== view.electLeader) continue;
    const key = p.instanceId ?? `host:${p.host}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(p);
  }
  return out;
}

/** Python's `repr()` of a str or bool, as the policy-conflict descriptors quote them. */
export function pyRepr(value: string | boolean): string {
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
  const body = value.replace(/\\/g, '\\\\').replace(quote === "'" ? /'/g : /"/g, `\\${quote}`);
  return `${quote}${body}${quote}`;
}

/** The three conflicts of §5.7, each sorted and de-duplicated. */
export function findConflicts(view: ElectionView, n: number): Conflicts {
  const credible = new Map<string, Set<string>>();
  const credit = (name: string, id: string) => {
    const ids = credible.get(name) ?? new Set<string>();
    credible.set(name, ids.add(id));
  };
  credit(view.me, view.instanceId);
  // Transitive ids count only when two distinct peers report them: one peer's stale or
  // mistaken list must not stand a healthy fleet down.
  const reporters = new Map<string, Set<string>>();
  for (const p of view.peers) {
    if (!isFresh(p.status)) continue;
    if (p.nodeName !== null && p.instanceId !== null) credit(p.nodeName, p.instanceId);
    const reporter = p.instanceId ?? `host:${p.host}`;
    for (const m of p.members ?? []) {
      const key = `${m.nodeName}\u0000${m.instanceId}`;
      reporters.set(key, (reporters.get(key) ?? new Set<string>()).add(reporter));
    }
  }
  for (const [key, by] of reporters) {
    if (by.size < 2) continue;
    const [name, id] = key.split('\u0000') as [string, string];
    credit(name, id);
  }
  const names = sorted([...credible].filter(([, ids]) => ids.size >= 2).map(([name]) => name));
  const sizes = new Set<number>();
  const policies = new Set<string>();
  for (const p of view.peers) {
    if (p.status !== 'agreed') continue;
    if (p.clusterSize !== null && p.clusterSize !== n) sizes.add(p.clusterSize);
    if (p.distribution !== null && p.distribution !== view.distribution)
      policies.add(`distribution ${pyRepr(p.distribution)} != ${pyRepr(view.distribution)}`);
    if (p.electLeader !== null && p.electLeader !== view.electLeader)
      policies.add(`electLeader ${pyRepr(p.electLeader)} != ${pyRepr(view.electLeader)}`);
  }
  return { names, sizes: [...sizes].sort((a, b) => a - b), policies: sorted(policies) };
}

/** Until 3 rounds are done, an agreed peer that reports members but not me may not know me yet. */
function isSettled(view: ElectionView): boolean {
  if (view.peers.some((p) => p.status === 'unknown')) return false;
  if (view.completedRounds >= 3) return true;
  return !view.peers.some(
    (p) =>
      p.status === 'agreed' && p.members !== null && !p.members.some((m) => m.instanceId === view.instanceId),
  );
}

export function elect(view: ElectionView): Election {
  const n = effectiveSize(view.peers);
  const q = quorumOf(n);
  const agreeing = agreeingSet(view, n);
  const agreeingNames = sorted(agreeing.map((p) => p.nodeName as string));
  const inA = new Set(agreeingNames);
  const quorate = 1 + agreeing.length >= q;
  const directEligible = sorted(
    agreeing.filter((p) => p.mutualAgreeing.length + 1 >= q).map((p) => p.nodeName as string),
  );
  const witnesses = new Map<string, number>();
  for (const p of agreeing)
    for (const name of new Set(p.mutualAgreeing))
      if (name !== view.me && !inA.has(name)) witnesses.set(name, (witnesses.get(name) ?? 0) + 1);
  const bridgeCandidates = sorted([...witnesses].filter(([, w]) => w + 1 >= q).map(([name]) => name));
  const eligible = sorted([...directEligible, ...bridgeCandidates]);
  const inE = new Set(eligible);
  const leader = quorate ? minName([view.me, ...eligible]) : null;
  const outside = (name: string) => name !== view.me && !inA.has(name);
  const vouchedContenders = sorted(
    agreeing.flatMap((p) => p.quorateVouched).filter((name) => outside(name) && !inE.has(name)),
  );
  const availableContenders = sorted(agreeing.flatMap((p) => p.mutualAgreeing).filter(outside));
  const conflicts = findConflicts(view, n);
  return {
    view,
    n,
    q,
    agreeing,
    agreeingNames,
    quorate,
    directEligible,
    bridgeCandidates,
    eligible,
    leader,
    vouchedContenders,
    availableContenders,
    availableLeader: minName([view.me, ...agreeingNames, ...availableContenders]),
    settled: isSettled(view),
    conflicts,
    conflict: conflicts.names.length > 0 || conflicts.sizes.length > 0 || conflicts.policies.length > 0,
  };
}

/** The quorum-gated owner of `job` under spread; null without quorum. */
export function ownerOf(e: Election, job: string): string | null {
  if (!e.quorate) return null;
  return rendezvousOwner(job, [e.view.me, ...e.eligible, ...e.vouchedContenders]);
}

/** The quorum-free owner (`PreferLeader`): never none. */
export function availableOwnerOf(e: Election, job: string): string {
  return rendezvousOwner(job, [e.view.me, ...e.agreeingNames, ...e.availableContenders]) as string;
}

/**
 * The duplicate-name tie-break of the available path: a reachable twin with my name and a
 * strictly lower instance id that would itself pick "us" (lead, or own `job`) over the nodes it
 * gossips as mutually agreeing goes first; I defer.
 */
export function twinDefers(e: Election, job: string | null): boolean {
  const { me, instanceId } = e.view;
  return e.view.peers.some((p) => {
    if (!isFresh(p.status) || p.nodeName !== me || p.instanceId === null) return false;
    if (!(p.instanceId < instanceId)) return false;
    const its = [me, ...p.mutualAgreeing];
    return job === null ? minName(its) === me : rendezvousOwner(job, its) === me;
  });
}

const deny = (reason: string, transient: boolean): Leadership => ({ run: false, reason, transient });
const RUN: Leadership = { run: true };

/** Spec 05 §3.1 rows 1 and 4-7 for one fire of `name` (a job, or `dag:<name>`). */
export function decide(e: Election, name: string, policy: GatedPolicy): Leadership {
  const { view } = e;
  if (!view.electLeader) return RUN;
  const spread = view.distribution === 'spread';
  if (policy === 'PreferLeader') {
    if (!e.settled) return deny('cluster view still settling', true);
    const chosen = spread ? availableOwnerOf(e, name) : e.availableLeader;
    if (chosen !== view.me)
      return deny(spread ? `owned by ${chosen}` : `available leader is ${chosen}`, false);
    if (twinDefers(e, spread ? name : null))
      return deny(`deferring to another process named ${view.me}`, true);
    return RUN;
  }
  if (e.conflict) return deny('cluster conflict: standing down', true);
  if (!e.quorate) return { run: false, reason: 'no quorum', transient: true, noQuorum: true };
  const chosen = spread ? ownerOf(e, name) : e.leader;
  if (chosen !== view.me) return deny(spread ? `owned by ${chosen}` : `leader is ${chosen}`, false);
  return RUN;
}

// The log lines a gossip round produces (spec 05 §5.7): per-peer transitions to untrusted,
// unreachable or drifted at WARNING, conflict onset at ERROR, quorum and leadership changes at
// INFO. Pure: compares two snapshots.
import type { Election } from '../election.ts';
import type { PeerStatus } from '../types.ts';

export interface RoundSnapshot {
  statuses: Map<string, { status: PeerStatus; error: string | null; jobSetId: string | null }>;
  quorate: boolean;
  leader: string | null;
  conflictKey: string;
}

export interface LogLine {
  level: 'info' | 'warning' | 'error';
  message: string;
}

export function conflictKey(e: Election): string {
  const c = e.conflicts;
  return e.conflict ? JSON.stringify([c.names, c.sizes, c.policies]) : '';
}

const BAD: ReadonlySet<PeerStatus> = new Set(['untrusted', 'unreachable', 'drifted']);

export function roundLogs(before: RoundSnapshot | null, after: RoundSnapshot, e: Election): LogLine[] {
  const out: LogLine[] = [];
  for (const [host, now] of after.statuses) {
    const was = before?.statuses.get(host)?.status ?? 'unknown';
    if (now.status === was) continue;
    if (BAD.has(now.status)) {
      const why =
        now.status === 'drifted'
          ? `its job set ${now.jobSetId ?? '?'} differs from ours`
          : (now.error ?? 'no detail');
      out.push({ level: 'warning', message: `cluster: peer ${host} is ${now.status} (was ${was}): ${why}` });
    } else if (now.status === 'agreed' && was !== 'unknown')
      out.push({ level: 'info', message: `cluster: peer ${host} agrees again (was ${was})` });
  }
  if (after.conflictKey !== '' && after.conflictKey !== (before?.conflictKey ?? '')) {
    const c = e.conflicts;
    const parts = [
      c.names.length > 0 ? `duplicate node names ${c.names.join(', ')}` : '',
      c.sizes.length > 0 ? `peers declare cluster sizes ${c.sizes.join(', ')} (ours ${e.n})` : '',
      c.policies.length > 0 ? `policy mismatch: ${c.policies.join('; ')}` : '',
    ].filter(Boolean);
    const effect = e.view.electLeader ? 'Leader jobs stand down' : 'observe-only, nothing is gated';
    out.push({ level: 'error', message: `cluster: conflict (${parts.join('; ')}); ${effect}` });
  } else if (after.conflictKey === '' && (before?.conflictKey ?? '') !== '')
    out.push({ level: 'info', message: 'cluster: conflict cleared' });
  // Quorum only means something to an election; an observe-only mesh keeps quiet about it.
  if (e.view.electLeader && (before === null || before.quorate !== after.quorate))
    out.push({
      level: 'info',
      message: after.quorate
        ? `cluster: quorum ${before === null ? 'formed' : 'regained'} (${1 + e.agreeing.length} of ${e.n}, need ${e.q})`
        : `cluster: ${before === null ? 'no quorum yet' : 'quorum lost'} (${1 + e.agreeing.length} of ${e.n}, need ${e.q})`,
    });
  if (
    e.view.electLeader &&
    e.view.distribution === 'single-leader' &&
    (before?.leader ?? null) !== after.leader
  )
    out.push({
      level: 'info',
      message:
        after.leader === null
          ? 'cluster: no leader'
          : after.leader === e.view.me
            ? 'cluster: this node is the leader'
            : `cluster: the leader is ${after.leader}`,
    });
  return out;
}

// The cluster panel (spec 05 §12.4, spec 06 §9.2): the summary line with this node's role, conflict notes,
// and the peer table (gossip) or the lease block (lease backends). Hidden without a cluster.
import {
  conflictNotes,
  isLeaseBackend,
  isSpread,
  loadText,
  ownsCount,
  peerTone,
  peerTooltip,
  summaryLine,
} from '../../../dashboard/cluster.ts';
import { shortJobSetId } from '../../../dashboard/format.ts';
import type { ApiCluster, ApiJob } from '../../../dashboard/types.ts';

export function ClusterPanel({
  cluster,
  jobs,
  onFleet,
}: {
  cluster: ApiCluster;
  jobs: readonly ApiJob[];
  onFleet: (() => void) | null;
}) {
  const c = cluster;
  const lease = isLeaseBackend(c);
  const load = loadText(c.node_stats);
  const notes = conflictNotes(c);
  return (
    <section
      class="card cluster"
      id="cluster-panel"
      aria-labelledby="cluster-title"
      data-testid="cluster-panel"
    >
      <div class="card-head">
        <h2 id="cluster-title" class="card-title">
          <span aria-hidden="true">┌─ </span>Cluster
        </h2>
        {onFleet && (
          <button type="button" class="btn btn-small" onClick={onFleet} data-testid="fleet-button-panel">
            ⊞ fleet
          </button>
        )}
        <span class="card-meta cluster-summary" data-testid="cluster-summary">
          {summaryLine(c, jobs)}
          {load && ` · this node ${load.replace(' / ', ' cpu / ')} mem`}
        </span>
      </div>
      {notes.map((n) => (
        <p key={n} class="cluster-note" role="note" data-testid="cluster-conflict">
          <span aria-hidden="true">⚠ </span>
          {n}
        </p>
      ))}
      {lease ? <LeaseTable lease={c.lease ?? {}} /> : <PeerTable cluster={c} jobs={jobs} />}
    </section>
  );
}

function PeerTable({ cluster, jobs }: { cluster: ApiCluster; jobs: readonly ApiJob[] }) {
  const peers = cluster.peers;
  if (peers.length === 0) return <p class="empty">No peers configured.</p>;
  const spread = isSpread(cluster);
  const shareLoad = peers.some((p) => loadText(p.node_stats) !== null);
  const ours = cluster.job_set_id ?? null;
  return (
    <table class="peers">
      <thead>
        <tr>
          <th scope="col">Peer</th>
          <th scope="col">Node</th>
          {shareLoad && <th scope="col">Load</th>}
          {spread && (
            <th scope="col" class="num">
              Owns
            </th>
          )}
          <th scope="col">Status</th>
          <th scope="col">Job set</th>
        </tr>
      </thead>
      <tbody>
        {peers.map((p) => {
          const tone = peerTone(p.status);
          const tip = peerTooltip(p);
          const differs = ours !== null && p.job_set_id && p.job_set_id !== ours;
          return (
            <tr key={p.host} class={`peer peer-${tone}`} data-peer={p.host} data-status={p.status}>
              <td title={tip}>
                <span class={`peer-dot tone-${tone}`} title={tip} aria-hidden="true" />
                {p.host}
              </td>
              <td>{p.node_name ?? <span class="muted">—</span>}</td>
              {shareLoad && <td>{loadText(p.node_stats) ?? <span class="muted">—</span>}</td>}
              {spread && <td class="num">{p.node_name ? ownsCount(jobs, p.node_name) : ''}</td>}
              <td class={`peer-status tone-${tone}`} title={p.last_error ?? undefined}>
                {p.status}
                {p.last_error && p.status !== 'agreed' && <span class="peer-error"> · {p.last_error}</span>}
              </td>
              <td class={differs ? 'warn' : ''} title={p.job_set_id ?? undefined}>
                {p.job_set_id ? shortJobSetId(p.job_set_id) : <span class="muted">—</span>}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function LeaseTable({ lease }: { lease: Record<string, unknown> }) {
  const entries = Object.entries(lease);
  if (entries.length === 0) return <p class="empty">No lease observed yet.</p>;
  return (
    <dl class="lease" data-testid="cluster-lease">
      {entries.map(([k, v]) => (
        <div key={k} class="lease-row">
          <dt>{k}</dt>
          <dd>
            {v === null || v === undefined ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v)}
          </dd>
        </div>
      ))}
    </dl>
  );
}

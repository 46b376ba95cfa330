// Reserved places for the cluster panel and the DAG views: they say what will appear there and why it is empty
// now, so nobody mistakes a single node for a broken cluster view.
import type { ApiCluster } from '../lib/types.ts';

export function ClusterPanel({ cluster }: { cluster: ApiCluster | null }) {
  const on = cluster?.enabled === true;
  return (
    <section class="card placeholder" aria-labelledby="cluster-title" data-testid="cluster-panel">
      <div class="card-head">
        <h2 id="cluster-title" class="card-title">
          <span aria-hidden="true">┌─ </span>Cluster
        </h2>
        <span class="card-meta">
          {on
            ? `${cluster.node_name ?? 'this node'} · ${cluster.backend ?? 'cluster'} · ${cluster.peers.length} peers${
                cluster.leader ? ` · leader ${cluster.leader}` : ''
              }`
            : 'single node'}
        </span>
      </div>
      <div class="placeholder-body">
        <span class="placeholder-glyph" aria-hidden="true">
          ⛁
        </span>
        <div>
          <p>
            <strong>{on ? 'Cluster view coming soon.' : 'No cluster configured.'}</strong>{' '}
            {on
              ? 'Peers, quorum, leadership and per-job owners will be drawn here.'
              : 'This node runs every job itself. Add a cluster: section to elect a leader; peers, quorum and ownership will appear here.'}
          </p>
        </div>
      </div>
    </section>
  );
}

export function DagPanel() {
  return (
    <section class="card placeholder" aria-labelledby="dags-title" data-testid="dag-panel">
      <div class="card-head">
        <h2 id="dags-title" class="card-title">
          <span aria-hidden="true">┌─ </span>DAGs
        </h2>
        <span class="card-meta">not available yet</span>
      </div>
      <div class="placeholder-body">
        <span class="placeholder-glyph" aria-hidden="true">
          ◈
        </span>
        <p>
          <strong>Workflow runs will live here.</strong> DAG status, task graphs, approvals and backfills
          arrive with the DAG engine; configured <code>dags:</code> are not shown yet.
        </p>
      </div>
    </section>
  );
}

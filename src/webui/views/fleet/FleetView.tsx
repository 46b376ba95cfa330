// The fleet view (spec 06 §9.2, URL `#fleet`): every node of the gossip mesh from `/fleet` with its status and
// load, and a jobs × nodes matrix of what each node last reported; the cell of a job's owner is framed.
import { useState } from 'preact/hooks';
import { peerTone } from '../../../dashboard/cluster.ts';
import {
  failingSomewhere,
  fleetCell,
  fleetJobNames,
  fleetNodeStatus,
  fleetTotals,
} from '../../../dashboard/fleet.ts';
import type { ApiFleet, ApiJob } from '../../../dashboard/types.ts';

export function FleetView({
  fleet,
  jobs,
  now,
  onOpen,
}: {
  fleet: ApiFleet | null;
  jobs: readonly ApiJob[];
  now: number;
  onOpen(name: string): void;
}) {
  const [failingOnly, setFailingOnly] = useState(false);
  if (fleet === null) {
    return (
      <section class="card placeholder" data-testid="fleet-view">
        <div class="placeholder-body">
          <p>Loading the fleet…</p>
        </div>
      </section>
    );
  }
  if (!fleet.enabled) {
    return (
      <section class="card placeholder" data-testid="fleet-view">
        <div class="placeholder-body">
          <p>
            <strong>No fleet data.</strong> This node runs no gossip mesh (a gossip cluster, or{' '}
            <code>cluster.observability</code> beside a lease backend).
          </p>
        </div>
      </section>
    );
  }
  const totals = fleetTotals(fleet);
  const owners = new Map<string, string | null>();
  for (const j of jobs) if (j.clusterOwner !== undefined) owners.set(j.name, j.clusterOwner);
  const names = fleetJobNames(fleet).filter((n) => !failingOnly || failingSomewhere(fleet, n));
  return (
    <section class="card fleet" aria-labelledby="fleet-title" data-testid="fleet-view">
      <div class="card-head">
        <h2 id="fleet-title" class="card-title">
          <span aria-hidden="true">┌─ </span>Fleet
        </h2>
        <span class="fleet-totals" data-testid="fleet-totals">
          {totals.nodes} nodes · {totals.jobs} jobs · {totals.running} running ·{' '}
          <span class={totals.failing > 0 ? 'bad' : ''}>{totals.failing} failing</span>
        </span>
        <label class="fleet-filter">
          <input
            type="checkbox"
            checked={failingOnly}
            onChange={(e) => setFailingOnly((e.currentTarget as HTMLInputElement).checked)}
          />{' '}
          failing only
        </label>
        <span class="card-meta">
          peer data rides gossip{fleet.interval ? ` (every ${fleet.interval}s)` : ''}
        </span>
      </div>
      <div class="fleet-scroll">
        <table class="fleet-matrix">
          <thead>
            <tr>
              <th scope="col" class="fleet-job">
                Job
              </th>
              {fleet.nodes.map((n) => {
                const tone = n.self ? 'self' : peerTone(n.status);
                return (
                  <th key={n.host ?? n.node_name} scope="col" data-node={n.node_name ?? ''}>
                    <div class={`fleet-node${n.self ? ' is-self' : ''}`}>{n.node_name ?? n.host ?? '?'}</div>
                    <div class="fleet-node-status">
                      <span class={`peer-dot tone-${tone}`} aria-hidden="true" />
                      {fleetNodeStatus(n, now)}
                    </div>
                    <div class="fleet-node-load">
                      {n.node_stats && typeof n.node_stats.cpu_percent === 'number'
                        ? `cpu ${Math.round(n.node_stats.cpu_percent)}% · mem ${Math.round(n.node_stats.mem_percent ?? 0)}%`
                        : 'no load shared'}
                      {n.truncated ? ' · truncated' : ''}
                    </div>
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {names.map((name) => (
              <tr key={name} data-job={name}>
                <th scope="row" class="fleet-job">
                  <button type="button" class="jobname" onClick={() => onOpen(name)}>
                    {name}
                  </button>
                </th>
                {fleet.nodes.map((n) => {
                  const cell = fleetCell(n.jobs?.[name], now);
                  const owner = n.node_name !== null && owners.get(name) === n.node_name;
                  return (
                    <td
                      key={n.host ?? n.node_name}
                      class={`fleet-cell tone-${cell.tone}${owner ? ' is-owner' : ''}`}
                      title={owner ? `${n.node_name} owns ${name}` : undefined}
                    >
                      <span class="fleet-chip">
                        {cell.tone === 'ok' || cell.tone === 'fail' ? (
                          <span class="dot" aria-hidden="true" />
                        ) : null}
                        {cell.text}
                        {cell.age && <span class="fleet-age"> {cell.age}</span>}
                      </span>
                    </td>
                  );
                })}
              </tr>
            ))}
            {names.length === 0 && (
              <tr class="empty-row">
                <td colSpan={fleet.nodes.length + 1}>
                  {failingOnly ? 'Nothing fails.' : 'No jobs reported.'}
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}

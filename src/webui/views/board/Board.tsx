// The jobs view: the table with its column chooser, then the cluster panel (clustered daemons) and the DAG card.
import type { OptionalColumn } from '../../../dashboard/columns.ts';
import type { Row } from '../../../dashboard/table.ts';
import type { ApiCluster, ApiJob } from '../../../dashboard/types.ts';
import type { Api } from '../../io/api.ts';
import { ClusterPanel } from '../cluster/ClusterPanel.tsx';
import { DagCard } from '../dags/DagCard.tsx';
import { ColumnChooser } from './ColumnChooser.tsx';
import { JobsTable, type JobsTableProps } from './JobsTable.tsx';

export interface BoardProps extends Omit<JobsTableProps, 'rows' | 'total' | 'emptyText' | 'tools'> {
  api: Api;
  jobs: readonly ApiJob[];
  /** every job as a row, and those the filter, segment and sort leave */
  rows: readonly Row[];
  shown: readonly Row[];
  cols: readonly OptionalColumn[];
  onToggleCol(id: OptionalColumn): void;
  /** the enabled cluster, else null */
  cluster: ApiCluster | null;
  onFleet: (() => void) | null;
  dags: { intervalMs: number; shown: boolean; onCount(n: number): void };
}

export function Board(p: BoardProps) {
  return (
    <>
      <JobsTable
        {...p}
        rows={p.shown}
        total={p.rows.length}
        emptyText={p.rows.length === 0 ? 'No jobs configured.' : 'No job matches the filter.'}
        tools={<ColumnChooser cols={p.cols} onToggle={p.onToggleCol} />}
      />
      {p.cluster && <ClusterPanel cluster={p.cluster} jobs={p.jobs} onFleet={p.onFleet} />}
      <DagCard api={p.api} intervalMs={p.dags.intervalMs} shown={p.dags.shown} onCount={p.dags.onCount} />
    </>
  );
}

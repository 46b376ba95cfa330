// The job board's state: the filter text, status segment, sort (persisted), optional columns (persisted) and
// the rows they leave, from the latest `/jobs` answer.
import { useCallback, useMemo, useState } from 'preact/hooks';
import { showOwnerColumn } from '../../dashboard/cluster.ts';
import { formatColumns, type OptionalColumn, parseColumns, toggleColumn } from '../../dashboard/columns.ts';
import type { Segment } from '../../dashboard/health.ts';
import { filterRows, type Row, SORT_KEYS, type SortKey, sortRows, toRows } from '../../dashboard/table.ts';
import type { ApiCluster, ApiJob } from '../../dashboard/types.ts';
import { usePref } from '../io/hooks.ts';

export interface Board {
  filter: string;
  setFilter(text: string): void;
  segment: Segment;
  setSegment(segment: Segment): void;
  sort: { key: SortKey; desc: boolean };
  setSort(key: SortKey, desc: boolean): void;
  cols: readonly OptionalColumn[];
  toggleCol(id: OptionalColumn): void;
  /** every job, and those the filter and segment leave, sorted */
  rows: Row[];
  shown: Row[];
  /** the Owner column (a spread cluster) */
  showOwner: boolean;
}

export function useBoard(jobs: ApiJob[] | null, fetchedAt: number, cluster: ApiCluster | null): Board {
  const [filter, setFilter] = useState('');
  const [segment, setSegment] = useState<Segment>('all');
  const [sortKey, setSortKey] = usePref<SortKey>('sort', 'status', SORT_KEYS);
  const [sortDir, setSortDir] = usePref<'asc' | 'desc'>('sortDir', 'asc', ['asc', 'desc']);
  const [colsPref, setColsPref] = usePref<string>('cols', '');
  const cols = useMemo(() => parseColumns(colsPref), [colsPref]);
  const toggleCol = useCallback(
    (id: OptionalColumn) => setColsPref(formatColumns(toggleColumn(parseColumns(colsPref), id))),
    [colsPref],
  );
  const rows = useMemo(() => (jobs === null ? [] : toRows(jobs, fetchedAt)), [jobs, fetchedAt]);
  const shown = useMemo(
    () => sortRows(filterRows(rows, filter, segment), sortKey, sortDir === 'desc'),
    [rows, filter, segment, sortKey, sortDir],
  );
  const showOwner = useMemo(() => showOwnerColumn(cluster, jobs ?? []), [cluster, jobs]);
  const sort = useMemo(() => ({ key: sortKey, desc: sortDir === 'desc' }), [sortKey, sortDir]);
  const setSort = useCallback((key: SortKey, desc: boolean) => {
    setSortKey(key);
    setSortDir(desc ? 'desc' : 'asc');
  }, []);
  return { filter, setFilter, segment, setSegment, sort, setSort, cols, toggleCol, rows, shown, showOwner };
}

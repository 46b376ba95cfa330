// The board's rows: the shared table logic (filter, segments, sort) over the latest `/jobs`, memoised on the
// inputs so a 1 s tick or a key that changes nothing else does not re-sort 500 jobs.
import { filterRows, type Row, type SortKey, sortRows, toRows } from '../../../dashboard/table.ts';
import type { TuiState } from '../../app/state.ts';

let memo: { key: unknown[]; rows: Row[] } | null = null;

export function boardRows(s: TuiState): Row[] {
  const key = [s.data.jobs, s.data.fetchedAt, s.filter, s.segment, s.sortKey, s.sortDesc];
  if (memo?.key.every((v, i) => v === key[i])) return memo.rows;
  const rows = sortRows(
    filterRows(toRows(s.data.jobs, s.data.fetchedAt), s.filter, s.segment),
    s.sortKey as SortKey,
    s.sortDesc,
  );
  memo = { key, rows };
  return rows;
}

/** Index of the selected job in the rows, clamped (the selection follows the job name). */
export function selectedIndex(rows: readonly Row[], selected: string | null): number {
  if (rows.length === 0) return -1;
  const i = selected === null ? -1 : rows.findIndex((r) => r.job.name === selected);
  return Math.max(i, 0);
}

/** The first row to show so the selection stays visible, scrolling as little as possible. */
export function windowStart(scroll: number, sel: number, height: number, total: number): number {
  let top = Math.min(scroll, Math.max(0, total - height));
  if (sel < top) top = sel;
  else if (sel >= top + height) top = sel - height + 1;
  return Math.max(0, top);
}

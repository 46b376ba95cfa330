// The jobs table, virtualised against the window scroll: only the rows in view (plus a margin) are rendered,
// so 3k jobs cost the same per second as 30. Rows have a fixed height; spacer rows keep the scroll length.
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { Row, SortKey } from '../lib/table.ts';
import { JobRow, type RowActions } from './JobRow.tsx';

export const ROW_HEIGHT = 58;
const OVERSCAN = 8;

export interface SortState {
  key: SortKey;
  desc: boolean;
}

const COLUMNS: ReadonlyArray<{ label: string; cls: string; sort?: SortKey }> = [
  { label: 'Status', cls: 'c-status', sort: 'status' },
  { label: 'Job', cls: 'c-job', sort: 'name' },
  { label: 'Owner', cls: 'c-owner', sort: 'owner' },
  { label: 'Schedule', cls: 'c-sched' },
  { label: 'Last run', cls: 'c-last', sort: 'last' },
  { label: 'Took', cls: 'c-took', sort: 'took' },
  { label: 'Next', cls: 'c-next', sort: 'next' },
  { label: 'Trend', cls: 'c-trend' },
  { label: 'Actions', cls: 'c-actions' },
];

export function JobsTable({
  rows,
  total,
  sort,
  onSort,
  selected,
  now,
  nextAtOf,
  nodeName,
  showOwner,
  actions,
  emptyText,
}: {
  rows: readonly Row[];
  total: number;
  sort: SortState;
  onSort(sort: SortState): void;
  selected: string | null;
  now: number;
  nextAtOf(row: Row, now: number): number | null;
  nodeName: string | null;
  showOwner: boolean;
  actions: RowActions;
  emptyText: string;
}) {
  const columns = showOwner ? COLUMNS : COLUMNS.filter((c) => c.cls !== 'c-owner');
  const bodyRef = useRef<HTMLTableSectionElement>(null);
  const [range, setRange] = useState({ first: 0, count: 40 });

  useLayoutEffect(() => {
    let frame = 0;
    const measure = (): void => {
      frame = 0;
      const el = bodyRef.current;
      if (!el) return;
      const top = el.getBoundingClientRect().top;
      const first = Math.max(0, Math.floor(-top / ROW_HEIGHT) - OVERSCAN);
      const count = Math.ceil(window.innerHeight / ROW_HEIGHT) + 2 * OVERSCAN;
      setRange((r) => (r.first === first && r.count === count ? r : { first, count }));
    };
    const schedule = (): void => {
      if (frame === 0) frame = requestAnimationFrame(measure);
    };
    measure();
    window.addEventListener('scroll', schedule, { passive: true });
    window.addEventListener('resize', schedule);
    return () => {
      window.removeEventListener('scroll', schedule);
      window.removeEventListener('resize', schedule);
      if (frame !== 0) cancelAnimationFrame(frame);
    };
  }, [rows.length]);

  // Keep the keyboard selection in view.
  const selectedIndex = selected === null ? -1 : rows.findIndex((r) => r.job.name === selected);
  useEffect(() => {
    const el = bodyRef.current;
    if (!el || selectedIndex < 0) return;
    const top = el.getBoundingClientRect().top + selectedIndex * ROW_HEIGHT;
    const head = 96; // sticky top bar + table header
    if (top < head) window.scrollBy({ top: top - head - 8 });
    else if (top + ROW_HEIGHT > window.innerHeight)
      window.scrollBy({ top: top + ROW_HEIGHT - window.innerHeight + 8 });
  }, [selectedIndex]);

  const first = Math.min(range.first, Math.max(0, rows.length - 1));
  const last = Math.min(rows.length, first + range.count);
  const visible = rows.slice(first, last);

  return (
    <section class="card" aria-labelledby="jobs-title">
      <div class="card-head">
        <h2 id="jobs-title" class="card-title">
          <span aria-hidden="true">┌─ </span>Jobs
        </h2>
        <span class="card-meta" data-testid="job-count">
          {rows.length === total ? `${total} jobs` : `${rows.length} jobs (of ${total})`}
        </span>
      </div>
      <table class="jobs" aria-rowcount={rows.length + 1}>
        <colgroup>
          {columns.map((c) => (
            <col key={c.cls} class={c.cls} />
          ))}
        </colgroup>
        <thead>
          <tr aria-rowindex={1}>
            {columns.map((c) => {
              const active = c.sort !== undefined && sort.key === c.sort;
              return (
                <th
                  key={c.cls}
                  class={c.cls}
                  scope="col"
                  aria-sort={active ? (sort.desc ? 'descending' : 'ascending') : undefined}
                >
                  {c.sort === undefined ? (
                    c.label
                  ) : (
                    <button
                      type="button"
                      class="sortbtn"
                      onClick={() => onSort({ key: c.sort!, desc: active ? !sort.desc : false })}
                    >
                      {c.label}
                      <span class="sort-arrow" aria-hidden="true">
                        {active ? (sort.desc ? ' ↓' : ' ↑') : ''}
                      </span>
                    </button>
                  )}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody ref={bodyRef}>
          {first > 0 && (
            <tr class="spacer" style={{ height: `${first * ROW_HEIGHT}px` }}>
              <td colSpan={columns.length} />
            </tr>
          )}
          {visible.map((row, i) => (
            <JobRow
              key={row.job.name}
              row={row}
              index={first + i}
              selected={row.job.name === selected}
              now={now}
              nextAt={nextAtOf(row, now)}
              nodeName={nodeName}
              showOwner={showOwner}
              actions={actions}
            />
          ))}
          {last < rows.length && (
            <tr class="spacer" style={{ height: `${(rows.length - last) * ROW_HEIGHT}px` }}>
              <td colSpan={columns.length} />
            </tr>
          )}
          {rows.length === 0 && (
            <tr class="empty-row">
              <td colSpan={columns.length}>{emptyText}</td>
            </tr>
          )}
        </tbody>
      </table>
    </section>
  );
}

// The jobs table, virtualised against the window scroll: only the rows in view (plus a margin) are rendered,
// so 3k jobs cost the same per second as 30. Rows have a fixed height; spacer rows keep the scroll length.
import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { OPTIONAL_COLUMNS, type OptionalColumn } from '../../../dashboard/columns.ts';
import type { Row, SortKey } from '../../../dashboard/table.ts';
import { JobRow, type RowActions } from './JobRow.tsx';

/** Row height of the comfortable density; the table takes the current one as a prop. */
export const ROW_HEIGHT = 58;
const OVERSCAN = 8;

export interface SortState {
  key: SortKey;
  desc: boolean;
}

interface Column {
  label: string;
  cls: string;
  sort?: SortKey;
  /** set on the optional columns of the "⊞ cols" chooser */
  optional?: OptionalColumn;
}

const optional = (id: OptionalColumn): Column => ({
  label: OPTIONAL_COLUMNS.find((c) => c.id === id)!.label,
  cls: `c-${id}`,
  sort: id,
  optional: id,
});

/**
 * With optional columns on, the table keeps the Job column readable by growing past the window (the page
 * scrolls sideways) instead of squeezing it: the fixed columns' widths (styles/chrome.css `col.c-*`) plus room for it.
 */
const FIXED_WIDTH = 980;
const OWNER_WIDTH = 124;
const OPTIONAL_WIDTH: Record<OptionalColumn, number> = { policy: 110, tz: 140, nextat: 120, rate: 64 };
const JOB_MIN_WIDTH = 240;

const COLUMNS: readonly Column[] = [
  { label: 'Status', cls: 'c-status', sort: 'status' },
  { label: 'Job', cls: 'c-job', sort: 'name' },
  { label: 'Owner', cls: 'c-owner', sort: 'owner' },
  { label: 'Schedule', cls: 'c-sched' },
  optional('policy'),
  optional('tz'),
  { label: 'Last run', cls: 'c-last', sort: 'last' },
  { label: 'Took', cls: 'c-took', sort: 'took' },
  { label: 'Next', cls: 'c-next', sort: 'next' },
  optional('nextat'),
  optional('rate'),
  { label: 'Trend', cls: 'c-trend' },
  { label: 'Actions', cls: 'c-actions' },
];

export interface JobsTableProps {
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
  /** optional columns switched on in the chooser */
  cols?: readonly OptionalColumn[];
  /** CSS pixels per row (density) and the UI scale (zoom on <html>), for the windowing arithmetic */
  rowHeight?: number;
  scale?: number;
  /** controls in the card head (the column chooser) */
  tools?: ComponentChildren;
}

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
  cols = [],
  rowHeight = ROW_HEIGHT,
  scale = 1,
  tools,
}: JobsTableProps) {
  const columns = COLUMNS.filter(
    (c) => (c.cls !== 'c-owner' || showOwner) && (c.optional === undefined || cols.includes(c.optional)),
  );
  // getBoundingClientRect and innerHeight are in zoomed pixels; heights written to style are CSS pixels.
  const screenRow = rowHeight * scale;
  const bodyRef = useRef<HTMLTableSectionElement>(null);
  const [range, setRange] = useState({ first: 0, count: 40 });

  useLayoutEffect(() => {
    let frame = 0;
    const measure = (): void => {
      frame = 0;
      const el = bodyRef.current;
      if (!el) return;
      const top = el.getBoundingClientRect().top;
      const first = Math.max(0, Math.floor(-top / screenRow) - OVERSCAN);
      const count = Math.ceil(window.innerHeight / screenRow) + 2 * OVERSCAN;
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
  }, [rows.length, screenRow]);

  // Keep the keyboard selection in view.
  const selectedIndex = selected === null ? -1 : rows.findIndex((r) => r.job.name === selected);
  useEffect(() => {
    const el = bodyRef.current;
    if (!el || selectedIndex < 0) return;
    const top = el.getBoundingClientRect().top + selectedIndex * screenRow;
    const head = 96 * scale; // sticky top bar + table header
    if (top < head) window.scrollBy({ top: top - head - 8 });
    else if (top + screenRow > window.innerHeight)
      window.scrollBy({ top: top + screenRow - window.innerHeight + 8 });
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
        <span class="card-meta" data-testid="job-count" aria-live="polite">
          {rows.length === total ? `${total} jobs` : `${rows.length} jobs (of ${total})`}
        </span>
        {tools && <div class="card-tools">{tools}</div>}
      </div>
      <table
        class="jobs"
        aria-rowcount={rows.length + 1}
        style={
          cols.length === 0
            ? undefined
            : {
                minWidth: `${FIXED_WIDTH + (showOwner ? OWNER_WIDTH : 0) + JOB_MIN_WIDTH + cols.reduce((w, c) => w + OPTIONAL_WIDTH[c], 0)}px`,
              }
        }
      >
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
                      title={`sort by ${c.label.toLowerCase()}${active ? (sort.desc ? ' (descending)' : ' (ascending)') : ''}`}
                      data-sort={c.sort}
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
            <tr class="spacer" style={{ height: `${first * rowHeight}px` }}>
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
              cols={cols}
              actions={actions}
            />
          ))}
          {last < rows.length && (
            <tr class="spacer" style={{ height: `${(rows.length - last) * rowHeight}px` }}>
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

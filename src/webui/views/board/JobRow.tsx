// One row of the jobs table: status, name + command, owner (in a spread cluster), schedule, last run, took, next, trend, actions.
import { Component } from 'preact';
import { lastCell, nextCell, tookText } from '../../../dashboard/board.ts';
import { ownerCell } from '../../../dashboard/cluster.ts';
import {
  formatRate,
  formatWallClock,
  type OptionalColumn,
  policyLabel,
  tzLabel,
} from '../../../dashboard/columns.ts';
import { compileJob } from '../../../dashboard/engine.ts';
import type { Row } from '../../../dashboard/table.ts';
import type { ApiJob } from '../../../dashboard/types.ts';
import { useAccess } from '../../app/access.ts';
import { Sparkline } from '../../chrome/Sparkline.tsx';
import { StatusBadge, StatusChips } from '../../chrome/StatusBadge.tsx';

export interface RowActions {
  onOpen(name: string, tab?: 'logs' | 'schedule'): void;
  onSelect(name: string): void;
  onRun(name: string): void;
  onCancel(name: string): void;
  onTogglePause(job: ApiJob): void;
}

export function ExitBadge({ code }: { code: number | null | undefined }) {
  if (code === null || code === undefined) return null;
  return <span class={`exit ${code === 0 ? 'exit-ok' : 'exit-bad'}`}>exit {code}</span>;
}

function NextCell({ row, nextAt, now }: { row: Row; nextAt: number | null; now: number }) {
  const cell = nextCell(row, nextAt, now);
  switch (cell.kind) {
    case 'running':
      return (
        <span class="muted" title="running now">
          {cell.text}
        </span>
      );
    case 'never':
      return (
        <span class="warn" title="The schedule has no future occurrence">
          {cell.text}
        </span>
      );
    case 'due':
    case 'countdown':
      return (
        <time
          class={`countdown${cell.seconds ? ' countdown-sec' : ''}`}
          dateTime={new Date(nextAt!).toISOString()}
        >
          {cell.text}
        </time>
      );
    default:
      return <span class="muted">{cell.text}</span>;
  }
}

export interface JobRowProps {
  row: Row;
  index: number;
  selected: boolean;
  now: number;
  nextAt: number | null;
  nodeName: string | null;
  /** the Owner column shows only in a spread cluster (spec 05 §12.4) */
  showOwner: boolean;
  /** optional columns switched on in the "⊞ cols" chooser */
  cols?: readonly OptionalColumn[];
  actions: RowActions;
}

/** What a row shows of its job, except the next-fire offset that moves with every answer (once per row). */
const signatures = new WeakMap<Row, string>();
function shownJob(row: Row): string {
  let sig = signatures.get(row);
  if (sig === undefined) {
    sig = JSON.stringify(row.job, (k, v) => (k === 'scheduled_in' ? undefined : v));
    signatures.set(row, sig);
  }
  return sig;
}

const wholeSeconds = (at: number | null, now: number): number | null =>
  at === null ? null : Math.floor((at - now) / 1000);

/**
 * A row re-renders when the clock ticks, its presentation inputs change, or its job changed in a way it shows:
 * a refresh that only moves the countdowns by a fraction of a second leaves it alone (the table budget is one
 * frame per refresh at 500 jobs, bench/webui.bench.ts).
 */
export class JobRow extends Component<JobRowProps> {
  override shouldComponentUpdate(n: JobRowProps): boolean {
    const p = this.props;
    if (
      n.now !== p.now ||
      n.selected !== p.selected ||
      n.index !== p.index ||
      n.showOwner !== p.showOwner ||
      n.cols !== p.cols ||
      n.nodeName !== p.nodeName ||
      n.actions !== p.actions
    )
      return true;
    if (n.row === p.row) return n.nextAt !== p.nextAt;
    if (n.row.status !== p.row.status || n.row.lastAt !== p.row.lastAt || n.row.rate !== p.row.rate)
      return true;
    if (wholeSeconds(n.nextAt, n.now) !== wholeSeconds(p.nextAt, p.now)) return true;
    return shownJob(n.row) !== shownJob(p.row);
  }

  override render() {
    return <JobRowView {...this.props} />;
  }
}

function JobRowView({
  row,
  index,
  selected,
  now,
  nextAt,
  nodeName,
  showOwner,
  cols = [],
  actions,
}: JobRowProps) {
  const j = row.job;
  const { control } = useAccess();
  const c = compileJob(j);
  const owner = showOwner ? ownerCell(j, nodeName) : null;
  const last = lastCell(row, now);
  const describe = c.error ?? c.description;
  const frameNote = c.frameLabel === 'UTC' ? '' : ` · ${c.frameLabel}`;
  return (
    <tr
      class={`job${selected ? ' is-selected' : ''}${j.enabled ? '' : ' is-off'}`}
      aria-rowindex={index + 2}
      aria-current={selected ? 'true' : undefined}
      data-job={j.name}
      onClick={() => actions.onOpen(j.name)}
    >
      <td class="c-status">
        <StatusBadge status={row.status} />
        <StatusChips job={j} />
      </td>
      <td class="c-job">
        <button
          type="button"
          class="jobname"
          onClick={(e) => {
            e.stopPropagation();
            actions.onOpen(j.name);
          }}
          onFocus={() => actions.onSelect(j.name)}
        >
          {j.name}
        </button>
        <div class="cmd" title={j.command}>
          {j.command}
        </div>
      </td>
      {owner !== null && (
        <td class="c-owner">
          {owner.kind === 'other' ? (
            <span class="muted">—</span>
          ) : (
            <span
              class={`owner owner-${owner.kind}`}
              title={owner.kind === 'self' ? `${owner.text} (this node)` : owner.text}
            >
              <span class="dot" aria-hidden="true" />
              {owner.text}
            </span>
          )}
        </td>
      )}
      <td class="c-sched">
        <code class="sched" title={`${describe}${frameNote}`}>
          {j.schedule}
        </code>
        <div class={`sched-desc${c.error ? ' bad' : ''}`} title={`${describe}${frameNote}`}>
          {describe}
          {frameNote}
        </div>
      </td>
      {cols.includes('policy') && <td class="c-policy">{policyLabel(j) ?? <span class="muted">—</span>}</td>}
      {cols.includes('tz') && <td class="c-tz">{tzLabel(j)}</td>}
      <td class="c-last">
        {last.finishedAt === null ? (
          <span class="muted">{last.text}</span>
        ) : (
          <span title={last.finishedAt ?? undefined}>
            {last.text} <ExitBadge code={last.exit} />
          </span>
        )}
      </td>
      <td class="c-took">{j.last_run ? tookText(row) : <span class="muted">—</span>}</td>
      <td class="c-next">
        <NextCell row={row} nextAt={nextAt} now={now} />
      </td>
      {cols.includes('nextat') && (
        <td class="c-nextat">
          {nextAt === null || !j.enabled || j.running || j.paused ? (
            <span class="muted">—</span>
          ) : (
            <time dateTime={new Date(nextAt).toISOString()}>
              {formatWallClock(nextAt, now, c.hasSeconds)}
            </time>
          )}
        </td>
      )}
      {cols.includes('rate') && (
        <td class={`c-rate${row.rate !== null && row.rate < 0.8 ? ' warn' : ''}`}>{formatRate(row.rate)}</td>
      )}
      <td class="c-trend">
        <Sparkline history={j.history} />
      </td>
      <td class="c-actions">
        {control && (
          <>
            {j.running ? (
              <button
                type="button"
                class="btn btn-stop"
                onClick={(e) => {
                  e.stopPropagation();
                  actions.onCancel(j.name);
                }}
                aria-label={`Cancel ${j.name}`}
              >
                ■ Stop
              </button>
            ) : (
              <button
                type="button"
                class="btn btn-run"
                disabled={!j.enabled}
                onClick={(e) => {
                  e.stopPropagation();
                  actions.onRun(j.name);
                }}
                aria-label={`Run ${j.name} now`}
                title={j.enabled ? 'Run now (r)' : 'Disabled jobs cannot be started'}
              >
                ▶ Run
              </button>
            )}
            {j.paused !== undefined && (
              <button
                type="button"
                class="btn btn-pause"
                onClick={(e) => {
                  e.stopPropagation();
                  actions.onTogglePause(j);
                }}
                aria-label={`${j.paused ? 'Resume' : 'Pause'} ${j.name}`}
                title={j.paused ? 'Resume its scheduled runs (p)' : 'Hold its scheduled runs for an hour (p)'}
              >
                {j.paused ? '⏵ Resume' : '⏸ Pause'}
              </button>
            )}
          </>
        )}
        <button
          type="button"
          class="btn"
          onClick={(e) => {
            e.stopPropagation();
            actions.onOpen(j.name, 'logs');
          }}
          aria-label={`Logs of ${j.name}`}
        >
          Logs
        </button>
      </td>
    </tr>
  );
}

// The job table (spec 08 §4.3): which columns fit, and one painted row per job. Rows are cached on their cell
// texts and flags, so a repaint of a 500-job board composes only rows whose text changed.

import { lastCell, nextCell, tookText } from '../../../dashboard/board.ts';
import { formatLoad } from '../../../dashboard/format.ts';
import { STATUS_TONE } from '../../../dashboard/health.ts';
import { pausedNext } from '../../../dashboard/paused.ts';
import { formatBytes } from '../../../dashboard/resources.ts';
import { overdueChecks } from '../../../dashboard/sla.ts';
import { sparkCells } from '../../../dashboard/sparkline.ts';
import { STATUS_LABEL } from '../../../dashboard/status.ts';
import type { Row } from '../../../dashboard/table.ts';
import type { ApiJob } from '../../../dashboard/types.ts';
import type { Glyphs } from '../../text/glyphs.ts';
import { Line } from '../../text/line.ts';
import { flatten } from '../../text/sanitize.ts';
import type { Role, Style, Theme } from '../../text/theme.ts';

export type ColumnId =
  | 'status'
  | 'name'
  | 'schedule'
  | 'last'
  | 'next'
  | 'dur'
  | 'spark'
  | 'res'
  | 'owner'
  | 'cmd'
  | 'late';

export interface Column {
  id: ColumnId;
  title: string;
  width: number;
}

const BASE: Record<ColumnId, [string, number]> = {
  status: ['status', 11],
  name: ['name', 24],
  schedule: ['schedule', 14],
  last: ['last', 10],
  next: ['next', 10],
  dur: ['dur', 8],
  spark: ['runs', 11],
  // `1600% 1023MiB` is 13 cells; 14 lets the column stay beside a seconds countdown at 120 columns (issue 33)
  res: ['cpu/mem', 14],
  owner: ['owner', 12],
  cmd: ['command', 20],
  // Spec 09 §2.8: the 8-cell ` OVERDUE` badge after the status cell, from spare width only.
  late: ['', 8],
};
const DROP_ORDER: readonly ColumnId[] = ['spark', 'res', 'schedule', 'dur', 'cmd', 'owner'];

/** Live resources of a running monitored job, when the daemon reports them. */
const runningResources = (j: ApiJob) => j.running_resources ?? null;

export interface LayoutInputs {
  /** the row's width: the 1-cell marker, the cells and the spaces between them */
  cols: number;
  compact: boolean;
  /** some job has running_resources (kept once seen, Q23) */
  res: boolean;
  /** some job carries the clusterOwner key */
  owner: boolean;
  /** some job is paused: Next widens by one so `⏸ til HH:MM` (spec 10 §1.5) fits whole */
  paused?: boolean;
  /** some job is overdue (its `sla.state` is `late`) */
  overdue?: boolean;
}

/**
 * The columns that fit `cols` (spec 08 §4.3: while Σwidths + columns > cols, drop spark, res, schedule, dur,
 * cmd, owner), name and command sharing what is left. A row is the marker plus the cells joined by one space,
 * Σwidths + columns cells in all: at 80 columns status, name, last, next and command fit exactly (issue 33).
 */
export function layoutColumns(inp: LayoutInputs): Column[] {
  let ids: ColumnId[] = ['status', 'name', 'schedule', 'last', 'next', 'dur', 'spark', 'res', 'owner', 'cmd'];
  if (inp.compact) ids = ids.filter((c) => c !== 'schedule' && c !== 'spark');
  if (!inp.res) ids = ids.filter((c) => c !== 'res');
  if (!inp.owner) ids = ids.filter((c) => c !== 'owner');
  const width = (id: ColumnId) => BASE[id][1] + (id === 'next' && inp.paused ? 1 : 0);
  const total = (list: ColumnId[]) => list.reduce((a, c) => a + width(c), 0) + list.length;
  for (const drop of DROP_ORDER) {
    if (total(ids) <= inp.cols) break;
    ids = ids.filter((c) => c !== drop);
  }
  // The badge never pushes a column out: it takes spare width or stays away.
  if (inp.overdue && total(ids) + width('late') + 1 <= inp.cols) ids.splice(1, 0, 'late');
  const cols = ids.map((id) => ({ id, title: BASE[id][0], width: width(id) }));
  let left = inp.cols - total(ids);
  const flex = cols.filter((c) => c.id === 'name' || c.id === 'cmd');
  if (left < 0) {
    // Narrower than the minimum: the name gives way, never below 8.
    const name = cols.find((c) => c.id === 'name');
    if (name) name.width = Math.max(8, name.width + left);
    left = 0;
  }
  flex.forEach((c, i) => {
    c.width += Math.floor(left / flex.length) + (i < left % flex.length ? 1 : 0);
  });
  return cols;
}

export function hasResColumn(jobs: readonly ApiJob[]): boolean {
  return jobs.some((j) => runningResources(j) !== null);
}

export function hasOwnerColumn(jobs: readonly ApiJob[]): boolean {
  return jobs.some((j) => 'clusterOwner' in j);
}

/** The shared sparkline cells of the last `w` runs, drawn with this glyph set's bar ramp. */
export function sparkGlyphs(job: ApiJob, w: number, g: Glyphs): Array<[string, Role]> {
  return sparkCells(job.history, w).map((c) => [g.spark[c.level]!, c.tone]);
}

export interface RowCtx {
  theme: Theme;
  g: Glyphs;
  cols: number;
  /** wall and monotonic now, ms */
  now: number;
  mono: number;
}

function cellTexts(row: Row, col: Column, ctx: RowCtx): string {
  const j = row.job;
  switch (col.id) {
    case 'status':
      return `${ctx.g.status[row.status]} ${STATUS_LABEL[row.status]}`;
    case 'name':
      return flatten(j.name);
    case 'schedule':
      return flatten(j.schedule);
    case 'last':
      if (j.retry?.nextRetryAt) return `↻ try ${j.retry.attempt + 1}`;
      return lastCell(row, ctx.now).text;
    case 'next': {
      // The poll stamps `nextAt` on the monotonic clock, so the countdown does not jump with the wall clock.
      const next = nextCell(row, row.nextAt, ctx.mono);
      if (next.kind === 'paused' && j.paused) return pausedNext(j.paused, ctx.g.status.paused);
      return next.kind === 'running' ? `${ctx.g.dot} ${ctx.g.dot} ${ctx.g.dot}` : next.text;
    }
    case 'dur':
      return tookText(row);
    case 'res': {
      const r = runningResources(j);
      if (!r || !j.running) return '';
      return `${formatLoad(r.cpu_percent)} ${formatBytes(r.rss_bytes).replace(' ', '')}`;
    }
    case 'owner':
      return j.clusterOwner === null ? '∅' : flatten(j.clusterOwner ?? '');
    case 'cmd':
      return flatten(j.command);
    case 'spark':
      return '';
    case 'late':
      return overdueChecks(j) ? ' OVERDUE' : '';
  }
}

const cache = new Map<string, string>();

/** One painted table row. */
export function paintRow(
  row: Row,
  columns: readonly Column[],
  selected: boolean,
  justFailed: boolean,
  ctx: RowCtx,
  marked = false,
): string {
  const texts = columns.map((c) => cellTexts(row, c, ctx));
  const spark = columns.some((c) => c.id === 'spark') ? sparkGlyphs(row.job, 10, ctx.g) : [];
  const key = `${ctx.theme.name}|${ctx.theme.depth}|${ctx.cols}|${row.status}|${selected ? 1 : 0}|${marked ? 1 : 0}|${justFailed ? 1 : 0}|${columns.map((c) => c.width).join(',')}|${texts.join('\u0000')}|${spark.map((s) => s[0] + s[1]).join('')}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const bg: Role = selected ? 'sel' : 'bg';
  const line = new Line(ctx.theme, ctx.cols, { bg });
  if (marked) line.add(ctx.g.mark, { fg: 'warn', bg, bold: true });
  else line.add(selected ? ctx.g.marker : ' ', { fg: 'accent', bg });
  const statusRole = STATUS_TONE[row.status];
  columns.forEach((c, i) => {
    if (i > 0) line.add(' ');
    const t = texts[i]!;
    let style: Style = {};
    if (c.id === 'status')
      style = { fg: statusRole, bold: row.status === 'failed' || row.status === 'running' };
    else if (c.id === 'name') style = { fg: selected || justFailed ? 'bright' : 'fg', bold: justFailed };
    else if (c.id === 'schedule' || c.id === 'dur' || c.id === 'cmd' || c.id === 'owner')
      style = { fg: 'dim' };
    else if (c.id === 'last' && t.startsWith('↻')) style = { fg: 'warn' };
    else if (c.id === 'res') style = { fg: 'run' };
    else if (c.id === 'late') style = { fg: 'fail', bold: true };
    if (c.id === 'spark') {
      const pad = c.width - spark.length;
      for (const [ch, role] of spark) line.add(ch, { fg: role });
      if (pad > 0) line.add(' '.repeat(pad));
    } else line.add(t, style, c.width);
  });
  const out = line.done();
  if (cache.size > 600) cache.clear();
  cache.set(key, out);
  return out;
}

/** The dim bold column titles. */
export function paintTitles(columns: readonly Column[], theme: Theme, cols: number): string {
  const line = new Line(theme, cols);
  line.add(' ');
  columns.forEach((c, i) => {
    if (i > 0) line.add(' ');
    line.add(c.title, { fg: 'dim', bold: true }, c.width);
  });
  return line.done();
}

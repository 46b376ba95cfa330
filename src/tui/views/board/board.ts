// The job board (spec 08 §4.3): chrome, the table window around the selection, and the board's keys.

import { nextSegment, SEGMENTS } from '../../../dashboard/health.ts';
import { overdueChecks } from '../../../dashboard/sla.ts';
import type { Key } from '../../app/keys.ts';
import { SORT_TEXT, TUI_SORTS } from '../../app/state.ts';
import { Line } from '../../text/line.ts';
import { HUES } from '../../text/theme.ts';
import { askBulk, toggleMark } from '../bulk/bulk.ts';
import type { BoardKey, KeyCtx, RenderCtx, ViewDescriptor } from '../types.ts';
import { footer, header, MARK_HINTS, toolbar, verdict, verdictBar } from './chrome.ts';
import { boardRows, selectedIndex, windowStart } from './model.ts';
import { hasOwnerColumn, hasResColumn, layoutColumns, paintRow, paintTitles } from './rows.ts';

/** Dashboards (controllers) that have seen live resources: their cpu/mem column stays (Q23). */
const resSeen = new WeakSet<object>();

/** Rows of the board screen, `height` rows tall. */
export function paintBoard(ctx: RenderCtx, height: number): string[] {
  const { s, theme } = ctx;
  const rows = boardRows(s);
  const v = verdict(s);
  const out: string[] = [header(ctx), toolbar(ctx, rows.length)];
  if (v) out.push(verdictBar(ctx, v));
  // Q23: once a job reported live resources, the column stays, so the table does not jump.
  if (hasResColumn(s.data.jobs)) resSeen.add(ctx.ctl);
  const columns = layoutColumns({
    cols: s.cols,
    compact: s.prefs.compact,
    res: resSeen.has(ctx.ctl),
    owner: hasOwnerColumn(s.data.jobs),
    paused: s.data.jobs.some((j) => j.paused),
    overdue: s.data.jobs.some((j) => overdueChecks(j) !== null),
  });
  out.push(paintTitles(columns, theme, s.cols));
  const tableHeight = Math.max(1, height - out.length - 1);
  const sel = selectedIndex(rows, s.selected);
  const top = windowStart(s.scroll, sel, tableHeight, rows.length);
  const rowCtx = { theme, g: ctx.g, cols: s.cols, now: s.now, mono: s.mono };
  if (rows.length === 0) {
    const msg = !s.data.everConnected
      ? 'waiting for the daemon…'
      : s.data.jobs.length === 0
        ? 'no jobs configured'
        : 'no jobs match the filter';
    out.push(new Line(theme, s.cols).add(`  ${msg}`, { fg: 'dim' }).done());
  }
  for (let i = top; i < rows.length && out.length < height - 1; i++) {
    const r = rows[i]!;
    const name = r.job.name;
    out.push(paintRow(r, columns, i === sel, s.data.justFailed.has(name), rowCtx, s.marked.has(name)));
  }
  const blank = new Line(theme, s.cols).done();
  while (out.length < height - 1) out.push(blank);
  out.push(s.marked.size > 0 ? footer(ctx, MARK_HINTS) : footer(ctx));
  return out;
}

/** The board's rows and selection when a key arrives. */
function selection({ ctl, s }: KeyCtx) {
  const rows = boardRows(s);
  const sel = selectedIndex(rows, s.selected);
  return {
    sel,
    n: rows.length,
    job: sel >= 0 ? rows[sel]!.job : null,
    select(i: number) {
      if (rows.length > 0) ctl.store.set({ selected: rows[i]!.job.name });
    },
  };
}

const move =
  (to: (sel: number, n: number) => number) =>
  (ctx: KeyCtx): void => {
    const b = selection(ctx);
    b.select(to(b.sel, b.n));
  };

/** The board's own keys (dispatch step 10); the views' keys join them in the registry's table. */
const BOARD_KEYS: readonly BoardKey[] = [
  { keys: ['j', 'down'], what: 'Next job', run: move((sel, n) => (n ? (sel + 1) % n : 0)) },
  { keys: ['k', 'up'], what: 'Previous job', run: move((sel, n) => (n ? (sel - 1 + n) % n : 0)) },
  { keys: ['pagedown'], what: 'Ten jobs down', run: move((sel, n) => Math.min(n - 1, sel + 10)) },
  { keys: ['pageup'], what: 'Ten jobs up', run: move((sel) => Math.max(0, sel - 10)) },
  { keys: ['home'], what: 'First job', run: move(() => 0) },
  { keys: ['end'], what: 'Last job', run: move((_, n) => n - 1) },
  {
    keys: ['enter'],
    what: "Open the job's drawer (logs first)",
    run: (ctx) => {
      const { job } = selection(ctx);
      if (job) ctx.ctl.openDrawer(job.name);
    },
  },
  {
    keys: ['/'],
    what: 'Filter by name or command',
    run: ({ ctl }) => ctl.store.set({ filterFocused: true }),
  },
  { keys: ['q'], what: 'Quit', run: ({ ctl }) => ctl.quit(0) },
  {
    keys: ['s'],
    what: `Sort by: ${TUI_SORTS.map((k) => SORT_TEXT[k]).join(', ')}`,
    run: ({ ctl, s }) => {
      const next = TUI_SORTS[(TUI_SORTS.indexOf(s.sortKey) + 1) % TUI_SORTS.length]!;
      ctl.store.set({ sortKey: next });
      ctl.toast(`sort: ${SORT_TEXT[next]}`, 'info');
    },
  },
  {
    keys: ['S'],
    what: 'Flip the sort direction',
    run: ({ ctl, s }) => {
      ctl.store.set({ sortDesc: !s.sortDesc });
      ctl.toast(`sort: ${SORT_TEXT[s.sortKey]} ${s.sortDesc ? '↑' : '↓'}`, 'info');
    },
  },
  {
    keys: ['f'],
    what: `Status filter: ${SEGMENTS.join(', ')}`,
    run: ({ ctl, s }) => ctl.store.set({ segment: nextSegment(s.segment) }),
  },
  {
    keys: [' '],
    what: 'Mark a job (r / x then act on the marked)',
    run: (ctx) => {
      const b = selection(ctx);
      if (!b.job) return;
      toggleMark(ctx.ctl, b.job.name);
      b.select(Math.min(b.n - 1, b.sel + 1));
    },
  },
  {
    keys: ['r'],
    what: 'Run the selected job, or the marked ones',
    run: (ctx) => {
      const { job } = selection(ctx);
      if (ctx.s.marked.size > 0) askBulk(ctx.ctl, 'start');
      else if (job?.enabled && !job.running) void ctx.ctl.runJob(job.name);
    },
  },
  {
    keys: ['x'],
    what: 'Cancel the selected job, or the marked ones',
    run: (ctx) => {
      const { job } = selection(ctx);
      if (ctx.s.marked.size > 0) askBulk(ctx.ctl, 'cancel');
      else if (job?.running) void ctx.ctl.cancelJob(job.name);
    },
  },
  {
    keys: ['p'],
    what: 'Pause the selected job for an hour, or resume it',
    run: (ctx) => {
      const { job } = selection(ctx);
      // Inert against a daemon older than pauses: its rows have no `paused` key at all.
      if (job && job.paused !== undefined) void ctx.ctl.togglePause(job);
    },
  },
  {
    keys: ['c'],
    what: "Copy the selected job's command",
    run: (ctx) => {
      const { job } = selection(ctx);
      if (job) ctx.ctl.copy(job.command, '❏ command sent to clipboard');
    },
  },
  {
    keys: ['g'],
    what: 'Refresh now',
    run: ({ ctl }) => {
      ctl.toast('↻ refreshing', 'info');
      ctl.wake();
    },
  },
  {
    keys: ['t'],
    what: `Next theme: ${HUES.join(', ')}`,
    run: ({ ctl, s }) => {
      const next = HUES[(HUES.indexOf(s.prefs.theme) + 1) % HUES.length]!;
      ctl.setPrefs({ theme: next });
      ctl.toast(`◐ theme: ${next}`, 'info');
    },
  },
  {
    keys: ['T'],
    what: 'Dark (phosphor) ⇄ light (paper)',
    run: ({ ctl, s }) => {
      ctl.setPrefs({ light: !s.prefs.light });
      ctl.toast(`◑ ${s.prefs.light ? 'phosphor' : 'paper'}`, 'info');
    },
  },
];

export const boardDescriptor: ViewDescriptor = {
  folder: 'board',
  keys: BOARD_KEYS,
};

/** The focused filter box takes printable keys; Enter, Tab and Esc blur it and keep the text. */
export function filterKey(key: Key, ctx: KeyCtx): boolean {
  const { ctl, s } = ctx;
  if (key.name === 'enter' || key.name === 'tab' || key.name === 'escape') {
    ctl.store.set({ filterFocused: false });
    return true;
  }
  if (key.name === 'backspace') ctl.store.set({ filter: s.filter.slice(0, -1) });
  else if (key.ctrl && key.name === 'u') ctl.store.set({ filter: '' });
  else if (key.text !== '') ctl.store.set({ filter: s.filter + key.text });
  return true;
}

// The job board (spec 08 §4.3): chrome, the table window around the selection, and the board's keys.

import { nextSegment } from '../../../dashboard/health.ts';
import type { Key } from '../../app/keys.ts';
import { SORT_TEXT, TUI_SORTS } from '../../app/state.ts';
import { Line } from '../../text/line.ts';
import { HUES } from '../../text/theme.ts';
import { boardKeyFor } from '../boardkeys.ts';
import { askBulk, toggleMark } from '../bulk/bulk.ts';
import { toggleTimeline } from '../incident/timeline.ts';
import { openMultiTail } from '../multitail/multitail.ts';
import type { KeyCtx, RenderCtx } from '../types.ts';
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
    cols: s.cols - 1,
    compact: s.prefs.compact,
    res: resSeen.has(ctx.ctl),
    owner: hasOwnerColumn(s.data.jobs),
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

/** Board keys (dispatch step 10). */
export function boardKey(key: Key, ctx: KeyCtx): boolean {
  const { ctl, s } = ctx;
  const rows = boardRows(s);
  const sel = selectedIndex(rows, s.selected);
  const job = sel >= 0 ? rows[sel]!.job : null;
  const select = (i: number) => {
    if (rows.length === 0) return;
    ctl.store.set({ selected: rows[i]!.job.name });
  };
  switch (key.name) {
    case 'j':
    case 'down':
      select(rows.length ? (sel + 1) % rows.length : 0);
      return true;
    case 'k':
    case 'up':
      select(rows.length ? (sel - 1 + rows.length) % rows.length : 0);
      return true;
    case 'pagedown':
      select(Math.min(rows.length - 1, sel + 10));
      return true;
    case 'pageup':
      select(Math.max(0, sel - 10));
      return true;
    case 'home':
      select(0);
      return true;
    case 'end':
      select(rows.length - 1);
      return true;
    case 'enter':
      if (job) ctl.openDrawer(job.name);
      return true;
    case '/':
      ctl.store.set({ filterFocused: true });
      return true;
    case '?':
      ctl.push({ kind: 'help', scroll: 0 } as never);
      return true;
    case ' ':
      if (job) {
        toggleMark(ctl, job.name);
        select(Math.min(rows.length - 1, sel + 1));
      }
      return true;
    case 'r':
      if (s.marked.size > 0) askBulk(ctl, 'start');
      else if (job?.enabled && !job.running) void ctl.runJob(job.name);
      return true;
    case 'x':
      if (s.marked.size > 0) askBulk(ctl, 'cancel');
      else if (job?.running) void ctl.cancelJob(job.name);
      return true;
    case 'c':
      if (job) ctl.copy(job.command, '❏ copied command');
      return true;
    case 'g':
      ctl.toast('↻ refreshing', 'info');
      ctl.wake();
      return true;
    case 't': {
      const next = HUES[(HUES.indexOf(s.prefs.theme) + 1) % HUES.length]!;
      ctl.setPrefs({ theme: next });
      ctl.toast(`◐ theme: ${next}`, 'info');
      return true;
    }
    case 'T':
      ctl.setPrefs({ light: !s.prefs.light });
      ctl.toast(`◑ ${s.prefs.light ? 'phosphor' : 'paper'}`, 'info');
      return true;
    case 's': {
      const next = TUI_SORTS[(TUI_SORTS.indexOf(s.sortKey) + 1) % TUI_SORTS.length]!;
      ctl.store.set({ sortKey: next });
      ctl.toast(`sort: ${SORT_TEXT[next]}`, 'info');
      return true;
    }
    case 'S':
      ctl.store.set({ sortDesc: !s.sortDesc });
      ctl.toast(`sort: ${SORT_TEXT[s.sortKey]} ${s.sortDesc ? '↑' : '↓'}`, 'info');
      return true;
    case 'f':
      ctl.store.set({ segment: nextSegment(s.segment) });
      return true;
    case 'q':
      ctl.quit(0);
      return true;
    case 'i':
      toggleTimeline(ctl);
      return true;
    case 'm':
      openMultiTail(ctl);
      return true;
  }
  const added = boardKeyFor(key.name);
  if (added && !key.ctrl) added.run(ctl);
  return added !== undefined;
}

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

// The drawer's Logs tab (spec 08 §4.4): the tail's entries as pane rows, newest at the bottom, with receipt
// times (UTC), search highlighting and cell-based wrapping that keeps colours (Q9).
import type { LogEntry, LogTail } from '../../data/tail.ts';
import { Line } from '../../text/line.ts';
import { visibleText } from '../../text/sanitize.ts';
import { utcClock } from '../../text/stamp.ts';
import { reink } from '../../text/theme.ts';
import { cellWidth, wrapCells } from '../../text/width.ts';
import { noteScrollMax } from '../surface.ts';
import type { RenderCtx } from '../types.ts';

export interface LogsView {
  /** entries up from the newest that are scrolled past (0 = bottom) */
  scroll: number;
  search: string;
  searchFocused: boolean;
  /** entry index of the current match, -1 none */
  match: number;
  /** the tail's length when `scroll` was set: a scrolled-back view holds still as lines arrive (Q10) */
  anchor?: number;
}

/** Entries up from the newest the view shows, counting lines that arrived since it was scrolled back. */
export function effectiveScroll(view: LogsView, total: number): number {
  if (view.scroll <= 0 || view.anchor === undefined) return Math.max(0, view.scroll);
  return Math.min(Math.max(0, total - 1), view.scroll + Math.max(0, total - view.anchor));
}

/** Indices of entries whose visible text contains the needle (case-insensitive). */
export function matches(entries: readonly LogEntry[], needle: string): number[] {
  const n = needle.trim().toLowerCase();
  if (n === '') return [];
  const out: number[] = [];
  entries.forEach((e, i) => {
    if (e.kind !== 'meta' && visibleText(e.text).toLowerCase().includes(n)) out.push(i);
  });
  return out;
}

/** The rows of one entry at the pane width. */
function entryRows(e: LogEntry, ctx: RenderCtx, width: number, hit: boolean, selected: boolean): string[] {
  const { theme, g, s } = ctx;
  if (e.kind === 'meta') return [new Line(theme, width).add(`  ── ${e.text} ──`, { fg: 'dim' }).done()];
  if (e.kind === 'error') return [new Line(theme, width).add(`  ⚠ ${e.text}`, { fg: 'warn' }).done()];
  const prefix = ` ${g.logBar}`;
  const time = s.prefs.timestamps ? `${utcClock(e.at)} ` : '';
  const room = Math.max(1, width - cellWidth(prefix) - time.length);
  const bg = selected ? 'sel' : 'bg';
  const body = hit ? visibleText(e.text) : reink(e.text, theme, { fg: 'fg', bg });
  const pieces = s.prefs.wrap ? wrapCells(body, room) : [body];
  return pieces.map((p, i) => {
    const line = new Line(theme, width, { bg });
    line.add(i === 0 ? prefix : '  ', { fg: e.kind === 'stderr' ? 'fail' : 'border', bg });
    if (time) line.add(i === 0 ? time : ' '.repeat(time.length), { fg: 'dim', bg });
    if (hit) line.add(p, { fg: 'bright', bg: 'sel' });
    else line.add('', { fg: 'fg', bg }).raw(p, cellWidth(p));
    return line.done();
  });
}

/** The surface-scroll key of the Logs tab's entry scroll (keys clamp to what the last paint allowed). */
export const LOGS_SCROLL = 'drawer-logs';

/**
 * The largest scroll (entries up from the newest) that still fills `room` rows: the entries from the oldest
 * up to the bottom one must take at least `room` rows. 0 when the whole log fits.
 */
export function maxScroll(total: number, rowsOf: (i: number) => readonly string[], room: number): number {
  let used = 0;
  for (let i = 0; i < total; i++) {
    used += rowsOf(i).length;
    if (used >= room) return total - 1 - i;
  }
  return 0;
}

/** The pane rows (`height` of them) for the tail, bottom-anchored, `view.scroll` entries up. */
export function logRows(
  tail: LogTail | null,
  view: LogsView,
  ctx: RenderCtx,
  width: number,
  height: number,
): string[] {
  const { theme, g } = ctx;
  const head = new Line(theme, width);
  head.add(' ');
  if (view.searchFocused || view.search) {
    head.add(`${g.search} /${view.search}${view.searchFocused ? g.cursor : ''}`, {
      fg: view.searchFocused ? 'bright' : 'fg',
      bg: view.searchFocused ? 'sel' : 'bg',
    });
  } else head.add(`${g.search} / to search`, { fg: 'dim' });
  const entries = tail?.entries ?? [];
  head.add(`   follow ${tail?.follow === false ? 'off' : 'on'}`, { fg: 'dim' });
  // Q11: the stream carries no times, so these are when the line arrived here; said so, in the header's zone.
  if (ctx.s.prefs.timestamps) head.add('   times: received, UTC', { fg: 'dim' });
  const hits = new Set(view.search ? matches(entries, view.search) : []);
  const rowsOf = (i: number) => entryRows(entries[i]!, ctx, width, hits.has(i), i === view.match);
  const room = height - 1;
  const body: string[] = [];
  if (tail?.error) body.push(new Line(theme, width).add(`  ⚠ ${tail.error}`, { fg: 'warn' }).done());
  if (entries.length === 0 && !tail?.error)
    body.push(new Line(theme, width).add('  waiting for output…', { fg: 'dim' }).done());
  // Scrolled back past the oldest page, the view stops with the oldest entry on the top row: a log a little
  // longer than the pane scrolls by what it has, never into blank rows at the bottom (issue 33).
  const max = maxScroll(entries.length, rowsOf, room - body.length);
  noteScrollMax(LOGS_SCROLL, max);
  const scroll = Math.min(max, effectiveScroll(view, entries.length));
  const fresh = effectiveScroll(view, entries.length) - view.scroll;
  if (fresh > 0) head.add(`   ${g.down} ${fresh} new`, { fg: 'accent', bold: true });
  if (view.search) head.add(`   ${hits.size} match${hits.size === 1 ? '' : 'es'}`, { fg: 'dim' });
  const rows: string[] = [head.done()];
  // Walk up from the newest entry past the scrolled ones, collecting rows until the pane is full.
  const last = entries.length - 1 - scroll;
  const collected: string[][] = [];
  const endRows =
    tail?.ended && tail.endReason === 'no-output' && scroll === 0
      ? [new Line(theme, width).add('  ── end of run output (no-output) ──', { fg: 'dim' }).done()]
      : [];
  let count = body.length + endRows.length;
  for (let i = last; i >= 0 && count < room; i--) {
    const r = rowsOf(i);
    collected.push(r);
    count += r.length;
  }
  const flat = [...collected.reverse().flat(), ...endRows];
  const visible = flat.slice(Math.max(0, flat.length - (room - body.length)));
  rows.push(...body, ...visible);
  const blank = new Line(theme, width).done();
  while (rows.length < height) rows.push(blank);
  return rows.slice(0, height);
}

// The wallboard, NO SIGNAL and zen (spec 08 §4.13): tiles worst first (the shared TV order), the verdict bar,
// a stale banner, the alarm in the foot, and an idle screensaver when all is calm.

import { nextCell } from '../../../dashboard/board.ts';
import { dataStale } from '../../../dashboard/connection.ts';
import { formatAge } from '../../../dashboard/format.ts';
import { STATUS_TONE } from '../../../dashboard/health.ts';
import { overdueChecks } from '../../../dashboard/sla.ts';
import { toRows } from '../../../dashboard/table.ts';
import { tvTiles } from '../../../dashboard/wallboard.ts';
import type { Key } from '../../app/keys.ts';
import type { TuiState } from '../../app/state.ts';
import { Line } from '../../text/line.ts';
import { flatten } from '../../text/sanitize.ts';
import { cellWidth } from '../../text/width.ts';
import { clockRight, countStates, verdict, verdictBar } from '../board/chrome.ts';
import { sparkGlyphs } from '../board/rows.ts';
import { command } from '../command.ts';
import type { KeyCtx, RenderCtx, ViewDescriptor } from '../types.ts';

/** The shared rule (spec 08 §3.3) on the monotonic clock the poll stamps its answers with. */
export const staleNow = (s: TuiState): boolean => dataStale(s.mono, s.data.fetchedAt, s.pollMs);

/** Whether the zen screensaver shows now. */
export function zenActive(ctx: RenderCtx): boolean {
  const { s } = ctx;
  if (!s.prefs.zen || !s.wallboard) return false;
  if (s.mono - s.lastKeyAt < s.prefs.zen_idle_s * 1000) return false;
  if (staleNow(s)) return false;
  return !s.data.jobs.some((j) => j.running || (j.enabled && j.last_run?.outcome === 'failure'));
}

export function paintWallboard(ctx: RenderCtx, height: number): string[] {
  if (zenActive(ctx)) return paintZen(ctx, height);
  const { s, theme, g } = ctx;
  const stale = staleNow(s);
  const out: string[] = [];
  const v = verdict(s);
  if (v) out.push(verdictBar(ctx, v));
  if (stale && s.data.everConnected)
    out.push(
      new Line(theme, s.cols, { bg: 'fail' })
        .add(' ◌ NO SIGNAL — data is stale', { fg: 'bg', bg: 'fail', bold: true })
        .done(),
    );
  const tiles = tvTiles(s.data.jobs);
  const byName = new Map(s.data.jobs.map((j) => [j.name, j]));
  const tileW = Math.max(20, Math.min(30, Math.floor(s.cols / Math.max(1, Math.min(tiles.length, 4)))));
  const perRow = Math.max(1, Math.floor(s.cols / (tileW + 1)));
  // Each tile row takes 4 lines (3 + a gap); when some tiles must stay off, one line says how many (Q24).
  const room = height - out.length - 1;
  const fitting = (lines: number) => Math.min(tiles.length, Math.max(0, Math.floor(lines / 4)) * perRow);
  const shown = fitting(room) < tiles.length ? fitting(room - 1) : tiles.length;
  for (let r = 0; r * perRow < shown; r++) {
    const lines = [new Line(theme, s.cols), new Line(theme, s.cols), new Line(theme, s.cols)];
    for (let c = 0; c < perRow; c++) {
      const t = tiles[r * perRow + c];
      if (!t || r * perRow + c >= shown) break;
      const job = byName.get(t.name)!;
      const role = STATUS_TONE[t.status];
      const failing = t.status === 'failed';
      const dim = stale;
      const age = t.finishedAt === null ? '' : formatAge(Math.max(0, s.now - t.finishedAt));
      let state: string;
      if (t.status === 'running') state = `${g.status.running} running`;
      else if (failing)
        state = `${age}${job.last_run?.exit_code != null ? ` · exit ${job.last_run.exit_code}` : ''}`;
      else if (t.status === 'cancelled' || t.status === 'unknown') state = age;
      else if (t.status === 'disabled') state = '—';
      else if (stale) state = 'stale';
      else {
        const row = toRows([job], s.data.fetchedAt)[0]!;
        state = nextCell(row, row.nextAt, s.mono).text;
      }
      // Spec 09 §2.8: an overdue job's tile says so, whatever its health.
      if (overdueChecks(job)) state += ' · OVERDUE';
      lines[0]!.add(
        ` ${g.status[t.status]} ${flatten(t.name)}`,
        dim ? { fg: 'dim' } : failing ? { fg: 'bright', bg: 'fail', bold: true } : { fg: 'bright' },
        tileW,
      );
      lines[1]!.add(`  ${state}`, { fg: dim ? 'dim' : role }, tileW);
      const spark = sparkGlyphs(job, Math.max(1, tileW - 4), g);
      lines[2]!.add('  ');
      for (const [ch, rr] of spark) lines[2]!.add(ch, { fg: dim ? 'dim' : rr });
      lines[2]!.to(lines[0]!.width - lines[0]!.left);
      for (const l of lines) l.add(' ');
    }
    out.push(...lines.map((l) => l.done()), new Line(theme, s.cols).done());
  }
  if (shown < tiles.length)
    out.push(new Line(theme, s.cols).add(` +${tiles.length - shown} more`, { fg: 'dim' }).done());
  const blank = new Line(theme, s.cols).done();
  while (out.length < height - 1) out.push(blank);
  out.length = height - 1;
  out.push(foot(ctx, tiles.length));
  return out;
}

function foot(ctx: RenderCtx, total: number): string {
  const { s, theme, g } = ctx;
  const { run, fail, ok } = countStates(s.data.jobs);
  const alarm = fail > 0 && !s.data.alarmAcked;
  const left = ` ${total} jobs ${g.dot} ${fail} fail ${g.dot} ${run} run ${g.dot} ${ok} ok`;
  const right = `esc/w exit ${g.dot} `;
  const line = new Line(theme, s.cols);
  line.add(left, { fg: 'fg' });
  if (alarm) line.add(` ${g.dot} ◔ ALARM (a to ack)`, { fg: 'fail', bold: true });
  const clock = clockRight(s.now, 12);
  line.to(s.cols - cellWidth(right) - cellWidth(clock) - 1);
  line.add(right, { fg: 'dim' });
  line.add(`${clock} `, { fg: 'fg' });
  return line.done();
}

/** A stable spot for a job's dot (FNV-1a of its name). */
function nameHash(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

interface Dot {
  col: number;
  ch: string;
  role: 'ok' | 'dim';
}

function paintZen(ctx: RenderCtx, height: number): string[] {
  const { s, theme } = ctx;
  const blink = Math.floor(s.now / 2000) % 2 === 0;
  const dots = zenDots(
    s.data.jobs.map((j) => ({
      name: j.name,
      soon: j.scheduled_in !== null && j.scheduled_in * 1000 - (s.mono - s.data.fetchedAt) <= 30_000,
    })),
    s.cols,
    height,
  );
  const grid: Dot[][] = Array.from({ length: height }, () => []);
  for (const d of dots)
    grid[d.row]!.push({ col: d.col, ch: d.soon ? '●' : blink ? '∙' : '·', role: d.soon ? 'ok' : 'dim' });
  const out: string[] = [];
  for (let r = 0; r < height; r++) {
    const line = new Line(theme, s.cols);
    if (r === height - 2) {
      const text = `all clear ${ctx.g.dot} ${clockRight(s.now, 12).trim()}`;
      line.to(Math.floor((s.cols - cellWidth(text)) / 2));
      line.add(text, { fg: 'dim' });
    } else {
      for (const d of grid[r]!.sort((a, b) => a.col - b.col)) {
        line.to(d.col);
        line.add(d.ch, { fg: d.role });
      }
    }
    out.push(line.done());
  }
  return out;
}

export interface ZenDot {
  name: string;
  soon: boolean;
  row: number;
  col: number;
}

/**
 * Where each job's dot goes on a `cols` × `height` zen field: a spot hashed from its name on rows 1 to
 * height − 3, or, when that cell is taken, the next free cell to the right, wrapping to the rows below (Q24:
 * the reference dropped colliding dots). Only a field with fewer cells than jobs leaves any out.
 */
export function zenDots(
  jobs: ReadonlyArray<{ name: string; soon: boolean }>,
  cols: number,
  height: number,
): ZenDot[] {
  const rows = Math.max(1, height - 3);
  const width = Math.max(1, cols - 2);
  const cells = rows * width;
  const taken = new Set<number>();
  const out: ZenDot[] = [];
  for (const j of jobs) {
    if (taken.size >= cells) break;
    const h = nameHash(j.name);
    let at = (h % rows) * width + (Math.floor(h / 7) % width);
    while (taken.has(at)) at = (at + 1) % cells;
    taken.add(at);
    out.push({ name: j.name, soon: j.soon, row: 1 + Math.floor(at / width), col: at % width });
  }
  return out;
}

/** Wallboard keys: only `w`, `Esc`, `a` (and Ctrl-C, handled before) act. */
export function wallboardKey(key: Key, ctx: KeyCtx): boolean {
  const { ctl, s } = ctx;
  if (key.name === 'w' || key.name === 'escape') ctl.store.set({ wallboard: false });
  else if (key.name === 'a') ackAlarm(ctx);
  void s;
  return true;
}

export function ackAlarm(ctx: KeyCtx): void {
  if (ctx.s.data.alarmAcked) return;
  ctx.ctl.store.setData({ alarmAcked: true });
  ctx.ctl.toast('◔ alarm acknowledged', 'info');
}

/** `w` and `a` on the board; the palette's TV entry. */
export const wallboardDescriptor: ViewDescriptor = {
  folder: 'wallboard',
  keys: [
    {
      keys: ['w'],
      what: 'Wallboard (TV) mode',
      run: ({ ctl }) => ctl.store.set({ wallboard: true, filterFocused: false }),
    },
    { keys: ['a'], what: 'Acknowledge the failure alarm', run: ackAlarm },
  ],
  palette: ({ ctl }) => [
    command('tv', 'Wallboard / TV mode', '▦', () => ctl.store.set({ wallboard: true, stack: [] })),
  ],
};

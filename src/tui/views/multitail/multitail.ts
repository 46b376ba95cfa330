// The multi-tail console (spec 08 §4.10): up to four live job logs merged by receipt time, each line behind
// its job's label in the job's identity colour. `a` adds a job (exact name, else the best fuzzy match), `x`
// removes the picked one; `w` wraps long lines (Q17: the reference's flag did nothing). Streams close with it.
import { fuzzyScore } from '../../../dashboard/commands.ts';
import { MAX_TAILS, presetNames } from '../../../dashboard/multitail.ts';
import type { Controller } from '../../app/controller.ts';
import type { Key } from '../../app/keys.ts';
import type { Surface } from '../../app/state.ts';
import { seg } from '../../data/client.ts';
import { type LogEntry, LogTail } from '../../data/tail.ts';
import { Line } from '../../text/line.ts';
import { flatten } from '../../text/sanitize.ts';
import { utcClock } from '../../text/stamp.ts';
import { type Role, reink } from '../../text/theme.ts';
import { cellWidth, fit, wrapCells } from '../../text/width.ts';
import { command } from '../command.ts';
import { bodyRow, innerWidth } from '../panel.ts';
import { clampScroll, clampSel, findSurface, noteScrollMax } from '../surface.ts';
import type { PanelPaint, RenderCtx, View, ViewDescriptor } from '../types.ts';

export interface Pane {
  job: string;
  tail: LogTail;
}

export interface MultiTailSurface extends Surface {
  kind: 'multitail';
  panes: readonly Pane[];
  pick: number;
  /** the `add:` input, null when closed */
  adding: string | null;
  /** merged rows scrolled up from the newest (0 = follow the bottom) */
  scroll: number;
  timestamps: boolean;
  wrap: boolean;
}

const KIND = 'multitail';
const WIDTH = 110;
const LABEL = 14;
const HUES: readonly Role[] = ['run', 'ok', 'pending', 'warn'];

/** The job a typed name means: the exact name, else the best fuzzy match, else null. */
export function matchJob(names: readonly string[], query: string): string | null {
  const q = query.trim();
  if (q === '') return null;
  if (names.includes(q)) return q;
  let best: string | null = null;
  let score = -Infinity;
  for (const n of names) {
    const s = fuzzyScore(q, n);
    if (s !== null && s > score) {
      score = s;
      best = n;
    }
  }
  return best;
}

function surfaceOf(ctl: Controller): MultiTailSurface {
  const cur = findSurface<MultiTailSurface>(ctl, KIND);
  if (cur) return cur;
  const fresh: MultiTailSurface = {
    kind: KIND,
    panes: [],
    pick: 0,
    adding: null,
    scroll: 0,
    timestamps: false,
    wrap: false,
  };
  ctl.push(fresh);
  return findSurface<MultiTailSurface>(ctl, KIND) ?? fresh;
}

/** Opens the console (if closed) and tails `names`, with the toasts of §4.10 for the ones it cannot add. */
export function openMultiTail(ctl: Controller, names: readonly string[] = []): void {
  let m = surfaceOf(ctl);
  const known = new Set(ctl.state.data.jobs.map((j) => j.name));
  for (const name of names) {
    if (m.panes.some((p) => p.job === name)) continue;
    if (!known.has(name)) {
      ctl.toast(`no such job: ${name}`, 'fail');
      continue;
    }
    if (m.panes.length >= MAX_TAILS) {
      ctl.toast(`multi-tail is full (${MAX_TAILS})`, 'warn');
      break;
    }
    const tail = new LogTail(`/jobs/${seg(name)}/logs`, {
      client: ctl.deps.client,
      now: ctl.deps.now,
      onChange: () => ctl.repaint(),
    });
    ctl.own(KIND, tail).start();
    ctl.update(m, { panes: [...m.panes, { job: name, tail }] });
    m = findSurface<MultiTailSurface>(ctl, KIND)!;
  }
}

/** Every pane's entries merged by receipt time (stable: a pane's own order is kept). */
export function mergedEntries(panes: readonly Pane[]): Array<{ pane: number; e: LogEntry }> {
  const out: Array<{ pane: number; e: LogEntry; seq: number }> = [];
  panes.forEach((p, pane) => {
    p.tail.entries.forEach((e, seq) => {
      out.push({ pane, e, seq });
    });
  });
  out.sort((a, b) => a.e.at - b.e.at || a.pane - b.pane || a.seq - b.seq);
  return out;
}

function lineRows(m: MultiTailSurface, ctx: RenderCtx, inner: number): string[] {
  const { theme, g } = ctx;
  const rows: string[] = [];
  for (const { pane, e } of mergedEntries(m.panes)) {
    const label = fit(flatten(m.panes[pane]!.job), LABEL);
    const time = m.timestamps ? `${utcClock(e.at)} ` : '';
    const room = Math.max(1, inner - LABEL - 1 - time.length);
    const text =
      e.kind === 'meta'
        ? `── ${e.text} ──`
        : e.kind === 'error'
          ? `⚠ ${e.text}`
          : reink(e.text, theme, { fg: 'fg', bg: 'bg' });
    const pieces = m.wrap ? wrapCells(text, room) : [text];
    pieces.forEach((p, i) => {
      const l = new Line(theme, inner);
      l.add(i === 0 ? label : ' '.repeat(LABEL), { fg: HUES[pane % HUES.length]! });
      l.add(g.logBar, { fg: e.kind === 'stderr' ? 'fail' : 'border' });
      if (time) l.add(i === 0 ? time : ' '.repeat(time.length), { fg: 'dim' });
      if (e.kind === 'meta' || e.kind === 'error') l.add(p, { fg: e.kind === 'meta' ? 'dim' : 'warn' });
      else l.add('', { fg: 'fg' }).raw(p, cellWidth(p));
      rows.push(l.done());
    });
  }
  return rows;
}

export const multiTailView: View<MultiTailSurface> = {
  kind: KIND,
  focused: (m) => m.adding !== null,
  blur: (m, { ctl }) => ctl.update(m, { adding: null }),
  paint(m, ctx): PanelPaint {
    const { s, g } = ctx;
    const inner = innerWidth(WIDTH, s.cols);
    const labels: Array<[string, Parameters<typeof bodyRow>[2][number][1]]> = [];
    if (m.panes.length === 0) labels.push(['empty — a to add a job', { fg: 'dim' }]);
    m.panes.forEach((p, i) => {
      const on = i === m.pick;
      labels.push([` ${flatten(p.job)} `, { fg: HUES[i % HUES.length]!, bg: on ? 'sel' : 'bg', bold: on }]);
      labels.push([' ', {}]);
    });
    const body = [bodyRow(ctx, inner, labels)];
    if (m.adding !== null)
      body.push(
        bodyRow(ctx, inner, [
          ['add: ', { fg: 'accent' }],
          [m.adding + g.cursor, { fg: 'bright', bg: 'sel' }],
        ]),
      );
    const room = Math.max(3, s.rows - 1 - 6 - body.length);
    const all = lineRows(m, ctx, inner);
    noteScrollMax(KIND, all.length - room);
    const scroll = clampScroll(KIND, m.scroll);
    const end = all.length - scroll;
    body.push(...all.slice(Math.max(0, end - room), end));
    const extras = `${m.timestamps ? ' · times UTC' : ''}${m.wrap ? ' · wrap' : ''}${scroll ? ` · ${g.up}${scroll}` : ''}`;
    return {
      placement: 'panel',
      title: `multi-tail (${m.panes.length}/${MAX_TAILS})${extras}`,
      width: WIDTH,
      body,
      hint: 'a add · x remove · j/k pick · t times · w wrap · PgUp/PgDn/End scroll · esc close',
    };
  },
  key(m, key, ctx) {
    const { ctl } = ctx;
    if (m.adding !== null) return addKey(m, key, ctl);
    switch (key.name) {
      case 'a':
        ctl.update(m, { adding: '' });
        break;
      case 'x': {
        const p = m.panes[m.pick];
        if (p) {
          ctl.release(KIND, p.tail);
          const panes = m.panes.filter((x) => x !== p);
          ctl.update(m, { panes, pick: clampSel(m.pick, 0, panes.length) });
        }
        break;
      }
      case 'j':
      case 'down':
        ctl.update(m, { pick: clampSel(m.pick, 1, m.panes.length) });
        break;
      case 'k':
      case 'up':
        ctl.update(m, { pick: clampSel(m.pick, -1, m.panes.length) });
        break;
      case 't':
        ctl.update(m, { timestamps: !m.timestamps });
        break;
      case 'w':
        ctl.update(m, { wrap: !m.wrap });
        break;
      case 'pageup':
        ctl.update(m, { scroll: clampScroll(KIND, clampScroll(KIND, m.scroll) + 10) });
        break;
      case 'pagedown':
        ctl.update(m, { scroll: clampScroll(KIND, clampScroll(KIND, m.scroll) - 10) });
        break;
      case 'end':
        ctl.update(m, { scroll: 0 });
        break;
    }
    return true;
  },
};

function addKey(m: MultiTailSurface, key: Key, ctl: Controller): boolean {
  const text = m.adding ?? '';
  if (key.name === 'enter') {
    ctl.update(m, { adding: null });
    const name = matchJob(
      ctl.state.data.jobs.map((j) => j.name),
      text,
    );
    if (name === null) ctl.toast(`no job matches '${text}'`, 'warn');
    else openMultiTail(ctl, [name]);
  } else if (key.name === 'backspace') ctl.update(m, { adding: [...text].slice(0, -1).join('') });
  else if (key.ctrl && key.name === 'u') ctl.update(m, { adding: '' });
  else if (key.text !== '') ctl.update(m, { adding: text + key.text });
  return true;
}

/** The jobs tailed now, in pane order. */
export const paneJobs = (ctl: Controller): string[] =>
  (findSurface<MultiTailSurface>(ctl, KIND)?.panes ?? []).map((p) => p.job);

/** The console: `m` on the board; palette entries for it, its presets and, per job, `Tail: n` (ranked with the
 * job entries). */
export const multiTailDescriptor: ViewDescriptor = {
  folder: 'multitail',
  surfaces: [multiTailView],
  keys: [{ keys: ['m'], what: 'Multi-tail console', run: ({ ctl }) => openMultiTail(ctl) }],
  palette({ ctl }) {
    const c = (id: string, title: string, run: () => void) => command(id, title, '≡', run);
    const jobs = ctl.state.data.jobs;
    return [
      c('multitail', 'Multi-tail console', () => openMultiTail(ctl)),
      c('multitail-failing', 'Multi-tail: failing jobs', () =>
        openMultiTail(ctl, presetNames(jobs, 'failing').slice(0, MAX_TAILS)),
      ),
      c('multitail-running', 'Multi-tail: running jobs', () =>
        openMultiTail(ctl, presetNames(jobs, 'running').slice(0, MAX_TAILS)),
      ),
      ...jobs.map((j) =>
        command(
          `tail:${j.name}`,
          `Tail: ${flatten(j.name)}`,
          '≡',
          () => openMultiTail(ctl, [j.name]),
          'jobs',
        ),
      ),
    ];
  },
};

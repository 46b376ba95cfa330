// The job drawer (spec 08 §4.4): a pane spliced on the right of the board with Logs, History, Resources and
// Schedule tabs. Logs follow the controller's tail; History and Resources are fetched while their tab shows.

import { healthOf } from '../../../dashboard/health.ts';
import type { ApiJobResources } from '../../../dashboard/resources.ts';
import { jobStatus } from '../../../dashboard/status.ts';
import type { ApiRuns } from '../../../dashboard/types.ts';
import type { Controller } from '../../app/controller.ts';
import type { Key } from '../../app/keys.ts';
import type { Surface } from '../../app/state.ts';
import { seg } from '../../data/client.ts';
import { Line } from '../../text/line.ts';
import { flatten } from '../../text/sanitize.ts';
import { clampScroll, noteScrollMax } from '../surface.ts';
import type { DrawerPaint, KeyCtx, RenderCtx, View, ViewDescriptor } from '../types.ts';
import { effectiveScroll, LOGS_SCROLL, type LogsView, logRows, matches } from './logs.ts';
import { historyRows, type Row, resourceRows, scheduleRows } from './tabs.ts';

export const TABS = ['logs', 'history', 'resources', 'schedule'] as const;
export type Tab = (typeof TABS)[number];

export interface DrawerSurface extends Surface, LogsView {
  kind: 'drawer';
  job: string;
  tab: Tab;
  /** scroll of the non-log tabs (rows from the top) */
  tabScroll?: number;
  runs?: ApiRuns | string | null;
  resources?: ApiJobResources | string | null;
}

/** Drawer width: clamp(cols·3/5, 46, 90), the whole screen under 80 columns. */
export function drawerWidth(cols: number): number {
  if (cols < 80) return cols;
  return Math.max(46, Math.min(90, Math.floor((cols * 3) / 5)));
}

function paintRows(rows: Row[], ctx: RenderCtx, width: number): string[] {
  return rows.map((r) => {
    const l = new Line(ctx.theme, width);
    for (const [text, role, bold] of r) l.add(text, { fg: role ?? 'fg', bold: bold ?? false });
    return l.done();
  });
}

function paint(d: DrawerSurface, ctx: RenderCtx): DrawerPaint {
  const { s, theme, g } = ctx;
  const width = drawerWidth(s.cols) - 1;
  const height = s.rows;
  const job = s.data.jobs.find((j) => j.name === d.job);
  const hl = healthOf(job ? jobStatus(job) : 'unknown');
  const rows: string[] = [];
  const h = new Line(theme, width);
  h.add(` ${g.status[hl.status]} ${flatten(d.job)}`, { fg: hl.tone, bold: true });
  h.add(`  ${hl.label}`, { fg: hl.tone });
  h.add('   r run · x cancel · esc close', { fg: 'dim' });
  rows.push(h.done());
  rows.push(...tabStrip(ctx, width, TABS, d.tab));
  const room = height - rows.length;
  if (d.tab === 'logs') rows.push(...logRows(ctx.ctl.tail, d, ctx, width, room));
  else {
    let body: Row[];
    if (d.tab === 'history') body = historyRows(d.runs ?? null, ctx);
    else if (d.tab === 'resources') body = resourceRows(d.resources ?? null);
    else body = job ? scheduleRows(job, ctx, width) : [[[' no such job', 'dim']]];
    noteScrollMax('drawer', body.length - room);
    const painted = paintRows(body.slice(clampScroll('drawer', d.tabScroll ?? 0)), ctx, width);
    rows.push(...painted.slice(0, room));
  }
  const blank = new Line(theme, width).done();
  while (rows.length < height) rows.push(blank);
  return { placement: 'drawer', rows };
}

/** A drawer's tab row (the active tab on the selection background) and the rule under it. */
export function tabStrip(ctx: RenderCtx, width: number, tabs: readonly string[], active: string): string[] {
  const t = new Line(ctx.theme, width);
  t.add(' ');
  for (const tab of tabs)
    t.add(` ${tab} `, tab === active ? { fg: 'bright', bg: 'sel', bold: true } : { fg: 'dim' });
  t.add('   ←/→ switch', { fg: 'dim' });
  return [t.done(), new Line(ctx.theme, width).add(ctx.g.h.repeat(width), { fg: 'border' }).done()];
}

/** Fetches what the tab shows (History each time it is shown, Resources on a visit). */
export function loadTab(ctl: Controller, d: DrawerSurface, tab: Tab): void {
  const path = `/jobs/${seg(d.job)}`;
  const find = (): DrawerSurface | undefined =>
    ctl.state.stack.find(
      (x): x is DrawerSurface => x.kind === 'drawer' && (x as DrawerSurface).job === d.job,
    );
  const put = (patch: Partial<DrawerSurface>) => {
    const cur = find();
    if (cur) ctl.update(cur, patch);
  };
  if (tab === 'history')
    ctl.deps.client.json<ApiRuns>(`${path}/runs`).then(
      (runs) => put({ runs }),
      (e: Error) => put({ runs: e.message }),
    );
  if (tab === 'resources')
    ctl.deps.client.json<ApiJobResources>(`${path}/resources`).then(
      (resources) => put({ resources }),
      (e: Error) => put({ resources: e.message }),
    );
}

// Q18: History and Resources follow the daemon while they are on screen.
function afterPoll(ctl: Controller): void {
  const d = ctl.top();
  if (d?.kind !== 'drawer') return;
  const tab = (d as DrawerSurface).tab;
  if (tab === 'history' || tab === 'resources') loadTab(ctl, d as DrawerSurface, tab);
}

function switchTab(d: DrawerSurface, dir: number, ctx: KeyCtx): void {
  const tab = TABS[(TABS.indexOf(d.tab) + dir + TABS.length) % TABS.length]!;
  ctx.ctl.update(d, { tab, tabScroll: 0 });
  loadTab(ctx.ctl, d, tab);
}

function jumpTo(d: DrawerSurface, ctx: KeyCtx, dir: 1 | -1, from: number): void {
  const entries = ctx.ctl.tail?.entries ?? [];
  const found = matches(entries, d.search);
  if (found.length === 0) {
    ctx.ctl.toast(`no match for ${d.search}`, 'warn');
    return;
  }
  let idx: number;
  if (dir === 1) idx = found.find((i) => i > from) ?? found[0]!;
  else idx = [...found].reverse().find((i) => i < from) ?? found[found.length - 1]!;
  // The match goes on the bottom row: scroll counts entries up from the newest.
  ctx.ctl.update(d, {
    match: idx,
    scroll: entries.length - 1 - idx,
    anchor: entries.length,
    searchFocused: false,
  });
}

function logsKey(d: DrawerSurface, key: Key, ctx: KeyCtx): boolean {
  const { ctl } = ctx;
  const tail = ctl.tail;
  const total = tail?.entries.length ?? 0;
  // within what the last paint could show: PgUp near the top stops with the oldest entry on the top row
  const now = clampScroll(LOGS_SCROLL, effectiveScroll(d, total));
  const scrollTo = (n: number) =>
    ctl.update(d, { scroll: clampScroll(LOGS_SCROLL, Math.min(Math.max(0, total - 1), n)), anchor: total });
  switch (key.name) {
    case '/':
      ctl.update(d, { searchFocused: true });
      return true;
    case 'n':
      jumpTo(d, ctx, 1, d.match);
      return true;
    case 'N':
      jumpTo(d, ctx, -1, d.match < 0 ? total : d.match);
      return true;
    case 'j':
    case 'down':
      scrollTo(now - 1);
      return true;
    case 'k':
    case 'up':
      scrollTo(now + 1);
      return true;
    case 'pageup':
      scrollTo(now + 10);
      return true;
    case 'pagedown':
      scrollTo(now - 10);
      return true;
    case 'home':
      scrollTo(total - 1);
      return true;
    case 'end':
      scrollTo(0);
      return true;
    case 'f':
      if (tail) {
        tail.setFollow(!tail.follow);
        ctl.toast(`follow: ${tail.follow ? 'on' : 'off'}`, 'info');
        ctl.repaint();
      }
      return true;
    case 't':
      ctl.setPrefs({ timestamps: !ctl.state.prefs.timestamps });
      return true;
    case 'w':
      ctl.setPrefs({ wrap: !ctl.state.prefs.wrap });
      return true;
    case 'd':
      ctl.saveLog(d.job);
      return true;
  }
  return false;
}

function searchKey(d: DrawerSurface, key: Key, ctx: KeyCtx): boolean {
  if (key.name === 'enter') {
    jumpTo(d, ctx, 1, -1);
    ctx.ctl.update(d, { searchFocused: false });
  } else if (key.name === 'backspace') ctx.ctl.update(d, { search: d.search.slice(0, -1), match: -1 });
  else if (key.ctrl && key.name === 'u') ctx.ctl.update(d, { search: '', match: -1 });
  else if (key.text !== '') ctx.ctl.update(d, { search: d.search + key.text, match: -1 });
  return true;
}

export const drawerView: View<DrawerSurface> = {
  kind: 'drawer',
  paint,
  focused: (d) => d.searchFocused,
  blur: (d, ctx) => ctx.ctl.update(d, { searchFocused: false }),
  key(d, key, ctx) {
    if (d.searchFocused) return searchKey(d, key, ctx);
    const { ctl } = ctx;
    switch (key.name) {
      case 'left':
      case 'backtab':
        switchTab(d, -1, ctx);
        return true;
      case 'right':
      case 'tab':
        switchTab(d, 1, ctx);
        return true;
      case 'r':
        void ctl.runJob(d.job);
        return true;
      case 'x':
        void ctl.cancelJob(d.job);
        return true;
    }
    if (d.tab === 'logs') return logsKey(d, key, ctx);
    const scroll = d.tabScroll ?? 0;
    const step = key.name === 'j' || key.name === 'down' ? 1 : key.name === 'k' || key.name === 'up' ? -1 : 0;
    const page = key.name === 'pagedown' ? 10 : key.name === 'pageup' ? -10 : 0;
    if (step || page) {
      ctl.update(d, { tabScroll: clampScroll('drawer', clampScroll('drawer', scroll) + step + page) });
      return true;
    }
    return false;
  },
};

export const drawerDescriptor: ViewDescriptor = {
  folder: 'drawer',
  surfaces: [drawerView],
  afterPoll,
  help: [
    ['←/→ or Tab', 'Switch drawer tab'],
    ['in logs: f/t/w', 'Follow · timestamps · wrap'],
    ['in logs: / n N', 'Search · next · previous'],
    ['in logs: d', 'Save log to a file'],
  ],
};

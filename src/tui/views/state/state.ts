// The state inspector (spec 08 §4.12): what the durable state holds, read-only. Tabs: view (backend, stats,
// retries, slots, counts), documents (namespaces; `Enter` lists one) and records (streams; `Enter` lists the
// newest 100). `/state` reloads on open, `r`, and after each poll while the panel shows.
import type { ApiDocuments, ApiRecords, ApiState } from '../../../dashboard/state.ts';
import type { Controller } from '../../app/controller.ts';
import type { Surface } from '../../app/state.ts';
import { flatten } from '../../text/sanitize.ts';
import { command } from '../command.ts';
import { bodyRow, innerWidth } from '../panel.ts';
import { clampScroll, clampSel, cycleTab, findSurface, noteScrollMax, patchSurface } from '../surface.ts';
import type { PanelPaint, View, ViewDescriptor } from '../types.ts';

export const STATE_TABS = ['view', 'documents', 'records'] as const;
export type StateTabName = (typeof STATE_TABS)[number];

export interface StateSurface extends Surface {
  kind: 'state';
  tab: StateTabName;
  sel: number;
  scroll: number;
  data: ApiState | string | null;
  /** the namespace or stream fetched with `Enter`, and its items as one-line JSON (or the error) */
  items: { of: string; lines: string[] } | string | null;
}

const KIND = 'state';
const WIDTH = 80;

function load(ctl: Controller): void {
  ctl.deps.client.json<ApiState>('/state').then(
    (data) => patchSurface<StateSurface>(ctl, KIND, { data }),
    (e: Error) => patchSurface<StateSurface>(ctl, KIND, { data: e.message }),
  );
}

export function toggleState(ctl: Controller): void {
  if (findSurface(ctl, KIND)) {
    ctl.close(KIND);
    return;
  }
  ctl.push({ kind: KIND, tab: 'view', sel: 0, scroll: 0, data: null, items: null } as StateSurface);
  load(ctl);
}

/** The names the documents / records tabs list (fetchable namespaces; streams except archived logs). */
export function tabNames(data: ApiState | null, tab: StateTabName): string[] {
  if (!data) return [];
  if (tab === 'documents')
    return (data.documents ?? []).map((d) => d.namespace).filter((n) => /^(kv|cursor|idem)\//.test(n));
  if (tab === 'records')
    return (data.records?.list ?? []).map((r) => r.stream).filter((s) => !s.startsWith('logs/'));
  return [];
}

const oneLine = (v: unknown): string => flatten(JSON.stringify(v) ?? 'null');

/** The view tab's lines. */
export function viewLines(d: ApiState): string[] {
  const out: string[] = [];
  for (const k of ['view', 'backend', 'namespace', 'topology'] as const)
    if (d[k] !== undefined) out.push(`${k}: ${flatten(String(d[k]))}`);
  const stats = d.stats ?? {};
  for (const [k, v] of Object.entries(stats).slice(0, 12)) out.push(`stats.${k}: ${oneLine(v)}`);
  out.push(`armed retries: ${d.node?.retries.length ?? 0} · held slots: ${d.node?.slots.length ?? 0}`);
  if (d.records) out.push(`records: ${d.records.records} in ${d.records.streams} stream(s)`);
  out.push(`document namespaces: ${d.documents?.length ?? 0} · leases: ${d.leases?.length ?? 0}`);
  if (d.error) out.push(`⚠ ${flatten(d.error)}`);
  return out;
}

function fetchItems(ctl: Controller, tab: StateTabName, name: string): void {
  const c = ctl.deps.client;
  const put = (items: StateSurface['items']) => patchSurface<StateSurface>(ctl, KIND, { items, scroll: 0 });
  put({ of: name, lines: ['loading…'] });
  if (tab === 'documents')
    c.json<ApiDocuments>(`/state/documents?ns=${encodeURIComponent(name)}`).then(
      (r) => put({ of: name, lines: r.documents.map(oneLine) }),
      (e: Error) => put(e.message),
    );
  else
    c.json<ApiRecords>(`/state/records?stream=${encodeURIComponent(name)}&limit=100`).then(
      (r) => put({ of: name, lines: r.records.map(oneLine) }),
      (e: Error) => put(e.message),
    );
}

export const stateView: View<StateSurface> = {
  kind: KIND,
  paint(st, ctx): PanelPaint {
    const { s } = ctx;
    const inner = innerWidth(WIDTH, s.cols);
    const tabs: Array<[string, Parameters<typeof bodyRow>[2][number][1]]> = [];
    for (const t of STATE_TABS)
      tabs.push([` ${t} `, t === st.tab ? { fg: 'bright', bg: 'sel', bold: true } : { fg: 'dim' }]);
    const body = [bodyRow(ctx, inner, tabs)];
    const lines: Array<[string, 'fg' | 'dim' | 'warn' | 'bright', boolean?]> = [];
    const data = typeof st.data === 'object' ? st.data : null;
    if (st.data === null) lines.push(['loading…', 'dim']);
    else if (typeof st.data === 'string') lines.push([`⚠ ${flatten(st.data)}`, 'warn']);
    else if (!st.data.enabled) lines.push(['durable state is not configured', 'dim']);
    else if (st.tab === 'view') for (const l of viewLines(st.data)) lines.push([l, 'fg']);
    else {
      const names = tabNames(data, st.tab);
      if (names.length === 0) lines.push([`no ${st.tab === 'documents' ? 'namespaces' : 'streams'}`, 'dim']);
      names.forEach((n, i) => {
        lines.push([
          `${i === st.sel ? '▎' : ' '} ${flatten(n)}`,
          i === st.sel ? 'bright' : 'fg',
          i === st.sel,
        ]);
      });
      if (st.items !== null) {
        lines.push(['', 'fg']);
        if (typeof st.items === 'string') lines.push([`⚠ ${flatten(st.items)}`, 'warn']);
        else {
          lines.push([`${st.items.of}: ${st.items.lines.length} item(s)`, 'dim']);
          for (const l of st.items.lines) lines.push([`  ${l}`, 'fg']);
        }
      }
    }
    const room = Math.max(4, s.rows - 1 - 8);
    noteScrollMax(KIND, lines.length - room);
    const top = clampScroll(KIND, st.scroll);
    for (const [text, fg, bold] of lines.slice(top, top + room))
      body.push(bodyRow(ctx, inner, [[text, { fg, bold }]]));
    return {
      placement: 'panel',
      title: 'state',
      width: WIDTH,
      body,
      hint: '←/→ tab · j/k move · enter fetch · r refresh · PgUp/PgDn scroll · esc close',
    };
  },
  key(st, key, { ctl }) {
    const data = typeof st.data === 'object' ? st.data : null;
    const names = tabNames(data, st.tab);
    const tab = cycleTab(STATE_TABS, st.tab, key.name);
    if (tab) {
      ctl.update(st, { tab, sel: 0, scroll: 0, items: null });
      return true;
    }
    switch (key.name) {
      case 'j':
      case 'down':
        if (names.length) ctl.update(st, { sel: clampSel(st.sel, 1, names.length) });
        else ctl.update(st, { scroll: clampScroll(KIND, clampScroll(KIND, st.scroll) + 1) });
        break;
      case 'k':
      case 'up':
        if (names.length) ctl.update(st, { sel: clampSel(st.sel, -1, names.length) });
        else ctl.update(st, { scroll: clampScroll(KIND, clampScroll(KIND, st.scroll) - 1) });
        break;
      case 'pagedown':
        ctl.update(st, { scroll: clampScroll(KIND, clampScroll(KIND, st.scroll) + 10) });
        break;
      case 'pageup':
        ctl.update(st, { scroll: clampScroll(KIND, clampScroll(KIND, st.scroll) - 10) });
        break;
      case 'home':
        ctl.update(st, { scroll: 0 });
        break;
      case 'enter': {
        const name = names[st.sel];
        if (name && st.tab !== 'view') fetchItems(ctl, st.tab, name);
        break;
      }
      case 'r':
        ctl.toast('↻ refreshing state', 'info');
        load(ctl);
        break;
    }
    return true;
  },
};

/** The state inspector: a palette toggle; each poll refreshes it while it shows (Q18). */
export const stateDescriptor: ViewDescriptor = {
  folder: 'state',
  surfaces: [stateView],
  palette: ({ ctl }) => [command('state', 'Toggle state inspector', '⛁', () => toggleState(ctl))],
  afterPoll(ctl) {
    if (findSurface(ctl, KIND)) load(ctl);
  },
};

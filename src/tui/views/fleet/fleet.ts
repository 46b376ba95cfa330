// The fleet view (spec 08 §4.12; the web twin is FleetView.tsx): every node of the gossip mesh from `/fleet`
// with its status and load, and a jobs × nodes matrix of what each node last gossiped; the cell of a job's
// owner is framed. Fetched on open and after every poll while open; `f` failing only, `r` refresh.
import { peerTone } from '../../../dashboard/cluster.ts';
import {
  failingSomewhere,
  fleetCell,
  fleetJobNames,
  fleetNodeStatus,
  fleetTotals,
} from '../../../dashboard/fleet.ts';
import type { ApiFleet, ApiFleetNode } from '../../../dashboard/types.ts';
import type { Controller } from '../../app/controller.ts';
import type { Surface } from '../../app/state.ts';
import type { Glyphs } from '../../text/glyphs.ts';
import { flatten } from '../../text/sanitize.ts';
import type { Role, Style } from '../../text/theme.ts';
import { fit } from '../../text/width.ts';
import { innerWidth } from '../panel.ts';
import {
  commonPanelKey,
  loadInto,
  openSurface,
  type PanelRow,
  paintPanel,
  panelDescriptor,
  type ScrollSurface,
} from '../panelkit.ts';
import type { PanelPaint, RenderCtx, View, ViewDescriptor } from '../types.ts';

export interface FleetSurface extends ScrollSurface {
  kind: 'fleet';
  fleet: ApiFleet | null;
  error: string | null;
  failingOnly: boolean;
}

const JOB_COL = 24;

/** Node column width: clamp((w − 26) / nodes, 10, 16). */
export function nodeColumn(inner: number, nodes: number): number {
  return Math.max(10, Math.min(16, Math.floor((inner - 26) / Math.max(1, nodes))));
}

/** One matrix cell as the terminal draws it. */
export function fleetCellText(n: ApiFleetNode, job: string, now: number, g: Glyphs): [string, Role] {
  if (n.jobs === null) return [g.dot, 'dim'];
  const c = fleetCell(n.jobs[job], now);
  const age = c.age ? ` ${c.age}` : '';
  switch (c.tone) {
    case 'none':
      return ['—', 'dim'];
    case 'run':
      return [`${g.status.running} run`, 'run'];
    case 'idle':
      return [g.status.pending, 'pending'];
    case 'ok':
      return [`${g.status.ok} ok${age}`, 'ok'];
    case 'fail':
      return [`${g.status.failed} fail${age}`, 'fail'];
    default:
      if (c.text === 'off') return [`${g.status.disabled} off`, 'off'];
      if (c.text === 'cancelled') return [`${g.status.cancelled} cancel${age}`, 'off'];
      return [`${g.status.unknown} lost${age}`, 'pending'];
  }
}

const TONE_ROLE: Record<string, Role> = { good: 'ok', warn: 'warn', bad: 'fail', gone: 'off' };

function matrix(f: FleetSurface, ctx: RenderCtx, inner: number): { head: PanelRow[]; rows: PanelRow[] } {
  const { s, g } = ctx;
  const fleet = f.fleet!;
  const t = fleetTotals(fleet);
  const summary = [`${t.nodes} nodes`, `${t.jobs} jobs`, `${t.running} running`];
  const sum: PanelRow = [[` ${summary.join(' · ')}`, { fg: 'bright', bold: true }]];
  if (t.failing > 0) sum.push([` · ${t.failing} failing`, { fg: 'fail', bold: true }]);
  if (f.failingOnly) sum.push([' · FAILING ONLY (f)', { fg: 'warn', bold: true }]);
  if (fleet.interval) sum.push([`   peer data rides gossip (every ${fleet.interval}s)`, { fg: 'dim' }]);
  const w = nodeColumn(inner, fleet.nodes.length);
  const names: PanelRow = [[` ${fit('job', JOB_COL)} `, { fg: 'dim', bold: true }]];
  const status: PanelRow = [[' '.repeat(JOB_COL + 2), {}]];
  const load: PanelRow = [[' '.repeat(JOB_COL + 2), {}]];
  for (const n of fleet.nodes) {
    const label = `${n.self ? '*' : ''}${flatten(n.node_name ?? n.host ?? '?')}`;
    names.push([`${fit(label, w)} `, { fg: n.self ? 'accent' : 'bright', bold: true }]);
    const role = n.self ? 'ok' : (TONE_ROLE[peerTone(n.status)] ?? 'dim');
    status.push([`${fit(flatten(fleetNodeStatus(n, s.now)), w)} `, { fg: role }]);
    const st = n.node_stats;
    const l =
      st && typeof st.cpu_percent === 'number'
        ? `cpu ${Math.round(st.cpu_percent)}% mem ${Math.round(st.mem_percent ?? 0)}%`
        : 'no load';
    load.push([`${fit(l + (n.truncated ? ' …' : ''), w)} `, { fg: 'dim' }]);
  }
  const owners = new Map<string, string | null>();
  for (const j of s.data.jobs) if (j.clusterOwner !== undefined) owners.set(j.name, j.clusterOwner);
  const jobs = fleetJobNames(fleet).filter((n) => !f.failingOnly || failingSomewhere(fleet, n));
  const rows: PanelRow[] = jobs.map((name) => {
    const row: PanelRow = [[` ${fit(flatten(name), JOB_COL)} `, { fg: 'fg' }]];
    for (const n of fleet.nodes) {
      const [text, role] = fleetCellText(n, name, s.now, g);
      const owner = n.node_name !== null && owners.get(name) === n.node_name;
      const style: Style = owner ? { fg: role, bg: 'sel', bold: true } : { fg: role };
      row.push([fit(owner ? `${text} ◆` : text, w), style], [' ', {}]);
    }
    return row;
  });
  if (rows.length === 0)
    rows.push([[f.failingOnly ? ' nothing fails on any node' : ' no jobs reported', { fg: 'dim' }]]);
  return { head: [sum, names, status, load], rows };
}

function paint(f: FleetSurface, ctx: RenderCtx): PanelPaint {
  const width = ctx.s.cols - 4;
  const inner = innerWidth(width, ctx.s.cols);
  const hint = 'f failing only · r refresh · j/k scroll · ◆ owner · esc close';
  if (f.fleet === null || !f.fleet.enabled) {
    const msg: PanelRow[] =
      f.fleet === null
        ? [[[f.error ? ` ⚠ ${flatten(f.error)}` : ' loading /fleet…', { fg: f.error ? 'fail' : 'dim' }]]]
        : [
            [[' fleet view needs a cluster with a node-to-node channel', { fg: 'fg' }]],
            [[' (a gossip cluster, or cluster.observability beside a lease backend)', { fg: 'dim' }]],
          ];
    return paintPanel(f, ctx, { title: 'fleet', width, rows: msg, hint });
  }
  const { head, rows } = matrix(f, ctx, inner);
  if (f.error) head.push([[` ⚠ ${flatten(f.error)} (showing the last answer)`, { fg: 'warn' }]]);
  return paintPanel(f, ctx, { title: 'fleet', width, head, rows, hint });
}

const load = (ctl: Controller): Promise<void> =>
  loadInto<FleetSurface>(ctl, 'fleet', async (c) => ({ fleet: await c.json<ApiFleet>('/fleet') }));

export const fleetView: View<FleetSurface> = {
  kind: 'fleet',
  paint,
  key(f, key, ctx) {
    if (key.name === 'f' && !key.ctrl) {
      ctx.ctl.update(f, { failingOnly: !f.failingOnly, scroll: 0 });
      return true;
    }
    if (key.name === 'r' && !key.ctrl) {
      ctx.ctl.toast('↻ fleet', 'info');
      void load(ctx.ctl);
      return true;
    }
    return commonPanelKey(f, key, ctx);
  },
};

export const fleetDescriptor: ViewDescriptor = panelDescriptor(
  'fleet',
  fleetView,
  {
    key: 'F',
    title: 'Toggle fleet view',
    icon: '⊞',
    what: 'Fleet view',
    create: () =>
      ({ kind: 'fleet', scroll: 0, fleet: null, error: null, failingOnly: false }) as FleetSurface as Surface,
    opened: (ctl) => void load(ctl),
  },
  {
    afterPoll: (ctl) => {
      if (openSurface(ctl, 'fleet')) void load(ctl);
    },
  },
);

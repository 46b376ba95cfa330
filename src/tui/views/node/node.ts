// The node panel (spec 08 §4.12; the web twin is NodeHistory.tsx): this node's `/node` readings (every resource
// key, the overload report) and 3-row CPU and memory charts of `/node/history`, refreshed at the sampler's
// interval while open (Q18), like the web card.
import { formatAge, parseIso } from '../../../dashboard/format.ts';
import { type ApiNodeHistory, columnStats, formatBytes } from '../../../dashboard/resources.ts';
import type { ApiNode } from '../../../dashboard/types.ts';
import type { Controller } from '../../app/controller.ts';
import type { Surface } from '../../app/state.ts';
import { blockChart, lastColumns } from '../../text/chart.ts';
import type { Glyphs } from '../../text/glyphs.ts';
import { flatten } from '../../text/sanitize.ts';
import type { Role } from '../../text/theme.ts';
import { fit } from '../../text/width.ts';
import { pct } from '../board/chrome.ts';
import { innerWidth } from '../panel.ts';
import {
  commonPanelKey,
  keepFresh,
  loadInto,
  type PanelRow,
  paintPanel,
  panelDescriptor,
  type ScrollSurface,
} from '../panelkit.ts';
import type { PanelPaint, RenderCtx, View, ViewDescriptor } from '../types.ts';

export interface NodeSurface extends ScrollSurface {
  kind: 'node';
  history: ApiNodeHistory | null;
  error: string | null;
}

const WIDTH = 64;
const CHART_ROWS = 3;

/** `cpu_percent` as %, `…bytes` / `rss…` as bytes, the rest as it came. */
export function resourceValue(key: string, v: unknown): string {
  if (typeof v !== 'number') return flatten(String(v));
  if (key.endsWith('percent')) return pct(v);
  if (key.endsWith('bytes') || key.startsWith('rss')) return formatBytes(v);
  return String(v);
}

function readings(node: ApiNode | null, now: number): PanelRow[] {
  const rows: PanelRow[] = [[[` node: ${flatten(node?.node_name ?? '?')}`, { fg: 'bright', bold: true }]]];
  const res = node?.resources as Record<string, unknown> | null | undefined;
  if (!res) rows.push([[' resource sampling unavailable', { fg: 'dim' }]]);
  else
    for (const [k, v] of Object.entries(res))
      rows.push([
        [`   ${fit(k.replace(/_/g, ' '), 18)} `, { fg: 'dim' }],
        [resourceValue(k, v), { fg: 'fg' }],
      ]);
  const o = node?.overload;
  if (o) {
    const last = parseIso(o.last_missed_at);
    const facts = [
      `${o.missed_fires} missed fires${last !== null ? ` (last ${formatAge(now - last)})` : ''}`,
      `${o.waiting_launches} waiting`,
      `launch lag ${o.launch_lag_seconds}s`,
    ];
    rows.push([
      [`   ${fit('overload', 18)} `, { fg: 'dim' }],
      [o.overloaded ? 'OVERLOADED' : 'no', { fg: o.overloaded ? 'fail' : 'ok', bold: o.overloaded }],
    ]);
    rows.push([[`     ${facts.join(' · ')}`, { fg: 'dim' }]]);
  }
  return rows;
}

function chart(label: string, values: number[], role: Role, width: number, g: Glyphs): PanelRow[] {
  const cols = lastColumns(values, width);
  return blockChart(cols, 100, CHART_ROWS, g).map((line, i) => [
    [i === 0 ? fit(label, 5) : '     ', { fg: role, bold: i === 0 }],
    [line, { fg: role }],
    [i === 0 ? ' 100%' : i === CHART_ROWS - 1 ? ' 0%' : '', { fg: 'dim' }],
  ]);
}

function historyRows(n: NodeSurface, ctx: RenderCtx, inner: number): PanelRow[] {
  const h = n.history;
  if (h === null)
    return [
      [
        [
          n.error ? ` ⚠ /node/history: ${flatten(n.error)}` : ' loading /node/history…',
          { fg: n.error ? 'fail' : 'dim' },
        ],
      ],
    ];
  if (!h.enabled) return [[[' the node sampler is off (web.nodeHistory: false)', { fg: 'dim' }]]];
  const pts = h.points;
  if (pts.length === 0)
    return [[[` no samples yet: the first arrives ${h.interval ?? '?'} s after the start`, { fg: 'dim' }]]];
  const cpu = columnStats(pts, 1)!;
  const mem = columnStats(pts, 2)!;
  const since = formatAge(ctx.s.now - pts[0]![0] * 1000);
  const width = Math.max(10, inner - 11);
  return [
    [
      [' cpu ', { fg: 'run', bold: true }],
      [`now ${pct(cpu.last)} · mean ${pct(cpu.mean)} · max ${pct(cpu.max)}`, { fg: 'fg' }],
    ],
    [
      [' mem ', { fg: 'accent', bold: true }],
      [`now ${pct(mem.last)} · max ${pct(mem.max)}`, { fg: 'fg' }],
    ],
    ...chart(
      ' cpu',
      pts.map((p) => p[1]),
      'run',
      width,
      ctx.g,
    ),
    ...chart(
      ' mem',
      pts.map((p) => p[2]),
      'accent',
      width,
      ctx.g,
    ),
    [[` ${pts.length} samples · every ${h.interval} s · since ${since}`, { fg: 'dim' }]],
  ];
}

function paint(n: NodeSurface, ctx: RenderCtx): PanelPaint {
  const inner = innerWidth(WIDTH, ctx.s.cols);
  const rows = [...readings(ctx.s.data.node, ctx.s.now), [['']] as PanelRow, ...historyRows(n, ctx, inner)];
  if (n.error && n.history) rows.push([[` ⚠ ${flatten(n.error)} (showing the last answer)`, { fg: 'warn' }]]);
  return paintPanel(n, ctx, {
    title: 'node resources',
    width: WIDTH,
    rows,
    hint: 'j/k scroll · C cluster · esc close',
  });
}

const load = (ctl: Controller): Promise<void> =>
  loadInto<NodeSurface>(ctl, 'node', async (c) => ({
    history: await c.json<ApiNodeHistory>('/node/history'),
  }));

const intervalMs = (ctl: Controller): number => {
  const n = ctl.state.stack.find((x) => x.kind === 'node') as NodeSurface | undefined;
  return Math.max(1000, (n?.history?.interval ?? 5) * 1000);
};

export const nodeView: View<NodeSurface> = {
  kind: 'node',
  paint,
  key: (n, key, ctx) => commonPanelKey(n, key, ctx),
};

export const nodeDescriptor: ViewDescriptor = panelDescriptor('node', nodeView, {
  key: 'N',
  title: 'Toggle node resources',
  icon: '▤',
  what: 'Node resources',
  create: () => ({ kind: 'node', scroll: 0, history: null, error: null }) as NodeSurface as Surface,
  opened(ctl) {
    void load(ctl);
    keepFresh(ctl, 'node', { everyMs: intervalMs, every: (c) => void load(c) });
  },
});

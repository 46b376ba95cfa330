// Schedule pressure (spec 08 §4.12; the web twin is PressureView.tsx): the daemon's own analysis of the next
// 24 h in UTC — fires per minute of the hour, the quietest slots to move a job to, groups of jobs sharing one
// schedule and the hour × minute grid — from `/schedule/pressure`, `/schedule/duplicates` and
// `/schedule/suggest`, the routes the web card reads, so both dashboards show the same numbers and the walk
// happens off the UI thread. Reloaded every 60 s while open and on `r`; `e` tries the best slot in the sandbox.
import {
  type ApiDuplicates,
  type ApiPressure,
  type ApiSuggest,
  busiestCell,
  cellLabel,
  cellShade,
  shadeRange,
} from '../../../dashboard/pressure.ts';
import type { Controller } from '../../app/controller.ts';
import type { Surface } from '../../app/state.ts';
import { blockChart } from '../../text/chart.ts';
import { flatten } from '../../text/sanitize.ts';
import type { Role } from '../../text/theme.ts';
import { fit } from '../../text/width.ts';
import {
  commonPanelKey,
  keepFresh,
  loadInto,
  type PanelRow,
  paintPanel,
  panelDescriptor,
  panelGlyphs,
  type ScrollSurface,
} from '../panelkit.ts';
import { openSandbox } from '../sandbox/sandbox.ts';
import type { PanelPaint, RenderCtx, View, ViewDescriptor } from '../types.ts';

export interface PressureSurface extends ScrollSurface {
  kind: 'pressure';
  pressure: ApiPressure | null;
  dups: ApiDuplicates | null;
  hourly: ApiSuggest | null;
  daily: ApiSuggest | null;
  error: string | null;
}

const WIDTH = 96;
const REFRESH_MS = 60_000;
const GUTTER = 5;

const mm = (m: number): string => `:${String(m).padStart(2, '0')}`;

/** A row of 60 minute cells: `:00` … `:50` labels every ten minutes. */
function minuteAxis(): PanelRow {
  let text = '';
  for (let m = 0; m < 60; m += 10) text += fit(mm(m), 10);
  return [
    [' '.repeat(GUTTER), {}],
    [text, { fg: 'dim' }],
  ];
}

function histogramRows(p: ApiPressure, ctx: RenderCtx): PanelRow[] {
  // Jobs per minute, not fires: a per-second job adds 60 fires to every minute and would flatten the bars.
  const values = p.by_minute_jobs;
  const peak = Math.max(0, ...values);
  const hot = Math.max(2, 0.7 * peak);
  const lines = blockChart(values, peak, 3, ctx.g);
  return lines.map((line, i) => {
    const row: PanelRow = [
      [i === 0 ? fit(' by', GUTTER) : i === 1 ? fit(' min', GUTTER) : ' '.repeat(GUTTER), { fg: 'dim' }],
    ];
    [...line].forEach((ch, m) => {
      row.push([ch, { fg: values[m]! >= hot ? 'fail' : 'accent' }]);
    });
    if (i === 0) row.push([` ${peak} jobs`, { fg: 'dim' }]);
    return row;
  });
}

function suggestRows(sp: PressureSurface): PanelRow[] {
  const { hourly, daily } = sp;
  if (!hourly && !daily) return [];
  const row: PanelRow = [[' suggest  ', { fg: 'dim', bold: true }]];
  if (hourly) {
    row.push([flatten(hourly.expression), { fg: 'ok', bold: true }]);
    row.push([` (hourly, ${hourly.fires_in_window} fires)`, { fg: 'dim' }]);
  }
  if (daily) {
    row.push([' · ', { fg: 'dim' }]);
    row.push([flatten(daily.expression), { fg: 'ok', bold: true }]);
    row.push([` (daily, ${daily.fires_in_window} fires)`, { fg: 'dim' }]);
  }
  const rows = [row];
  const alts = [...(hourly?.alternatives ?? []), ...(daily?.alternatives ?? [])].map((a) =>
    flatten(a.expression),
  );
  if (alts.length > 0) rows.push([[`      or  ${alts.join(' · ')}`, { fg: 'fg' }]]);
  if (hourly?.hash_hint) rows.push([[`      ${flatten(hourly.hash_hint)}`, { fg: 'dim' }]]);
  return rows;
}

function topRows(p: ApiPressure): PanelRow[] {
  if (p.top_cells.length === 0) return [];
  const rows: PanelRow[] = [[[' busiest cells', { fg: 'dim', bold: true }]]];
  for (const c of p.top_cells.slice(0, 5)) {
    const names =
      c.jobs.slice(0, 4).map(flatten).join(', ') + (c.jobs.length > 4 ? ` +${c.jobs.length - 4}` : '');
    rows.push([
      [`   ${cellLabel(c.hour, c.minute)}  `, { fg: 'bright' }],
      [`${fit(`${c.fires} fires`, 10)} `, { fg: 'dim' }],
      [names, { fg: 'fg' }],
    ]);
  }
  return rows;
}

function dupRows(d: ApiDuplicates | null): PanelRow[] {
  if (!d) return [];
  const rows: PanelRow[] = [
    [
      [
        ` duplicate schedules (${d.groups.length} group${d.groups.length === 1 ? '' : 's'} firing together)`,
        { fg: 'dim', bold: true },
      ],
    ],
  ];
  if (d.groups.length === 0) rows.push([['   no two enabled jobs share a schedule', { fg: 'dim' }]]);
  for (const g of d.groups.slice(0, 4)) {
    const names =
      g.jobs.slice(0, 5).map(flatten).join(', ') + (g.jobs.length > 5 ? ` +${g.jobs.length - 5}` : '');
    rows.push([
      [`   ${fit(flatten(g.expression), 16)} `, { fg: 'accent' }],
      [`${fit(`×${g.count}`, 4)} `, { fg: 'warn', bold: true }],
      [`${fit(`${flatten(g.description)} · ${flatten(g.timezone)}`, 34)} `, { fg: 'dim' }],
      [names, { fg: 'fg' }],
    ]);
  }
  if (d.groups.length > 4) rows.push([[`   +${d.groups.length - 4} more groups`, { fg: 'dim' }]]);
  return rows;
}

function gridRows(p: ApiPressure, ctx: RenderCtx): PanelRow[] {
  const pg = panelGlyphs(ctx.g);
  const range = shadeRange(p.grid);
  const hot = Math.max(5, 0.7 * range.max);
  const rows: PanelRow[] = [
    [[` fires per minute, next ${p.hours} h (${flatten(p.timezone)})`, { fg: 'dim', bold: true }]],
    minuteAxis(),
  ];
  for (let h = 0; h < 24; h++) {
    const row: PanelRow = [[fit(` ${String(h).padStart(2, '0')}`, GUTTER), { fg: 'dim' }]];
    for (let m = 0; m < 60; m++) {
      const f = p.grid[h]?.[m] ?? 0;
      const shade = cellShade(f, range);
      const role: Role = f === 0 ? 'border' : f >= hot ? 'fail' : 'accent';
      row.push([f === 0 ? pg.dot : pg.shade[Math.min(4, shade)]!, { fg: role }]);
    }
    row.push([` ${p.by_hour[h] ?? 0}`, { fg: 'dim' }]);
    rows.push(row);
  }
  return rows;
}

function paint(sp: PressureSurface, ctx: RenderCtx): PanelPaint {
  const hint = 'r recompute · e try the hourly slot in the sandbox · j/k scroll · esc close';
  const p = sp.pressure;
  if (p === null) {
    const msg = sp.error
      ? ` ⚠ could not load the schedule analysis: ${flatten(sp.error)}`
      : ' analysing the next 24 h…';
    return paintPanel(sp, ctx, {
      title: 'schedule pressure',
      width: WIDTH,
      rows: [[[msg, { fg: sp.error ? 'fail' : 'dim' }]]],
      hint,
    });
  }
  const b = p.busiest_minute;
  const top = busiestCell(p.grid);
  const facts: PanelRow = [
    [` next ${p.hours}h: ${p.total_fires} fires from ${p.jobs} schedules`, { fg: 'bright', bold: true }],
    [` · busiest ${mm(b.minute)} (${b.jobs} jobs)`, { fg: 'fg' }],
    [` · ${p.empty_minutes.length}/60 minutes empty`, { fg: 'fg' }],
  ];
  const head: PanelRow[] = [facts];
  const sub: string[] = [];
  if (top) sub.push(`busiest cell ${cellLabel(top.hour, top.minute)} · ${top.fires} fires`);
  if (p.excluded.disabled > 0 || p.excluded.reboot > 0)
    sub.push(`not counted: ${p.excluded.disabled} disabled, ${p.excluded.reboot} @reboot`);
  sub.push(flatten(p.timezone));
  head.push([[` ${sub.join(' · ')}`, { fg: 'dim' }]]);
  if (sp.error) head.push([[` ⚠ ${flatten(sp.error)} (showing the last answer)`, { fg: 'warn' }]]);
  const rows: PanelRow[] = [
    ...histogramRows(p, ctx),
    minuteAxis(),
    [['']],
    ...suggestRows(sp),
    [['']],
    ...topRows(p),
    [['']],
    ...dupRows(sp.dups),
    [['']],
    ...gridRows(p, ctx),
  ];
  return paintPanel(sp, ctx, { title: 'schedule pressure', width: WIDTH, head, rows, hint });
}

const load = (ctl: Controller): Promise<void> =>
  loadInto<PressureSurface>(ctl, 'pressure', async (c) => {
    const [pressure, dups, hourly, daily] = await Promise.all([
      c.json<ApiPressure>('/schedule/pressure'),
      c.json<ApiDuplicates>('/schedule/duplicates'),
      c.json<ApiSuggest>('/schedule/suggest?period=hourly'),
      c.json<ApiSuggest>('/schedule/suggest?period=daily'),
    ]);
    return { pressure, dups, hourly, daily };
  });

export const pressureView: View<PressureSurface> = {
  kind: 'pressure',
  paint,
  key(sp, key, ctx) {
    if (key.name === 'r' && !key.ctrl) {
      ctx.ctl.toast('↻ pressure', 'info');
      void load(ctx.ctl);
      return true;
    }
    if (key.name === 'e' && !key.ctrl) {
      openSandbox(ctx, sp.hourly?.expression);
      return true;
    }
    return commonPanelKey(sp, key, ctx);
  },
};

export const pressureDescriptor: ViewDescriptor = panelDescriptor('pressure', pressureView, {
  key: 'P',
  title: 'Toggle schedule pressure',
  icon: '▥',
  what: 'Schedule pressure',
  create: () =>
    ({
      kind: 'pressure',
      scroll: 0,
      pressure: null,
      dups: null,
      hourly: null,
      daily: null,
      error: null,
    }) as PressureSurface as Surface,
  opened(ctl) {
    void load(ctl);
    keepFresh(ctl, 'pressure', { everyMs: REFRESH_MS, every: (c) => void load(c) });
  },
});

// The cron sandbox (spec 08 §4.12; the web twin is Sandbox.tsx): type any expression, a zone and an `H` seed and
// see, as you type, whether the daemon's engine accepts it, its plain-English description, its next fires and
// the lint findings — all from the shared sandbox model, no request. Every printable key types (`q` too); `Tab`
// moves between the three fields; `Enter` settles (re-reads the clock); `Esc` closes.
import { formatIn } from '../../../dashboard/format.ts';
import { sandboxPreview } from '../../../dashboard/sandbox.ts';
import type { Surface } from '../../app/state.ts';
import { flatten } from '../../text/sanitize.ts';
import type { Role } from '../../text/theme.ts';
import { innerWidth } from '../panel.ts';
import {
  bodyRoom,
  type PanelRow,
  paintPanel,
  panelDescriptor,
  patchKind,
  type ScrollSurface,
  togglePanel,
  wrapText,
} from '../panelkit.ts';
import type { PanelPaint, RenderCtx, View, ViewCtx, ViewDescriptor } from '../types.ts';

export const FIELDS = ['expr', 'zone', 'seed'] as const;
export type Field = (typeof FIELDS)[number];

export interface SandboxSurface extends ScrollSurface {
  kind: 'sandbox';
  expr: string;
  zone: string;
  seed: string;
  field: Field;
  /** wall ms the preview was last settled at (`Enter`); the preview follows the clock anyway */
  settled: number;
}

const WIDTH = 64;
const DEFAULT_EXPR = '*/15 9-17 * * mon-fri';
const MAX_FIRES = 12;
const LEVEL: Record<string, [string, Role]> = {
  error: ['✕', 'fail'],
  warning: ['⚠', 'warn'],
  note: ['·', 'dim'],
};

function fieldRow(sb: SandboxSurface, ctx: RenderCtx, field: Field, label: string, inner: number): PanelRow {
  const on = sb.field === field;
  const value = flatten(sb[field]);
  const shown = value.length > inner - 14 ? `…${value.slice(value.length - (inner - 15))}` : value;
  return [
    [label, { fg: on ? 'accent' : 'dim', bold: on }],
    [shown + (on ? ctx.g.cursor : ''), { fg: on ? 'bright' : 'fg', bg: on ? 'sel' : 'bg' }],
    [field === 'seed' && !sb.seed ? '(a job name, for H)' : '', { fg: 'dim' }],
  ];
}

/** The preview's rows for the current fields at `now` (UTC unless a zone is typed). */
export function sandboxRows(sb: SandboxSurface, now: number, room: number, inner = WIDTH - 4): PanelRow[] {
  const zone = sb.zone.trim() || 'UTC';
  const r = sandboxPreview(sb.expr, zone, Math.floor(now / 1000) * 1000, {
    seed: sb.seed.trim(),
    count: MAX_FIRES,
  });
  const rows: PanelRow[] = [];
  if (r.kind === 'empty') {
    rows.push([[' type a cron expression (5, 6 or 7 fields, or @hourly…)', { fg: 'dim' }]]);
    return rows;
  }
  if (r.kind === 'error') {
    rows.push([[' ✕ the engine rejects it:', { fg: 'fail', bold: true }]]);
    for (const line of wrapText(flatten(r.error), inner - 4)) rows.push([[`   ${line}`, { fg: 'fail' }]]);
    return rows;
  }
  if (r.kind === 'reboot') {
    rows.push([[` ✓ ${r.description}`, { fg: 'ok', bold: true }]]);
    return rows;
  }
  for (const [i, line] of wrapText(flatten(r.description), inner - 4).entries())
    rows.push([
      [i === 0 ? ' ✓ ' : '   ', { fg: 'ok', bold: true }],
      [line, { fg: r.resolved ? 'dim' : 'ok' }],
    ]);
  if (r.resolved)
    rows.push([
      ['   H resolves to ', { fg: 'dim' }],
      [flatten(r.resolved), { fg: 'accent' }],
      [` (a per-job hash of '${flatten(sb.seed.trim())}')`, { fg: 'dim' }],
    ]);
  const findings = r.findings.filter((f) => f.code !== 'hashed-slot').slice(0, 4);
  rows.push([['']]);
  if (r.fires.length === 0) rows.push([[' this schedule never fires', { fg: 'fail' }]]);
  else {
    rows.push([[` next fires (${flatten(zone)}):`, { fg: 'fg', bold: true }]]);
    const count = Math.max(6, Math.min(MAX_FIRES, room - rows.length - findings.length - 2));
    for (const f of r.fires.slice(0, count))
      rows.push([
        [`   ${f.weekday} `, { fg: 'dim' }],
        [f.civil, { fg: 'fg' }],
        [`  ${formatIn(f.at - now)}`, { fg: 'dim' }],
      ]);
  }
  if (findings.length > 0) rows.push([['']]);
  for (const f of findings) {
    const [glyph, role] = LEVEL[f.level] ?? LEVEL.note!;
    for (const [i, line] of wrapText(flatten(f.message), inner - 4).entries())
      rows.push([[`${i === 0 ? ` ${glyph} ` : '   '}${line}`, { fg: role }]]);
  }
  return rows;
}

function paint(sb: SandboxSurface, ctx: RenderCtx): PanelPaint {
  const inner = innerWidth(WIDTH, ctx.s.cols);
  const head: PanelRow[] = [
    fieldRow(sb, ctx, 'expr', ' ◴ ', inner),
    [
      ...fieldRow(sb, ctx, 'zone', '   zone ', inner).slice(0, 2),
      ...fieldRow(sb, ctx, 'seed', '   seed ', inner),
    ],
    [['']],
  ];
  const rows = sandboxRows(sb, ctx.s.now, bodyRoom(ctx.s, head.length), inner);
  return paintPanel(sb, ctx, {
    title: 'cron sandbox',
    width: WIDTH,
    head,
    rows,
    hint: 'type · tab next field · ctrl+u clear · esc close',
  });
}

/** Opens the sandbox, optionally with an expression (the pressure panel's suggestion). */
export function openSandbox(ctx: ViewCtx, expr?: string): void {
  if (ctx.ctl.top()?.kind !== 'sandbox') togglePanel(ctx, 'sandbox');
  if (expr !== undefined) patchKind<SandboxSurface>(ctx.ctl, 'sandbox', { expr, field: 'expr' });
}

export const sandboxView: View<SandboxSurface> = {
  kind: 'sandbox',
  focused: () => true,
  paint,
  key(sb, key, ctx) {
    const { ctl } = ctx;
    const f = sb.field;
    if (key.name === 'tab' || key.name === 'backtab' || key.name === 'down' || key.name === 'up') {
      const dir = key.name === 'tab' || key.name === 'down' ? 1 : -1;
      ctl.update(sb, { field: FIELDS[(FIELDS.indexOf(f) + dir + FIELDS.length) % FIELDS.length]! });
    } else if (key.name === 'enter') ctl.update(sb, { settled: ctl.state.now });
    else if (key.name === 'backspace') ctl.update(sb, { [f]: sb[f].slice(0, -1) });
    else if (key.ctrl && key.name === 'u') ctl.update(sb, { [f]: '' });
    else if (key.text !== '' && !key.ctrl) ctl.update(sb, { [f]: sb[f] + key.text });
    return true;
  },
};

export const sandboxDescriptor: ViewDescriptor = panelDescriptor('sandbox', sandboxView, {
  key: 'E',
  title: 'Cron sandbox',
  icon: '◴',
  what: 'Cron sandbox (schedule explainer)',
  create: (ctl) =>
    ({
      kind: 'sandbox',
      scroll: 0,
      expr: DEFAULT_EXPR,
      zone: 'UTC',
      seed: '',
      field: 'expr',
      settled: ctl.state.now,
    }) as SandboxSurface as Surface,
});

// The help overlay (spec 08 §4.6): the web dashboard's shortcut table (the shared list, so both UIs agree),
// then the keys only the terminal has.
import { capitalize } from '../../../dashboard/format.ts';
import { SHORTCUTS } from '../../../dashboard/shortcuts.ts';
import type { Surface } from '../../app/state.ts';
import { bodyRow, innerWidth } from '../panel.ts';
import type { PanelPaint, RenderCtx, View } from '../types.ts';

export interface HelpSurface extends Surface {
  kind: 'help';
  scroll: number;
}

/** Keys of the terminal dashboard that the web one does not have. */
export const TERMINAL_EXTRAS: ReadonlyArray<readonly [string, string]> = [
  ['q', 'Quit'],
  ['s / S', 'Cycle sort key / direction'],
  ['f', 'Cycle status filter'],
  ['m', 'Multi-tail console'],
  ['space', 'Mark a job; r / x then run / cancel the marked'],
  ['←/→ or Tab', 'Switch drawer tab'],
  ['PgUp / PgDn', 'Scroll'],
  ['in logs: f/t/w', 'Follow · timestamps · wrap'],
  ['in logs: / n N', 'Search · next · previous'],
  ['in logs: d', 'Save log to a file'],
  ['C / F / N', 'Cluster · fleet · node resources'],
  ['H / R / P / v', 'Heatmap · radar · pressure · week'],
  ['E', 'Cron sandbox (schedule explainer)'],
];

const WIDTH = 64;

function rows(ctx: RenderCtx, inner: number): string[] {
  const out: string[] = [];
  const keyRow = (keys: string, what: string, role: 'accent' | 'pending') =>
    bodyRow(ctx, inner, [
      [keys.padEnd(16), { fg: role, bold: role === 'accent' }],
      [what, { fg: 'fg' }],
    ]);
  out.push(bodyRow(ctx, inner, [["the web dashboard's keys", { fg: 'dim' }]]));
  for (const section of SHORTCUTS) {
    out.push(bodyRow(ctx, inner, [[section.section.toLowerCase(), { fg: 'dim' }]]));
    for (const k of section.keys) out.push(keyRow(k.keys.join(' / '), capitalize(k.what), 'accent'));
  }
  out.push(bodyRow(ctx, inner, [['']]));
  out.push(bodyRow(ctx, inner, [['terminal extras', { fg: 'dim' }]]));
  for (const [k, what] of TERMINAL_EXTRAS) out.push(keyRow(k, what, 'pending'));
  return out;
}

export const helpView: View<HelpSurface> = {
  kind: 'help',
  paint(h, ctx): PanelPaint {
    const inner = innerWidth(WIDTH, ctx.s.cols);
    const all = rows(ctx, inner);
    const visible = Math.max(4, ctx.s.rows - 6);
    const top = Math.min(h.scroll, Math.max(0, all.length - visible));
    return {
      placement: 'panel',
      title: 'keyboard shortcuts',
      width: WIDTH,
      body: all.slice(top, top + visible),
      hint: 'esc close · j/k scroll',
    };
  },
  key(h, key, ctx) {
    const { ctl } = ctx;
    // rows() is static text: its length bounds the scroll (so `k` answers at once after a long `j`)
    const total = SHORTCUTS.reduce((n, sec) => n + 1 + sec.keys.length, 0) + 3 + TERMINAL_EXTRAS.length;
    const max = Math.max(0, total - Math.max(4, ctl.state.rows - 6));
    if (key.name === '?') ctl.close('help');
    else if (key.name === 'j' || key.name === 'down' || key.name === 'pagedown')
      ctl.update(h, { scroll: Math.min(max, h.scroll + (key.name === 'pagedown' ? 10 : 1)) });
    else if (key.name === 'k' || key.name === 'up' || key.name === 'pageup')
      ctl.update(h, { scroll: Math.max(0, h.scroll - (key.name === 'pageup' ? 10 : 1)) });
    return true;
  },
};

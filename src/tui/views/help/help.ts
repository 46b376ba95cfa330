// The help overlay (spec 08 §4.6): the web dashboard's shortcut table (the shared list, so both UIs agree),
// then the keys only the terminal has, as the registry's descriptors declare them.
import { capitalize } from '../../../dashboard/format.ts';
import { SHORTCUTS } from '../../../dashboard/shortcuts.ts';
import type { Controller } from '../../app/controller.ts';
import type { Surface } from '../../app/state.ts';
import { fit } from '../../text/width.ts';
import { command } from '../command.ts';
import { bodyRow, innerWidth } from '../panel.ts';
import type { PanelPaint, RenderCtx, View, ViewDescriptor } from '../types.ts';

export interface HelpSurface extends Surface {
  kind: 'help';
  scroll: number;
}

const WIDTH = 64;

function rows(ctx: RenderCtx, inner: number): string[] {
  const out: string[] = [];
  const keyRow = (keys: string, what: string, role: 'accent' | 'pending') =>
    bodyRow(ctx, inner, [
      [fit(keys, 16), { fg: role, bold: role === 'accent' }],
      [what, { fg: 'fg' }],
    ]);
  out.push(bodyRow(ctx, inner, [["the web dashboard's keys", { fg: 'dim' }]]));
  for (const section of SHORTCUTS) {
    out.push(bodyRow(ctx, inner, [[section.section.toLowerCase(), { fg: 'dim' }]]));
    for (const k of section.keys) out.push(keyRow(k.keys.join(' / '), capitalize(k.what), 'accent'));
  }
  out.push(bodyRow(ctx, inner, [['']]));
  out.push(bodyRow(ctx, inner, [['terminal extras', { fg: 'dim' }]]));
  for (const [k, what] of ctx.views.helpRows()) out.push(keyRow(k, what, 'pending'));
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
    const total = SHORTCUTS.reduce((n, sec) => n + 1 + sec.keys.length, 0) + 3 + ctx.views.helpRows().length;
    const max = Math.max(0, total - Math.max(4, ctl.state.rows - 6));
    if (key.name === '?') ctl.close('help');
    else if (key.name === 'j' || key.name === 'down' || key.name === 'pagedown')
      ctl.update(h, { scroll: Math.min(max, h.scroll + (key.name === 'pagedown' ? 10 : 1)) });
    else if (key.name === 'k' || key.name === 'up' || key.name === 'pageup')
      ctl.update(h, { scroll: Math.max(0, h.scroll - (key.name === 'pageup' ? 10 : 1)) });
    return true;
  },
};

const openHelp = (ctl: Controller): void => ctl.push({ kind: 'help', scroll: 0 } as HelpSurface);

export const helpDescriptor: ViewDescriptor = {
  folder: 'help',
  surfaces: [helpView],
  keys: [{ keys: ['?'], what: 'This help', run: ({ ctl }) => openHelp(ctl) }],
  palette: ({ ctl }) => [command('help', 'Keyboard shortcuts', '?', () => openHelp(ctl))],
};

// The help overlay (spec 08 §4.6), generated from the terminal's own key map (issue 33): the keys dispatch
// takes anywhere, every board key and each view's keys inside its surfaces, with their own descriptions.
// Keys the web dashboard's sheet also lists come first under their own heading, the rest are terminal
// extras; a key the terminal does not take is never listed. Descriptions wrap at spaces under their own
// column, so no line is cut mid-word and no key runs into its text.
import { SHORTCUTS } from '../../../dashboard/shortcuts.ts';
import type { Controller } from '../../app/controller.ts';
import { GLOBAL_KEYS } from '../../app/dispatch.ts';
import type { Surface } from '../../app/state.ts';
import type { Style } from '../../text/theme.ts';
import { cellWidth, fit, wrapWords } from '../../text/width.ts';
import { command } from '../command.ts';
import { bodyRow, innerWidth } from '../panel.ts';
import type { HelpRow, PanelPaint, View, ViewDescriptor, ViewTable } from '../types.ts';

export interface HelpSurface extends Surface {
  kind: 'help';
  scroll: number;
}

const WIDTH = 64;
/** the key column never takes more than this; a longer label gets a row of its own */
const KEY_MAX = 16;

/** `Ctrl K` and `Ctrl-K` are one key (`C` and `c` are not). */
const norm = (label: string): string => label.replace(/[\s-]+/g, '');
const WEB_KEYS = new Set(SHORTCUTS.flatMap((s) => s.keys.flatMap((k) => k.keys.map(norm))));
/** A row the web dashboard's sheet lists too: each of its keys is one of the web's. */
const onWeb = ([label]: HelpRow): boolean => label.split(' / ').every((k) => WEB_KEYS.has(norm(k)));

/** One painted row of the sheet: a key label (or none), its text, and how they are drawn. */
export interface HelpLine {
  keys: string;
  text: string;
  kind: 'heading' | 'shared' | 'extra' | 'blank';
}

/** The sheet's rows at an inner width of `inner` cells. */
export function helpLines(inner: number, views: Pick<ViewTable, 'helpRows'>): HelpLine[] {
  const all = [...GLOBAL_KEYS, ...views.helpRows()];
  const keyCol = Math.min(KEY_MAX, Math.max(...all.map(([k]) => cellWidth(k)))) + 2;
  const out: HelpLine[] = [];
  const section = (heading: string, rows: HelpRow[], kind: 'shared' | 'extra') => {
    out.push({ keys: '', text: heading, kind: 'heading' });
    for (const [keys, what] of rows) {
      const own = cellWidth(keys) > keyCol - 2;
      if (own) out.push({ keys, text: '', kind });
      wrapWords(what, inner - keyCol).forEach((text, i) => {
        out.push({ keys: i === 0 && !own ? fit(keys, keyCol) : ' '.repeat(keyCol), text, kind });
      });
    }
  };
  section('shared with the web dashboard', all.filter(onWeb), 'shared');
  out.push({ keys: '', text: '', kind: 'blank' });
  section(
    'terminal extras',
    all.filter((r) => !onWeb(r)),
    'extra',
  );
  return out;
}

const KEY_STYLE: Record<HelpLine['kind'], Style> = {
  heading: {},
  blank: {},
  shared: { fg: 'accent', bold: true },
  extra: { fg: 'pending' },
};

/** Rows the sheet shows at once on a screen of `rows` rows. */
const visibleRows = (rows: number): number => Math.max(4, rows - 6);

export const helpView: View<HelpSurface> = {
  kind: 'help',
  paint(h, ctx): PanelPaint {
    const inner = innerWidth(WIDTH, ctx.s.cols);
    const all = helpLines(inner, ctx.views).map((l) =>
      l.kind === 'heading'
        ? bodyRow(ctx, inner, [[l.text, { fg: 'dim' }]])
        : bodyRow(ctx, inner, [
            [l.keys, KEY_STYLE[l.kind]],
            [l.text, { fg: 'fg' }],
          ]),
    );
    const visible = visibleRows(ctx.s.rows);
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
    // the sheet is static text: its length bounds the scroll (so `k` answers at once after a long `j`)
    const total = helpLines(innerWidth(WIDTH, ctl.state.cols), ctx.views).length;
    const max = Math.max(0, total - visibleRows(ctl.state.rows));
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

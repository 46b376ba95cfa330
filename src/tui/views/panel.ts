// The centred panel frame (spec 08 §4.1): `┌──╴title╶──┐`, body rows `│ … │` cut to the inner width, an
// optional hint under `├──┤`, `└──┘`. Rows the panel covers are replaced full width, with dim margins.
import { Line } from '../text/line.ts';
import type { Style } from '../text/theme.ts';
import { cellWidth } from '../text/width.ts';
import type { PanelPaint, RenderCtx } from './types.ts';

/** Inner width of a panel of `width` columns on this screen. */
export function innerWidth(width: number, cols: number): number {
  return Math.max(10, Math.min(width, cols - 4)) - 4;
}

/** A body row: spans on the panel's inner width. */
export function bodyRow(ctx: RenderCtx, inner: number, spans: ReadonlyArray<[string, Style?]>): string {
  const line = new Line(ctx.theme, inner);
  for (const [text, style] of spans) line.add(text, style ?? {});
  return line.done();
}

/** Paints a panel over `rows` (the board), centred; returns the new rows. */
export function overlayPanel(rows: string[], p: PanelPaint, ctx: RenderCtx): string[] {
  const { theme, g } = ctx;
  const cols = ctx.s.cols;
  const width = Math.max(14, Math.min(p.width, cols - 4));
  const inner = width - 4;
  const border: Style = { fg: 'border' };
  const left = Math.floor((cols - width) / 2);
  const margin = (l: Line) => l.add(' '.repeat(left), { fg: 'dim' });
  const boxRow = (content: string): string => {
    const l = new Line(theme, cols);
    margin(l);
    l.add(`${g.v} `, border);
    l.raw(content, inner);
    l.add(` ${g.v}`, border);
    return l.done();
  };
  const hline = (a: string, b: string, title?: string): string => {
    const l = new Line(theme, cols);
    margin(l);
    if (title === undefined) {
      l.add(a + g.h.repeat(width - 2) + b, border);
    } else {
      const t = `${g.titleL}${title}${g.titleR}`;
      const side = width - 2 - cellWidth(t);
      const lw = Math.floor(side / 2);
      l.add(a + g.h.repeat(lw), border);
      l.add(t, { fg: 'accent', bold: true });
      l.add(g.h.repeat(side - lw) + b, border);
    }
    return l.done();
  };
  const maxBody = Math.max(1, rows.length - 2 - (p.hint ? 2 : 0));
  const body = p.body.slice(0, maxBody);
  const box: string[] = [hline(g.tl, g.tr, p.title), ...body.map(boxRow)];
  if (p.hint) {
    box.push(hline(g.lt, g.rt));
    box.push(boxRow(bodyRow(ctx, inner, [[p.hint, { fg: 'dim' }]])));
  }
  box.push(hline(g.bl, g.br));
  const top = Math.max(0, Math.floor((rows.length - box.length) / 2));
  const out = rows.slice();
  box.forEach((r, i) => {
    if (top + i < out.length) out[top + i] = r;
  });
  return out;
}

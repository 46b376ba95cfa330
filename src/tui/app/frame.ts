// One frame as rows of text (spec 08 §4.1): the wallboard, or the board with every open surface painted over
// it in stack order (a drawer spliced on the right, a panel centred), then toasts. Pure: state in, rows out.
import { asciiRow } from '../text/asciify.ts';
import { Line, leftPart } from '../text/line.ts';
import { paintBoard } from '../views/board/board.ts';
import { overlayToasts } from '../views/board/chrome.ts';
import { paintBoot } from '../views/boot/boot.ts';
import { drawerWidth } from '../views/drawer/drawer.ts';
import { overlayPanel } from '../views/panel.ts';
import type { RenderCtx } from '../views/types.ts';
import { paintWallboard } from '../views/wallboard/wallboard.ts';

export const MIN_COLS = 40;
export const MIN_ROWS = 10;

/** The frame's rows, one per terminal row; in ASCII mode every cell is ASCII. */
export function composeFrame(ctx: RenderCtx): string[] {
  const rows = composeRows(ctx);
  return ctx.s.ascii ? rows.map(asciiRow) : rows;
}

function composeRows(ctx: RenderCtx): string[] {
  const { s, theme } = ctx;
  const height = Math.max(1, s.rows);
  if (s.cols < MIN_COLS || s.rows < MIN_ROWS) {
    const msg = `terminal too small (${s.cols}×${s.rows}, need ${MIN_COLS}×${MIN_ROWS})`;
    const out: string[] = [];
    for (let r = 0; r < height; r++) {
      const l = new Line(theme, s.cols);
      if (r === Math.floor(height / 2))
        l.add(' '.repeat(Math.max(0, Math.floor((s.cols - msg.length) / 2))) + msg);
      out.push(l.done());
    }
    return out;
  }
  if (s.boot) return paintBoot(ctx, height);
  if (s.wallboard) return paintWallboard(ctx, height);
  let rows = paintBoard(ctx, height);
  for (const surface of s.stack) {
    const p = ctx.views.viewOf(surface).paint(surface, ctx);
    if (p.placement === 'panel') rows = overlayPanel(rows, p, ctx);
    else {
      const w = drawerWidth(s.cols);
      const left = s.cols - w;
      rows = rows.map((row, i) => {
        const l = new Line(theme, s.cols);
        if (left > 0) l.raw(leftPart(row, left), left);
        l.add(ctx.g.v, { fg: 'accent' });
        l.raw(p.rows[i] ?? '', w - 1);
        return l.done();
      });
    }
  }
  return overlayToasts(rows, ctx);
}

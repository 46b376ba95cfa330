// One screen row built from styled spans, cut to its width (never wrapped) and padded with the row's
// background, so every row of a frame is exactly as wide as the terminal.
import { RESET, type Style, type Theme } from './theme.ts';
import { cellWidth, fit, truncate } from './width.ts';

export class Line {
  private out = '';
  private used = 0;

  constructor(
    private readonly theme: Theme,
    readonly width: number,
    private readonly base: Style = {},
  ) {}

  get left(): number {
    return this.width - this.used;
  }

  /** Appends `text` in `style`; with `cells`, padded or cut to exactly that many cells. */
  add(text: string, style: Style = {}, cells?: number): this {
    if (this.used >= this.width) return this;
    let t = cells === undefined ? text : fit(text, cells);
    let w = cells ?? cellWidth(t);
    if (this.used + w > this.width) {
      t = truncate(t, this.width - this.used, '');
      w = cellWidth(t);
    }
    this.out += this.theme.sgr({ ...this.base, ...style, bg: style.bg ?? this.base.bg }) + t;
    this.used += w;
    return this;
  }

  /** Appends already-styled text (a re-inked log line), cut to what is left. */
  raw(styled: string, cells: number): this {
    if (this.used >= this.width) return this;
    const room = this.width - this.used;
    const t = cells > room ? truncate(styled, room, '') : styled;
    this.out += t;
    this.used += Math.min(cells, room);
    return this;
  }

  /** Pads to `col` (absolute cell column). */
  to(col: number, style: Style = {}): this {
    if (col > this.used) this.add(' '.repeat(col - this.used), style);
    return this;
  }

  /** The row: padded to the full width in the base style, then reset. */
  done(): string {
    if (this.used < this.width) this.add(' '.repeat(this.width - this.used));
    return this.out + RESET;
  }
}

/** Cuts a finished row to its first `cols` cells (the part of the board left of a drawer). */
export function leftPart(row: string, cols: number): string {
  return truncate(row, cols, '');
}

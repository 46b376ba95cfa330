// One screen row built from styled spans, cut to its width (never wrapped) and padded with the row's
// background, so every row of a frame is exactly as wide as the terminal. A row that loses text to its width
// ends in `…` (spec 08 §6.5), whichever span the cut falls in: the one place every line is cut.
import { RESET, type Style, type Theme } from './theme.ts';
import { cellWidth, clip, fit, truncate } from './width.ts';

export class Line {
  private out = '';
  private used = 0;
  /** a span with visible text found the row already full */
  private dropped = false;

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
    if (this.used >= this.width) {
      if (/\S/.test(text)) this.dropped = true;
      return this;
    }
    let t = cells === undefined ? text : fit(text, cells);
    let w = cells ?? cellWidth(t);
    if (this.used + w > this.width) {
      t = clip(t, this.width - this.used);
      w = cellWidth(t);
    }
    this.out += this.theme.sgr({ ...this.base, ...style, bg: style.bg ?? this.base.bg }) + t;
    this.used += w;
    return this;
  }

  /** Appends already-styled text (a re-inked log line), cut to what is left. */
  raw(styled: string, cells: number): this {
    if (this.used >= this.width) {
      if (cells > 0) this.dropped = true;
      return this;
    }
    const room = this.width - this.used;
    const t = cells > room ? clip(styled, room) : styled;
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
    // The row filled exactly and a later span was left out: its last cell says so.
    if (this.dropped && this.width > 0 && !this.out.endsWith('…'))
      this.out = `${truncate(this.out, this.width - 1, '')}…`;
    return this.out + RESET;
  }
}

/** Cuts a finished row to its first `cols` cells (the part of the board left of a drawer). */
export function leftPart(row: string, cols: number): string {
  return truncate(row, cols, '');
}

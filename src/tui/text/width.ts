// Cell widths, truncation and padding (spec 08 §6.5): one width function for layout and for cutting, so a
// CJK name never pushes the drawer divider or a panel border out of its column. Per code point: combining
// marks and format characters 0, East-Asian Wide/Fullwidth 2, everything else (ambiguous too) 1; SGR 0.
// Measured per code point with a cache: string-width's grapheme segmentation cost more than the rest of a
// frame together.
import { eastAsianWidth } from 'get-east-asian-width';

const SGR = /\u001b\[[0-9;]*m/y;
const ZERO = /^[\p{Mn}\p{Me}\p{Cf}]$/u;
const widths = new Map<number, number>();

/** The SGR sequence starting at `i`, or null. */
function sgrAt(text: string, i: number): string | null {
  if (text.charCodeAt(i) !== 0x1b) return null;
  SGR.lastIndex = i;
  return SGR.exec(text)?.[0] ?? null;
}

function codePointWidth(c: number): number {
  if (c >= 0x20 && c < 0x7f) return 1;
  let w = widths.get(c);
  if (w === undefined) {
    const ch = String.fromCodePoint(c);
    if (c < 0x20 || (c >= 0x7f && c < 0xa0)) w = 0;
    else if (c !== 0xad && ZERO.test(ch)) w = 0;
    else w = eastAsianWidth(c);
    widths.set(c, w);
  }
  return w;
}

/** Width of one code point (given as a string) in cells. */
function charWidth(ch: string): number {
  return codePointWidth(ch.codePointAt(0)!);
}

/** Cells `text` occupies (SGR sequences count 0). */
export function cellWidth(text: string): number {
  let w = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x20 && c < 0x7f) {
      w++;
      continue;
    }
    const sgr = c === 0x1b ? sgrAt(text, i) : null;
    if (sgr !== null) {
      i += sgr.length - 1;
      continue;
    }
    const cp = text.codePointAt(i)!;
    if (cp > 0xffff) i++;
    w += codePointWidth(cp);
  }
  return w;
}

/**
 * Cuts `text` to at most `width` cells, never splitting a wide character; a cut line ends in `ellipsis` (when
 * it fits). SGR sequences pass through untouched, so colours survive a cut.
 */
export function truncate(text: string, width: number, ellipsis = '…'): string {
  if (width <= 0) return '';
  if (cellWidth(text) <= width) return text;
  const room = width - cellWidth(ellipsis);
  let out = '';
  let used = 0;
  let i = 0;
  while (i < text.length) {
    const sgr = sgrAt(text, i);
    if (sgr !== null) {
      out += sgr;
      i += sgr.length;
      continue;
    }
    const cp = text.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    const w = charWidth(ch);
    if (used + w > room) break;
    out += ch;
    used += w;
    i += ch.length;
  }
  // A wide character that did not fit leaves one cell over: pad it so the edge stays put.
  const tail = room >= 0 ? ellipsis : '';
  return out + ' '.repeat(Math.max(0, room - used)) + tail;
}

/** Trailing blanks and SGR sequences: what a cut may drop without saying so. */
const TRAILING_BLANK = /(?:\s|\u001b\[[0-9;]*m)+$/;

/**
 * `text` cut to at most `width` cells as every row of the dashboard is cut (spec 08 §6.5): ending in `…` when
 * visible text is lost, without one when only trailing blanks (padding) are.
 */
export function clip(text: string, width: number): string {
  if (cellWidth(text) <= width) return text;
  const lost = cellWidth(text.replace(TRAILING_BLANK, '')) > width;
  return truncate(text, width, lost ? '…' : '');
}

/** `text` padded with spaces (or cut) to exactly `width` cells. */
export function fit(text: string, width: number, ellipsis = '…'): string {
  const w = cellWidth(text);
  if (w === width) return text;
  if (w < width) return text + ' '.repeat(width - w);
  return truncate(text, width, ellipsis);
}

/** `text` right-aligned in `width` cells. */
export function fitRight(text: string, width: number): string {
  const w = cellWidth(text);
  return w >= width ? truncate(text, width) : ' '.repeat(width - w) + text;
}

/**
 * Splits a line into chunks of at most `width` cells (wrap mode), keeping SGR state: each chunk after the
 * first starts with the SGR sequences seen so far, so colours continue on the next row.
 */
export function wrapCells(text: string, width: number): string[] {
  if (width <= 0) return [text];
  if (cellWidth(text) <= width) return [text];
  const rows: string[] = [];
  let row = '';
  let used = 0;
  let carry = '';
  let i = 0;
  while (i < text.length) {
    const sgr = sgrAt(text, i);
    if (sgr !== null) {
      row += sgr;
      carry = sgr === '\u001b[0m' || sgr === '\u001b[m' ? '' : carry + sgr;
      i += sgr.length;
      continue;
    }
    const ch = String.fromCodePoint(text.codePointAt(i)!);
    const w = charWidth(ch);
    if (used + w > width) {
      rows.push(row);
      row = carry;
      used = 0;
    }
    row += ch;
    used += w;
    i += ch.length;
  }
  if (row !== '' || rows.length === 0) rows.push(row);
  return rows;
}

/**
 * Splits plain text into rows of at most `width` cells at spaces, so no word is cut (a word wider than a row
 * is split by cells, the one case that cannot be helped).
 */
export function wrapWords(text: string, width: number): string[] {
  if (width <= 0) return [text];
  const rows: string[] = [];
  let row = '';
  for (const word of text.split(' ').filter((w) => w !== '')) {
    const joined = row === '' ? word : `${row} ${word}`;
    if (cellWidth(joined) <= width) {
      row = joined;
      continue;
    }
    if (row !== '') rows.push(row);
    const pieces = cellWidth(word) > width ? wrapCells(word, width) : [word];
    rows.push(...pieces.slice(0, -1));
    row = pieces.at(-1)!;
  }
  rows.push(row);
  return rows;
}

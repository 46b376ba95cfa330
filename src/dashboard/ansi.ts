// ANSI SGR colour codes in job output -> styled text spans (the 16 basic colours, bold, dim, reset).
// Other escape sequences are removed.

export interface AnsiSpan {
  text: string;
  /** colour index 0-15, or -1 for the default */
  fg: number;
  bold: boolean;
  dim: boolean;
}

const ESCAPE = /\u001b\[([0-9;]*)([A-Za-z])|\u001b[@-Z\\-_]/g;

/** Splits a line into spans; with `colour` off the escapes are stripped and one plain span remains. */
export function parseAnsi(line: string, colour = true): AnsiSpan[] {
  if (!line.includes('\u001b')) return [{ text: line, fg: -1, bold: false, dim: false }];
  const spans: AnsiSpan[] = [];
  let fg = -1;
  let bold = false;
  let dim = false;
  let last = 0;
  ESCAPE.lastIndex = 0;
  for (let m = ESCAPE.exec(line); m !== null; m = ESCAPE.exec(line)) {
    if (m.index > last) spans.push({ text: line.slice(last, m.index), fg, bold, dim });
    last = m.index + m[0].length;
    if (m[2] !== 'm') continue;
    const codes = (m[1] ?? '').split(';').map((c) => (c === '' ? 0 : Number(c)));
    for (const code of codes) {
      if (code === 0) {
        fg = -1;
        bold = false;
        dim = false;
      } else if (code === 1) bold = true;
      else if (code === 2) dim = true;
      else if (code === 22) {
        bold = false;
        dim = false;
      } else if (code >= 30 && code <= 37) fg = code - 30;
      else if (code >= 90 && code <= 97) fg = code - 90 + 8;
      else if (code === 39) fg = -1;
    }
  }
  if (last < line.length) spans.push({ text: line.slice(last), fg, bold, dim });
  if (!colour) return [{ text: spans.map((s) => s.text).join(''), fg: -1, bold: false, dim: false }];
  return spans.filter((s) => s.text !== '');
}

/** The line without escape sequences (for search and download). */
export function stripAnsi(line: string): string {
  return line.includes('\u001b') ? line.replace(ESCAPE, '') : line;
}

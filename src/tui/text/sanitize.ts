// Untrusted text (job output, and every string the API returns: under clustering, names come from other
// machines) reaches the terminal only through these functions (spec 08 §6.4). A job must never be able to set
// the window title, write the clipboard, clear the screen or leave the alternate screen through us.
//
// Order matters (Q6): escape sequences are removed from the raw text first and control characters after, so a
// BEL that terminates an OSC still terminates it and the text after the sequence survives.

const ESC = 0x1b;
const BEL = 0x07;

/** 8-bit C1 introducers some terminals honour; each is treated like its 7-bit ESC form. */
const C1_CSI = 0x9b;
const C1_OSC = 0x9d;
const C1_ST = 0x9c;
/** DCS, SOS, PM, APC: strings that run to ST. */
const C1_STRINGS = new Set([0x90, 0x98, 0x9e, 0x9f]);

/** Bidi embeddings, overrides and isolates: they reorder what follows them on screen. */
const BIDI = /[\u202a-\u202e\u2066-\u2069]/g;

/** One escape sequence found at an index: where it ends and whether it is an SGR (`ESC [ digits;... m`). */
interface Seq {
  end: number;
  sgr: boolean;
}

/** The end of a string-type sequence (OSC, DCS, ...) whose body starts at `from`: after BEL/ST, or the text end. */
function stringEnd(text: string, from: number, belEnds: boolean): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (belEnds && c === BEL) return i + 1;
    if (c === C1_ST) return i + 1;
    if (c === ESC) {
      // ESC \ is the terminator; any other ESC also ends the string (xterm aborts it), and starts a new sequence.
      return text.charCodeAt(i + 1) === 0x5c ? i + 2 : i;
    }
  }
  return text.length;
}

/** CSI body from `from` (after `ESC [` or U+009B): parameters, intermediates, one final byte. */
function csiEnd(text: string, from: number): Seq {
  let i = from;
  let sgrish = true;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c >= 0x30 && c <= 0x3f) {
      // Only digits and ';' make a plain SGR; private markers (<=>?) and ':' do not.
      if (!((c >= 0x30 && c <= 0x39) || c === 0x3b)) sgrish = false;
      i++;
    } else break;
  }
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c >= 0x20 && c <= 0x2f) {
      sgrish = false;
      i++;
    } else break;
  }
  if (i < text.length) {
    const c = text.charCodeAt(i);
    if (c >= 0x40 && c <= 0x7e) return { end: i + 1, sgr: sgrish && c === 0x6d };
  }
  // Unterminated or malformed: drop what was read; the offending character is ordinary text again.
  return { end: i, sgr: false };
}

/** The escape sequence starting at `i` (an ESC or a C1 introducer), or null when `i` starts none. */
function sequenceAt(text: string, i: number): Seq | null {
  const c = text.charCodeAt(i);
  // 8-bit CSI is removed whole, SGR or not: only the 7-bit SGR form is ever re-inked.
  if (c === C1_CSI) return { end: csiEnd(text, i + 1).end, sgr: false };
  if (c === C1_OSC) return { end: stringEnd(text, i + 1, true), sgr: false };
  if (C1_STRINGS.has(c)) return { end: stringEnd(text, i + 1, false), sgr: false };
  // Any other C1 control (a stray ST, NEL, ...) is one character to remove.
  if (c >= 0x80 && c <= 0x9f) return { end: i + 1, sgr: false };
  if (c !== ESC) return null;
  if (i + 1 >= text.length) return { end: i + 1, sgr: false };
  const n = text.charCodeAt(i + 1);
  if (n === 0x5b) return csiEnd(text, i + 2);
  if (n === 0x5d) return { end: stringEnd(text, i + 2, true), sgr: false };
  // DCS (P), SOS (X), PM (^), APC (_)
  if (n === 0x50 || n === 0x58 || n === 0x5e || n === 0x5f)
    return { end: stringEnd(text, i + 2, false), sgr: false };
  // ESC, intermediates (0x20-0x2f), then a final byte (RIS `ESC c`, `ESC ( 0`, `ESC 7`, `ESC M`, ...).
  let j = i + 1;
  while (j < text.length && text.charCodeAt(j) >= 0x20 && text.charCodeAt(j) <= 0x2f) j++;
  if (j < text.length && text.charCodeAt(j) >= 0x30 && text.charCodeAt(j) <= 0x7e)
    return { end: j + 1, sgr: false };
  // A lone ESC (or ESC + intermediates with no final): drop it; what follows stays text.
  return { end: j, sgr: false };
}

function hasIntroducer(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === ESC || (c >= 0x80 && c <= 0x9f)) return true;
  }
  return false;
}

/** Removes every escape sequence; with `keepSgr`, SGR colour sequences stay (verbatim, to be re-inked). */
export function stripEscapes(text: string, keepSgr = false): string {
  if (!hasIntroducer(text)) return text;
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; ) {
    const seq = sequenceAt(text, i);
    if (seq === null) {
      i++;
      continue;
    }
    out += text.slice(from, i);
    if (keepSgr && seq.sgr) out += text.slice(i, seq.end);
    i = Math.max(seq.end, i + 1);
    from = i;
  }
  return out + text.slice(from);
}

/** C0 controls (keeping ESC when asked), DEL, C1 controls and bidi controls. */
function dropControls(text: string, keepEsc: boolean): string {
  const re = keepEsc ? /[\x00-\x1a\x1c-\x1f\x7f-\x9f]/g : /[\x00-\x1f\x7f-\x9f]/g;
  return text.replace(re, '').replace(BIDI, '');
}

/**
 * A one-line cell (job name, command, schedule, toast, panel value): every escape removed, whitespace runs
 * (newlines included) folded to one space, controls removed.
 */
export function flatten(text: string): string {
  return dropControls(stripEscapes(text).replace(/\s+/g, ' '), false);
}

/**
 * A log line on arrival: non-SGR escapes out first, then the last non-empty `\r` piece (progress bars, CRLF),
 * tabs as 4 spaces, then controls (ESC kept only inside the surviving SGR sequences).
 */
export function cleanLogLine(raw: string): string {
  let text = stripEscapes(raw, true);
  if (text.includes('\r')) {
    const pieces = text.split('\r');
    let pick = '';
    for (let i = pieces.length - 1; i >= 0; i--) {
      if (stripEscapes(pieces[i]!) !== '') {
        pick = pieces[i]!;
        break;
      }
    }
    text = pick;
  }
  if (text.includes('\t')) text = text.replace(/\t/g, '    ');
  return dropControls(text, true);
}

/** The visible text of a cleaned log line (search, saving to a file). */
export function visibleText(line: string): string {
  return stripEscapes(line);
}

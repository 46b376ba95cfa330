// Allocation-free fast path for the common numeric field grammar (`5`, `*`, `*/15`, `1-5`, `9-17/2`, `5/15`,
// comma lists of those). Anything else, and anything invalid, returns false so the full parser (fields.ts) can
// handle it and produce the exact error: this path never decides that a field is wrong.
import { FIELDS, Kind } from './fields.ts';

/** Result masks of the last successful scanField call (values 0-29 / 30-59 for second and minute). */
export const scanned = { lo: 0, hi: 0 };

/** Index just after the digits read by the last readNumber call. */
let pos = 0;

/** Reads 1-4 decimal digits at text[i, end): the value, or -1 when there are none or too many. Sets `pos`. */
function readNumber(text: string, i: number, end: number): number {
  let v = 0;
  let j = i;
  while (j < end) {
    const c = text.charCodeAt(j);
    if (c < 48 || c > 57) break;
    v = v * 10 + (c - 48);
    j++;
  }
  pos = j;
  return j === i || j - i > 4 ? -1 : v;
}

/** Bits a..b of a 32-bit mask (0 <= a <= b <= 31). */
function rangeBits(a: number, b: number): number {
  return (-1 << a) & (b === 31 ? -1 : (1 << (b + 1)) - 1);
}

/**
 * Scans text[start, end) as one field of the given kind. On success stores the plain-value masks in `scanned`
 * and returns true. Day-of-week values are folded mod 7; the year field is never handled here.
 */
export function scanField(text: string, start: number, end: number, kind: Kind): boolean {
  if (kind === Kind.Year) return false;
  const f = FIELDS[kind]!;
  const sixty = kind === Kind.Second || kind === Kind.Minute;
  let lo = 0;
  let hi = 0;
  let i = start;
  for (;;) {
    const c = text.charCodeAt(i);
    let a: number;
    let b: number;
    let bare = false;
    if (c === 42 /* * */) {
      a = f.lo;
      b = f.end;
      i++;
    } else if (c >= 48 && c <= 57) {
      a = readNumber(text, i, end);
      i = pos;
      if (a < f.lo || a > f.hi) return false;
      if (i < end && text.charCodeAt(i) === 45 /* - */) {
        b = readNumber(text, i + 1, end);
        i = pos;
        if (b < 0 || b > f.hi) return false;
        if (kind === Kind.DayOfWeek && b === 0) b = 7;
        if (a > b) return false;
      } else {
        b = a;
        bare = true;
      }
    } else return false;
    let step = 1;
    if (i < end && text.charCodeAt(i) === 47 /* / */) {
      step = readNumber(text, i + 1, end);
      i = pos;
      if (step < 1 || step > f.hi) return false;
      if (bare) {
        if (a > f.end) return false;
        b = f.end;
      }
      if (a + step > f.hi) return false;
    }
    if (i < end && text.charCodeAt(i) !== 44 /* , */) return false;
    // Add a, a+step, ... <= b.
    if (kind === Kind.DayOfWeek) {
      for (let v = a; v <= b; v += step) lo |= 1 << (v % 7);
    } else if (!sixty) {
      if (step === 1) lo |= rangeBits(a, b);
      else for (let v = a; v <= b; v += step) lo |= 1 << v;
    } else if (step === 1) {
      if (a < 30) lo |= rangeBits(a, b < 30 ? b : 29);
      if (b >= 30) hi |= rangeBits(a < 30 ? 0 : a - 30, b - 30);
    } else {
      for (let v = a; v <= b; v += step) {
        if (v < 30) lo |= 1 << v;
        else hi |= 1 << (v - 30);
      }
    }
    if (i >= end) break;
    i++; // the comma
    if (i >= end) return false; // trailing comma: empty item
  }
  scanned.lo = lo;
  scanned.hi = hi;
  return true;
}

// Values as the reference's Python job CLI reads and writes them (spec 03 §6.4, §7): Python's
// `int()` / `float()` for command-line values (big integers kept exact as bigint), printed
// values in `json.dumps` form (`{"rows": 1234, "ok": true}`, `[1, 2]`), and request bodies.
import { pyJsonDumps } from '../util/pyjson.ts';

/** A JSON-ish value as the CLI builds it: JSON plus bigint (an exact integer) and non-finite numbers. */
export type PyValue = null | boolean | number | bigint | string | PyValue[] | { [k: string]: PyValue };

function needsCustom(v: unknown): boolean {
  if (typeof v === 'number') return !Number.isFinite(v);
  if (typeof v === 'bigint') return true;
  if (Array.isArray(v)) return v.some(needsCustom);
  if (v !== null && typeof v === 'object') return Object.values(v).some(needsCustom);
  return false;
}

/**
 * Compact JSON for a request body. Non-finite numbers and bigints are written as the
 * tokens Python would send (`NaN`, `Infinity`, exact digits) so the server can refuse them
 * truthfully as non-portable instead of seeing a silently changed value.
 */
export function compactJson(v: unknown): string {
  return needsCustom(v) ? pyJsonDumps(v, { compact: true }) : JSON.stringify(v);
}

/** The value printed by the job CLI: strings verbatim, everything else as `json.dumps`. */
export function formatValue(v: unknown): string {
  return typeof v === 'string' ? v : pyJsonDumps(v);
}

// Python's str.strip() whitespace (ASCII plus the Unicode spaces it knows).
const PY_SPACE = /^[\s\u001c-\u001f\u0085]+|[\s\u001c-\u001f\u0085]+$/g;
const DIGITS = String.raw`\d(?:_?\d)*`;
const INT_RE = new RegExp(`^[+-]?${DIGITS}$`);
const FLOAT_RE = new RegExp(`^[+-]?(?:${DIGITS}(?:\\.(?:${DIGITS})?)?|\\.${DIGITS})(?:[eE][+-]?${DIGITS})?$`);
const SPECIAL_RE = /^([+-]?)(nan|inf|infinity)$/i;

/** Python's `int(text)` (base 10): a number when exact in a double, else a bigint; null if invalid. */
export function pyInt(text: string): number | bigint | null {
  const s = text.replace(PY_SPACE, '');
  if (!INT_RE.test(s)) return null;
  const big = BigInt(s.replace(/_/g, '').replace(/^\+/, ''));
  const n = Number(big);
  return Number.isSafeInteger(n) ? n : big;
}

/** Python's `float(text)`, NaN and infinities included; null if invalid. */
export function pyFloat(text: string): number | null {
  const s = text.replace(PY_SPACE, '');
  const special = SPECIAL_RE.exec(s);
  if (special) {
    if (special[2]!.toLowerCase() === 'nan') return Number.NaN;
    return special[1] === '-' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  }
  if (!FLOAT_RE.test(s)) return null;
  return Number(s.replace(/_/g, ''));
}

/** `cursor advance` VALUE: int, else float, else the text itself. */
export function parseCursorValue(text: string): number | bigint | string {
  const i = pyInt(text);
  if (i !== null) return i;
  const f = pyFloat(text);
  if (f !== null) return f;
  return text;
}

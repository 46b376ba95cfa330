// JSON text the way the reference's Python prints and parses it (spec 03 §6.4, §7):
// `json.dumps` default spacing (`{"rows": 1234, "ok": true}`, `[1, 2]`), ASCII-only
// escapes, NaN/Infinity tokens, big integers kept exact as bigint, and Python's
// `int()` / `float()` for command-line values.
import { pyFloatRepr } from '../report/pyfmt.ts';

/** A JSON-ish value as the CLI builds it: JSON plus bigint (an exact integer) and non-finite numbers. */
export type PyValue = null | boolean | number | bigint | string | PyValue[] | { [k: string]: PyValue };

function asciiString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += '\\\\';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c === 0x08) out += '\\b';
    else if (c === 0x0c) out += '\\f';
    else if (c < 0x20 || c > 0x7e) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += s[i];
  }
  return `${out}"`;
}

/** A number as Python's json module prints it (an integral JS number is taken as an int). */
export function pyJsonNumber(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Number.POSITIVE_INFINITY) return 'Infinity';
  if (n === Number.NEGATIVE_INFINITY) return '-Infinity';
  if (Number.isSafeInteger(n)) return String(n);
  return pyFloatRepr(n);
}

function encode(v: unknown, item: string, kv: string, ascii: boolean): string {
  if (v === null || v === undefined) return 'null';
  if (v === true) return 'true';
  if (v === false) return 'false';
  if (typeof v === 'string') return ascii ? asciiString(v) : JSON.stringify(v);
  if (typeof v === 'number') return pyJsonNumber(v);
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return `[${v.map((x) => encode(x, item, kv, ascii)).join(item)}]`;
  if (typeof v === 'object') {
    const parts: string[] = [];
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if (x === undefined) continue;
      parts.push(`${ascii ? asciiString(k) : JSON.stringify(k)}${kv}${encode(x, item, kv, ascii)}`);
    }
    return `{${parts.join(item)}}`;
  }
  throw new TypeError(`Object of type ${typeof v} is not JSON serializable`);
}

/** Python's `json.dumps(v)`: `", "` and `": "` separators, ASCII-only, keys in insertion order. */
export function pyJsonDumps(v: unknown): string {
  return encode(v, ', ', ': ', true);
}

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
  return needsCustom(v) ? encode(v, ',', ':', false) : JSON.stringify(v);
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

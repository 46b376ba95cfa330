// Python-style text for template values (reporting spec §9.3): what Jinja2 prints for
// None/True/False, numbers, lists and dicts, and Jinja's `tojson` (the shared encoder's preset).
import { pyJsonDumps, pyNumber } from '../util/pyjson.ts';

/** Python's `repr(str)`: single quotes unless the text has `'` and no `"`. */
export function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || (c >= 0x7f && c <= 0xa0)) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return out + quote;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** Python's `repr()` of a value nested in a list or dict. */
export function pyRepr(v: unknown): string {
  if (typeof v === 'string') return pyStrRepr(v);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  if (isPlainObject(v)) {
    return `{${Object.entries(v)
      .map(([k, x]) => `${pyStrRepr(k)}: ${pyRepr(x)}`)
      .join(', ')}}`;
  }
  return pyStr(v);
}

/** Python's `str()` of a template value; `undefined` (Jinja's Undefined) prints nothing. */
export function pyStr(v: unknown): string {
  if (v === undefined) return '';
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return pyNumber(v);
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'function') return '';
  if (Array.isArray(v) || isPlainObject(v)) return pyRepr(v);
  return String(v);
}

/**
 * Jinja2's `tojson`: `json.dumps(sort_keys=True)` (ASCII-only, Python separators) with
 * `<`, `>`, `&` and `'` escaped for HTML safety. `indent` as in Jinja (a count or a string).
 */
export function toJson(v: unknown, indent?: number | string | null): string {
  return pyJsonDumps(v, { sortKeys: true, htmlSafe: true, indent, undefinedValues: 'error' });
}

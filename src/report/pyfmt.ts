// Python-style text for template values (reporting spec §9.3): what Jinja2 prints for
// None/True/False, numbers, lists and dicts, and Jinja's `tojson` encoding.

/** Python's `repr(float)`: shortest round-trip digits, exponent form below 1e-4 or from 1e16. */
export function pyFloatRepr(n: number): string {
  if (Number.isNaN(n)) return 'nan';
  if (n === Number.POSITIVE_INFINITY) return 'inf';
  if (n === Number.NEGATIVE_INFINITY) return '-inf';
  if (n === 0) return Object.is(n, -0) ? '-0.0' : '0.0';
  const [mantissa = '', expText = '0'] = n.toExponential().split('e');
  const exp = Number(expText);
  const sign = n < 0 ? '-' : '';
  const digits = mantissa.replace('-', '').replace('.', '');
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return `${sign}${digits}${'0'.repeat(exp + 1 - digits.length)}.0`;
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

/**
 * A JS number as Python prints it. JS has one number type, so an integral value is printed
 * as an int (`2`, not `2.0`); everything else as a float repr.
 */
export function pyNumber(n: number): string {
  if (Number.isSafeInteger(n)) return String(n);
  return pyFloatRepr(n);
}

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

function jsonString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i]!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (ch === '<') out += '\\u003c';
    else if (ch === '>') out += '\\u003e';
    else if (ch === '&') out += '\\u0026';
    else if (ch === "'") out += '\\u0027';
    else if (c < 0x20 || c > 0x7e) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return out + '"';
}

function jsonNumber(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Number.POSITIVE_INFINITY) return 'Infinity';
  if (n === Number.NEGATIVE_INFINITY) return '-Infinity';
  return pyNumber(n);
}

export class JsonEncodeError extends Error {
  override name = 'JsonEncodeError';
}

function encode(v: unknown, indent: string | null, depth: number): string {
  if (v === null) return 'null';
  if (v === true) return 'true';
  if (v === false) return 'false';
  if (typeof v === 'string') return jsonString(v);
  if (typeof v === 'number') return jsonNumber(v);
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof String) return jsonString(v.toString());
  let items: string[];
  let open: string;
  let close: string;
  if (Array.isArray(v)) {
    items = v.map((x) => encode(x, indent, depth + 1));
    open = '[';
    close = ']';
  } else if (isPlainObject(v)) {
    items = Object.keys(v)
      .sort()
      .map((k) => `${jsonString(k)}: ${encode(v[k], indent, depth + 1)}`);
    open = '{';
    close = '}';
  } else {
    const type = v === undefined ? 'Undefined' : typeof v;
    throw new JsonEncodeError(`Object of type ${type} is not JSON serializable`);
  }
  if (items.length === 0) return open + close;
  if (indent === null) return open + items.join(', ') + close;
  const inner = `\n${indent.repeat(depth + 1)}`;
  return `${open}${inner}${items.join(`,${inner}`)}\n${indent.repeat(depth)}${close}`;
}

/**
 * Jinja2's `tojson`: `json.dumps(sort_keys=True)` (ASCII-only, Python separators) with
 * `<`, `>`, `&` and `'` escaped for HTML safety. `indent` as in Jinja (a count or a string).
 */
export function toJson(v: unknown, indent?: number | string | null): string {
  let ind: string | null = null;
  if (typeof indent === 'number') ind = ' '.repeat(Math.max(0, indent));
  else if (typeof indent === 'string') ind = indent;
  return encode(v, ind, 0);
}

// JSON text the way the reference's Python writes it, for every caller: `json.dumps` spacing
// and ASCII-only escapes (job CLI output, DAG map items), Jinja's `tojson` (sorted keys,
// HTML-safe escapes, indent) and compact request bodies. NaN/Infinity print as Python's
// tokens and a bigint as its exact digits, so nothing is silently changed on the way.

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
 * A value Python holds as a float even when it is integral (an SLA's observed seconds print
 * `130.0`, not `130`): prints as a float repr, compares and computes as its number.
 */
export class PyFloat {
  constructor(readonly value: number) {}
  valueOf(): number {
    return this.value;
  }
  toString(): string {
    return pyFloatRepr(this.value);
  }
}

/**
 * A JS number as Python prints it. JS has one number type, so an integral value is printed
 * as an int (`2`, not `2.0`); everything else as a float repr.
 */
export function pyNumber(n: number): string {
  if (Number.isSafeInteger(n)) return String(n);
  return pyFloatRepr(n);
}

/** A number as Python's json module writes it (`NaN`, `Infinity`, ints, float repr). */
export function pyJsonNumber(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Number.POSITIVE_INFINITY) return 'Infinity';
  if (n === Number.NEGATIVE_INFINITY) return '-Infinity';
  return pyNumber(n);
}

/** Python's TypeError for a value JSON cannot hold (a function, Jinja's Undefined, a class instance). */
export class JsonEncodeError extends TypeError {
  override name = 'JsonEncodeError';
}

export interface PyJsonOptions {
  /** `sort_keys=True` (keys in UTF-16 order). Default: insertion order. */
  sortKeys?: boolean;
  /** Jinja's HTML-safe dumps: `<`, `>`, `&` and `'` written as `\uXXXX` too. */
  htmlSafe?: boolean;
  /** `indent=`: a count of spaces or the indent text; items then end in `,` and a newline. */
  indent?: number | string | null;
  /** `separators=(',', ':'), ensure_ascii=False`: a compact body (non-ASCII kept as is). */
  compact?: boolean;
  /**
   * `undefined`: as JS data (the default: an object field is left out, anything else is
   * `null`, as JSON.stringify does in arrays), or an error like Jinja's Undefined.
   */
  undefinedValues?: 'omit' | 'error';
}

function asciiString(s: string, htmlSafe: boolean): string {
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
    else if (c < 0x20 || c > 0x7e || (htmlSafe && (c === 0x3c || c === 0x3e || c === 0x26 || c === 0x27)))
      out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += s[i];
  }
  return `${out}"`;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

interface Layout {
  str: (s: string) => string;
  item: string;
  kv: string;
  indent: string | null;
  sortKeys: boolean;
  omitUndefined: boolean;
}

function notSerializable(v: unknown): JsonEncodeError {
  const type = v === undefined ? 'Undefined' : typeof v;
  return new JsonEncodeError(`Object of type ${type} is not JSON serializable`);
}

function encode(v: unknown, l: Layout, depth: number): string {
  if (v === null || (v === undefined && l.omitUndefined)) return 'null';
  if (v === true) return 'true';
  if (v === false) return 'false';
  if (typeof v === 'string') return l.str(v);
  if (typeof v === 'number') return pyJsonNumber(v);
  if (v instanceof PyFloat) return Number.isFinite(v.value) ? v.toString() : pyJsonNumber(v.value);
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof String) return l.str(v.toString());
  const items: string[] = [];
  let open: string;
  let close: string;
  if (Array.isArray(v)) {
    for (const x of v) items.push(encode(x, l, depth + 1));
    open = '[';
    close = ']';
  } else if (isPlainObject(v)) {
    const keys = Object.keys(v);
    if (l.sortKeys) keys.sort();
    for (const k of keys) {
      const x = v[k];
      if (x === undefined && l.omitUndefined) continue;
      items.push(`${l.str(k)}${l.kv}${encode(x, l, depth + 1)}`);
    }
    open = '{';
    close = '}';
  } else throw notSerializable(v);
  if (items.length === 0) return open + close;
  if (l.indent === null) return open + items.join(l.item) + close;
  const inner = `\n${l.indent.repeat(depth + 1)}`;
  return `${open}${inner}${items.join(`,${inner}`)}\n${l.indent.repeat(depth)}${close}`;
}

const stringify = (s: string): string => JSON.stringify(s);
const ascii = (s: string): string => asciiString(s, false);
const htmlSafeAscii = (s: string): string => asciiString(s, true);

/**
 * Python's `json.dumps(v)`: `", "` and `": "` separators, ASCII-only, keys in insertion order;
 * `opts` select the other forms the project writes (see PyJsonOptions).
 */
export function pyJsonDumps(v: unknown, opts: PyJsonOptions = {}): string {
  const { indent = null } = opts;
  const layout: Layout = {
    str: opts.compact ? stringify : opts.htmlSafe ? htmlSafeAscii : ascii,
    item: opts.compact ? ',' : ', ',
    kv: opts.compact ? ':' : ': ',
    indent:
      typeof indent === 'number'
        ? ' '.repeat(Math.max(0, indent))
        : typeof indent === 'string'
          ? indent
          : null,
    sortKeys: opts.sortKeys ?? false,
    omitUndefined: (opts.undefinedValues ?? 'omit') === 'omit',
  };
  return encode(v, layout, 0);
}

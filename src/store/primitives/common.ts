// What every primitive gets: the synchronous database handle, the namespace, the writer
// identity and the instant of the call. Plus the shared value rules (spec 03 §6.4-§6.5).
import type { Database } from '../driver.ts';
import { type Json, StoreRequestError, StoreUnavailableError } from '../types.ts';

export interface Ctx {
  db: Database;
  /** Namespace of every row (deployment id). */
  ns: string;
  /** `<host>#<proc>`, written into records. */
  writer: string;
  /** The instant of this call, epoch seconds (float). */
  now: number;
}

/** The only record/document schema version this build writes and understands. */
export const SCHEMA_VERSION = 'v1';

/** Parses a stored JSON body; null when unreadable (callers skip or fail per strictness). */
export function parseBody(text: string): { ok: true; value: Json } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as Json };
  } catch {
    return { ok: false };
  }
}

/** A strict reader met a row it cannot interpret: the answer is unknown, never "absent". */
export function strictFailure(what: string): StoreUnavailableError {
  return new StoreUnavailableError(`${what}; refusing to guess (a newer peer may have written it)`);
}

const INT64_LIMIT = 2 ** 63;

/**
 * Value portability (spec 03 §6.4): NaN/Infinity and integers outside signed 64 bits are
 * rejected with 400 before any store work (they serialise differently across implementations).
 */
export function assertPortable(value: unknown, what = 'value'): asserts value is Json {
  const problem = portabilityProblem(value, 0);
  if (problem) throw new StoreRequestError(400, `${what} is not portable JSON: ${problem}`);
}

function portabilityProblem(value: unknown, depth: number): string | null {
  if (depth > 512) return 'nested too deeply';
  if (value === null) return null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return null;
    case 'number':
      if (!Number.isFinite(value)) return `${value} is not a finite number`;
      if (Number.isInteger(value) && (value >= INT64_LIMIT || value < -INT64_LIMIT))
        return `integer ${value} is outside the signed 64-bit range`;
      return null;
    case 'object': {
      if (Array.isArray(value)) {
        for (const item of value) {
          const p = portabilityProblem(item, depth + 1);
          if (p) return p;
        }
        return null;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null)
        return 'only plain objects, arrays and scalars are JSON';
      for (const item of Object.values(value)) {
        const p = portabilityProblem(item, depth + 1);
        if (p) return p;
      }
      return null;
    }
    default:
      return `${typeof value} is not JSON`;
  }
}

/** Strings compare by Unicode code point (not UTF-16 unit), as Python and SQLite do. */
export function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate (astral code point) outranks every BMP unit above it in code point order.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? (y >= 0xe000 ? 1 : x - y) : x >= 0xe000 ? -1 : x - y;
    return x - y;
  }
  return a.length - b.length;
}

/**
 * Orders two JSON values when they are comparable (number/number numerically, string/string
 * by code point); null when they are not.
 */
export function compareJson(a: Json, b: Json): number | null {
  if (typeof a === 'number' && typeof b === 'number') return a === b ? 0 : a < b ? -1 : 1;
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  return null;
}

export function requireName(value: unknown, what: string): string {
  if (typeof value !== 'string' || value === '') throw new StoreRequestError(400, `${what} is required`);
  return value;
}

export function requireTtl(value: unknown, what = 'ttl', allowZero = false): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (!allowZero && value === 0))
    throw new StoreRequestError(400, `${what} must be a finite number ${allowZero ? '>= 0' : '> 0'}`);
  return value;
}

/** The exclusive upper bound of every string starting with `prefix` (for index range scans). */
export function prefixUpperBound(prefix: string): string | null {
  if (prefix === '') return null;
  const last = prefix.codePointAt(prefix.length - 1)!;
  const width = last > 0xffff ? 2 : 1;
  if (last === 0x10ffff) return null;
  // Skip the surrogate block: a lone surrogate is not valid text in SQLite's UTF-8.
  const next = last === 0xd7ff ? 0xe000 : last + 1;
  return prefix.slice(0, prefix.length - width) + String.fromCodePoint(next);
}

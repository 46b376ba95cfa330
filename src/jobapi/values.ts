// Pure request checks of the job API (spec 03 §6.3-§6.4): body caps, JSON parsing with the
// portability rule, value size, required fields and scope resolution.
import { MAX_PERMITS } from '../store/primitives/permit-limit.ts';
import type { Json } from '../store/types.ts';
import { errorText } from '../util/errors.ts';
import { jsonDepth, MAX_JSON_DEPTH } from '../util/jsondepth.ts';

/** Orders strings by Unicode code point (Python's `sorted`), not by UTF-16 unit. */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const x = [...a];
  const y = [...b];
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/** A caller fault answered as JSON `{"error": message}` with `status`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const KIB = 1024;

/**
 * Transport body cap: max(maxArtifactBytes, 6 × maxValueBytes) + 64 KiB; lifted (null)
 * when either cap is 0.
 */
export function transportCap(maxValueBytes: number, maxArtifactBytes: number): number | null {
  if (maxValueBytes <= 0 || maxArtifactBytes <= 0) return null;
  return Math.max(maxArtifactBytes, 6 * maxValueBytes) + 64 * KIB;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const TWO_53 = 2 ** 53;

/**
 * Integer lexemes of a JSON text (outside strings) that fall outside signed 64 bits,
 * and whether NaN/Infinity tokens occur. Only called when a cheap walk found doubt.
 */
export function scanLexemes(text: string): { bigInts: string[]; nonFinite: boolean } {
  const bigInts: string[] = [];
  let nonFinite = false;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i += 2;
        else if (d === 0x22) break;
        else i++;
      }
      i++;
      continue;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let j = i + 1;
      while (j < n && /[0-9.eE+-]/.test(text[j]!)) j++;
      const tok = text.slice(i, j);
      if (tok === '-' && text.startsWith('Infinity', j)) {
        nonFinite = true;
        j += 8;
      } else if (/^-?\d+$/.test(tok)) {
        const big = BigInt(tok);
        if (big < INT64_MIN || big > INT64_MAX) bigInts.push(tok);
      }
      i = j;
      continue;
    }
    if (text.startsWith('NaN', i) || text.startsWith('Infinity', i)) nonFinite = true;
    i++;
  }
  return { bigInts, nonFinite };
}

/** True when a parsed value holds a number that may have come from a non-portable lexeme. */
function doubtful(v: unknown): 'nonfinite' | 'big' | null {
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return 'nonfinite';
    return Number.isInteger(v) && Math.abs(v) >= TWO_53 ? 'big' : null;
  }
  if (v === null || typeof v !== 'object') return null;
  let found: 'nonfinite' | 'big' | null = null;
  for (const x of Array.isArray(v) ? v : Object.values(v)) {
    const d = doubtful(x);
    if (d === 'nonfinite') return d;
    if (d) found = d;
  }
  return found;
}

const NOT_PORTABLE = 'value is not portable:';

/**
 * Parses a request body as a JSON object. NaN/Infinity and integers outside signed 64-bit
 * are refused with 400 (they serialise differently across implementations); so is
 * anything that is not a JSON object.
 */
export function parseJsonObject(bytes: Uint8Array): Record<string, unknown> {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  if (text.trim() === '') throw new ApiError(400, 'request body must be a JSON object');
  if (jsonDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH)
    throw new ApiError(400, `request body nests deeper than ${MAX_JSON_DEPTH} levels`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    const lex = scanLexemes(text);
    if (lex.nonFinite) throw new ApiError(400, `${NOT_PORTABLE} NaN and Infinity are not allowed`);
    throw new ApiError(400, `request body is not valid JSON: ${errorText(e)}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new ApiError(400, 'request body must be a JSON object');
  const doubt = doubtful(parsed);
  if (doubt === 'nonfinite') throw new ApiError(400, `${NOT_PORTABLE} NaN and Infinity are not allowed`);
  if (doubt === 'big') {
    const lex = scanLexemes(text);
    if (lex.bigInts.length > 0)
      throw new ApiError(400, `${NOT_PORTABLE} integer ${lex.bigInts[0]} is outside the signed 64-bit range`);
  }
  return parsed as Record<string, unknown>;
}

/** The stored size of a value: bytes of its compact JSON encoding (a string's quotes count). */
export function valueBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? 'null', 'utf8');
}

/** 413 when a value's compact JSON is over `maxValueBytes` (0 = no cap). */
export function checkValueSize(value: unknown, maxValueBytes: number): void {
  if (maxValueBytes <= 0) return;
  const size = valueBytes(value);
  if (size > maxValueBytes)
    throw new ApiError(
      413,
      `value is ${size} bytes as compact JSON, over the maxValueBytes limit of ${maxValueBytes}`,
    );
}

/** A required non-empty string field (`"<field> is required"`). */
export function requireString(body: Record<string, unknown>, field: string): string {
  const v = body[field];
  if (v === undefined || v === null || v === '') throw new ApiError(400, `${field} is required`);
  if (typeof v !== 'string') throw new ApiError(400, `${field} must be a string`);
  return v;
}

/** A required query parameter (its value, undefined when absent). */
export function requireParam(value: string | undefined, field: string): string {
  if (value === undefined || value === '') throw new ApiError(400, `${field} is required`);
  return value;
}

/** A present field (null allowed) — for `value`. */
export function requireValue(body: Record<string, unknown>, field: string): Json {
  if (!Object.hasOwn(body, field)) throw new ApiError(400, `${field} is required`);
  return body[field] as Json;
}

/** An optional finite number field. */
export function optionalNumber(body: Record<string, unknown>, field: string): number | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new ApiError(400, `${field} must be a number`);
  return v;
}

/** An optional boolean field. */
export function optionalBool(body: Record<string, unknown>, field: string): boolean | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw new ApiError(400, `${field} must be a boolean`);
  return v;
}

/** What scope resolution needs to know about a run. */
export interface ScopeOwner {
  jobName: string;
  defaultScope: string;
  allowedScopes: readonly string[];
}

/**
 * Scope resolution (§6.3): omitted/empty → the run's default scope; an explicit scope is
 * allowed iff it is the default scope, `global`, or in `stateAllowedScopes`; else 403.
 */
export function resolveScope(run: ScopeOwner, requested: unknown): string {
  if (requested === undefined || requested === null || requested === '') return run.defaultScope;
  if (typeof requested !== 'string') throw new ApiError(400, 'scope must be a string');
  if (requested === run.defaultScope || requested === 'global' || run.allowedScopes.includes(requested))
    return requested;
  throw new ApiError(
    403,
    `scope '${requested}' is not permitted for job '${run.jobName}'; add it to stateAllowedScopes ` +
      `(its own scope '${run.defaultScope}' and 'global' are always allowed)`,
  );
}

/** Lock acquire parameters (§6.4 lock/acquire), validated. */
export interface LockRequest {
  name: string;
  scope: unknown;
  permits: number;
  ttl: number;
  wait: boolean;
  blockSeconds: number;
}

export const MIN_LOCK_TTL = 5;

export function parseLockRequest(body: Record<string, unknown>, defaultTtl: number): LockRequest {
  const name = requireString(body, 'name');
  const permits = optionalNumber(body, 'permits') ?? 1;
  if (!Number.isInteger(permits) || permits < 1 || permits > MAX_PERMITS)
    throw new ApiError(400, `permits must be an integer between 1 and ${MAX_PERMITS}`);
  const ttlIn = optionalNumber(body, 'ttl');
  const ttl = Math.max(MIN_LOCK_TTL, ttlIn ?? defaultTtl);
  const wait = optionalBool(body, 'wait') ?? false;
  const blockSeconds = optionalNumber(body, 'blockSeconds') ?? 0;
  if (blockSeconds < 0) throw new ApiError(400, 'blockSeconds must be >= 0');
  return { name, scope: body.scope, permits, ttl, wait, blockSeconds };
}

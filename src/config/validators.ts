// A small validator language over strict-YAML nodes. Every scalar arrives as text; each
// validator types it, and every failure is an issue with file, line, column and key path.
// Validated maps remember where each key stood, so later semantic checks can point at it.
import { type ConfigIssue, quote, type SourcePos } from './errors.ts';
import type { YNode } from './strict-yaml.ts';
import { nodePos, type YamlSource } from './yaml.ts';

export const FAIL: unique symbol = Symbol('invalid');
export type Fail = typeof FAIL;

export interface ParseCtx {
  src: YamlSource;
  issues: ConfigIssue[];
}

export interface Schema<T> {
  /** What the validator wants, for messages ("an integer", "a mapping"). */
  readonly expected: string;
  parse(node: YNode | null, path: string, ctx: ParseCtx): T | Fail;
}

export type Infer<S> = S extends Schema<infer T> ? T : never;

/** Source positions of a validated map: the map itself and each of its keys. */
export interface Located {
  pos: SourcePos;
  keys: Record<string, SourcePos>;
  path: string;
}
const locations = new WeakMap<object, Located>();

export function locationOf(value: unknown): Located | undefined {
  return typeof value === 'object' && value !== null ? locations.get(value) : undefined;
}
export function keyPos(value: unknown, key: string): SourcePos | undefined {
  const loc = locationOf(value);
  return loc ? (loc.keys[key] ?? loc.pos) : undefined;
}
export function setLocation(value: object, loc: Located): void {
  locations.set(value, loc);
}

/** Issues that only say "this value has the wrong shape" (a union tries the next alternative). */
const shapeMismatches = new WeakSet<ConfigIssue>();

function fail(ctx: ParseCtx, node: YNode | null, path: string, message: string, shape = false): Fail {
  const p = nodePos(ctx.src, node);
  const issue: ConfigIssue = { file: p.file, line: p.line, col: p.col, path: path || undefined, message };
  if (shape) shapeMismatches.add(issue);
  ctx.issues.push(issue);
  return FAIL;
}

function scalarText(node: YNode | null): string | undefined {
  if (node === null || node === undefined) return '';
  return node.kind === 'scalar' ? node.value : undefined;
}

function found(node: YNode | null): string {
  if (node?.kind === 'map') return 'a mapping';
  if (node?.kind === 'seq') return 'a list';
  const text = scalarText(node) ?? '';
  return text === '' ? 'an empty value' : quote(text);
}

/** A converter's refusal with a reason ("out of range"), appended to the usual message. */
class Refusal {
  constructor(readonly reason: string) {}
}

function scalar<T>(expected: string, convert: (text: string) => T | Fail | Refusal): Schema<T> {
  return {
    expected,
    parse(node, path, ctx) {
      const text = scalarText(node);
      if (text === undefined)
        return fail(ctx, node, path, `expected ${expected}, found ${found(node)}`, true);
      const v = convert(text);
      // Text that is not of this type is a shape mismatch (a union tries its next alternative);
      // a refusal is the right type with a bad value, which a union reports as it is.
      if (v === FAIL) return fail(ctx, node, path, `expected ${expected}, found ${found(node)}`, true);
      if (v instanceof Refusal)
        return fail(ctx, node, path, `expected ${expected}, found ${found(node)} (${v.reason})`);
      return v;
    },
  };
}

const INT_RE = /^[-+]?[0-9_]+$/;
const FLOAT_RE = /^[-+]?[0-9_]*(\.[0-9_]*)?([eE][-+]?[0-9_]+)?$/;
const INF_RE = /^[-+]?\.?(inf|Inf|INF)$/;
const NAN_RE = /^\.?(nan|NaN|NAN)$/;
const TRUE = new Set(['yes', 'true', 'on', '1', 'y']);
const FALSE = new Set(['no', 'false', 'off', '0', 'n']);

export function parseIntText(text: string): number | Fail {
  if (!INT_RE.test(text) || !/[0-9]/.test(text)) return FAIL;
  return Number.parseInt(text.replaceAll('_', ''), 10);
}
export function parseFloatText(text: string): number | Fail {
  if (INF_RE.test(text)) return text.startsWith('-') ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  if (NAN_RE.test(text)) return Number.NaN;
  if (!FLOAT_RE.test(text) || !/[0-9]/.test(text)) return FAIL;
  const n = Number(text.replaceAll('_', ''));
  return Number.isNaN(n) ? FAIL : n;
}
export function parseBoolText(text: string): boolean | Fail {
  const t = text.toLowerCase();
  if (TRUE.has(t)) return true;
  if (FALSE.has(t)) return false;
  return FAIL;
}

export const str = (): Schema<string> => scalar('text', (t) => t);
/** Integers beyond 2^53 lose digits (and 400 nines read as Infinity): refused, not rounded. */
export const int = (): Schema<number> =>
  scalar('an integer', (t) => {
    const v = parseIntText(t);
    return v === FAIL || Number.isSafeInteger(v) ? v : new Refusal('out of range');
  });
/** Any number the dialect can write, `.inf` and `.nan` included (sections check their own ranges). */
export const float = (): Schema<number> => scalar('a number', parseFloatText);
/** A duration, delay or factor: NaN and infinities are refused where they are written. */
export const finiteFloat = (): Schema<number> =>
  scalar('a number', (t) => {
    const v = parseFloatText(t);
    return v === FAIL || Number.isFinite(v) ? v : new Refusal('it must be finite');
  });
/** A TCP/UDP port to connect to. */
export const port = (): Schema<number> =>
  scalar('a port number (1-65535)', (t) => {
    const v = parseIntText(t);
    return v === FAIL || (v >= 1 && v <= 65535) ? v : new Refusal('out of range');
  });
export const bool = (): Schema<boolean> =>
  scalar('a boolean (true/false, yes/no, on/off, 1/0)', parseBoolText);
/** Matches only the empty value (`key:` or `key: ""`), yielding null. */
export const emptyNone = (): Schema<null> => scalar('an empty value', (t) => (t === '' ? null : FAIL));

export function enumOf<const V extends string>(...values: V[]): Schema<V> {
  const allowed = new Set<string>(values);
  return scalar(`one of ${values.map((v) => `'${v}'`).join(', ')}`, (t) =>
    allowed.has(t) ? (t as V) : FAIL,
  );
}

/** Alternatives tried left to right; the first that accepts the value wins. */
export function union<A, B>(a: Schema<A>, b: Schema<B>): Schema<A | B>;
export function union<A, B, C>(a: Schema<A>, b: Schema<B>, c: Schema<C>): Schema<A | B | C>;
export function union(...alts: Schema<unknown>[]): Schema<unknown> {
  const expected = alts.map((a) => a.expected).join(' or ');
  return {
    expected,
    parse(node, path, ctx) {
      let deepest: ConfigIssue[] | undefined;
      for (const alt of alts) {
        const scratch: ParseCtx = { src: ctx.src, issues: [] };
        const v = alt.parse(node, path, scratch);
        if (v !== FAIL) return v;
        // An alternative that accepted the shape but failed inside (a wrong value, or a wrong shape
        // deeper down) explains more than "expected X or Y".
        if (scratch.issues.some((i) => !shapeMismatches.has(i) || (i.path ?? '') !== path))
          deepest ??= scratch.issues;
      }
      if (deepest) {
        ctx.issues.push(...deepest);
        return FAIL;
      }
      return fail(ctx, node, path, `expected ${expected}, found ${found(node)}`);
    },
  };
}

export const nullable = <T>(s: Schema<T>): Schema<T | null> => union(emptyNone(), s);

/** "a mapping" -> "mappings", "text" -> "text": the items of a list, for messages. */
function plural(expected: string): string {
  return expected.replace(/^an? (\w+)/, '$1s');
}

/**
 * A block list. A blank value (`key:` with nothing under it, or `""`) is an error, as in the
 * reference's strict dialect: an empty list cannot be written there, only left out.
 */
export function seq<T>(item: Schema<T>): Schema<T[]> {
  const expected = `a list of ${plural(item.expected)}`;
  return {
    expected,
    parse(node, path, ctx) {
      if (node?.kind !== 'seq')
        return fail(ctx, node, path, `expected ${expected}, found ${found(node)}`, true);
      const out: T[] = [];
      // Item positions by index, so a later check can point at one entry (e.g. an include).
      const keys: Record<string, SourcePos> = {};
      let ok = true;
      node.items.forEach((child, i) => {
        keys[i] = nodePos(ctx.src, child);
        const v = item.parse(child, `${path}[${i}]`, ctx);
        if (v === FAIL) ok = false;
        else out.push(v);
      });
      if (!ok) return FAIL;
      setLocation(out, { pos: nodePos(ctx.src, node), keys, path });
      return out;
    },
  };
}

/** A block list where a blank value means an empty list (only where the spec gives it a meaning). */
export function seqOrEmpty<T>(item: Schema<T>): Schema<T[]> {
  const list = seq(item);
  return {
    expected: `${list.expected} or an empty value`,
    parse(node, path, ctx) {
      if (scalarText(node) === '') {
        const out: T[] = [];
        setLocation(out, { pos: nodePos(ctx.src, node), keys: {}, path });
        return out;
      }
      return list.parse(node, path, ctx);
    },
  };
}

type Shape = Record<string, Schema<unknown>>;
export type MapOut<S extends Shape, R extends keyof S> = { [K in keyof S]?: Infer<S[K]> } & {
  [K in R]: Infer<S[K]>;
};

function childPath(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/** A mapping with a fixed set of keys: unknown keys and missing required keys are errors. */
export function map<S extends Shape, R extends keyof S & string = never>(
  shape: S,
  required: readonly R[] = [],
): Schema<MapOut<S, R>> {
  return {
    expected: 'a mapping',
    parse(node, path, ctx) {
      if (node?.kind !== 'map')
        return fail(ctx, node, path, `expected a mapping, found ${found(node)}`, true);
      const out: Record<string, unknown> = {};
      const keys: Record<string, SourcePos> = {};
      let ok = true;
      for (const pair of node.items) {
        const keyNode = pair.key;
        const key = keyNode.value;
        const sub = childPath(path, key);
        keys[key] = nodePos(ctx.src, keyNode);
        const schema = Object.hasOwn(shape, key) ? shape[key] : undefined;
        if (!schema) {
          const known = Object.keys(shape);
          const near = known.find((k) => k.toLowerCase() === key.toLowerCase());
          const hint = near ? ` (did you mean '${near}'?)` : '';
          fail(ctx, keyNode, sub, `unexpected key not in schema ${quote(key)}${hint}`);
          ok = false;
          continue;
        }
        const v = schema.parse(pair.value, sub, ctx);
        if (v === FAIL) ok = false;
        else out[key] = v;
      }
      const missing = required.filter((k) => !(k in keys));
      if (missing.length > 0) {
        fail(ctx, node, path, `required key(s) ${missing.map((k) => `'${k}'`).join(', ')} not found`);
        ok = false;
      }
      if (!ok) return FAIL;
      setLocation(out, { pos: nodePos(ctx.src, node), keys, path });
      return out as MapOut<S, R>;
    },
  };
}

/** A mapping with free keys, every value checked by one validator (e.g. HTTP headers). */
export function record<T>(value: Schema<T>): Schema<Record<string, T>> {
  return {
    expected: `a mapping of ${value.expected}`,
    parse(node, path, ctx) {
      if (node?.kind !== 'map')
        return fail(ctx, node, path, `expected a mapping, found ${found(node)}`, true);
      const out: Record<string, T> = {};
      const keys: Record<string, SourcePos> = {};
      let ok = true;
      for (const pair of node.items) {
        const key = pair.key.value;
        keys[key] = nodePos(ctx.src, pair.key);
        const v = value.parse(pair.value, childPath(path, key), ctx);
        if (v === FAIL) ok = false;
        else out[key] = v;
      }
      if (!ok) return FAIL;
      setLocation(out, { pos: nodePos(ctx.src, node), keys, path });
      return out;
    },
  };
}

export type Plain = string | Plain[] | { [k: string]: Plain };

/** Any structure, kept as text/lists/maps (for free-form sections such as `logging.handlers`). */
export function anyValue(): Schema<Plain> {
  const convert = (node: YNode | null): Plain => {
    if (node?.kind === 'map') {
      const out: Record<string, Plain> = {};
      for (const pair of node.items) out[pair.key.value] = convert(pair.value);
      return out;
    }
    if (node?.kind === 'seq') return node.items.map(convert);
    return scalarText(node) ?? '';
  };
  return { expected: 'any value', parse: (node) => convert(node) };
}

/** Runs a validator over a whole document root. */
export function validateRoot<T>(
  schema: Schema<T>,
  src: YamlSource,
): { value: T | Fail; issues: ConfigIssue[] } {
  const ctx: ParseCtx = { src, issues: [] };
  const value = schema.parse(src.root, '', ctx);
  return { value, issues: ctx.issues };
}

// Tool arguments checked against the inputSchema the tool advertises (spec 07 §4.1 "Do better":
// types, enums, unknown keys, each problem naming its argument). The schemas are the JSON Schemas
// `tools/list` publishes, so what a client is told and what the server enforces cannot drift, and
// the daemon checks arguments without loading zod. Only the subset those schemas use is known here:
// a top-level object with `properties`, `required` and `additionalProperties: false`, whose
// properties are strings (`minLength`, `enum`), integers (`minimum`, `maximum`), numbers and
// booleans. The wording is the one the tools gave when zod checked them (e.g. `expected int,
// received number`), which test/unit/mcp-schema-check.test.ts holds to zod's own over the catalogue.
import type { JsonSchema } from '../api/json-schema.ts';

export type ArgumentIssue =
  | { kind: 'unknown'; keys: string[] }
  | { kind: 'invalid'; key: string; why: string };

/** zod's bounds of an integer: a JSON number beyond them is not exact. */
const INT_MAX = Number.MAX_SAFE_INTEGER;

/** The JSON type of a value in zod's words. */
function received(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

const quoted = (values: readonly unknown[]) =>
  values.map((v) => (typeof v === 'string' ? `"${v}"` : String(v))).join('|');

/** What is wrong with one value under its property schema (empty when nothing is). */
function valueProblems(prop: Record<string, unknown>, v: unknown): string[] {
  if (Array.isArray(prop.enum))
    return prop.enum.includes(v) ? [] : [`Invalid option: expected one of ${quoted(prop.enum)}`];
  const type = prop.type;
  if (type === 'string') {
    const min = typeof prop.minLength === 'number' ? prop.minLength : 0;
    if (typeof v === 'string')
      return v.length < min ? [`Too small: expected string to have >=${min} characters`] : [];
    // zod measured the length of whatever had one, so a short array was also too small.
    const short = Array.isArray(v) && v.length < min;
    return [
      `expected string, received ${received(v)}`,
      ...(short ? [`Too small: expected array to have >=${min} items`] : []),
    ];
  }
  if (type === 'boolean') return typeof v === 'boolean' ? [] : [`expected boolean, received ${received(v)}`];
  if (type !== 'integer' && type !== 'number') return [];
  if (typeof v !== 'number') return [`expected number, received ${received(v)}`];
  const out: string[] = [];
  if (type === 'integer') {
    if (!Number.isInteger(v)) return ['expected int, received number'];
    if (v > INT_MAX) out.push(`Too big: expected int to be <=${INT_MAX}`);
    if (v < -INT_MAX) out.push(`Too small: expected int to be >=${-INT_MAX}`);
  }
  if (typeof prop.minimum === 'number' && v < prop.minimum)
    out.push(`Too small: expected number to be >=${prop.minimum}`);
  if (typeof prop.maximum === 'number' && v > prop.maximum)
    out.push(`Too big: expected number to be <=${prop.maximum}`);
  return out;
}

/** Every problem of `args` under `schema`, in property order, unknown keys last; empty = valid. */
export function argumentIssues(schema: JsonSchema, args: Record<string, unknown>): ArgumentIssue[] {
  const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((schema.required ?? []) as string[]);
  const issues: ArgumentIssue[] = [];
  for (const [key, prop] of Object.entries(props)) {
    const present = Object.hasOwn(args, key);
    if (!present && !required.has(key)) continue;
    for (const why of valueProblems(prop, present ? args[key] : undefined))
      issues.push({ kind: 'invalid', key, why });
  }
  if (schema.additionalProperties === false) {
    const unknown = Object.keys(args).filter((k) => !Object.hasOwn(props, k));
    if (unknown.length > 0) issues.push({ kind: 'unknown', keys: unknown });
  }
  return issues;
}

/** The issues as the one `isError` text naming the argument(s). */
export function issueText(issues: readonly ArgumentIssue[]): string {
  return issues
    .map((i) =>
      i.kind === 'unknown'
        ? `unknown argument(s): ${i.keys.map((k) => `'${k}'`).join(', ')}`
        : `invalid argument '${i.key}': ${i.why}`,
    )
    .join('; ');
}

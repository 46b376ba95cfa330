// Advertised JSON Schemas (spec 07 §4.1), derived from each tool's zod schemas by the schema's own
// toJSONSchema(), so this module needs zod's types only: the MCP server, which serves schemas
// generated ahead of time, imports it without loading zod. `$schema` is dropped: MCP 2025-11-25 makes
// 2020-12 the default dialect of a schema without one, and draft-07 validators in MCP clients (Ajv's
// default, which the TypeScript SDK client uses) refuse a schema that names the 2020-12 meta-schema.
import type { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

const SAFE_BOUNDS = new Set([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]);

/** zod's integer bounds at +/-2^53 carry no meaning for a client: drop them. */
export function tidy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tidy);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if ((k === 'minimum' || k === 'maximum') && typeof v === 'number' && SAFE_BOUNDS.has(v)) continue;
    out[k] = tidy(v);
  }
  return out;
}

/** `{"type":"object","properties":{…},"additionalProperties":false}` + `required` only when non-empty. */
export function inputSchemaOf(input: z.ZodObject): JsonSchema {
  const raw = tidy(input.toJSONSchema({ io: 'input', unrepresentable: 'any' })) as JsonSchema;
  const required = Array.isArray(raw.required) ? (raw.required as string[]) : [];
  const schema: JsonSchema = {
    type: 'object',
    properties: raw.properties ?? {},
    additionalProperties: false,
  };
  if (required.length > 0) schema.required = required;
  return schema;
}

/**
 * MCP requires `"type": "object"` at the top of an outputSchema; a payload that is a union of
 * object shapes (e.g. the cluster view with and without a backend) gets it beside its `anyOf`.
 */
export function outputSchemaOf(output: z.ZodType): JsonSchema {
  const { $schema: _, ...rest } = tidy(
    output.toJSONSchema({ io: 'output', unrepresentable: 'any' }),
  ) as JsonSchema;
  return rest.type === 'object' ? rest : { type: 'object', ...rest };
}

/** The argument keys that must be non-empty strings (spec 07 §4.1, vector 19). */
export function requiredStrings(schema: JsonSchema): string[] {
  const props = (schema.properties ?? {}) as Record<string, { type?: unknown }>;
  const required = (schema.required ?? []) as string[];
  return required.filter((k) => props[k]?.type === 'string');
}

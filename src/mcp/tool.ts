// The contract every MCP tool is written against (spec 07 §4). A tool is a handler (name, listing
// text, toolset, kind and `run`) plus its argument and result schemas: written in zod beside the
// handler (src/mcp/tools/), and served as the JSON Schemas derived from them
// (src/mcp/handlers/schemas.json), so the daemon never loads zod. The registry (registry.ts) lists
// tools, checks arguments against the advertised inputSchema before `run` is called, filters by
// toolset/readOnly, writes the audit line for mutating calls, and turns a ToolResult into the
// JSON-RPC `tools/call` result (`content` + `structuredContent`, or `isError`).
import type { z } from 'zod';
import type { ApiDeps } from '../api/deps.ts';
import type { JsonSchema } from '../api/json-schema.ts';
// The toolset names and the resolved `mcp:` block live with the config loader (config is a bottom
// layer and resolves the block); re-exported here as part of the tool contract.
import type { McpSettings, Toolset } from '../config/mcp.ts';

export type { McpSettings, Toolset };

/** Who called: for the audit line of mutating tools. */
export interface McpCaller {
  remoteAddress: string | null;
  userAgent: string | null;
  /** The presented web token's scopes (spec 10 §2.5); absent when the web API has no tokens. */
  scopes?: ReadonlySet<string> | null;
}

/** Tools that need a scope beyond the `control` every /mcp request already holds (spec 10 §2.5). */
const EXTRA_SCOPE: Record<string, string> = { cron_decide_gate: 'approve' };

/** The refusal of a tool the presented token may not call, or null; checked before its arguments. */
export function scopeRefusal(tool: string, caller: McpCaller): ToolResult | null {
  const scope = EXTRA_SCOPE[tool];
  if (scope === undefined || !caller.scopes || caller.scopes.has(scope)) return null;
  return toolError(
    `the presented web token lacks the '${scope}' scope this tool requires (the REST route for the same action is gated identically)`,
  );
}

export interface ToolContext {
  deps: ApiDeps;
  settings: McpSettings;
  caller: McpCaller;
  /** A row-count argument (`limit`, `tail`, `runs`): absent -> maxRows, clamped to [1, maxRows]. */
  rows(n: number | undefined): number;
}

/** Success: a one-line summary (spec 07 §4.4) and the structured payload; failure: `isError` text. */
export type ToolResult =
  | {
      ok: true;
      text: string;
      structured: Record<string, unknown>;
      /**
       * `structured` already as UTF-8 JSON (what JSON.stringify makes of it), in pieces cut from a
       * shared rendering: written in order, they are its text.
       */
      json?: readonly Uint8Array[];
    }
  | { ok: false; text: string };

export const toolOk = (
  text: string,
  structured: Record<string, unknown>,
  json?: readonly Uint8Array[],
): ToolResult => ({
  ok: true,
  text,
  structured,
  ...(json === undefined ? {} : { json }),
});

/**
 * On a `tools/call` result: its `structuredContent` as UTF-8 JSON, which the transport writes as is
 * instead of serialising the payload again. A symbol, so every other reader of the result sees the
 * plain object.
 */
export const RENDERED: unique symbol = Symbol('rendered structuredContent');
export const toolError = (text: string): ToolResult => ({ ok: false, text });

/** How a mutating tool is annotated (spec 07 §4.2 "M destructive/idempotent"). */
export interface Mutation {
  destructive: boolean;
  idempotent: boolean;
  /** For the confirm refusal: `<gerund> changes state; call again with confirm=true to proceed`. */
  gerund: string;
}

/** A tool without its schemas: what it is called and shows, and what it does. */
export interface ToolHandler<A = Record<string, unknown>> {
  /** `cron_…`, exact spec name. */
  name: string;
  title: string;
  /** One to three sentences, our own words; defaults/limits; `confirm=true` for mutating tools. */
  description: string;
  toolset: Toolset;
  /** false for read-only tools. */
  mutation: false | Mutation;
  /** Called with arguments that passed the tool's inputSchema. */
  run(args: A, ctx: ToolContext): Promise<ToolResult>;
}

/** A tool with its zod schemas: how tools are written and tested, and where the JSON Schemas come from. */
export interface ToolDef<I extends z.ZodObject = z.ZodObject, O extends z.ZodType = z.ZodType>
  extends ToolHandler<z.infer<I>> {
  /**
   * Arguments, a strict zod object (unknown keys refused) whose fields are the spec's arguments in
   * spec order; required ones non-optional. The advertised `inputSchema` is derived from it.
   */
  input: I;
  /** `structuredContent` schema, advertised as `outputSchema` (JSON Schema 2020-12). */
  output: O;
}

/** A tool as the daemon serves it: the handler and the JSON Schemas derived from its zod schemas. */
export interface ServedTool extends ToolHandler {
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
}

/** A module's tool schemas, one entry a tool name: the handlers type their arguments from it. */
export type SchemaTable = Record<string, { input: z.ZodObject; output: z.ZodType }>;

/** Tool `K` of table `S` without its schemas, `run` taking the arguments its zod input admits. */
export type HandlerOf<S extends SchemaTable, K extends keyof S & string> = ToolHandler<
  z.infer<S[K]['input']>
> & {
  name: K;
};

/** A typed handler constructor for the tools of table `S` (the types only: `S` is never loaded). */
export const handlerFor =
  <S extends SchemaTable>() =>
  <K extends keyof S & string>(handler: HandlerOf<S, K>): ToolHandler =>
    handler as unknown as ToolHandler;

/** Handlers with their zod schemas (which must name every handler): the tools as written. */
export function withSchemas(handlers: readonly ToolHandler[], schemas: SchemaTable): ToolDef[] {
  return handlers.map((h) => {
    const s = schemas[h.name];
    if (!s) throw new Error(`no schemas for tool ${h.name}`);
    return { ...h, input: s.input, output: s.output };
  });
}

/** The confirm argument's type error (a `confirm` that is not a boolean, beside other faults). */
export const CONFIRM_TYPE_ERROR =
  'confirm must be the JSON boolean true; call again with confirm=true to proceed';

/** The confirm rule (spec 07 §4.1): a mutating tool acts only when `confirm` is JSON `true`. */
export function confirmRefusal(gerund: string, confirm: unknown): ToolResult | null {
  if (confirm === true) return null;
  return toolError(`${gerund} changes state; call again with confirm=true to proceed`);
}

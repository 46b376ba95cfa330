// The contract every MCP tool is written against (spec 07 §4). The registry (src/mcp/registry.ts)
// lists tools from these definitions, validates arguments against `input` before `run` is called,
// filters by toolset/readOnly, writes the audit line for mutating calls, and turns a ToolResult into
// the JSON-RPC `tools/call` result (`content` + `structuredContent`, or `isError`).
import type { z } from 'zod';
import type { ApiDeps } from '../api/deps.ts';
// The toolset names and the resolved `mcp:` block live with the config loader (config is a bottom
// layer and resolves the block); re-exported here as part of the tool contract.
import type { McpSettings, Toolset } from '../config/mcp.ts';

export type { McpSettings, Toolset };

/** Who called: for the audit line of mutating tools. */
export interface McpCaller {
  remoteAddress: string | null;
  userAgent: string | null;
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
  | { ok: true; text: string; structured: Record<string, unknown> }
  | { ok: false; text: string };

export const toolOk = (text: string, structured: Record<string, unknown>): ToolResult => ({
  ok: true,
  text,
  structured,
});
export const toolError = (text: string): ToolResult => ({ ok: false, text });

/** How a mutating tool is annotated (spec 07 §4.2 "M destructive/idempotent"). */
export interface Mutation {
  destructive: boolean;
  idempotent: boolean;
  /** For the confirm refusal: `<gerund> changes state; call again with confirm=true to proceed`. */
  gerund: string;
}

export interface ToolDef<I extends z.ZodObject = z.ZodObject, O extends z.ZodType = z.ZodType> {
  /** `cron_…`, exact spec name. */
  name: string;
  title: string;
  /** One to three sentences, our own words; defaults/limits; `confirm=true` for mutating tools. */
  description: string;
  toolset: Toolset;
  /** false for read-only tools. */
  mutation: false | Mutation;
  /**
   * Arguments, a strict zod object (unknown keys refused) whose fields are the spec's arguments in
   * spec order; required ones non-optional. The registry validates with it and derives the
   * advertised `inputSchema` from it.
   */
  input: I;
  /** `structuredContent` schema, advertised as `outputSchema` (JSON Schema 2020-12). */
  output: O;
  run(args: z.infer<I>, ctx: ToolContext): Promise<ToolResult>;
}

/** The confirm rule (spec 07 §4.1): a mutating tool acts only when `confirm` is JSON `true`. */
export function confirmRefusal(gerund: string, confirm: unknown): ToolResult | null {
  if (confirm === true) return null;
  return toolError(`${gerund} changes state; call again with confirm=true to proceed`);
}

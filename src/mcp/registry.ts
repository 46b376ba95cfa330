// The tool registry (spec 07 §4.1): which tools are visible under the settings, what `tools/list`
// advertises, and `tools/call`: argument checks against each tool's advertised inputSchema
// (schema-check.ts), the row-count clamp, result shaping, the audit line of mutating calls and the
// per-tool call counter. It takes tools as the daemon serves them (JSON Schemas given) or as they
// are written (zod schemas, from which it derives the JSON Schemas: the tests and the schema
// generator). Built once per web server start (settings change = restart), so listing is cached.

import type { ApiDeps } from '../api/deps.ts';
import { inputSchemaOf, type JsonSchema, outputSchemaOf, requiredStrings } from '../api/json-schema.ts';
import { errorText } from '../util/errors.ts';
import { nestedDeeperThan } from '../util/jsondepth.ts';
import type { Logger } from '../util/log.ts';
import { auditRecord, type CallOutcome, isConfirmRefusal } from './audit.ts';
import { INVALID_PARAMS, internalError, isPlainObject, MCP_MAX_DEPTH, RpcError } from './rpc.ts';
import { type ArgumentIssue, argumentIssues, issueText } from './schema-check.ts';

import {
  CONFIRM_TYPE_ERROR,
  confirmRefusal,
  type McpCaller,
  type McpSettings,
  RENDERED,
  type ServedTool,
  scopeRefusal,
  type ToolContext,
  type ToolDef,
  type ToolHandler,
  type ToolResult,
} from './tool.ts';

export interface ListedTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  annotations: {
    title: string;
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: false;
  };
}

/** The `tools/call` result (spec 07 §4.1). */
export interface CallResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: true;
  /** `structuredContent` as UTF-8 JSON, when the tool had it rendered already (the transport's to use). */
  [RENDERED]?: readonly Uint8Array[];
}

export interface RegistryHooks {
  log: Logger;
  /** Counts one call of a visible tool (Prometheus `cronstable_mcp_tool_calls_total`). */
  count?(tool: string, outcome: CallOutcome): void;
}

interface Entry {
  tool: ToolHandler;
  listed: ListedTool;
  requiredStrings: string[];
}

/** Whether a tool is exposed: its toolset is on and it is not a mutating tool under readOnly. */
export function isVisible(tool: ToolHandler, settings: McpSettings): boolean {
  return settings.toolsets.includes(tool.toolset) && !(tool.mutation !== false && settings.readOnly);
}

/** The JSON Schemas a tool advertises: given (served), or derived from its zod schemas. */
export function advertisedSchemas(tool: ToolDef | ServedTool): {
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
} {
  if ('inputSchema' in tool) return { inputSchema: tool.inputSchema, outputSchema: tool.outputSchema };
  return { inputSchema: inputSchemaOf(tool.input), outputSchema: outputSchemaOf(tool.output) };
}

function listing(tool: ToolDef | ServedTool): ListedTool {
  const m = tool.mutation;
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    ...advertisedSchemas(tool),
    annotations: {
      title: tool.title,
      readOnlyHint: m === false,
      destructiveHint: m !== false && m.destructive,
      idempotentHint: m === false || m.idempotent,
      openWorldHint: false,
    },
  };
}

/** `limit`/`tail`/`runs`: absent -> ceiling, else clamped to [1, ceiling] (never an error). */
export function rowClamp(ceiling: number): (n: number | undefined) => number {
  return (n) =>
    n === undefined || !Number.isFinite(n) ? ceiling : Math.min(ceiling, Math.max(1, Math.trunc(n)));
}

export class ToolRegistry {
  private readonly entries = new Map<string, Entry>();
  readonly tools: ListedTool[];

  constructor(
    all: readonly (ToolDef | ServedTool)[],
    readonly settings: McpSettings,
    private readonly deps: ApiDeps,
    private readonly hooks: RegistryHooks,
  ) {
    for (const tool of all) {
      if (!isVisible(tool, settings)) continue;
      const listed = listing(tool);
      this.entries.set(tool.name, { tool, listed, requiredStrings: requiredStrings(listed.inputSchema) });
    }
    this.tools = [...this.entries.values()].map((e) => e.listed);
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  private context(caller: McpCaller, unbounded: boolean): ToolContext {
    const settings = unbounded ? { ...this.settings, maxRows: Number.MAX_SAFE_INTEGER } : this.settings;
    return { deps: this.deps, settings, caller, rows: rowClamp(settings.maxRows) };
  }

  /** Validates and runs; a ToolResult for argument problems, never a throw. */
  private async invoke(entry: Entry, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
    for (const key of entry.requiredStrings) {
      const v = args[key];
      if (typeof v !== 'string' || v === '')
        return { ok: false, text: `missing or empty required string argument: '${key}'` };
    }
    const issues = argumentIssues(entry.listed.inputSchema, args);
    if (issues.length > 0) {
      const m = entry.tool.mutation;
      if (m === false) return { ok: false, text: issueText(issues) };
      // A `confirm` that is not JSON true is the confirm rule's refusal, not a schema error.
      const onConfirm = (i: ArgumentIssue) => i.kind === 'invalid' && i.key === 'confirm';
      const text = issueText(issues.map((i) => (onConfirm(i) ? { ...i, why: CONFIRM_TYPE_ERROR } : i)));
      if (issues.every(onConfirm)) return confirmRefusal(m.gerund, args.confirm) ?? { ok: false, text };
      return { ok: false, text };
    }
    return entry.tool.run(args, ctx);
  }

  /**
   * `tools/call`. Unknown or hidden tool / non-object arguments are protocol faults (RpcError);
   * everything the tool reports is a result. An unexpected exception is logged and becomes -32603.
   */
  async call(name: string, rawArgs: unknown, caller: McpCaller): Promise<CallResult> {
    const entry = this.entries.get(name);
    if (!entry) throw new RpcError(INVALID_PARAMS, `unknown tool: ${name}`);
    if (rawArgs !== undefined && !isPlainObject(rawArgs))
      throw new RpcError(INVALID_PARAMS, "'arguments' must be an object");
    const args = rawArgs ?? {};
    if (nestedDeeperThan(args, MCP_MAX_DEPTH)) {
      // Refused before the schema check, which recurses: the detail goes to the log only.
      this.record(entry, args, 'internal', caller);
      this.hooks.log.error(`mcp: tool ${name} failed: arguments nest deeper than ${MCP_MAX_DEPTH} levels`);
      throw internalError();
    }
    let result: ToolResult;
    try {
      // A scope refusal comes before argument checks and the confirm rule (spec 10 §2.5).
      result = scopeRefusal(name, caller) ?? (await this.invoke(entry, args, this.context(caller, false)));
    } catch (err) {
      this.record(entry, args, 'internal', caller);
      if (err instanceof RpcError) throw err;
      this.hooks.log.error(`mcp: tool ${name} failed: ${errorText(err, { stack: true })}`);
      throw internalError();
    }
    const outcome: CallOutcome = result.ok ? 'ok' : isConfirmRefusal(result.text) ? 'refused' : 'error';
    this.record(entry, args, outcome, caller);
    if (!result.ok) return { content: [{ type: 'text', text: result.text }], isError: true };
    const out: CallResult = {
      content: [{ type: 'text', text: result.text }],
      structuredContent: result.structured,
    };
    if (result.json !== undefined) out[RENDERED] = result.json;
    return out;
  }

  /** A visible tool's payload for a resource: rows unbounded, no audit, no counter; null if hidden. */
  async read(name: string, args: Record<string, unknown>): Promise<ToolResult | null> {
    const entry = this.entries.get(name);
    if (!entry) return null;
    return this.invoke(entry, args, this.context({ remoteAddress: null, userAgent: null }, true));
  }

  private record(entry: Entry, args: Record<string, unknown>, outcome: CallOutcome, caller: McpCaller): void {
    this.hooks.count?.(entry.tool.name, outcome);
    if (entry.tool.mutation !== false)
      this.hooks.log.info(`mcp audit: ${auditRecord(entry.tool.name, args, outcome, caller)}`);
  }
}

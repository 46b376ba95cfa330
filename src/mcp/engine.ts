// What one web server start builds for MCP (spec 07 §1.4: settings change = restart = rebuild): the
// registry, resources, prompts, the `initialize` result, and the method table a request is
// dispatched through (spec 07 §2.6). Every handler is a closure over this cached state; a request
// costs one table lookup and the handler's own work.
import type { ApiDeps } from '../api/deps.ts';
import { errorText } from '../util/errors.ts';
import type { Logger } from '../util/log.ts';
import { BUILT_IN_INSTRUCTIONS } from './instructions.ts';
import { PromptCatalogue } from './prompts.ts';
import { type RegistryHooks, ToolRegistry } from './registry.ts';
import { ResourceCatalogue } from './resources.ts';
import { INVALID_PARAMS, internalError, METHOD_NOT_FOUND, RpcError } from './rpc.ts';
import type { McpCaller, McpSettings, ServedTool, ToolDef } from './tool.ts';

/** The revisions we speak, newest first (spec 07 §0); the first is the default. */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
export const LATEST_PROTOCOL = PROTOCOL_VERSIONS[0];

export const isSupportedVersion = (v: unknown): v is string =>
  typeof v === 'string' && (PROTOCOL_VERSIONS as readonly string[]).includes(v);

interface Capabilities {
  tools: { listChanged: false };
  resources?: { listChanged: false };
  prompts?: { listChanged: false };
}

/** One JSON-RPC method: its params (an object, `{}` when absent) and the caller, to its result. */
type Method = (params: Record<string, unknown>, caller: McpCaller) => unknown;

export class McpEngine {
  readonly registry: ToolRegistry;
  readonly resources: ResourceCatalogue | null;
  readonly prompts: PromptCatalogue | null;
  readonly capabilities: Capabilities;
  /** The methods answered; anything else is -32601 `unknown method: <m>`. */
  private readonly methods = new Map<string, Method>();
  private readonly instructions: string;
  private readonly version: string;
  readonly log: Logger;

  constructor(
    tools: readonly (ToolDef | ServedTool)[],
    settings: McpSettings,
    deps: ApiDeps,
    hooks: RegistryHooks,
  ) {
    const registry = new ToolRegistry(tools, settings, deps, hooks);
    this.registry = registry;
    const resources = settings.resources ? new ResourceCatalogue(registry) : null;
    this.resources = resources && !resources.empty ? resources : null;
    const prompts = settings.prompts
      ? new PromptCatalogue(settings.toolsets, (name) => registry.has(name))
      : null;
    this.prompts = prompts && !prompts.empty ? prompts : null;
    this.capabilities = { tools: { listChanged: false } };
    this.instructions = settings.instructions ?? BUILT_IN_INSTRUCTIONS;
    this.version = deps.ctx.version;
    this.log = hooks.log;

    const m = this.methods;
    m.set('initialize', (p) => this.initializeResult(p));
    m.set('ping', () => ({}));
    m.set('tools/list', () => ({ tools: registry.tools }));
    m.set('tools/call', (p, caller) => {
      if (typeof p.name !== 'string') throw new RpcError(INVALID_PARAMS, "tools/call requires a 'name'");
      return registry.call(p.name, p.arguments, caller);
    });
    const res = this.resources;
    if (res) {
      this.capabilities.resources = { listChanged: false };
      m.set('resources/list', () => res.list());
      m.set('resources/templates/list', () => res.listTemplates());
      m.set('resources/read', (p) => {
        if (typeof p.uri !== 'string') throw new RpcError(INVALID_PARAMS, "resources/read requires a 'uri'");
        return res.read(p.uri);
      });
    }
    const pr = this.prompts;
    if (pr) {
      this.capabilities.prompts = { listChanged: false };
      m.set('prompts/list', () => pr.list());
      m.set('prompts/get', (p) => pr.get(p.name, p.arguments));
    }
  }

  initializeResult(params: Record<string, unknown>) {
    const asked = params.protocolVersion;
    return {
      protocolVersion: isSupportedVersion(asked) ? asked : LATEST_PROTOCOL,
      capabilities: this.capabilities,
      serverInfo: { name: 'cronstable', title: 'cronstable', version: this.version },
      instructions: this.instructions,
    };
  }

  /**
   * One request's result. A protocol fault rejects with its RpcError; any other exception is
   * logged and becomes -32603 `internal error`, its detail only in the log (spec 07 §7).
   */
  async dispatch(method: string, params: Record<string, unknown>, caller: McpCaller): Promise<unknown> {
    const handler = this.methods.get(method);
    if (!handler) throw new RpcError(METHOD_NOT_FOUND, `unknown method: ${method}`);
    try {
      return await handler(params, caller);
    } catch (err) {
      if (err instanceof RpcError) throw err;
      this.log.error(`mcp: handler failed: ${errorText(err, { stack: true })}`);
      throw internalError();
    }
  }
}

// What one web server start builds for MCP (spec 07 §1.4: settings change = restart = rebuild): the
// registry, resources, prompts, the `initialize` result, and an SDK `Server` factory with every
// handler registered against them. Handlers are closures over this cached state, so a Server is
// cheap to make; the transport keeps a small pool of them (an SDK Server serves one transport at a
// time, and the stateless SDK transport serves one request).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ApiDeps } from '../api/deps.ts';
import { errorText } from '../util/errors.ts';
import type { Logger } from '../util/log.ts';
import { BUILT_IN_INSTRUCTIONS } from './instructions.ts';
import { PromptCatalogue } from './prompts.ts';
import { type RegistryHooks, ToolRegistry } from './registry.ts';
import { ResourceCatalogue } from './resources.ts';
import { INVALID_PARAMS, internalError, isPlainObject, METHOD_NOT_FOUND, RpcError } from './rpc.ts';
import type { McpCaller, McpSettings, ToolDef } from './tool.ts';

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

/**
 * The SDK parses a request against the schema a handler was registered with. These only pin the
 * method: our handlers check their params themselves, with the spec's messages (the SDK's own
 * schemas would refuse `initialize` without params and word every refusal its own way).
 */
const loose = <M extends string>(method: M) => z.looseObject({ method: z.literal(method) });

export class McpEngine {
  readonly registry: ToolRegistry;
  readonly resources: ResourceCatalogue | null;
  readonly prompts: PromptCatalogue | null;
  readonly capabilities: Capabilities;
  /** Methods answered by a handler; anything else is -32601 `unknown method: <m>`. */
  readonly methods: ReadonlySet<string>;
  private readonly instructions: string;
  private readonly version: string;
  private readonly pool: Server[] = [];
  private readonly log: Logger;

  constructor(tools: readonly ToolDef[], settings: McpSettings, deps: ApiDeps, hooks: RegistryHooks) {
    this.registry = new ToolRegistry(tools, settings, deps, hooks);
    const resources = settings.resources ? new ResourceCatalogue(this.registry) : null;
    this.resources = resources && !resources.empty ? resources : null;
    const prompts = settings.prompts
      ? new PromptCatalogue(settings.toolsets, (name) => this.registry.has(name))
      : null;
    this.prompts = prompts && !prompts.empty ? prompts : null;
    this.capabilities = { tools: { listChanged: false } };
    if (this.resources) this.capabilities.resources = { listChanged: false };
    if (this.prompts) this.capabilities.prompts = { listChanged: false };
    const methods = ['initialize', 'ping', 'tools/list', 'tools/call'];
    if (this.resources) methods.push('resources/list', 'resources/templates/list', 'resources/read');
    if (this.prompts) methods.push('prompts/list', 'prompts/get');
    this.methods = new Set(methods);
    this.instructions = settings.instructions ?? BUILT_IN_INSTRUCTIONS;
    this.version = deps.ctx.version;
    this.log = hooks.log;
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

  /** A Server ready to connect (from the pool when one is idle). */
  acquire(): Server {
    return this.pool.pop() ?? this.makeServer();
  }

  /** Back to the pool after its transport closed. */
  release(server: Server): void {
    if (this.pool.length < 16) this.pool.push(server);
  }

  private makeServer(): Server {
    const server = new Server(
      { name: 'cronstable', title: 'cronstable', version: this.version },
      { capabilities: this.capabilities, instructions: this.instructions },
    );
    const paramsOf = (request: Record<string, unknown>) =>
      isPlainObject(request.params) ? request.params : {};
    // The caller of the request being served, from the synthetic request's headers (set by the transport).
    const callerOf = (extra: {
      requestInfo?: { headers: Record<string, string | string[] | undefined> };
    }): McpCaller => {
      const h = extra.requestInfo?.headers ?? {};
      const one = (v: string | string[] | undefined) => (typeof v === 'string' && v !== '' ? v : null);
      return { remoteAddress: one(h['x-mcp-remote-address']), userAgent: one(h['user-agent']) };
    };
    // Failure hygiene (spec 07 §7): an unexpected exception is logged and answered -32603 `internal error`
    // (the SDK would send the exception's own message).
    const guard =
      <A extends unknown[], R>(fn: (...a: A) => R | Promise<R>) =>
      async (...a: A): Promise<R> => {
        try {
          return await fn(...a);
        } catch (err) {
          if (err instanceof RpcError) throw err;
          this.log.error(`mcp: handler failed: ${errorText(err, { stack: true })}`);
          throw internalError();
        }
      };
    server.setRequestHandler(loose('initialize'), (request) => this.initializeResult(paramsOf(request)));
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: this.registry.tools }));
    server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
      this.registry.call(request.params.name, request.params.arguments, callerOf(extra)),
    );
    const resources = this.resources;
    if (resources) {
      server.setRequestHandler(loose('resources/list'), () => resources.list());
      server.setRequestHandler(loose('resources/templates/list'), () => resources.listTemplates());
      server.setRequestHandler(
        loose('resources/read'),
        guard((request) => {
          const uri = paramsOf(request).uri;
          if (typeof uri !== 'string') throw new RpcError(INVALID_PARAMS, "resources/read requires a 'uri'");
          return resources.read(uri);
        }),
      );
    }
    const prompts = this.prompts;
    if (prompts) {
      server.setRequestHandler(loose('prompts/list'), () => prompts.list());
      server.setRequestHandler(
        loose('prompts/get'),
        guard((request) => {
          const p = paramsOf(request);
          return prompts.get(p.name, p.arguments);
        }),
      );
    }
    server.fallbackRequestHandler = async (request) => {
      throw new RpcError(METHOD_NOT_FOUND, `unknown method: ${request.method}`);
    };
    return server;
  }
}

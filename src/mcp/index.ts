// The MCP server's entry point, loaded by the daemon with a dynamic import() only when `mcp.enabled`
// (so none of this code is in a daemon's memory otherwise). It serves the tools' handlers with their
// generated JSON Schemas: neither zod nor the MCP SDK is loaded.
import type { ApiDeps } from '../api/deps.ts';
import { McpEngine } from './engine.ts';
import { servedTools } from './handlers/index.ts';
import type { McpSettings } from './tool.ts';
import { type McpHttp, mcpHttp } from './transport.ts';

export type { McpHttp } from './transport.ts';

export function createMcp(deps: ApiDeps, settings: McpSettings): McpHttp {
  const engine = new McpEngine(servedTools(), settings, deps, {
    log: deps.log,
    count: deps.metrics?.mcpToolCall
      ? (tool, outcome) => deps.metrics?.mcpToolCall?.(tool, outcome)
      : undefined,
  });
  return mcpHttp(engine);
}

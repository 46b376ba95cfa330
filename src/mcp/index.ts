// The MCP server's entry point, loaded by the web server with a dynamic import() only when
// `mcp.enabled` (so neither this code nor the SDK is in a daemon's memory otherwise).
import type { ApiDeps } from '../api/deps.ts';
import { McpEngine } from './engine.ts';
import type { McpSettings } from './tool.ts';
import { ALL_TOOLS } from './tools/index.ts';
import { type McpHttp, mcpHttp } from './transport.ts';

export type { McpHttp } from './transport.ts';

export function createMcp(deps: ApiDeps, settings: McpSettings): McpHttp {
  const engine = new McpEngine(ALL_TOOLS, settings, deps, {
    log: deps.log,
    count: deps.metrics?.mcpToolCall
      ? (tool, outcome) => deps.metrics?.mcpToolCall?.(tool, outcome)
      : undefined,
  });
  return mcpHttp(engine);
}

// How the daemon mounts the MCP server into the web server (the port in src/web/mcp-port.ts), only
// when `mcp.enabled` (issue 21). A dynamic import: in the npm bundle it is a file of its own beside
// dist/cronstable.mjs that shares every other module with the daemon (scripts/build.mjs), so a daemon
// that does not enable MCP never reads or parses its code, and one that does holds one copy of the
// store, the API and logging.
import { resolveMcpSettings } from '../config/mcp.ts';
import type { McpMountFactory } from '../web/mcp-port.ts';

export const mountMcp: McpMountFactory = async (deps) => {
  const settings = resolveMcpSettings(deps.ctx.config().mcp);
  if (!settings.enabled) return null;
  const { createMcp } = await import('../mcp/index.ts');
  return createMcp(deps, settings);
};

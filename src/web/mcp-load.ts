// Where the web server gets the MCP server from, only when `mcp.enabled` (issue 21). A dynamic
// import: in the npm bundle it is a file of its own beside dist/cronstable.mjs that shares every
// other module with the daemon (scripts/build.mjs), so a daemon that does not enable MCP never
// reads or parses its code, and one that does holds one copy of the store, the web API and logging.
import type { createMcp } from '../mcp/index.ts';

export async function loadMcp(): Promise<{ createMcp: typeof createMcp }> {
  return import('../mcp/index.ts');
}

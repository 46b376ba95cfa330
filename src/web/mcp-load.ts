// Where the web server gets the MCP server from, only when `mcp.enabled` (issue 21). From
// sources and in the Bun binary this is a plain dynamic import. In the npm bundle,
// scripts/build.mjs swaps this module for one that hands the bundle's own instances of the
// modules the MCP code shares with the daemon (store, web API, logging: one copy, one state,
// classes `instanceof` recognises) to dist/cronstable-mcp.mjs, and imports that file: the MCP
// code and its SDK are then never parsed by a daemon that does not enable them.
import type { createMcp } from '../mcp/index.ts';

export async function loadMcp(): Promise<{ createMcp: typeof createMcp }> {
  return import('../mcp/index.ts');
}

// The /mcp endpoint as the web edge sees it (spec 07 §2). The daemon mounts the MCP server through
// this port, loading it only when `mcp.enabled`, so the web edge never imports src/mcp and a daemon
// without MCP never reads its code.
import type { Context } from 'hono';
import type { ApiDeps } from '../api/deps.ts';

export interface McpMount {
  post(c: Context): Promise<Response>;
  options(c: Context): Response;
  /** GET/HEAD and every other method. */
  notAllowed(c: Context): Response;
  /** Whether OPTIONS /mcp may skip auth (a preflight from a listed origin). */
  preflightBypass(c: Context): boolean;
}

/** Makes the endpoint for one server's deps, or null when the configuration leaves MCP off. */
export type McpMountFactory = (deps: ApiDeps) => Promise<McpMount | null>;

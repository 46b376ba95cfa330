// The `mcp:` block (spec 07 §1): its defaults, its own range checks, and the cross-section rules that
// need the merged `web` section (a listen address; the fail-closed rule of §1.3). Pure: the daemon
// reads the resolved settings from here without loading the MCP server itself.
import type { ConfigIssue, SourcePos } from './errors.ts';
import type { McpSection, WebSection } from './file-schema.ts';
import { isLocalListen, openListeners } from './listeners.ts';
import { Locator } from './locate.ts';

export { isLocalListen };

import type { LoadWarning } from './types.ts';

export type Toolset = 'observe' | 'act' | 'dags' | 'state';

/** The resolved `mcp:` block (spec 07 §1.1), defaults applied. */
export interface McpSettings {
  enabled: boolean;
  readOnly: boolean;
  toolsets: Toolset[];
  allowedOrigins: string[];
  allowUnauthenticated: boolean;
  resources: boolean;
  prompts: boolean;
  /** Operator text for `initialize`, or null for the built-in paragraph. */
  instructions: string | null;
  maxRows: number;
  maxBodyBytes: number;
}

export const MCP_DEFAULT_MAX_ROWS = 200;
export const MCP_DEFAULT_MAX_BODY_BYTES = 1_048_576;

/** The block with every default applied; toolsets de-duplicated keeping first occurrences. */
export function resolveMcpSettings(section: McpSection | null | undefined): McpSettings {
  const s = section ?? {};
  const toolsets: Toolset[] = [];
  for (const t of s.toolsets ?? ['observe']) if (!toolsets.includes(t)) toolsets.push(t);
  return {
    enabled: s.enabled ?? false,
    readOnly: s.readOnly ?? true,
    toolsets,
    allowedOrigins: [...(s.allowedOrigins ?? [])],
    allowUnauthenticated: s.allowUnauthenticated ?? false,
    resources: s.resources ?? true,
    prompts: s.prompts ?? true,
    instructions: s.instructions ? s.instructions : null,
    maxRows: s.maxRows ?? MCP_DEFAULT_MAX_ROWS,
    maxBodyBytes: s.maxBodyBytes ?? MCP_DEFAULT_MAX_BODY_BYTES,
  };
}

/** Checks of the block itself: they apply even when it is disabled. */
export function checkMcp(mcp: McpSection, fallback: SourcePos, issues: ConfigIssue[]): void {
  if (mcp === null) return;
  const loc = new Locator([mcp], fallback);
  for (const key of ['maxRows', 'maxBodyBytes'] as const) {
    const v = mcp[key];
    if (v !== undefined && v < 1) issues.push(loc.issue([key], `mcp.${key} must be >= 1`));
  }
}

/** The rules that need the merged `web` section (mcp and web may live in different files). */
export function checkMcpAgainstWeb(
  mcp: McpSection | null,
  web: WebSection | null,
  fallback: SourcePos,
  issues: ConfigIssue[],
  warnings: LoadWarning[],
): void {
  const settings = resolveMcpSettings(mcp);
  // A missing web section is reported for any mcp block (spec 01 §2); here only the enabled case.
  if (!mcp || !settings.enabled || !web) return;
  const loc = new Locator([mcp], fallback);
  if (web.listen.length === 0) {
    issues.push(
      loc.issue(
        ['enabled'],
        'mcp is enabled but web.listen is empty: MCP needs a web listen address to serve /mcp on',
      ),
    );
    return;
  }
  if (settings.readOnly && settings.toolsets.includes('act'))
    warnings.push({
      level: 'warning',
      logger: 'cronstable',
      message: "mcp: toolset 'act' has no effect while readOnly is true; its mutating tools stay hidden",
    });
  if (settings.allowUnauthenticated) return;
  const routable = openListeners(web);
  if (routable.length === 0) return;
  issues.push(
    loc.issue(
      ['enabled'],
      `mcp.enabled is set but no web.authToken/authTokens is set, and the web API listens on non-loopback address(es) ${routable.join(', ')}: /mcp would be served without authentication (with no token the web app installs no auth middleware at all). Set web.authToken or a web.authTokens entry, restrict web.listen to loopback/unix-socket addresses, set web.tls.clientCa so the listener authenticates callers by certificate, or set mcp.allowUnauthenticated: true when the endpoint is protected by other means (an mTLS-terminating proxy, a network policy).`,
    ),
  );
}

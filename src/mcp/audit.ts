// The audit trail of MCP tool calls (spec 07 §7 "Do better (audit)"): one structured log line per
// mutating call, with secret-looking argument values redacted, and the outcome every call is
// counted under in Prometheus.
import type { McpCaller } from './tool.ts';

export type CallOutcome = 'ok' | 'error' | 'refused' | 'internal';

const SECRET_KEY = /(token|secret|passw|credential|auth|api[-_]?key|private)/i;
/** Long opaque strings (bearer tokens, keys) even under an innocent key. */
const SECRET_VALUE = /^(Bearer\s+\S+|[A-Za-z0-9+/_=-]{40,})$/;

/** A copy of the arguments with secret-looking values replaced by `[redacted]`. */
export function redactArguments(args: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) {
    if (SECRET_KEY.test(k) || (typeof v === 'string' && SECRET_VALUE.test(v))) out[k] = '[redacted]';
    else if (typeof v === 'object' && v !== null && !Array.isArray(v))
      out[k] = redactArguments(v as Record<string, unknown>);
    else out[k] = v;
  }
  return out;
}

/** The audit line's JSON (logged as `mcp audit: <json>`). */
export function auditRecord(
  tool: string,
  args: Record<string, unknown>,
  outcome: CallOutcome,
  caller: McpCaller,
): string {
  return JSON.stringify({
    tool,
    arguments: redactArguments(args),
    outcome,
    remoteAddress: caller.remoteAddress,
    userAgent: caller.userAgent,
  });
}

const REFUSAL = / changes state; call again with confirm=true to proceed$/;

/** A failure text that is the confirm rule's refusal (nothing happened because confirm was missing). */
export const isConfirmRefusal = (text: string): boolean => REFUSAL.test(text);

// The audit trail of MCP tool calls (spec 07 §7 "Do better (audit)"): one structured log line per
// mutating call, with secret-looking argument values redacted, and the outcome every call is
// counted under in Prometheus.
import type { McpCaller } from './tool.ts';

export type CallOutcome = 'ok' | 'error' | 'refused' | 'internal';

const SECRET_KEY = /(token|secret|passw|credential|auth|api[-_]?key|private)/i;
/** Long opaque strings (bearer tokens, keys) even under an innocent key. */
const SECRET_VALUE = /^(Bearer\s+\S+|[A-Za-z0-9+/_=-]{40,})$/;

/** Bytes of argument text an audit line carries at most; the rest is cut with a marker. */
export const AUDIT_ARGUMENTS_BYTES = 2048;
/** Object levels redaction walks; deeper values are replaced, so the line never recurses far. */
const AUDIT_DEPTH = 8;

/** A value with secret-looking strings redacted, objects and arrays walked to AUDIT_DEPTH. */
function redactValue(v: unknown, depth: number): unknown {
  if (typeof v === 'string') return SECRET_VALUE.test(v) ? '[redacted]' : v;
  if (typeof v !== 'object' || v === null) return v;
  if (depth > AUDIT_DEPTH) return '[nested too deep]';
  if (Array.isArray(v)) return v.map((x) => redactValue(x, depth + 1));
  return redactArguments(v as Record<string, unknown>, depth);
}

/** A copy of the arguments with secret-looking values replaced by `[redacted]`. */
export function redactArguments(args: Record<string, unknown>, depth = 1): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args))
    out[k] = SECRET_KEY.test(k) ? '[redacted]' : redactValue(v, depth + 1);
  return out;
}

/** The redacted arguments, or their JSON text cut to the cap (with a marker) when longer. */
function cappedArguments(args: Record<string, unknown>): unknown {
  const redacted = redactArguments(args);
  const text = JSON.stringify(redacted);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= AUDIT_ARGUMENTS_BYTES) return redacted;
  // Cut on a character boundary: decoding a byte slice drops a split trailing character.
  const head = Buffer.from(text, 'utf8')
    .subarray(0, AUDIT_ARGUMENTS_BYTES)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return `${head}…[truncated: ${bytes} bytes]`;
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
    arguments: cappedArguments(args),
    outcome,
    remoteAddress: caller.remoteAddress,
    userAgent: caller.userAgent,
  });
}

const REFUSAL = / changes state; call again with confirm=true to proceed$/;

/** A failure text that is the confirm rule's refusal (nothing happened because confirm was missing). */
export const isConfirmRefusal = (text: string): boolean => REFUSAL.test(text);

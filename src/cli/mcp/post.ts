// One POST to the daemon's /mcp endpoint (spec 07 §8.2 step 3) and the two ways it can fail: the
// daemon answered with something other than a JSON-RPC reply (an HTTP failure, with the text the
// bridge and --check print), or no answer at all (a transport failure).
import { STATUS_CODES } from 'node:http';
import { anyPortFetch } from '../../http/any-port-fetch.ts';
import { type ClientTlsOptions, closedForCertificate, tlsFailure } from '../../http/client-tls.ts';
import type { BridgeOptions } from './args.ts';

/** The options plus the loaded client TLS material (null: the default transport). */
export type TransportOptions = BridgeOptions & { tlsOptions: ClientTlsOptions | null };

export type PostOutcome =
  | { kind: 'reply'; status: number; body: string }
  /** `message` is the whole text for the error frame or the check's verdict. */
  | { kind: 'unreachable'; message: string };

export async function postMcp(
  opts: Pick<TransportOptions, 'endpoint' | 'token' | 'timeoutMs'> & { tlsOptions?: ClientTlsOptions | null },
  protocolVersion: string,
  body: string,
): Promise<PostOutcome> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
    'mcp-protocol-version': protocolVersion,
  };
  if (opts.token !== null) headers.authorization = `Bearer ${opts.token}`;
  try {
    // The deadline covers the body too: a daemon that sends headers and then stalls still ends. node:http,
    // not the built-in fetch, which refuses ports on its block list (6000, 10080, ...) a daemon may use.
    const res = await anyPortFetch(opts.endpoint, {
      method: 'POST',
      headers,
      body,
      signal: AbortSignal.timeout(opts.timeoutMs),
      tls: opts.tlsOptions,
    });
    return { kind: 'reply', status: res.status, body: await res.text() };
  } catch (e) {
    return { kind: 'unreachable', message: transportFailure(opts, e) };
  }
}

/** Spec 10 §3.3: a certificate the bridge does not trust, or a listener that wants one of ours. */
function transportFailure(
  opts: Pick<TransportOptions, 'endpoint' | 'timeoutMs'> & { tlsOptions?: ClientTlsOptions | null },
  e: unknown,
): string {
  const tls = tlsFailure(opts.endpoint, e, Boolean(opts.tlsOptions?.cert));
  if (tls?.kind === 'verify')
    return `TLS verification failed for the cronstable MCP endpoint at ${opts.endpoint}: ${tls.reason} (pass --cacert with the CA that signed the listener's certificate, or --insecure to skip verification entirely)`;
  if (tls?.kind === 'client-certificate') return closedForCertificate(opts.endpoint);
  return unreachable(opts.endpoint, transportReason(e, opts.timeoutMs));
}

/**
 * `MCP endpoint returned HTTP <status>` plus `: <error>` when the body names one. A detail that only
 * restates the status (`{"error":"unauthorized"}` or spec 10's `{"error":"401: Unauthorized"}` on a
 * 401) is left out: `... HTTP 401` says it all.
 */
export function httpFailure(status: number, body: string): string {
  const detail = errorDetail(body);
  const reason = STATUS_CODES[status]?.toLowerCase();
  const said = detail?.toLowerCase();
  const restates = said !== undefined && (said === reason || said === `${status}: ${reason}`);
  return `MCP endpoint returned HTTP ${status}${detail && !restates ? `: ${detail}` : ''}`;
}

export const unreachable = (endpoint: string, reason: string): string =>
  `cannot reach the cronstable MCP endpoint at ${endpoint}: ${reason}`;

/**
 * The `error` member of a JSON object body: a string (`{"error": "..."}`), or the message of a
 * JSON-RPC error envelope (`{"error": {"code": ..., "message": "..."}}`).
 */
function errorDetail(body: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  if (!isObject(parsed)) return null;
  const err = parsed.error;
  if (typeof err === 'string' && err !== '') return err;
  if (isObject(err) && typeof err.message === 'string' && err.message !== '') return err.message;
  return null;
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The request wraps the socket error (`connect ECONNREFUSED 127.0.0.1:8080`) in a bare `fetch
 * failed`; the cause is what an operator needs. A name that resolves to several addresses fails
 * with an AggregateError whose own message is empty.
 */
function transportReason(e: unknown, timeoutMs: number): string {
  if (e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError'))
    return `no answer within ${timeoutMs / 1000} s`;
  const cause = e instanceof Error ? (e.cause as unknown) : undefined;
  const inner = cause ?? e;
  if (inner instanceof AggregateError && inner.errors.length > 0)
    return [...new Set(inner.errors.map((x) => messageOf(x)))].join('; ');
  return messageOf(inner);
}

function messageOf(e: unknown): string {
  if (e instanceof Error) return e.message || (e as NodeJS.ErrnoException).code || e.name;
  return String(e);
}

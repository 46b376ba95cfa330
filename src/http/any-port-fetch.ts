// A fetch-shaped client request over node:http / node:https for the daemon's own clients (the terminal
// dashboard, the MCP stdio bridge). The built-in fetch refuses the WHATWG "bad ports" (6000, 6665-6669,
// 10080, ...) before it connects, yet a daemon may listen on any port; node:http has no such list.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import type { ClientTlsOptions } from './client-tls.ts';

export interface AnyPortInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | null;
  signal?: AbortSignal;
  /** CA, client certificate and verification for an https:// URL (spec 10 §3.3). */
  tls?: ClientTlsOptions | null;
}

/** Statuses whose Response may carry no body. */
const NO_BODY = new Set([101, 204, 205, 304]);

/**
 * Agents of our own: from Node 24, `NODE_USE_ENV_PROXY=1` makes the global agents send through
 * HTTP_PROXY, and the daemon a client talks to is never behind the user's web proxy. An agent made
 * here takes no proxy unless told (found by the Node 24 lane: the bridge's proxy test).
 */
const DIRECT = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

/**
 * Sends one request and resolves with a standard Response once the headers are in; the body streams.
 * Failures reject as fetch's do: an abort with the signal's reason, a socket error as
 * `TypeError('fetch failed', { cause })`, so callers read `cause.code` the same way.
 */
export function anyPortFetch(url: string, init: AnyPortInit = {}): Promise<Response> {
  const signal = init.signal;
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise<Response>((resolve, reject) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch (e) {
      reject(new TypeError('fetch failed', { cause: e }));
      return;
    }
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const headers: Record<string, string> = { ...init.headers };
    if (init.body != null) headers['content-length'] = String(Buffer.byteLength(init.body));
    const tls = target.protocol === 'https:' && init.tls ? init.tls : {};
    const agent = target.protocol === 'https:' ? DIRECT.https : DIRECT.http;
    const req = send(target, { method: init.method ?? 'GET', headers, agent, ...tls });
    let answered: IncomingMessage | null = null;
    const onAbort = () => {
      const reason = signal!.reason;
      const err = reason instanceof Error ? reason : new Error(String(reason));
      // Before the headers the promise rejects; after them the body stream errors with the reason.
      if (answered === null) reject(reason);
      else answered.destroy(err);
      req.destroy(err);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (e) => {
      signal?.removeEventListener('abort', onAbort);
      if (answered === null)
        reject(signal?.aborted ? signal.reason : new TypeError('fetch failed', { cause: e }));
    });
    req.on('response', (res) => {
      answered = res;
      res.on('close', () => signal?.removeEventListener('abort', onAbort));
      const out = new Headers();
      for (const [k, v] of Object.entries(res.headers)) {
        if (v === undefined) continue;
        for (const one of Array.isArray(v) ? v : [v]) out.append(k, one);
      }
      const status = res.statusCode ?? 502;
      const body = NO_BODY.has(status) ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
      if (body === null) res.resume();
      resolve(new Response(body, { status, statusText: res.statusMessage ?? '', headers: out }));
    });
    req.end(init.body ?? undefined);
  });
}

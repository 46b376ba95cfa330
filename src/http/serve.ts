// node:http (or https) -> light Request -> app.fetch -> Response written back: what
// @hono/node-server's createAdaptorServer did for us, without loading undici (issue 23). The
// request URL rules, the 400 for a bad request line, the close/abort handling and the drain of an
// unread request body follow node-server 2.1.9 so that clients see the same answers.
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { ServerOptions as HttpsOptions } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { LightHeaders } from './headers.ts';
import { installLightGlobals } from './platform.ts';
import { LightRequest } from './request.ts';
import { LightResponse, type ResponseLike } from './response.ts';
import { handleResponseError, immediatelyWritable, writeCached, writeResponse } from './write.ts';

/** What the app gets as its env (MCP reads the peer address from `incoming`). */
export interface NodeBindings {
  incoming: IncomingMessage;
  outgoing: ServerResponse;
}

export type FetchHandler = (request: Request, env: NodeBindings) => Response | Promise<Response>;

class RequestError extends Error {}

const VALID_URL = /^\/[!#$&-;=?-[\]_a-z~]*$/;
const DOT_SEGMENT = /\/\.\.?(?:[/?#]|$)/;
const VALID_HOST = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;

function checkTarget(target: string): void {
  const backslash = target.indexOf('\\');
  if (backslash !== -1) {
    const query = target.indexOf('?');
    if (query === -1 || backslash < query) throw new RequestError('Backslash in request path');
  }
}

function buildUrl(scheme: string, host: string, target: string): string {
  const url = `${scheme}://${host}${target}`;
  if (!VALID_HOST.test(host)) {
    checkTarget(target);
    const parsed = new URL(url);
    const bare = host.includes(':') ? host.replace(/:\d+$/, '') : host;
    if (parsed.hostname.length !== host.length && parsed.hostname !== bare.toLowerCase())
      throw new RequestError('Invalid host header');
    return parsed.href;
  }
  if (target.length === 0) return `${url}/`;
  if (target.charCodeAt(0) !== 47) throw new RequestError('Invalid URL');
  if (!VALID_URL.test(target) || DOT_SEGMENT.test(target)) {
    checkTarget(target);
    return new URL(url).href;
  }
  return url;
}

function normalizeMethod(method: string | undefined): string {
  if (typeof method !== 'string' || method.length === 0) return 'GET';
  const upper = method.toUpperCase();
  return ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT'].includes(upper) ? upper : method;
}

function newRequest(incoming: IncomingMessage): LightRequest {
  const method = normalizeMethod(incoming.method);
  const target = incoming.url || '';
  if (target[0] !== '/' && (target.startsWith('http://') || target.startsWith('https://'))) {
    try {
      checkTarget(target);
      return LightRequest.fromIncoming(incoming, new URL(target).href, method);
    } catch (e) {
      throw new RequestError('Invalid absolute URL', { cause: e });
    }
  }
  const host = incoming.headers.host;
  if (!host) throw new RequestError('Missing host header');
  const scheme = (incoming.socket as TLSSocket | undefined)?.encrypted ? 'https' : 'http';
  let url: string;
  try {
    url = buildUrl(scheme, host, target);
  } catch (e) {
    if (e instanceof RequestError) throw e;
    throw new RequestError('Invalid URL', { cause: e });
  }
  return LightRequest.fromIncoming(incoming, url, method);
}

const DRAIN_TIMEOUT_MS = 500;
const MAX_DRAIN_BYTES = 64 * 1024 * 1024;
const draining = new WeakSet<IncomingMessage>();

/** Reads and drops an unread request body (bounded) so the connection can be kept alive. */
function drainIncoming(incoming: IncomingMessage): void {
  if (incoming.destroyed || draining.has(incoming)) return;
  draining.add(incoming);
  let bytes = 0;
  const cleanup = () => {
    clearTimeout(timer);
    incoming.off('data', onData);
    incoming.off('end', cleanup);
    incoming.off('error', cleanup);
  };
  const forceClose = () => {
    cleanup();
    const socket = incoming.socket;
    if (socket && !socket.destroyed) socket.destroySoon();
  };
  const timer = setTimeout(forceClose, DRAIN_TIMEOUT_MS);
  timer.unref();
  const onData = (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > MAX_DRAIN_BYTES) forceClose();
  };
  incoming.on('data', onData);
  incoming.on('end', cleanup);
  incoming.on('error', cleanup);
  incoming.resume();
}

function onClose(req: LightRequest, incoming: IncomingMessage, outgoing: ServerResponse, cleanup: boolean) {
  return () => {
    if (incoming.errored) LightRequest.abort(req, incoming.errored.toString());
    else if (!outgoing.writableFinished) LightRequest.abort(req, 'Client connection prematurely closed.');
    if (cleanup && !incoming.readableEnded)
      setTimeout(() => {
        if (!incoming.readableEnded) setTimeout(() => drainIncoming(incoming));
      });
  };
}

const isPromise = (v: unknown): v is Promise<unknown> => typeof (v as Promise<unknown>)?.then === 'function';

const fetchError = (e: unknown) =>
  new LightResponse(null, {
    status:
      e instanceof Error && (e.name === 'TimeoutError' || e.constructor.name === 'TimeoutError') ? 504 : 500,
  });

/** The node:http request listener that serves `fetch`. */
export function requestListener(fetch: FetchHandler) {
  return async (incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> => {
    let res: Response | Promise<Response> | LightResponse | undefined;
    let req: LightRequest | undefined;
    let cleanup = false;
    try {
      req = newRequest(incoming);
      cleanup = !(incoming.method === 'GET' || incoming.method === 'HEAD');
      res = fetch(req as unknown as Request, { incoming, outgoing });
      if (!isPromise(res) && immediatelyWritable(res)) {
        if (cleanup && !incoming.readableEnded)
          outgoing.once('finish', () => {
            if (!incoming.readableEnded) drainIncoming(incoming);
          });
        return writeCached(LightResponse.state(res), outgoing);
      }
      outgoing.on('close', onClose(req, incoming, outgoing, cleanup));
    } catch (e) {
      if (res) return handleResponseError(e, outgoing);
      res = req ? fetchError(e) : new LightResponse(null, { status: 400 });
    }
    try {
      const settled = isPromise(res) ? await (res as Promise<ResponseLike>).catch(fetchError) : res;
      return await writeResponse(settled as ResponseLike, outgoing);
    } catch (e) {
      return handleResponseError(e, outgoing);
    }
  };
}

export interface ServeOptions {
  /** node:https's createServer (with `serverOptions` holding cert/key) for an https listener. */
  createServer?: (options: HttpsOptions, listener: ReturnType<typeof requestListener>) => Server;
  serverOptions?: HttpsOptions;
}

/**
 * A server (not yet listening) that answers with `fetch`. Installs the light fetch classes as
 * the process's globals first, as node-server installed its own: the app's responses and the
 * requests it sees are then the same objects in the daemon and in the in-process tests.
 */
export function createFetchServer(fetch: FetchHandler, opts: ServeOptions = {}): Server {
  installLightGlobals({ Headers: LightHeaders, Request: LightRequest, Response: LightResponse });
  const listener = requestListener(fetch);
  return opts.createServer
    ? opts.createServer(opts.serverOptions ?? {}, listener)
    : createHttpServer(listener);
}

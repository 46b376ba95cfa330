// The `/mcp` endpoint (spec 07 §2): a stateless Streamable HTTP profile, JSON replies only.
//
// The JSON-RPC dispatch runs through the official SDK: an SDK `Server` (low-level, handlers in
// engine.ts) connected per request to a stateless `WebStandardStreamableHTTPServerTransport`
// (sessionIdGenerator undefined, enableJsonResponse true). Where the SDK cannot give the spec's
// behaviour it is wrapped here, before the request reaches it:
//  - Origin allow-list, CORS and the preflight (§2.5): the SDK's DNS-rebinding check is
//    allow-all-or-nothing and adds no CORS headers.
//  - MCP-Protocol-Version header (§2.2 step 3): only our three revisions pass; the SDK also
//    accepts 2024-11-05 and 2024-10-07, and answers with its own status body. The response header
//    echoes the request's supported revision (§2.4 "Do better"), else 2025-11-25.
//  - Accept (step 4): lenient substring test; the SDK demands both application/json and
//    text/event-stream (the bridge sends application/json only). The synthetic request handed
//    to the SDK carries both, and application/json as Content-Type (not checked by the spec).
//  - Body limit (steps 5-6): Content-Length, then the stream read up to maxBodyBytes and
//    aborted past it, exactly at the configured size (the SDK caps at its own 4 MB).
//  - Empty body, malformed JSON, batch (steps 7-9): HTTP 400 with a JSON-RPC error envelope
//    (`id: null`; -32600 `empty request body`, -32700 `malformed JSON`, -32600 `batching
//    unsupported`), e.g. {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"malformed JSON"}}.
//    The `error` member is the JSON-RPC error object, not a string (the bridge never sends these:
//    it refuses bad JSON and batches itself and skips blank lines).
//  - Envelope checks (§2.6): bad `jsonrpc`, missing method, bad params, unknown methods are
//    answered here with the spec's codes and messages (the SDK would 400 with -32700, or word
//    them its own way); notifications and client-sent responses answer 202 here without
//    dispatch (notifications/initialized and /cancelled are no-ops).
//  - Request ids the SDK's schema refuses (null, fractions, objects) are swapped for a
//    surrogate and the original echoed verbatim in the reply.
//  - tools/call `name` / `arguments` faults (-32602 with the spec's messages): the SDK validates
//    tools/call params with its own schema before any handler runs.
//  - `initialize`, `resources/read` and `prompts/get` are handlers with method-only schemas
//    (engine.ts): the SDK's would refuse a missing `params` (and negotiate among its five
//    revisions), a non-string `uri` or non-string prompt arguments in their own words.
//  - Protocol faults are thrown as RpcError (rpc.ts), whose message the SDK sends as is (its
//    McpError would prefix `MCP error -32602: `); any other exception in a handler is logged and
//    becomes -32603 `internal error` (the SDK would send the exception's message).
//  - The SDK's JSON answer is returned with our headers set on it (Content-Type with charset,
//    MCP-Protocol-Version, CORS); a 200 whose id was swapped is rebuilt with the original id.
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Context } from 'hono';
import { JSON_TYPE } from '../http/json.ts';
import { isSupportedVersion, LATEST_PROTOCOL, type McpEngine } from './engine.ts';
import {
  INVALID_PARAMS,
  INVALID_REQUEST,
  isPlainObject,
  METHOD_NOT_FOUND,
  PARSE_ERROR,
  RpcError,
} from './rpc.ts';

export interface McpHttp {
  post(c: Context): Promise<Response>;
  options(c: Context): Response;
  /** GET/HEAD and every other method. */
  notAllowed(c: Context): Response;
  /** Whether OPTIONS /mcp may skip auth (a preflight from a listed origin, §2.5 "Do better"). */
  preflightBypass(c: Context): boolean;
}

const ALLOW_HEADERS = 'Authorization, Content-Type, MCP-Protocol-Version';

type Body = { kind: 'ok'; bytes: Uint8Array } | { kind: 'too-large' };

/** Reads at most `limit` bytes; stops (and cancels the stream) as soon as more arrive. */
async function readBody(req: Request, limit: number): Promise<Body> {
  if (!req.body) return { kind: 'ok', bytes: new Uint8Array(0) };
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return { kind: 'too-large' };
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return { kind: 'ok', bytes: chunks[0]! };
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return { kind: 'ok', bytes };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

const rpcError = (id: unknown, code: number, message: string) => ({
  jsonrpc: '2.0',
  id: id ?? null,
  error: { code, message },
});

/** The peer address of the connection, when the runtime exposes one (null on unix sockets). */
function remoteAddress(c: Context): string {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress ?? '';
}

export function mcpHttp(engine: McpEngine): McpHttp {
  const settings = engine.registry.settings;
  const allowed = new Set(settings.allowedOrigins);

  const corsOf = (origin: string | undefined): Record<string, string> =>
    origin !== undefined && allowed.has(origin)
      ? {
          'access-control-allow-origin': origin,
          'access-control-allow-headers': ALLOW_HEADERS,
          'access-control-expose-headers': 'MCP-Protocol-Version',
          vary: 'Origin',
        }
      : {};

  return {
    preflightBypass(c) {
      const origin = c.req.header('origin');
      return c.req.method === 'OPTIONS' && origin !== undefined && allowed.has(origin);
    },

    options(c) {
      const origin = c.req.header('origin');
      const base = { 'content-type': JSON_TYPE, 'mcp-protocol-version': LATEST_PROTOCOL };
      if (origin === undefined) return new Response('{"error":"preflight"}', { status: 405, headers: base });
      if (!allowed.has(origin)) return new Response('{"error":"preflight"}', { status: 403, headers: base });
      return new Response(null, {
        status: 204,
        headers: { ...corsOf(origin), 'access-control-allow-methods': 'POST, OPTIONS' },
      });
    },

    notAllowed(c) {
      return new Response('{"error":"method not allowed"}', {
        status: 405,
        headers: {
          'content-type': JSON_TYPE,
          allow: 'POST, OPTIONS',
          'mcp-protocol-version': LATEST_PROTOCOL,
          ...corsOf(c.req.header('origin')),
        },
      });
    },

    async post(c) {
      const origin = c.req.header('origin');
      const requested = c.req.header('mcp-protocol-version');
      const headers: Record<string, string> = {
        'content-type': JSON_TYPE,
        'mcp-protocol-version': isSupportedVersion(requested) ? requested : LATEST_PROTOCOL,
        ...corsOf(origin),
      };
      const reply = (status: number, body: unknown) =>
        new Response(body === null ? null : JSON.stringify(body), { status, headers });
      const accepted = () => {
        const { 'content-type': _, ...rest } = headers;
        return new Response(null, { status: 202, headers: rest });
      };

      if (origin !== undefined && !allowed.has(origin)) return reply(403, { error: 'Origin not allowed' });
      if (requested !== undefined && !isSupportedVersion(requested))
        return reply(400, { error: 'unsupported MCP-Protocol-Version' });
      const accept = c.req.header('accept');
      if (accept && !accept.includes('application/json') && !accept.includes('*/*'))
        return reply(406, { error: 'Accept application/json' });
      const length = c.req.header('content-length');
      if (length !== undefined && Number(length) > settings.maxBodyBytes)
        return reply(413, { error: 'request body too large' });
      const body = await readBody(c.req.raw, settings.maxBodyBytes);
      if (body.kind === 'too-large') return reply(413, { error: 'request body too large' });
      if (body.bytes.byteLength === 0)
        return reply(400, rpcError(null, INVALID_REQUEST, 'empty request body'));
      let message: unknown;
      try {
        message = JSON.parse(utf8.decode(body.bytes));
      } catch {
        return reply(400, rpcError(null, PARSE_ERROR, 'malformed JSON'));
      }
      if (Array.isArray(message)) return reply(400, rpcError(null, INVALID_REQUEST, 'batching unsupported'));

      // §2.6 envelope.
      if (!isPlainObject(message) || message.jsonrpc !== '2.0')
        return reply(
          200,
          rpcError(
            isPlainObject(message) ? message.id : null,
            INVALID_REQUEST,
            'invalid JSON-RPC 2.0 message',
          ),
        );
      const isRequest = 'id' in message;
      const id = message.id;
      const method = message.method;
      if (typeof method !== 'string')
        return isRequest && !('result' in message || 'error' in message)
          ? reply(200, rpcError(id, INVALID_REQUEST, 'missing method'))
          : accepted();
      const params = message.params;
      const emptyParams =
        params === undefined || params === null || (Array.isArray(params) && params.length === 0);
      if (!emptyParams && !isPlainObject(params))
        return isRequest ? reply(200, rpcError(id, INVALID_PARAMS, 'invalid params')) : accepted();
      if (!isRequest) return accepted();
      if (!engine.methods.has(method))
        return reply(200, rpcError(id, METHOD_NOT_FOUND, `unknown method: ${method}`));
      const p = emptyParams ? {} : (params as Record<string, unknown>);
      if (method === 'tools/call') {
        const fault = toolCallFault(engine, p);
        if (fault) return reply(200, rpcError(id, fault.code, fault.message));
      }

      const surrogate = !(typeof id === 'string' || Number.isSafeInteger(id));
      const forSdk = { jsonrpc: '2.0', id: surrogate ? 0 : id, method, params: p };
      const res = await dispatch(engine, forSdk, c, requested);
      if (surrogate) return reply(200, { ...((await res.json()) as object), id });
      // The SDK's own answer, its JSON text unread (a 3k-job listing is megabytes), our headers on it.
      for (const [k, v] of Object.entries(headers)) res.headers.set(k, v);
      return res;
    },
  };
}

/** tools/call params the SDK's schema would refuse in its own words (spec 07 §2.6 table). */
function toolCallFault(engine: McpEngine, p: Record<string, unknown>): RpcError | null {
  if (typeof p.name !== 'string') return new RpcError(INVALID_PARAMS, "tools/call requires a 'name'");
  if (!engine.registry.has(p.name)) return new RpcError(INVALID_PARAMS, `unknown tool: ${p.name}`);
  if ('arguments' in p && !isPlainObject(p.arguments))
    return new RpcError(INVALID_PARAMS, "'arguments' must be an object");
  return null;
}

/** One request through an SDK Server + stateless transport; its 200 JSON answer. */
async function dispatch(
  engine: McpEngine,
  message: Record<string, unknown>,
  c: Context,
  version: string | undefined,
): Promise<Response> {
  const server = engine.acquire();
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    const headers: Record<string, string> = {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'x-mcp-remote-address': remoteAddress(c),
      'user-agent': c.req.header('user-agent') ?? '',
    };
    if (version !== undefined) headers['mcp-protocol-version'] = version;
    const res = await transport.handleRequest(
      new Request('http://mcp.invalid/mcp', { method: 'POST', headers }),
      {
        parsedBody: message,
      },
    );
    return res;
  } finally {
    await server.close();
    engine.release(server);
  }
}

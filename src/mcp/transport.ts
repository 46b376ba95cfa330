// The `/mcp` endpoint (spec 07 §2): a stateless Streamable HTTP profile, JSON replies only.
//
// Every POST stands alone and is answered here, first failure wins (§2.2): the Origin allow-list
// (exact compare, CORS headers on every answer to a listed origin, §2.5), the MCP-Protocol-Version
// header (our three revisions; the response header echoes a supported request header, else
// 2025-11-25), Accept (lenient substring test: the bridge sends application/json only), the body
// limit (Content-Length, then the stream read up to maxBodyBytes and cancelled past it, so the
// configured size holds exactly), then empty body, malformed JSON and batches: HTTP 400 with a
// JSON-RPC error envelope, `id: null` (-32600 `empty request body`, -32700 `malformed JSON`, -32600
// `batching unsupported`; the `error` member is the JSON-RPC error object, not a string).
//
// The message is parsed once, checked against the envelope rules of §2.6 (bad `jsonrpc`, missing
// method, non-object params, with the spec's codes and messages), and a request is dispatched
// straight to the engine's method table (engine.ts), which answers unknown methods (-32601) and
// faulty params (-32602) itself. Notifications and client-sent responses answer 202 without
// dispatch (notifications/initialized and /cancelled are no-ops). Any request `id` (null,
// fractions, objects included) is echoed verbatim. A protocol fault (RpcError, rpc.ts) is sent as
// its code and message, a result as `{"jsonrpc":"2.0","id":…,"result":…}`, both HTTP 200. No MCP
// SDK object is on this path (issue 30: the SDK's server and its zod parsing cost ~25 MB).
import type { Context } from 'hono';
import { JSON_TYPE } from '../http/json.ts';
import { errorText } from '../util/errors.ts';
import { nestedDeeperThan } from '../util/jsondepth.ts';
import { isSupportedVersion, LATEST_PROTOCOL, type McpEngine } from './engine.ts';
import type { CallResult } from './registry.ts';
import {
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  isPlainObject,
  MCP_MAX_DEPTH,
  PARSE_ERROR,
  RpcError,
} from './rpc.ts';
import { type McpCaller, RENDERED } from './tool.ts';

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
// A reply goes out as bytes encoded once: a text body would be measured, then encoded, by the writer.
const toUtf8 = new TextEncoder();

/**
 * A reply as UTF-8 JSON. A tool result whose payload came rendered (a shared `/jobs` rendering's
 * rows) has those bytes spliced in rather than its objects serialised again: the same text
 * JSON.stringify makes of the reply, since `structuredContent` is the result's last key and the
 * result the reply's.
 */
export function replyBytes(body: unknown): Uint8Array<ArrayBuffer> {
  const result = (body as { result?: CallResult }).result;
  const rendered = result?.[RENDERED];
  if (
    !Array.isArray(rendered) ||
    Object.keys(result!).at(-1) !== 'structuredContent' ||
    Object.keys(body as object).at(-1) !== 'result'
  )
    return toUtf8.encode(JSON.stringify(body));
  const { structuredContent: _, ...rest } = result!;
  const head = JSON.stringify({ ...(body as object), result: rest });
  return Buffer.concat([
    toUtf8.encode(`${head.slice(0, -2)},"structuredContent":`),
    ...rendered,
    toUtf8.encode('}}'),
  ]);
}

const rpcError = (id: unknown, code: number, message: string) => ({
  jsonrpc: '2.0',
  id: id ?? null,
  error: { code, message },
});

/** The caller in a log line: its address, when it has one. */
function callerText(c: Context): string {
  const { remoteAddress } = callerOf(c);
  return remoteAddress ? `from ${remoteAddress}` : 'on a local socket';
}

/** Who sent the request, for the audit line: the peer address (none on unix sockets) and User-Agent. */
function callerOf(c: Context): McpCaller {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return {
    remoteAddress: env?.incoming?.socket?.remoteAddress || null,
    userAgent: c.req.header('user-agent') || null,
    // Set by the web edge's auth layer when tokens are configured (spec 10 §2.3).
    scopes: (c.get('caller' as never) as { scopes?: ReadonlySet<string> } | undefined)?.scopes ?? null,
  };
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
      const reply = (status: number, body: unknown) => {
        let text: Uint8Array<ArrayBuffer> | null;
        try {
          text = body === null ? null : replyBytes(body);
        } catch (err) {
          // Never a 500 from serialisation (a cyclic or too-deep result): the detail goes to the log.
          engine.log.error(`mcp: could not serialise a reply: ${errorText(err)}`);
          text = toUtf8.encode(JSON.stringify(rpcError(null, INTERNAL_ERROR, 'internal error')));
        }
        return new Response(text, { status, headers });
      };
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
      const body = await readBody(c.req.raw, settings.maxBodyBytes).catch(() => null);
      if (body === null) {
        // A client that drops mid-body is routine: one INFO line, and an answer nobody reads.
        engine.log.info(`mcp: the client went away before its request body ended (${callerText(c)})`);
        return reply(400, rpcError(null, INVALID_REQUEST, 'incomplete request body'));
      }
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
      // An `id` that cannot be echoed safely (nested past MCP_MAX_DEPTH) makes the envelope invalid.
      if (isPlainObject(message) && nestedDeeperThan(message.id, MCP_MAX_DEPTH))
        return reply(200, rpcError(null, INVALID_REQUEST, 'invalid JSON-RPC 2.0 message'));

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
      try {
        const p = emptyParams ? {} : (params as Record<string, unknown>);
        const result = await engine.dispatch(method, p, callerOf(c));
        return reply(200, { jsonrpc: '2.0', id, result });
      } catch (err) {
        if (!(err instanceof RpcError)) throw err;
        return reply(200, rpcError(id, err.code, err.message));
      }
    },
  };
}

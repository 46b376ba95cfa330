// The /mcp transport against real daemons (spec 07 §2-§3, vectors 3, 4, 7-9, 13-17): every step of
// the POST pipeline with its status and body, the envelope rules, initialize negotiation, CORS and
// the preflight, the body limit below and above 1 MiB (declared and chunked), unix sockets.
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JSON_ACCEPT, type McpDaemon, SETUP_B_MCP, suiteMcpDaemon } from '../helpers/mcp.ts';
import { writeTree } from '../helpers/tmp.ts';

const ping = (id: unknown = 1) => ({ jsonrpc: '2.0', id, method: 'ping' });

/** A ping whose JSON encoding is exactly `size` bytes. */
function pingOfSize(size: number): string {
  const bare = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: '' } });
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'ping',
    params: { pad: 'x'.repeat(size - bare.length) },
  });
}

/** POSTs `body` as a chunked stream (no Content-Length), so only the read limit can stop it. */
async function postChunked(d: McpDaemon, body: string, token?: string) {
  const bytes = new TextEncoder().encode(body);
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += 64 * 1024) controller.enqueue(bytes.slice(i, i + 64 * 1024));
      controller.close();
    },
  });
  const res = await fetch(d.endpoint, {
    method: 'POST',
    headers: { ...JSON_ACCEPT, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: stream,
    duplex: 'half',
  } as RequestInit);
  return { status: res.status, text: await res.text() };
}

describe('Setup A: no token, default mcp block', () => {
  const a = suiteMcpDaemon();

  it('negotiates the protocol revision and never fails initialize (vector 3)', async () => {
    const old = await a.rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {} });
    expect(old.result.protocolVersion).toBe('2025-06-18');
    expect((await a.rpc('initialize', { protocolVersion: '1999-01-01' })).result.protocolVersion).toBe(
      '2025-11-25',
    );
    expect((await a.rpc('initialize', { protocolVersion: 7 })).result.protocolVersion).toBe('2025-11-25');
    const bare = await a.rpc('initialize');
    expect(bare.result.protocolVersion).toBe('2025-11-25');
    expect(bare.result.serverInfo).toEqual({
      name: 'cronstable',
      title: 'cronstable',
      version: expect.any(String),
    });
    const version = (await (await fetch(`${a.base}/version`)).text()).trim();
    expect(version).toContain(bare.result.serverInfo.version);
    expect(bare.result.capabilities).toEqual({
      tools: { listChanged: false },
      resources: { listChanged: false },
      prompts: { listChanged: false },
    });
    expect(bare.result.instructions).toMatch(/cron_get_status/);
    expect(bare.result.instructions).toMatch(/confirm=true/);
  });

  it('echoes a supported MCP-Protocol-Version request header, else 2025-11-25 (§2.4 Do better)', async () => {
    const echoed = await a.post(ping(), { ...JSON_ACCEPT, 'mcp-protocol-version': '2025-03-26' });
    expect(echoed.status).toBe(200);
    expect(echoed.headers.get('mcp-protocol-version')).toBe('2025-03-26');
    const plain = await a.post(ping());
    expect(plain.headers.get('mcp-protocol-version')).toBe('2025-11-25');
    expect(plain.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(plain.headers.get('mcp-session-id')).toBeNull();
    expect(plain.json).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('answers unknown tools and methods as JSON-RPC errors with HTTP 200 (vector 9)', async () => {
    const tool = await a.post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'cron_nope' } });
    expect(tool.status).toBe(200);
    expect(tool.json).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32602, message: 'unknown tool: cron_nope' },
    });
    const method = await a.post({ jsonrpc: '2.0', id: 3, method: 'frobnicate' });
    expect(method.status).toBe(200);
    expect(method.json.error).toEqual({ code: -32601, message: 'unknown method: frobnicate' });
    for (const m of ['logging/setLevel', 'completion/complete', 'resources/subscribe', 'tasks/list'])
      expect((await a.rpc(m, {})).error.code, m).toBe(-32601);
  });

  it('refuses GET, HEAD and other methods with 405 (vector 13)', async () => {
    const get = await a.post(undefined, {}, { method: 'GET' });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST, OPTIONS');
    expect(get.json).toEqual({ error: 'method not allowed' });
    expect(get.headers.get('mcp-protocol-version')).toBe('2025-11-25');
    const head = await fetch(a.endpoint, { method: 'HEAD' });
    expect(head.status).toBe(405);
    expect(head.headers.get('allow')).toBe('POST, OPTIONS');
    for (const method of ['DELETE', 'PUT', 'PATCH']) {
      const r = await a.post(undefined, {}, { method });
      expect(r.status, method).toBe(405);
      expect(r.json).toEqual({ error: 'method not allowed' });
    }
  });

  it('answers notifications and client-sent responses with an empty 202 (vector 14)', async () => {
    for (const body of [
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
      { jsonrpc: '2.0', method: 'frobnicate' },
      { jsonrpc: '2.0', method: 'tools/call', params: 'bad' },
      { jsonrpc: '2.0', id: 9, result: {} },
      { jsonrpc: '2.0', id: 9, error: { code: 1, message: 'x' } },
      { jsonrpc: '2.0' },
    ]) {
      const r = await a.post(body);
      expect(r.status, JSON.stringify(body)).toBe(202);
      expect(r.text).toBe('');
    }
  });

  it('keeps 400 for empty, malformed and batch bodies, with a JSON-RPC error envelope (vector 15)', async () => {
    const cases: [unknown, number, string][] = [
      [[ping(1), ping(2)], -32600, 'batching unsupported'],
      ['not json', -32700, 'malformed JSON'],
      ['', -32600, 'empty request body'],
    ];
    for (const [body, code, message] of cases) {
      const r = await a.post(body);
      expect(r.status, message).toBe(400);
      expect(r.json).toEqual({ jsonrpc: '2.0', id: null, error: { code, message } });
    }
    const badUtf8 = await fetch(a.endpoint, {
      method: 'POST',
      headers: JSON_ACCEPT,
      body: new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]),
    });
    expect(badUtf8.status).toBe(400);
    expect((await badUtf8.json()).error.code).toBe(-32700);
  });

  it('checks MCP-Protocol-Version and Accept before the body (vector 16)', async () => {
    const version = await a.post(ping(), { ...JSON_ACCEPT, 'mcp-protocol-version': '2024-11-05' });
    expect(version.status).toBe(400);
    expect(version.json).toEqual({ error: 'unsupported MCP-Protocol-Version' });
    const html = await a.post(ping(), { accept: 'text/html' });
    expect(html.status).toBe(406);
    expect(html.json).toEqual({ error: 'Accept application/json' });
    expect((await a.post(ping(), { accept: 'text/event-stream' })).status).toBe(406);
    expect((await a.post(ping(), {})).status).toBe(200);
    expect((await a.post(ping(), { accept: '*/*' })).status).toBe(200);
    expect((await a.post(ping(), { accept: 'application/json' })).status).toBe(200);
    // Content-Type is not checked.
    expect((await a.post(ping(), { 'content-type': 'text/plain' })).status).toBe(200);
  });

  it('applies the envelope rules of §2.6', async () => {
    expect((await a.post({ jsonrpc: '1.0', id: 4, method: 'ping' })).json).toEqual({
      jsonrpc: '2.0',
      id: 4,
      error: { code: -32600, message: 'invalid JSON-RPC 2.0 message' },
    });
    const scalar = await a.post('42');
    expect(scalar.status).toBe(200);
    expect(scalar.json).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'invalid JSON-RPC 2.0 message' },
    });
    expect((await a.post({ jsonrpc: '2.0', method: 'ping', id: 5, params: 'x' })).json.error).toEqual({
      code: -32602,
      message: 'invalid params',
    });
    expect((await a.post({ jsonrpc: '2.0', id: 6 })).json.error).toEqual({
      code: -32600,
      message: 'missing method',
    });
    expect((await a.post({ jsonrpc: '2.0', id: 6, method: 3 })).json.error.message).toBe('missing method');
    // Missing, null and [] params count as {}.
    expect((await a.post({ ...ping(7), params: null })).json.result).toEqual({});
    expect((await a.post({ ...ping(8), params: [] })).json.result).toEqual({});
    expect((await a.post({ ...ping(8), params: [1] })).json.error.code).toBe(-32602);
    // Ids are echoed verbatim, even those the SDK's schema would refuse.
    for (const id of [null, 'abc', 1.5, 0, -3])
      expect((await a.post(ping(id))).json, JSON.stringify(id)).toEqual({ jsonrpc: '2.0', id, result: {} });
  });

  it('serves concurrent requests, each on its own SDK server, even with the same id', async () => {
    const replies = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        a.post({
          jsonrpc: '2.0',
          id: i % 2 === 0 ? 1 : `c${i}`,
          method: 'tools/call',
          params: { name: 'cron_list_jobs', arguments: { offset: i % 2 } },
        }),
      ),
    );
    replies.forEach((r, i) => {
      expect(r.status).toBe(200);
      expect(r.json.id).toBe(i % 2 === 0 ? 1 : `c${i}`);
      expect(r.json.result.structuredContent.page.offset).toBe(i % 2);
    });
  });

  it('refuses malformed tools/call params with the spec messages', async () => {
    const noName = await a.rpc('tools/call', { arguments: {} });
    expect(noName.error).toEqual({ code: -32602, message: "tools/call requires a 'name'" });
    const nullArgs = await a.rpc('tools/call', { name: 'cron_get_status', arguments: null });
    expect(nullArgs.error).toEqual({ code: -32602, message: "'arguments' must be an object" });
    expect((await a.rpc('tools/call', { name: 'cron_get_status', arguments: [] })).error.code).toBe(-32602);
    expect((await a.rpc('tools/call', { name: 'cron_get_status', arguments: 'x' })).error.code).toBe(-32602);
  });

  it('refuses any Origin when none is listed, and takes none (CLIs)', async () => {
    const r = await a.post(ping(), { ...JSON_ACCEPT, origin: `${a.base}` });
    expect(r.status).toBe(403);
    expect(r.json).toEqual({ error: 'Origin not allowed' });
    expect((await a.post(ping(), { ...JSON_ACCEPT, origin: 'null' })).status).toBe(403);
  });

  it('honours the default 1 MiB body limit exactly, declared or chunked', async () => {
    const exact = await a.post(pingOfSize(1_048_576));
    expect(exact.status).toBe(200);
    expect(exact.json.result).toEqual({});
    const over = await a.post(pingOfSize(1_048_577));
    expect(over.status).toBe(413);
    expect(over.json).toEqual({ error: 'request body too large' });
    expect(over.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const chunked = await postChunked(a, pingOfSize(1_048_577));
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.text)).toEqual({ error: 'request body too large' });
    expect((await postChunked(a, pingOfSize(1_048_576))).status).toBe(200);
  });
});

describe('a block with resources and prompts off, a 2 MB body limit and a unix socket', () => {
  let socket = '';
  const c = suiteMcpDaemon(() => {
    socket = join(writeTree({ 'keep.txt': '' }, true), 'mcp.sock');
    return { mcp: ['enabled: true', 'resources: false', 'prompts: false', 'maxBodyBytes: 2000000'], socket };
  });

  it('advertises tools only and refuses resources and prompts methods (vector 4)', async () => {
    const init = await c.rpc('initialize', { protocolVersion: '2025-11-25' });
    expect(init.result.capabilities).toEqual({ tools: { listChanged: false } });
    expect((await c.rpc('resources/list')).error.code).toBe(-32601);
    expect((await c.rpc('resources/read', { uri: 'cronstable://version' })).error.code).toBe(-32601);
    expect((await c.rpc('prompts/list')).error.code).toBe(-32601);
  });

  it('honours a body limit above 1 MiB exactly (§2.2 Do better)', async () => {
    expect((await c.post(pingOfSize(1_500_000))).status).toBe(200);
    expect((await c.post(pingOfSize(2_000_000))).status).toBe(200);
    const over = await c.post(pingOfSize(2_000_001));
    expect(over.status).toBe(413);
    expect(over.json).toEqual({ error: 'request body too large' });
    expect((await postChunked(c, pingOfSize(2_000_001))).status).toBe(413);
  });

  it('serves /mcp on the unix socket listener too', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
    const reply = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          socketPath: socket,
          path: '/mcp',
          method: 'POST',
          headers: { ...JSON_ACCEPT, 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.text).result.serverInfo.name).toBe('cronstable');
  });
});

describe('Setup B: token, allow-listed origin, small body limit, web.headers', () => {
  const b = suiteMcpDaemon({
    token: 's3cret',
    web: ['headers:', '  X-Operator: yes'],
    mcp: SETUP_B_MCP,
  });

  it('needs the token, answered by the shared auth layer without MCP headers (vector 17)', async () => {
    const r = await b.post(ping(), JSON_ACCEPT, { token: null });
    expect(r.status).toBe(401);
    expect(r.headers.get('mcp-protocol-version')).toBeNull();
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
    expect((await b.post(ping(), JSON_ACCEPT, { token: 'wrong' })).status).toBe(401);
    expect((await b.post(ping())).status).toBe(200);
  });

  it('checks Origin against the allow-list and adds scoped CORS headers (vector 7)', async () => {
    const evil = await b.post(ping(), { ...JSON_ACCEPT, origin: 'http://evil.example' });
    expect(evil.status).toBe(403);
    expect(evil.json).toEqual({ error: 'Origin not allowed' });
    expect((await b.post(ping(), { ...JSON_ACCEPT, origin: 'http://ok.example/' })).status).toBe(403);
    expect((await b.post(ping(), { ...JSON_ACCEPT, origin: 'http://OK.example' })).status).toBe(403);
    const ok = await b.post(ping(), { ...JSON_ACCEPT, origin: 'http://ok.example' });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe('http://ok.example');
    expect(ok.headers.get('vary')).toBe('Origin');
    expect(ok.headers.get('access-control-allow-headers')).toBe(
      'Authorization, Content-Type, MCP-Protocol-Version',
    );
    expect(ok.headers.get('access-control-expose-headers')).toBe('MCP-Protocol-Version');
    expect(ok.headers.get('access-control-allow-credentials')).toBeNull();
    expect(ok.headers.get('access-control-max-age')).toBeNull();
    // Error answers carry CORS headers too for a listed origin.
    const big = await b.post(pingOfSize(2001), { ...JSON_ACCEPT, origin: 'http://ok.example' });
    expect(big.status).toBe(413);
    expect(big.headers.get('access-control-allow-origin')).toBe('http://ok.example');
  });

  it('lets a preflight from a listed origin through without a token (§2.5 Do better)', async () => {
    const pre = await b.post(undefined, { origin: 'http://ok.example' }, { method: 'OPTIONS', token: null });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('http://ok.example');
    expect(pre.headers.get('access-control-allow-methods')).toBe('POST, OPTIONS');
    expect(pre.headers.get('mcp-protocol-version')).toBeNull();
    // Unlisted origin: auth still applies; with the token the preflight is refused.
    expect(
      (await b.post(undefined, { origin: 'http://evil.example' }, { method: 'OPTIONS', token: null })).status,
    ).toBe(401);
    const evil = await b.post(undefined, { origin: 'http://evil.example' }, { method: 'OPTIONS' });
    expect(evil.status).toBe(403);
    expect(evil.json).toEqual({ error: 'preflight' });
    const none = await b.post(undefined, {}, { method: 'OPTIONS' });
    expect(none.status).toBe(405);
    expect(none.json).toEqual({ error: 'preflight' });
    expect(none.headers.get('allow')).toBeNull();
  });

  it('refuses a body over maxBodyBytes, declared or chunked (vector 8)', async () => {
    const over = await b.post(pingOfSize(2001));
    expect(over.status).toBe(413);
    expect(over.json).toEqual({ error: 'request body too large' });
    expect((await b.post(pingOfSize(2000))).status).toBe(200);
    expect((await postChunked(b, pingOfSize(2001), 's3cret')).status).toBe(413);
  });

  it('never applies web.headers to /mcp', async () => {
    const rest = await fetch(`${b.base}/version`, { headers: { authorization: 'Bearer s3cret' } });
    expect(rest.headers.get('x-operator')).toBe('yes');
    const mcp = await b.post(ping());
    expect(mcp.status).toBe(200);
    expect(mcp.headers.get('x-operator')).toBeNull();
  });

  it('is exempt from the REST cross-site gate: a listed Origin posts, the REST gate would refuse it', async () => {
    const rest = await fetch(`${b.base}/jobs/hello/start`, {
      method: 'POST',
      headers: { authorization: 'Bearer s3cret', origin: 'http://ok.example' },
    });
    expect(rest.status).toBe(403);
    expect((await b.post(ping(), { ...JSON_ACCEPT, origin: 'http://ok.example' })).status).toBe(200);
  });
});

// Issue 33 item 13: a daemon may listen on any port, including those on the built-in fetch's block list
// (6000, 6665-6669, 10080, ...). The terminal dashboard's client and the MCP stdio bridge reach a real
// node:http listener on 127.0.0.1:6000 (when that port is free on this machine).
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postMcp } from '../../src/cli/mcp/post.ts';
import { anyPortFetch } from '../../src/http/any-port-fetch.ts';
import { ApiClient, HttpError } from '../../src/tui/data/client.ts';

const BAD_PORT = 6000;
let server: Server;
let free = true;
const seen: { method: string; url: string; auth?: string; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, auth: req.headers.authorization, body });
      if (req.url === '/jobs')
        return void res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
      if (req.url === '/mcp')
        return void res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { echoed: body.length } }));
      if (req.url === '/jobs/x/logs') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        return void res.end('event: line\ndata: {"stream":"stdout","line":"hi"}\n\n');
      }
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    });
  });
  free = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(BAD_PORT, '127.0.0.1', () => resolve(true));
  });
});
afterAll(async () => {
  if (free) await new Promise<void>((r) => server.close(() => r()));
});

describe('a daemon on a port the built-in fetch refuses', () => {
  it('the built-in fetch does refuse it (why this matters)', async () => {
    await expect(fetch(`http://127.0.0.1:${BAD_PORT}/jobs`)).rejects.toThrow();
  });

  it('the TUI client reads /jobs, streams logs and posts there', async (ctx) => {
    if (!free) return ctx.skip(`port ${BAD_PORT} is taken on this machine; cannot test the bad-port case`);
    const client = new ApiClient(`http://127.0.0.1:${BAD_PORT}`, 's3cret');
    expect(await client.json('/jobs')).toEqual([]);
    expect(seen.at(-1)).toMatchObject({ method: 'GET', url: '/jobs', auth: 'Bearer s3cret' });
    const stream = await client.stream('/jobs/x/logs', new AbortController().signal);
    expect(await new Response(stream).text()).toContain('"line":"hi"');
    const post = await client.post('/nowhere', { a: 1 });
    expect(post).toEqual({ status: 404, body: { error: 'not found' } });
    expect(seen.at(-1)).toMatchObject({ method: 'POST', body: '{"a":1}' });
    await expect(client.json('/missing')).rejects.toBeInstanceOf(HttpError);
  });

  it('the MCP stdio bridge posts there', async (ctx) => {
    if (!free) return ctx.skip(`port ${BAD_PORT} is taken on this machine; cannot test the bad-port case`);
    const out = await postMcp(
      { endpoint: `http://127.0.0.1:${BAD_PORT}/mcp`, token: null, timeoutMs: 5000 },
      '2025-06-18',
      '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    );
    expect(out.kind).toBe('reply');
    expect(out.kind === 'reply' && JSON.parse(out.body)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { echoed: 40 },
    });
  });

  it('a refused connection still names its cause, as fetch did', async () => {
    const lone = createServer();
    await new Promise<void>((r) => lone.listen(0, '127.0.0.1', r));
    const port = (lone.address() as { port: number }).port;
    await new Promise<void>((r) => lone.close(() => r()));
    const client = new ApiClient(`http://127.0.0.1:${port}`, null);
    await expect(client.json('/jobs')).rejects.toThrow('ECONNREFUSED');
    const out = await postMcp(
      { endpoint: `http://127.0.0.1:${port}/mcp`, token: null, timeoutMs: 2000 },
      'x',
      '{}',
    );
    expect(out).toMatchObject({ kind: 'unreachable' });
    expect(out.kind === 'unreachable' && out.message).toContain('ECONNREFUSED');
    const ctl = new AbortController();
    ctl.abort(new DOMException('timed out', 'TimeoutError'));
    await expect(anyPortFetch(`http://127.0.0.1:${port}/`, { signal: ctl.signal })).rejects.toMatchObject({
      name: 'TimeoutError',
    });
  });
});

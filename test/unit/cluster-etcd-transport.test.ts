// The lease backends' JSON transport against real loopback listeners: one total deadline per
// request (a black-holed store cannot hold a round), plain-text error bodies kept, an oversized
// answer refused, and the etcd client's endpoint failover and round deadline.
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Socket, type Server as TcpServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EtcdClient, EtcdError } from '../../src/cluster/etcd/client.ts';
import { JsonTransport, TransportError } from '../../src/cluster/json-transport.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function listen(srv: Server | TcpServer): Promise<number> {
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return (srv.address() as { port: number }).port;
}

/** Accepts connections and never answers. */
async function blackHole(): Promise<string> {
  const sockets = new Set<Socket>();
  const srv = createTcpServer((s) => sockets.add(s));
  const port = await listen(srv);
  closers.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => srv.close(r));
  });
  return `http://127.0.0.1:${port}`;
}

async function answering(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const srv = createServer(handler);
  const port = await listen(srv);
  closers.push(async () => {
    srv.closeAllConnections();
    await new Promise((r) => srv.close(r));
  });
  return `http://127.0.0.1:${port}`;
}

describe('JsonTransport', () => {
  it('gives up on a black-holed server at the deadline', async () => {
    const url = await blackHole();
    const t = new JsonTransport();
    closers.push(async () => t.close());
    const start = performance.now();
    const err = await t
      .request({ method: 'POST', url: `${url}/v3/kv/range`, body: {}, timeoutMs: 300 })
      .catch((e) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).kind).toBe('timeout');
    expect(performance.now() - start).toBeLessThan(1500);
  });

  it('parses JSON, keeps a plain-text error body, and refuses an oversized answer', async () => {
    const url = await answering((req, res) => {
      if (req.url === '/json') return res.end('{"a":1}');
      if (req.url === '/text') {
        res.writeHead(400, { 'content-type': 'text/plain' });
        return res.end('CommonName of client sending a request against gateway will be ignored\n');
      }
      res.end('x'.repeat(5 * 1024 * 1024));
    });
    const t = new JsonTransport();
    closers.push(async () => t.close());
    expect(await t.request({ method: 'GET', url: `${url}/json`, timeoutMs: 2000 })).toEqual({
      status: 200,
      body: { a: 1 },
      text: '',
    });
    const text = await t.request({ method: 'POST', url: `${url}/text`, body: {}, timeoutMs: 2000 });
    expect(text).toMatchObject({ status: 400, body: null });
    expect(text.text).toMatch(/^CommonName of client/);
    const big = await t.request({ method: 'GET', url: `${url}/big`, timeoutMs: 5000 }).catch((e) => e);
    expect((big as TransportError).kind).toBe('oversized');
  });
});

describe('EtcdClient endpoints', () => {
  it('fails over past a dead and a black-holed endpoint within one call, then sticks to the live one', async () => {
    let calls = 0;
    const live = await answering((_req, res) => {
      calls++;
      res.end(JSON.stringify({ header: { revision: '1' }, ID: '99', TTL: '5' }));
    });
    const t = new JsonTransport();
    closers.push(async () => t.close());
    const client = new EtcdClient(t, ['http://127.0.0.1:1', await blackHole(), live], null, 300);
    expect(await client.grant(5)).toEqual({ id: '99', ttl: 5 });
    expect(client.endpoint).toBe(live);
    await client.grant(5);
    expect(calls).toBe(2);
    client.rotate();
    expect(client.endpoint).toBe('http://127.0.0.1:1');
  });

  it('never runs past the round deadline, and says the store was not reached', async () => {
    const t = new JsonTransport();
    closers.push(async () => t.close());
    const client = new EtcdClient(t, [await blackHole(), await blackHole()], null, 5000);
    client.roundDeadline = performance.now() + 400;
    const start = performance.now();
    const err = await client.grant(5).catch((e) => e);
    expect(err).toBeInstanceOf(EtcdError);
    expect((err as EtcdError).answered).toBe(false);
    expect(performance.now() - start).toBeLessThan(1500);
  });

  it('an answered refusal is a definite error carrying the server message', async () => {
    const url = await answering((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'etcdserver: requested lease not found', code: 5 }));
    });
    const t = new JsonTransport();
    closers.push(async () => t.close());
    const err = await new EtcdClient(t, [url], null, 1000).revoke('7').catch((e) => e);
    expect(err).toBeInstanceOf(EtcdError);
    expect((err as EtcdError).answered).toBe(true);
    expect((err as Error).message).toMatch(/HTTP 404 etcdserver: requested lease not found/);
  });
});

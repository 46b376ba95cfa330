// Issue 23: the daemon serves through its own node:http adapter (src/http) instead of
// @hono/node-server, so that serving never loads Node's bundled undici. The wire format must not
// change: the same Hono app runs in two real processes, one per adapter, and every raw answer
// (headers in order and spelling, framing, body) must be byte-identical, Date aside.
import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopChild } from '../helpers/child.ts';
import { fixtureArgs } from '../helpers/fixture-bundle.ts';

const APP = join(import.meta.dirname, '..', 'helpers', 'light-wire-app.ts');

interface Served {
  child: ChildProcess;
  port: number;
}

function serve(kind: 'light' | 'node-server'): Promise<Served> {
  const child = spawn(process.execPath, [...fixtureArgs(APP), kind], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /PORT (\d+)/.exec(out);
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.once('exit', (code) => reject(new Error(`${kind} exited ${code}: ${out}`)));
  });
}

/** Sends raw bytes, reads until the server closes (or `ms` passes), normalises Date. */
function exchange(port: number, chunks: (string | Buffer)[], opts: { ms?: number; pauseMs?: number } = {}) {
  return new Promise<string>((resolve, reject) => {
    const s = connect(port, '127.0.0.1');
    const got: Buffer[] = [];
    const timer = setTimeout(() => {
      s.destroy();
      resolve(norm(Buffer.concat(got)));
    }, opts.ms ?? 5000);
    s.on('data', (d: Buffer) => got.push(d));
    s.on('error', reject);
    s.on('close', () => {
      clearTimeout(timer);
      resolve(norm(Buffer.concat(got)));
    });
    if (opts.pauseMs) {
      s.pause();
      setTimeout(() => s.resume(), opts.pauseMs);
    }
    for (const c of chunks) s.write(c);
  });
}

const norm = (b: Buffer) => b.toString('utf8').replace(/^Date: .*$/gim, 'Date: X');

const get = (path: string, method = 'GET', extra = '') =>
  `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}Connection: close\r\n\r\n`;
const withBody = (method: string, path: string, body: string | Buffer, type = 'application/json') => [
  `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`,
  body,
];
const chunked = (method: string, path: string, parts: string[]) =>
  `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${parts
    .map((p) => `${Buffer.byteLength(p).toString(16)}\r\n${p}\r\n`)
    .join('')}0\r\n\r\n`;

describe('the light adapter answers byte for byte like @hono/node-server', () => {
  let light: Served;
  let oracle: Served;
  beforeAll(async () => {
    [light, oracle] = await Promise.all([serve('light'), serve('node-server')]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([stopChild(light?.child), stopChild(oracle?.child)]);
  });

  const same = async (chunks: (string | Buffer)[], opts: { ms?: number; pauseMs?: number } = {}) => {
    const [a, b] = await Promise.all([
      exchange(light.port, chunks, opts),
      exchange(oracle.port, chunks, opts),
    ]);
    expect(a).toBe(b);
    return a;
  };

  it.each([
    '/plain',
    '/mw/plain',
    '/json',
    '/mw/json',
    '/text',
    '/bytes',
    '/buffer',
    '/empty',
    '/mw/empty',
    '/redirect',
    '/response-json',
    '/rebuilt',
    '/nope',
    '/throws',
  ])('GET %s', async (path) => {
    const wire = await same([get(path)]);
    expect(wire).toMatch(/^HTTP\/1\.1 \d{3} /);
  });

  it('repeated set-cookie headers stay separate, other repeats are joined', async () => {
    const wire = await same([get('/cookies')]);
    expect(wire).toContain('set-cookie: a=1; Path=/\r\nset-cookie: b=2; Path=/\r\n');
    expect(wire).toContain('x-multi: one, two\r\n');
    const viaContext = await same([get('/c-cookies')]);
    expect(viaContext).toContain('set-cookie: a=1\r\nset-cookie: b=2\r\n');
  });

  it('HEAD answers carry the GET headers and no body', async () => {
    for (const path of ['/plain', '/mw/json', '/cookies', '/stream']) {
      const wire = await same([get(path, 'HEAD')]);
      expect(wire.endsWith('\r\n\r\n')).toBe(true);
    }
  });

  it('405 with Allow, 404 for unknown paths', async () => {
    expect(await same([get('/plain', 'DELETE')])).toMatch(/^HTTP\/1\.1 405 .*\r\nallow: GET, HEAD\r\n/s);
  });

  it('a streamed body is sent chunked, chunk by chunk', async () => {
    const wire = await same([get('/stream')]);
    expect(wire).toContain('Transfer-Encoding: chunked');
    for (let i = 1; i <= 5; i++) expect(wire).toContain(`chunk ${i}\n`);
  });

  it('a slow reader gets every byte of a large stream (backpressure)', async () => {
    const wire = await same([get('/big-stream?n=64')], { pauseMs: 300, ms: 15_000 });
    expect(wire.split('a').length - 1).toBeGreaterThanOrEqual(64 * 64 * 1024);
  });

  it('a body of lent chunks (the calendar) goes out as a stream does, also for a slow reader', async () => {
    for (const path of ['/chunk-stream', '/mw/chunk-stream', '/chunk-stream?n=200']) {
      const wire = await same([get(path)], path.includes('200') ? { pauseMs: 300, ms: 15_000 } : {});
      expect(wire).toContain('Transfer-Encoding: chunked');
      const n = path.includes('200') ? 200 : 5;
      expect(wire.split('b').length - 1).toBeGreaterThanOrEqual(n * 40_000);
      expect(wire).toContain(`${String(n).padStart(6, '0')} b`);
    }
  });

  it('request bodies: json, chunked text, binary, streamed, and the body limit', async () => {
    expect(await same(withBody('POST', '/echo-json', '{"k":[1,2,"é"]}'))).toContain(
      '{"got":{"k":[1,2,"é"]}}',
    );
    expect(await same([chunked('POST', '/echo-text', ['hel', 'lo ', 'wörld'])])).toContain('[hello wörld]');
    const bin = Buffer.alloc(200_000, 7);
    bin[0] = 1;
    bin[bin.length - 1] = 9;
    expect(await same(withBody('PUT', '/echo-bytes', bin, 'application/octet-stream'))).toContain(
      '{"length":200000,"first":1,"last":9}',
    );
    expect(await same(withBody('POST', '/echo-stream', Buffer.alloc(300_000, 1)))).toContain(
      '{"streamed":300000}',
    );
    expect(await same(withBody('POST', '/limited', 'x'.repeat(50), 'text/plain'))).toContain('too big');
    expect(await same([chunked('POST', '/limited', ['x'.repeat(6), 'y'.repeat(6)])])).toContain('too big');
    expect(await same([chunked('POST', '/limited', ['abc', 'def'])])).toContain('abcdef');
  });

  it('keep-alive: an unread request body is drained and the next request on the socket is answered', async () => {
    const big = 'z'.repeat(100_000);
    const wire = await same([
      `POST /ignore-body HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${big.length}\r\n\r\n`,
      big,
      get('/plain'),
    ]);
    expect(wire).toContain('ignored');
    expect(wire).toContain('hello');
  });

  it('pipelined requests on one connection', async () => {
    const wire = await same([`${get('/json').replace('Connection: close\r\n', '')}${get('/text')}`]);
    expect(wire.match(/HTTP\/1\.1 /g)).toHaveLength(2);
  });

  it('bad request lines answer 400 like node-server', async () => {
    await same(['GET /plain HTTP/1.0\r\n\r\n']);
    await same([get('/a\\b')]);
    await same(['GET /plain HTTP/1.1\r\nHost: bad host\r\nConnection: close\r\n\r\n']);
    await same(['GET http://example.test/plain HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n']);
    await same([get('/x/../plain')]);
  });

  it('a client that goes away aborts the request signal', async () => {
    for (const port of [light.port, oracle.port]) {
      await exchange(port, [get('/hang').replace('Connection: close\r\n', '')], { ms: 300 });
      let aborted = '';
      for (let i = 0; i < 20 && !aborted.includes('"aborted":1'); i++) {
        aborted = await exchange(port, [get('/aborted')]);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(aborted).toContain('{"aborted":1}');
    }
  });
});

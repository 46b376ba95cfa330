// A Hono app served by either adapter, for test/integration/web-light-wire.test.ts: `light`
// (src/web/light, what the daemon uses) or `node-server` (@hono/node-server, the oracle whose
// wire format the light adapter keeps). Prints `PORT <n>` once listening on 127.0.0.1.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { methodNotAllowed } from 'hono/method-not-allowed';
import { ChunkStream } from '../../src/http/chunk-stream.ts';

const kind = process.argv[2];
const app = new Hono();
app.use('*', async (c, next) => {
  await next();
  if (c.req.path.startsWith('/mw/') && !c.res.headers.has('cache-control'))
    c.res.headers.set('cache-control', 'no-store');
});
app.use('*', methodNotAllowed({ app }));
const enc = new TextEncoder();
let aborted = 0;
app.get('/plain', () => new Response('hello'));
app.get('/mw/plain', () => new Response('hello'));
app.get('/json', (c) => c.json({ a: 1, b: 'é' }));
app.get(
  '/mw/json',
  () => new Response('{"x":1}', { headers: { 'content-type': 'application/json; charset=utf-8' } }),
);
app.get('/text', (c) => c.text('some text', 201));
app.get(
  '/bytes',
  () => new Response(enc.encode('bytes!'), { headers: { 'content-type': 'application/octet-stream' } }),
);
app.get('/buffer', () => new Response(Buffer.from('buffer body')));
app.get('/empty', (c) => c.body(null, 200));
app.get('/mw/empty', (c) => c.body(null, 204));
app.get('/cookies', () => {
  const h = new Headers({ 'content-type': 'text/plain' });
  h.append('set-cookie', 'a=1; Path=/');
  h.append('set-cookie', 'b=2; Path=/');
  h.append('x-multi', 'one');
  h.append('x-multi', 'two');
  return new Response('cookies', { headers: h });
});
app.get('/c-cookies', (c) => {
  c.header('set-cookie', 'a=1', { append: true });
  c.header('set-cookie', 'b=2', { append: true });
  return c.text('ok');
});
app.get('/stream', () => {
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(ctl) {
      await new Promise((r) => setTimeout(r, 5));
      if (i++ < 5) ctl.enqueue(enc.encode(`chunk ${i}\n`));
      else ctl.close();
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
});
app.get('/big-stream', (c) => {
  const n = Number(c.req.query('n') ?? '64');
  let i = 0;
  const block = new Uint8Array(64 * 1024).fill(97);
  return new Response(
    new ReadableStream<Uint8Array>({
      pull(ctl) {
        if (i++ < n) ctl.enqueue(block);
        else ctl.close();
      },
    }),
  );
});
// The calendar's kind of body: chunks from a synchronous iterator, which the light writer takes
// without the stream; node-server reads it as any stream. `/mw/` routes pass the header middleware.
const chunkStream = (c: { req: { query(k: string): string | undefined } }) => {
  const n = Number(c.req.query('n') ?? '5');
  function* chunks() {
    for (let i = 1; i <= n; i++) yield enc.encode(`${String(i).padStart(6, '0')} ${'b'.repeat(40_000)}\n`);
  }
  return new Response(new ChunkStream(chunks()), { headers: { 'content-type': 'text/calendar' } });
};
app.get('/chunk-stream', chunkStream);
app.get('/mw/chunk-stream', chunkStream);
app.get('/hang', (c) => {
  c.req.raw.signal.addEventListener('abort', () => {
    aborted++;
  });
  return new Promise<Response>(() => {});
});
app.get('/aborted', (c) => c.json({ aborted }));
app.post('/echo-json', async (c) => c.json({ got: await c.req.json() }));
app.post('/echo-text', async (c) => c.text(`[${await c.req.text()}]`));
app.put('/echo-bytes', async (c) => {
  const buf = new Uint8Array(await c.req.arrayBuffer());
  return c.json({ length: buf.byteLength, first: buf[0] ?? null, last: buf[buf.byteLength - 1] ?? null });
});
app.post('/echo-stream', async (c) => {
  const reader = c.req.raw.body!.getReader();
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.byteLength;
  }
  return c.json({ streamed: n });
});
app.post(
  '/limited',
  bodyLimit({ maxSize: 10, onError: (c) => c.json({ error: 'too big' }, 413) }),
  async (c) => c.text(await c.req.text()),
);
app.post('/ignore-body', (c) => c.text('ignored'));
app.get('/throws', () => {
  throw new Error('boom');
});
app.get('/redirect', (c) => c.redirect('/plain'));
app.get('/response-json', () => Response.json({ static: true }, { status: 202 }));
app.get('/rebuilt', async () => {
  const first = new Response('first body', { headers: { 'x-first': '1' } });
  await first.clone().text();
  return new Response(first.body, first);
});
app.onError((err, c) => c.json({ error: err.message }, 500));

async function main(): Promise<void> {
  let server: Server;
  if (kind === 'light') {
    const { createFetchServer } = await import('../../src/http/serve.ts');
    server = createFetchServer(app.fetch);
  } else {
    const { createAdaptorServer } = await import('@hono/node-server');
    server = createAdaptorServer({ fetch: app.fetch }) as Server;
  }
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`PORT ${(server.address() as AddressInfo).port}\n`);
  });
}
void main();

// A body of chunks from a synchronous iterator (http/chunk-stream.ts, the calendar's) written by
// the daemon's node:http writer without its web stream (issue 34): a real server on loopback, a
// reader that stops reading, a client that goes away in the middle, a producer that throws. The
// writer must produce chunks only as the socket takes them, give every lent chunk back, stop the
// producer when the client leaves, and keep serving afterwards.
import { get, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChunkStream } from '../../src/http/chunk-stream.ts';
import { lend } from '../../src/http/lent-chunks.ts';
import { createFetchServer } from '../../src/http/serve.ts';

const CHUNK = 32 * 1024;

/** What the producers did: chunks made and released, producers that ran to their end or stopped. */
const made = { chunks: 0, released: 0, finished: 0, stopped: 0, firstCaller: '' };
const streams: ChunkStream[] = [];

/** `n` lent chunks of CHUNK bytes, chunk i filled with the letter i % 26; throws at `failAt`. */
function* produce(n: number, failAt: number): Generator<Uint8Array> {
  let done = false;
  try {
    for (let i = 0; i < n; i++) {
      if (i === failAt) throw new Error('the producer failed');
      // Who asks for the first chunk: the writer's own loop, or a web stream's pull.
      if (i === 0) made.firstCaller = new Error().stack ?? '';
      made.chunks++;
      yield lend(new Uint8Array(CHUNK).fill(97 + (i % 26)), () => made.released++);
    }
    done = true;
  } finally {
    if (done) made.finished++;
    else made.stopped++;
  }
}

let server: Server;
let base = '';

beforeAll(async () => {
  server = createFetchServer((req) => {
    const q = new URL(req.url).searchParams;
    const stream = new ChunkStream(produce(Number(q.get('n') ?? 8), Number(q.get('fail') ?? -1)));
    streams.push(stream);
    return new Response(stream, { headers: { 'content-type': 'application/octet-stream' } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

function request(path: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    get(`${base}${path}`, { agent: false }, resolve).on('error', reject);
  });
}

function readAll(res: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const got: Buffer[] = [];
    res.on('data', (d: Buffer) => got.push(d));
    res.on('end', () => resolve(Buffer.concat(got)));
    res.on('error', reject);
  });
}

async function until(cond: () => boolean, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function expected(n: number): Buffer {
  return Buffer.concat(Array.from({ length: n }, (_, i) => Buffer.alloc(CHUNK, 97 + (i % 26))));
}

describe('a chunk-stream body on the node:http writer', () => {
  it('is written from the iterator, not the stream, and every chunk comes back', async () => {
    const before = { ...made };
    const body = await readAll(await request('/?n=8'));
    expect(body.equals(expected(8))).toBe(true);
    // The writer took the chunks itself (no stream read in between); nobody can take them again.
    expect(made.firstCaller).toContain('pipeChunks');
    expect(made.firstCaller).not.toContain('pull');
    const stream = streams.at(-1)!;
    expect(stream.locked).toBe(true);
    expect(ChunkStream.take(stream)).toBeNull();
    await until(() => made.released - before.released === 8, 'all 8 chunks released');
    expect(made.finished - before.finished).toBe(1);
  });

  it('produces only as fast as a reader that stops reading takes the bytes', async () => {
    const before = { ...made };
    const res = await request('/?n=800'); // 25 MB, far more than the socket buffers hold
    res.pause();
    // Wait until the producer stands still (the buffers between us are full).
    let last = -1;
    while (made.chunks !== last || made.chunks === before.chunks) {
      last = made.chunks;
      await new Promise((r) => setTimeout(r, 300));
    }
    // The socket buffers hold some megabytes (4 here): far from the whole body.
    expect(made.chunks - before.chunks).toBeLessThan(400);
    res.resume();
    const body = await readAll(res);
    expect(body.length).toBe(800 * CHUNK);
    expect(body.equals(expected(800))).toBe(true);
    await until(() => made.released - before.released === 800, 'all chunks released');
  });

  it('stops the producer when the client goes away mid-body, gives chunks back, serves on', async () => {
    const before = { ...made };
    const res = await request('/?n=5000');
    await new Promise<void>((resolve) => res.once('data', () => resolve()));
    res.destroy();
    await until(() => made.stopped - before.stopped === 1, 'the producer to be stopped');
    const produced = made.chunks - before.chunks;
    expect(produced).toBeLessThan(5000);
    // Every chunk handed to the socket is released, written or not: none is kept from its pool.
    await until(() => made.released - before.released === produced, 'the written chunks released');
    expect(made.finished).toBe(before.finished);
    expect((await readAll(await request('/?n=3'))).equals(expected(3))).toBe(true);
  });

  it('a producer that throws cuts the response short and the server serves on', async () => {
    const before = { ...made };
    const res = await request('/?n=10&fail=4');
    const outcome = await new Promise<string>((resolve) => {
      let bytes = 0;
      res.on('data', (d: Buffer) => {
        bytes += d.length;
      });
      res.on('end', () => resolve(`ended after ${bytes}`));
      res.on('error', () => resolve(`cut after ${bytes}`));
      res.on('close', () => resolve(`cut after ${bytes}`));
    });
    expect(outcome).toMatch(/^cut after \d+$/);
    expect(Number(outcome.split(' ').at(-1))).toBeLessThanOrEqual(4 * CHUNK);
    expect(made.chunks - before.chunks).toBe(4);
    await until(() => made.released - before.released === 4, 'the 4 chunks released');
    expect((await readAll(await request('/?n=2'))).equals(expected(2))).toBe(true);
  });

  it('reads as an ordinary stream for anyone else, and cannot be taken once read', async () => {
    function* three() {
      yield new Uint8Array([1]);
      yield new Uint8Array([2, 3]);
      yield new Uint8Array([4]);
    }
    const stream = new ChunkStream(three());
    const reader = stream.getReader();
    expect(ChunkStream.take(stream)).toBeNull();
    const got: number[] = [];
    for (let r = await reader.read(); !r.done; r = await reader.read()) got.push(...r.value);
    expect(got).toEqual([1, 2, 3, 4]);
    const fresh = new ChunkStream(three());
    expect(ChunkStream.take(fresh)).not.toBeNull();
    expect(ChunkStream.take(fresh)).toBeNull();
  });
});

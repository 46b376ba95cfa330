// The calendar feed streams through reused chunk buffers (issue 34): each chunk's buffer goes
// back to the pool once the socket has taken it, so a request allocates next to no buffers after
// the first, and a buffer is never filled while its bytes are still on their way. A real node:http
// server on loopback (the daemon's writer, both of its paths), sequential and concurrent slow
// readers: every body must be the whole feed, byte for byte.
import { get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformClass } from '../../src/http/platform.ts';
import { createFetchServer } from '../../src/http/serve.ts';
import { parseCron, resolveFrame } from '../../src/schedule/index.ts';
import { type CalendarEntry, calendarStream, chunkPool, renderCalendar } from '../../src/web/ical.ts';

const OPTS = {
  version: '9.9.9',
  calName: 'cronstable',
  nowMs: Date.parse('2026-12-01T10:00:30Z'),
  days: 14,
  perJob: 200,
};
const ENTRIES: CalendarEntry[] = [
  ...['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((n) => ({
    name: `${n}-every-minute`,
    cron: parseCron('* * * * *'),
    frame: resolveFrame({ utc: true }),
    runs: [],
  })),
  {
    name: 'daily',
    cron: parseCron('0 9 * * *'),
    frame: resolveFrame({ timezone: 'Europe/Paris' }),
    runs: [],
  },
];
const WHOLE = Buffer.from(renderCalendar(ENTRIES, OPTS), 'utf8');
/** Megabytes, more than the loopback socket buffers hold while a reader waits. */
const BIG_OPTS = { ...OPTS, days: 60, perJob: 1000 };
const BIG_ENTRIES = [0, 1, 2, 3].flatMap((k) => ENTRIES.map((e) => ({ ...e, name: `${e.name}-${k}` })));
const BIG = Buffer.from(renderCalendar(BIG_ENTRIES, BIG_OPTS), 'utf8');

let server: Server;
let base = '';

beforeAll(async () => {
  server = createFetchServer((req) => {
    const big = new URL(req.url).searchParams.has('big');
    const body = big ? calendarStream(BIG_ENTRIES, BIG_OPTS) : calendarStream(ENTRIES, OPTS);
    const headers = { 'content-type': 'text/calendar; charset=utf-8' };
    // The light Response takes the writer's own path; a platform Response its other one.
    if (new URL(req.url).pathname === '/platform') {
      const Platform = platformClass('Response') as typeof Response;
      return new Platform(body, { headers });
    }
    return new Response(body, { headers });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

/** GET `path`; a slow reader reads nothing for a while, then pauses after each of its first reads. */
function fetchBody(path: string, slow = false): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    get(`${base}${path}`, { agent: false }, (res) => {
      const got: Buffer[] = [];
      if (slow) {
        res.pause();
        setTimeout(() => res.resume(), 400);
      }
      let pauses = slow ? 6 : 0;
      res.on('data', (d: Buffer) => {
        got.push(d);
        if (pauses-- > 0) {
          res.pause();
          setTimeout(() => res.resume(), 30);
        }
      });
      res.on('end', () => resolve(Buffer.concat(got)));
      res.on('error', reject);
    }).on('error', reject);
  });
}

describe('calendar feed over reused chunk buffers', () => {
  it.each(['/light', '/platform'])(
    '%s: every request gets the whole feed, and buffers come back',
    async (path) => {
      expect((await fetchBody(path)).equals(WHOLE)).toBe(true);
      const chunksPerFeed = Math.ceil(WHOLE.length / (32 * 1024));
      expect(chunksPerFeed).toBeGreaterThan(10);
      const before = chunkPool.allocated;
      for (let i = 0; i < 5; i++) expect((await fetchBody(path)).equals(WHOLE)).toBe(true);
      // Five feeds in fresh buffers would take 5 * chunksPerFeed of them.
      expect(chunkPool.allocated - before).toBeLessThan(chunksPerFeed);
    },
  );

  it('concurrent slow readers of a feed bigger than the socket buffers each get all of it', async () => {
    expect(BIG.length).toBeGreaterThan(8_000_000);
    const bodies = await Promise.all([
      fetchBody('/light?big', true),
      fetchBody('/platform?big', true),
      fetchBody('/light?big'),
      fetchBody('/light?big', true),
    ]);
    for (const b of bodies) {
      expect(b.length).toBe(BIG.length);
      expect(b.equals(BIG)).toBe(true);
    }
  });
});

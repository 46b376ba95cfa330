// The state inspector (spec 08 §4.12): view / documents / records tabs over `/state`, `Enter` fetching one
// namespace or stream, `r` and each poll reloading it. A loopback fixture daemon serves the state routes.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FixtureDaemon, type Harness, KEY, mountTui } from '../helpers/tui-fixture.ts';

const daemon = new FixtureDaemon();
let enabled = true;

function stateRoutes(_req: IncomingMessage, url: string, res: ServerResponse): boolean {
  const json = (v: unknown) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(v));
    return true;
  };
  if (url === '/state')
    return json(
      enabled
        ? {
            enabled: true,
            view: 'metadata',
            backend: 'sqlite',
            namespace: 'default',
            stats: { backend: 'sqlite', ops: { get: 3 } },
            node: {
              host: 'n1',
              retries: [{ job: 'a', attempt: 1, nextRetryAt: null, delaySeconds: 5 }],
              slots: [],
            },
            records: {
              streams: 2,
              records: 7,
              prefixes: {},
              list: [
                { stream: 'runs/heartbeat', count: 5, newestAt: 1 },
                { stream: 'logs/heartbeat', count: 2, newestAt: 1 },
              ],
            },
            documents: [
              { namespace: 'kv/app', count: 1, updatedAt: 1 },
              { namespace: 'dagrun/etl', count: 1, updatedAt: 1 },
            ],
            leases: [],
          }
        : { enabled: false },
    );
  if (url === '/state/documents?ns=kv%2Fapp')
    return json({ namespace: 'kv/app', documents: [{ key: 'cursor', updatedAt: 5, valueType: 'number' }] });
  if (url === '/state/records?stream=runs%2Fheartbeat&limit=100')
    return json({
      stream: 'runs/heartbeat',
      records: [{ id: 9, writtenAt: 2, writer: 'n1', data: { ok: true } }],
    });
  return false;
}

beforeAll(async () => {
  daemon.extra = stateRoutes;
  await daemon.start();
});
afterAll(() => daemon.stop());

let h: Harness;
afterEach(() => h?.close());

describe('state inspector', () => {
  it('view tab: backend, stats, armed retries and held slots, counts', async () => {
    enabled = true;
    h = mountTui(daemon, { cols: 100, rows: 30 });
    await h.press(KEY.ctrlK, ...'toggle state', KEY.enter);
    await h.shows('view  documents  records', 'backend: sqlite');
    const t = h.text();
    expect(t).toContain('view  documents  records');
    expect(t).toContain('backend: sqlite');
    expect(t).toContain('stats.ops: {"get":3}');
    expect(t).toContain('armed retries: 1 · held slots: 0');
    expect(t).toContain('records: 7 in 2 stream(s)');
  });

  it('documents lists fetchable namespaces, records hides archived logs; Enter fetches one', async () => {
    enabled = true;
    h = mountTui(daemon, { cols: 100, rows: 30 });
    await h.press(KEY.ctrlK, ...'toggle state', KEY.enter);
    await h.shows('backend: sqlite');
    await h.press(KEY.tab);
    expect(h.text()).toContain('kv/app');
    expect(h.text()).not.toContain('dagrun/etl');
    await h.press(KEY.enter);
    await h.shows('{"key":"cursor","updatedAt":5,"valueType":"number"}');
    await h.press(KEY.right);
    expect(h.text()).toContain('runs/heartbeat');
    expect(h.text()).not.toContain('logs/heartbeat');
    await h.press(KEY.enter);
    await h.shows('{"id":9,"writtenAt":2,"writer":"n1","data":{"ok":true}}');
  });

  it('says so when durable state is off; `r` reloads', async () => {
    enabled = false;
    h = mountTui(daemon, { cols: 100, rows: 30 });
    await h.press(KEY.ctrlK, ...'toggle state', KEY.enter);
    await h.shows('durable state is not configured');
    enabled = true;
    daemon.requests.length = 0;
    await h.press('r');
    await h.shows('backend: sqlite');
    expect(daemon.requests.map((r) => r.url)).toContain('/state');
  });
});

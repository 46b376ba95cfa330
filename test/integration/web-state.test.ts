// The read-only state inspector against a real (inline SQLite) store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.ts';
import type { Store } from '../../src/store/types.ts';
import { writeTree } from '../helpers/tmp.ts';
import { type Harness, job, LOOPBACK, startHarness } from './web-harness.ts';

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies, checked field by field below
type Parsed = Record<string, any>;

describe('/state with a store', () => {
  let store: Store;
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    store = await openStore({
      path: writeTree({ 'keep.txt': '' }, true),
      namespace: 'default',
      topology: 'auto',
      inline: true,
    });
    await store.kvSet('inventory', 'cursor-like', { secret: 'do-not-show', n: 1 });
    await store.kvSet('inventory', 'plain', 'hello');
    await store.append('runs/backup', { outcome: 'success', exit_code: 0 });
    await store.append('logs/backup', { lines: [{ stream: 'stdout', line: 'private output' }] });
    await store.artifactPut('reports', 'daily.csv', new TextEncoder().encode('a,b\n1,2\n'));
    await store.cursorAdvance('orders', 'offset', 4711, false);
    await store.idempotencyClaim('global', 'invoice-2026-11', 0);
    await store.idempotencyClaim('global', 'mail-42', 3600);
    await store.leaseAcquire('lock/global/nightly#0', 'test-host#1#a', 30);
    h = await startHarness(job('backup', 'true', '0 0 1 1 *'), LOOPBACK, {
      wire: (ctx) => {
        ctx.store = store;
      },
    });
    base = h.base;
  });
  afterAll(async () => {
    await h.stop();
    await store.close();
  });

  const get = async (path: string) => {
    const res = await fetch(base + path);
    return { status: res.status, body: (await res.json()) as Parsed };
  };

  it('summarises the store without values', async () => {
    const { status, body } = await get('/state');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      enabled: true,
      view: 'metadata',
      namespace: 'default',
      node: { host: 'test-host', retries: [] },
    });
    const streams = body.records.list.map((s: { stream: string }) => s.stream);
    expect(streams).toEqual(expect.arrayContaining(['runs/backup', 'logs/backup']));
    expect(JSON.stringify(body)).not.toContain('private output');
  });

  it('lists KV documents with type and size instead of the value', async () => {
    const { status, body } = await get('/state/documents?ns=kv/inventory');
    expect(status).toBe(200);
    expect(body.namespace).toBe('kv/inventory');
    const docs = Object.fromEntries(body.documents.map((d: { key: string }) => [d.key, d]));
    expect(docs['cursor-like']).toMatchObject({ valueType: 'object', valueSize: expect.any(Number) });
    expect(docs.plain).toMatchObject({ valueType: 'string', valueSize: 7 });
    expect(JSON.stringify(body)).not.toContain('do-not-show');
    expect((await get('/state/documents')).status).toBe(400);
    expect((await get('/state/documents?ns=runs/x')).status).toBe(400);
  });

  it('serves record streams newest first, never archived output', async () => {
    const { status, body } = await get('/state/records?stream=runs/backup&limit=0');
    expect(status).toBe(200);
    expect(body.records).toHaveLength(1);
    expect(body.records[0].data).toMatchObject({ outcome: 'success' });
    const logs = await get('/state/records?stream=logs/backup');
    expect(logs.status).toBe(403);
    expect(logs.body.error).toEqual(expect.any(String));
    expect((await get('/state/records')).status).toBe(400);
  });

  it('lists document namespaces and lease rows in the inventory', async () => {
    const { body } = await get('/state');
    expect(body.documents).toEqual(
      expect.arrayContaining([
        { namespace: 'kv/inventory', count: 2, updatedAt: expect.any(Number) },
        { namespace: 'cursor/orders', count: 1, updatedAt: expect.any(Number) },
        { namespace: 'idem/global', count: 2, updatedAt: expect.any(Number) },
      ]),
    );
    expect(body.leases).toEqual([
      { name: 'lock/global/nightly#0', holder: 'test-host#1', fence: 1, expiresAt: expect.any(Number) },
    ]);
    expect(body.leases[0].expiresAt).toBeGreaterThan(Date.now() / 1000);
    // The hold token (what `lock release` takes) is not shown.
    expect(JSON.stringify(body)).not.toContain('test-host#1#a');
  });

  it('lists cursors and idempotency keys as metadata', async () => {
    const cursors = await get('/state/documents?ns=cursor/orders');
    expect(cursors.status).toBe(200);
    expect(cursors.body).toEqual({
      namespace: 'cursor/orders',
      enumerable: true,
      documents: [{ key: 'offset', updatedAt: expect.any(Number), valueType: 'number', valueSize: 4 }],
    });
    expect(JSON.stringify(cursors.body)).not.toContain('4711');
    const idem = await get('/state/documents?ns=idem/global');
    const byKey = Object.fromEntries(idem.body.documents.map((d: { key: string }) => [d.key, d]));
    expect(byKey['invoice-2026-11']).toMatchObject({ claimedAt: expect.any(Number), expiresAt: null });
    expect(byKey['mail-42'].expiresAt - byKey['mail-42'].claimedAt).toBeCloseTo(3600, 3);
  });

  it('lists artifact names and digests, not their bytes', async () => {
    const { status, body } = await get('/state/artifacts?scope=reports');
    expect(status).toBe(200);
    expect(body.artifacts).toEqual([
      { name: 'daily.csv', sha256: expect.stringMatching(/^[0-9a-f]{64}$/), size: 8, at: expect.any(Number) },
    ]);
  });
});

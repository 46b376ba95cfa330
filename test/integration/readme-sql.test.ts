// The README's "Inspecting state with SQL" queries, run on a real store the daemon's code wrote.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.ts';
import { writeTree } from '../helpers/tmp.ts';

const require = createRequire(import.meta.url);
const Database = require('better-sqlite3') as typeof import('better-sqlite3');
const README = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
const section = README.slice(README.indexOf('### Inspecting state with SQL'));
const queries = [...section.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!);

describe("the README's SQL section", () => {
  it('has queries, and each one answers from a real store', async () => {
    expect(queries.length).toBeGreaterThanOrEqual(4);
    const dir = writeTree({});
    const store = await openStore({
      path: dir,
      namespace: 'meridian-prod',
      topology: 'single-node',
      inline: true,
    });
    await store.append('runs/orders-ingest', {
      outcome: 'success',
      exit_code: 0,
      finished_at: '2026-07-05T09:00:01Z',
    });
    await store.append('runs/orders-ingest', {
      outcome: 'failure',
      exit_code: 3,
      finished_at: '2026-07-05T09:05:01Z',
    });
    await store.append('runs/backup', {
      outcome: 'success',
      exit_code: 0,
      finished_at: '2026-07-05T09:06:01Z',
    });
    await store.leaseAcquire('lock/global/warehouse#0', 'meridian-a#p1#h1', 300);
    await store.cursorAdvance('orders', 'export', '2026-07-05T09:00:00Z', false);
    await store.kvSet('global', 'pulse-count', 7);
    await store.close();

    const db = new Database(join(dir, 'cronstable.db'), { readonly: true });
    try {
      const [ran, locks, docs, rates] = queries.map((q) => db.prepare(q).all() as Record<string, unknown>[]);
      expect(ran![0]).toMatchObject({ job: 'backup', outcome: 'success', exit_code: 0 });
      expect(ran).toHaveLength(3);
      expect(locks).toEqual([
        expect.objectContaining({ name: 'lock/global/warehouse#0', holder: 'meridian-a#p1#h1', fence: 1 }),
      ]);
      expect(docs).toEqual([
        expect.objectContaining({ doc_ns: 'cursor/orders', key: 'export', value: '2026-07-05T09:00:00Z' }),
        expect.objectContaining({ doc_ns: 'kv/global', key: 'pulse-count', value: 7 }),
      ]);
      expect(rates![0]).toMatchObject({ job: 'orders-ingest', runs: 2, failures: 1 });
    } finally {
      db.close();
    }
  });
});

// The main-thread store (a single-node daemon's, the admin CLI's) group-commits: writes asked for
// in the same tick share one transaction, as the lane workers' do. Measured on the
// real WAL file: a commit appends every page it changed, so 200 separate commits write hundreds
// of frames, and a batched burst a few dozen. Order is kept: a read asked after writes sees them,
// and a close flushes what was asked before it.

import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DB_FILE } from '../../src/store/connection.ts';
import { openStore } from '../../src/store/index.ts';
import type { Store } from '../../src/store/types.ts';
import { writeTree } from '../helpers/tmp.ts';

const require = createRequire(import.meta.url);
const Sqlite = require('better-sqlite3') as typeof import('better-sqlite3');

const open: Store[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

async function inlineStore(dir: string): Promise<Store> {
  const s = await openStore({ path: dir, namespace: 'n', topology: 'single-node', inline: true });
  open.push(s);
  return s;
}

/** Empties the WAL (checkpoint and truncate from another connection), so its size counts new frames. */
function truncateWal(dir: string): void {
  const db = new Sqlite(join(dir, DB_FILE));
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

const walBytes = (dir: string) => statSync(join(dir, `${DB_FILE}-wal`)).size;
const RUN = { outcome: 'success', exit_code: 0, duration: 0.01 };

describe('main-thread store: group commit', () => {
  it('writes a burst of 200 appends in a few commits, not 200', async () => {
    const dir = writeTree({});
    const store = await inlineStore(dir);
    await store.append('runs/warm', RUN, { keep: 1000 });

    // Each append awaited: one commit each, the old behaviour of every write (the yardstick).
    truncateWal(dir);
    for (let i = 0; i < 200; i++) await store.append('runs/serial', { ...RUN, i }, { keep: 1000 });
    const serial = walBytes(dir);

    // The same 200 asked for at once, as a burst of job ends does.
    truncateWal(dir);
    await Promise.all(
      Array.from({ length: 200 }, (_, i) => store.append('runs/burst', { ...RUN, i }, { keep: 1000 })),
    );
    const burst = walBytes(dir);

    expect(serial).toBeGreaterThan(200 * 4096);
    expect(burst).toBeLessThan(serial / 5);
    const rows = await store.list('runs/burst');
    expect(rows.map((r) => (r.data as { i: number }).i)).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });

  it('keeps arrival order: a read asked after writes sees them; a failed write fails alone', async () => {
    const store = await inlineStore(writeTree({}));
    const writes = [
      store.kvSet('s', 'a', 1),
      store.append('runs/x', RUN),
      store.kvSet('s', 'a', 2),
      store.cursorAdvance('s', 'c', 5, false),
      store.cursorAdvance('s', 'c', 'not a number', false),
    ];
    const read = store.kvGet('s', 'a');
    const outcomes = await Promise.allSettled(writes);
    expect(outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
    ]);
    expect((await read)?.value).toBe(2);
    expect((await store.cursorGet('s', 'c'))?.value).toBe(5);
    expect(await store.list('runs/x')).toHaveLength(1);
  });

  it('a close right after writes writes them first', async () => {
    const dir = writeTree({});
    const store = await openStore({ path: dir, namespace: 'n', topology: 'single-node', inline: true });
    const pending = Array.from({ length: 50 }, (_, i) => store.append('runs/late', { i }));
    await store.close();
    await Promise.all(pending);
    const again = await inlineStore(dir);
    expect(await again.list('runs/late')).toHaveLength(50);
  });
});

// The store file's identity guard (issue 14 items 1-2): a store whose file is deleted or
// replaced under it refuses calls (StoreUnavailableError) instead of writing to a ghost inode,
// reports the fault once, never recreates an empty file, and reopens what is put back.
import { existsSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore, StoreUnavailableError } from '../../src/store/index.ts';
import { storeScratch } from '../helpers/store-scratch.ts';

const { tempDir, keep } = storeScratch('identity');

async function storeWith(path: string, value: number, inline: boolean) {
  const faults: { level: string; message: string }[] = [];
  const store = await openStore({
    path,
    namespace: 'default',
    topology: 'single-node',
    placement: inline ? 'inline' : 'lanes',
    onFault: (level, message) => faults.push({ level, message }),
  });
  keep(store);
  await store.kvSet('g', 'n', value);
  return { store, faults };
}

async function spareFile(value: number): Promise<string> {
  const path = join(tempDir(), 'spare');
  const s = await openStore({ path, namespace: 'default', topology: 'single-node', inline: true });
  await s.kvSet('g', 'n', value);
  await s.close();
  return join(path, 'cronstable.db');
}

const rmDb = (db: string) => {
  for (const x of ['', '-wal', '-shm']) rmSync(db + x, { force: true });
};

async function eventually<T>(fn: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await fn();
    } catch (e) {
      if (i > 100) throw e;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

for (const inline of [true, false]) {
  describe(`store file identity (${inline ? 'inline' : 'worker lanes'})`, () => {
    it('a deleted file refuses calls, is reported once, is not recreated, and a restored one is used', async () => {
      const path = tempDir();
      const db = join(path, 'cronstable.db');
      const { store, faults } = await storeWith(path, 1, inline);
      rmDb(db);
      for (let i = 0; i < 3; i++)
        await expect(store.kvSet('g', 'n', 2)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.kvGet('g', 'n')).rejects.toThrow(/deleted/);
      expect(existsSync(db)).toBe(false);
      if (inline) {
        expect(faults.filter((f) => f.level === 'error')).toHaveLength(1);
        expect(faults[0]!.message).toMatch(/was deleted under the running daemon/);
      }
      renameSync(await spareFile(40), db);
      const back = await eventually(() => store.kvGet('g', 'n'));
      expect(back?.value).toBe(40);
      await store.kvSet('g', 'n', 41);
      expect((await store.kvGet('g', 'n'))?.value).toBe(41);
      if (inline)
        expect(faults.at(-1)).toMatchObject({ level: 'info', message: expect.stringMatching(/is back/) });
    });

    it('a replaced file is noticed before the next write, which lands in the new file', async () => {
      const path = tempDir();
      const db = join(path, 'cronstable.db');
      const { store } = await storeWith(path, 1, inline);
      const spare = await spareFile(7);
      rmDb(db);
      renameSync(spare, db);
      await expect(store.kvSet('g', 'n', 2)).rejects.toThrow(/replaced/);
      await eventually(() => store.kvSet('g', 'n', 8));
      await store.close();
      const check = await openStore({ path, namespace: 'default', topology: 'single-node', inline: true });
      expect((await check.kvGet('g', 'n'))?.value).toBe(8);
      await check.close();
    });
  });
}

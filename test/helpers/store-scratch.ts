// Temp directories and the stores a test opens in them. After each test the stores close first (an open
// store still holds its SQLite file and WAL), then the directories go.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

interface Closable {
  close(): Promise<void>;
}

/** Call once at the top of a test file; `name` marks its temp directories (`cronstable-<name>-…`). */
export function storeScratch(name: string): { tempDir(): string; keep<S extends Closable>(store: S): S } {
  const dirs: string[] = [];
  const stores: Closable[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  return {
    tempDir() {
      const d = mkdtempSync(join(tmpdir(), `cronstable-${name}-`));
      dirs.push(d);
      return d;
    },
    keep(store) {
      stores.push(store);
      return store;
    },
  };
}

// store.recentRuns (issue 33 item 15): every job's newest run rows in one read, capped per job,
// slot rows (no run id) and other streams left out, oldest first within a job; the `skipped` rows of
// slots a pause held count as rows of the history (spec 10 §1.3).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.ts';
import type { Store } from '../../src/store/types.ts';

let store: Store | null = null;
let dir = '';
afterEach(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('reads each job’s newest runs, capped per job, without slot rows or other streams', async () => {
  dir = mkdtempSync(join(tmpdir(), 'cronstable-recent-'));
  store = await openStore({
    path: dir,
    namespace: 'default',
    topology: 'single-node',
    inline: true,
    writer: 'h#1',
  });
  for (let i = 1; i <= 5; i++) await store.append('runs/a', { outcome: 'success', run_id: `a${i}` });
  await store.append('runs/a', { outcome: 'skipped:overlap', run_id: null });
  for (let i = 1; i <= 4; i++)
    await store.append('runs/a', { outcome: 'skipped', skip_reason: 'paused', run_id: null, n: i });
  for (let i = 1; i <= 2; i++) await store.append('runs/b', { outcome: 'failure', run_id: `b${i}` });
  await store.append('artifacts/x', { run_id: 'not-a-run' });
  const rows = await store.recentRuns(3);
  // Runs and skips each keep their own share: four newer skips do not push a5 out.
  const id = (d: unknown) => (d as { run_id: string | null; n?: number }).run_id ?? (d as { n: number }).n;
  expect(rows.map((r) => [r.stream, id(r.data)])).toEqual([
    ['runs/a', 'a3'],
    ['runs/a', 'a4'],
    ['runs/a', 'a5'],
    ['runs/a', 2],
    ['runs/a', 3],
    ['runs/a', 4],
    ['runs/b', 'b1'],
    ['runs/b', 'b2'],
  ]);
  expect(await store.recentRuns(0)).toEqual([]);
});

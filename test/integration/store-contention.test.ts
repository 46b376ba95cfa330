// Real processes contending on one SQLite store: idempotency claims, a 2-permit semaphore,
// cursor convergence, and `kill -9` in the middle of a write-heavy loop.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stateCheck } from '../../src/store/admin.ts';
import { openStore } from '../../src/store/index.ts';
import type { Topology } from '../../src/store/types.ts';
import type { ChildConfig } from './fixtures/store-child.ts';
import { runContenders, spawnContender } from './fixtures/store-spawn.ts';

const require = createRequire(import.meta.url);
type RawDb = { prepare(sql: string): { all(...p: unknown[]): unknown[] }; close(): void };
const Better = require('better-sqlite3') as new (file: string, o?: { readonly?: boolean }) => RawDb;

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'cronstable-contend-'));
  dirs.push(d);
  return d;
}

function contenders(n: number, base: Omit<ChildConfig, 'go' | 'path'>, dir = tempDir()): ChildConfig[] {
  const path = join(dir, 'state');
  return Array.from({ length: n }, (_, i) => ({ ...base, path, go: join(dir, 'go'), seed: i + 1 }));
}

describe('store under multi-process contention', () => {
  for (const topology of ['single-node', 'shared'] as Topology[])
    it(`9 processes claiming one idempotency key on a fresh store: exactly one fresh (${topology})`, async () => {
      const cfgs = contenders(9, { mode: 'idem', topology });
      const all = await runContenders(cfgs);
      const results = all.map((c) => c.lines.find((l) => 'fresh' in l)!);
      expect(results.filter((r) => r.fresh === true)).toHaveLength(1);
      expect(new Set(results.map((r) => r.claimedAt)).size).toBe(1);
    });

  it('a 2-permit semaphore under 9 contenders never has more than 2 holders', async () => {
    const cfgs = contenders(9, { mode: 'semaphore', rounds: 2, holdMs: 120, permits: 2 });
    const all = await runContenders(cfgs);
    const intervals = all.flatMap(
      (c) =>
        (c.lines.find((l) => 'intervals' in l)!.intervals as {
          enter: number;
          exit: number;
          slot: number;
        }[]) ?? [],
    );
    expect(intervals).toHaveLength(18);
    const events = intervals.flatMap((iv) => [
      { t: iv.enter, d: 1 },
      { t: iv.exit, d: -1 },
    ]);
    // Exits sort before enters at the same instant (a release precedes the next acquire).
    events.sort((a, b) => a.t - b.t || a.d - b.d);
    let holders = 0;
    let peak = 0;
    for (const e of events) {
      holders += e.d;
      peak = Math.max(peak, holders);
    }
    expect(peak).toBe(2);
    for (const slot of [0, 1]) {
      const mine = intervals.filter((iv) => iv.slot === slot).sort((a, b) => a.enter - b.enter);
      for (let i = 1; i < mine.length; i++) expect(mine[i]!.enter).toBeGreaterThanOrEqual(mine[i - 1]!.exit);
    }
  });

  it('9 processes advancing one cursor with random values converge to the max (shared topology)', async () => {
    const cfgs = contenders(9, { mode: 'cursor', rounds: 30, topology: 'shared' });
    const all = await runContenders(cfgs);
    const submitted = all.flatMap((c) => c.lines.find((l) => 'submitted' in l)!.submitted as number[]);
    expect(submitted).toHaveLength(270);
    const store = await openStore({
      path: cfgs[0]!.path,
      namespace: 'default',
      topology: 'shared',
      inline: true,
    });
    expect((await store.cursorGet('global', 'the-cursor'))?.value).toBe(Math.max(...submitted));
    await store.close();
  });

  for (const topology of ['single-node', 'shared'] as Topology[])
    it(`kill -9 mid write loop (${topology}, worker lanes): reopen works, integrity ok, no torn data`, async () => {
      const dir = tempDir();
      const path = join(dir, 'state');
      const opts = { path, namespace: 'default', topology, inline: true };
      for (let round = 0; round < 2; round++) {
        const child = spawnContender({
          mode: 'writeloop',
          path,
          topology,
          inline: false,
          go: join(dir, 'go'),
        });
        await child.ready;
        if (round === 0) writeFileSync(join(dir, 'go'), 'go');
        await child.waitFor((l) => typeof l.progress === 'number' && l.progress >= 100);
        child.proc.kill('SIGKILL');
        expect((await child.exited).signal).toBe('SIGKILL');

        const check = await stateCheck(opts);
        expect(check.integrity).toBe('ok');
        expect(check.ok).toBe(true);
        const store = await openStore(opts);
        const runs = await store.list('runs/w');
        expect(runs.length).toBeGreaterThan(0);
        expect(runs.length).toBeLessThanOrEqual(50);
        for (const r of runs) {
          const d = r.data as { payload: string; sha: string };
          expect(createHash('sha256').update(d.payload).digest('hex')).toBe(d.sha);
        }
        for (const e of await store.kvList('w')) {
          const d = e.value as { payload: string; sha: string };
          expect(createHash('sha256').update(d.payload).digest('hex')).toBe(d.sha);
        }
        for (const a of await store.artifactList('w')) {
          const got = await store.artifactGet('w', a.name);
          expect(got !== null && got !== 'gone' && createHash('sha256').update(got.bytes).digest('hex')).toBe(
            a.sha256,
          );
        }
        await store.close();
        const db = new Better(join(path, 'cronstable.db'), { readonly: true });
        expect(db.prepare("SELECT v1_records AS n FROM stream_counts WHERE stream = 'runs/w'").all()).toEqual(
          [{ n: runs.length }],
        );
        db.close();
      }
    });
});

// Fire claims (DESIGN.md §4 step 3) against real SQLite: the first claim of a slot wins, later
// claims learn the winner, namespaces are apart, GC drops old claims, the `fire_claims` table
// reads with plain SQL, and two OS processes racing over the same 200 slots split them with
// exactly one winner per slot.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stateGc } from '../../src/store/gc.ts';
import { openStore } from '../../src/store/index.ts';
import type { Store, Topology } from '../../src/store/types.ts';
import { storeScratch } from '../helpers/store-scratch.ts';
import type { ChildConfig } from './fixtures/store-child.ts';
import { runContenders } from './fixtures/store-spawn.ts';

const require = createRequire(import.meta.url);
type RawDb = { prepare(sql: string): { all(...p: unknown[]): unknown[] }; close(): void };
const Better = require('better-sqlite3') as new (file: string, o?: { readonly?: boolean }) => RawDb;

const { tempDir, keep } = storeScratch('claims');
async function open(path: string, namespace = 'default', now?: () => number): Promise<Store> {
  const s = await openStore({ path, namespace, topology: 'single-node', inline: true, now });
  keep(s);
  return s;
}

const AT = Date.parse('2026-03-01T10:00:00Z');

describe('fire claims in the store', () => {
  it('the first claim wins; every later claim of the slot answers the winner', async () => {
    const path = tempDir();
    const a = await open(path);
    const b = await open(path);
    expect(await a.fireClaim('nightly', AT, 'node-a')).toEqual({ won: true, node: 'node-a' });
    expect(await b.fireClaim('nightly', AT, 'node-b')).toEqual({ won: false, node: 'node-a' });
    // The same node claiming again does not win twice: the slot was started once already.
    expect(await a.fireClaim('nightly', AT, 'node-a')).toEqual({ won: false, node: 'node-a' });
    // Another slot, another job: independent claims.
    expect(await b.fireClaim('nightly', AT + 60_000, 'node-b')).toEqual({ won: true, node: 'node-b' });
    expect(await b.fireClaim('hourly', AT, 'node-b')).toEqual({ won: true, node: 'node-b' });
  });

  it('namespaces never see each other’s claims', async () => {
    const path = tempDir();
    const blue = await open(path, 'blue');
    const green = await open(path, 'green');
    expect((await blue.fireClaim('j', AT, 'n1')).won).toBe(true);
    expect((await green.fireClaim('j', AT, 'n2')).won).toBe(true);
  });

  it('refuses a claim without a job, a node or a finite instant', async () => {
    const s = await open(tempDir());
    await expect(s.fireClaim('', AT, 'n')).rejects.toThrow(/job name is required/);
    await expect(s.fireClaim('j', AT, '')).rejects.toThrow(/node name is required/);
    await expect(s.fireClaim('j', Number.NaN, 'n')).rejects.toThrow(/finite instant/);
  });

  it('reads as the plain fire_claims table, joinable with runs on scheduled_at', async () => {
    const path = tempDir();
    const s = await open(path, 'default', () => AT + 1500);
    await s.fireClaim('nightly', AT, 'node-a');
    await s.append('runs/nightly', {
      outcome: 'success',
      scheduled_at: new Date(AT).toISOString(),
      finished_at: new Date(AT + 5000).toISOString(),
    });
    const db = new Better(join(path, 'cronstable.db'), { readonly: true });
    try {
      expect(db.prepare('SELECT ns, job, scheduled_at, node, claimed_at FROM fire_claims').all()).toEqual([
        {
          ns: 'default',
          job: 'nightly',
          scheduled_at: '2026-03-01T10:00:00.000Z',
          node: 'node-a',
          claimed_at: (AT + 1500) / 1000,
        },
      ]);
      const joined = db
        .prepare(
          `SELECT c.job, c.node AS claimed_by, r.outcome FROM fire_claims c
           JOIN runs r ON r.ns = c.ns AND r.job = c.job AND r.scheduled_at = c.scheduled_at`,
        )
        .all();
      expect(joined).toEqual([{ job: 'nightly', claimed_by: 'node-a', outcome: 'success' }]);
    } finally {
      db.close();
    }
  });

  it('state gc drops claims older than the grace window and keeps recent ones', async () => {
    const path = tempDir();
    const day = 86_400_000;
    let now = AT;
    const s = await open(path, 'default', () => now);
    await s.fireClaim('j', AT, 'n');
    now = AT + 5 * day;
    await s.fireClaim('j', AT + 5 * day, 'n');
    const opts = { path, namespace: 'default', topology: 'single-node' as const, now: () => AT + 5 * day };
    const gc = { keepJobs: ['j'], graceSeconds: 2 * 86_400 };
    const dry = await stateGc(opts, { ...gc, dryRun: true });
    expect(dry.removedFireClaims).toBe(1);
    const real = await stateGc(opts, { ...gc, dryRun: false });
    expect(real.removedFireClaims).toBe(1);
    expect(real.lines).toContain('state: gc removed 1 old fire claim(s)');
    expect(await s.fireClaim('j', AT + 5 * day, 'other')).toEqual({ won: false, node: 'n' });
  });

  for (const topology of ['single-node', 'shared'] as Topology[])
    it(`two processes racing over the same 200 slots: exactly one winner each (${topology})`, async () => {
      const dir = tempDir();
      const base: Omit<ChildConfig, 'seed'> = {
        mode: 'fireclaim',
        rounds: 200,
        topology,
        path: join(dir, 'state'),
        go: join(dir, 'go'),
      };
      const all = await runContenders([
        { ...base, seed: 1 },
        { ...base, seed: 2 },
      ]);
      const results = all.map((c) => c.lines.find((l) => 'won' in l) as { node: string; won: number[] });
      const one = results[0]!;
      const two = results[1]!;
      const both = one.won.filter((i) => two.won.includes(i));
      expect(both).toEqual([]);
      expect([...one.won, ...two.won].sort((x, y) => x - y)).toEqual(
        Array.from({ length: 200 }, (_, i) => i),
      );
      const db = new Better(join(dir, 'state', 'cronstable.db'), { readonly: true });
      try {
        const rows = db
          .prepare('SELECT node, count(*) AS n FROM fire_claims GROUP BY node ORDER BY node')
          .all();
        expect(rows).toEqual(
          results
            .map((r) => ({ node: r.node, n: r.won.length }))
            .filter((r) => r.n > 0)
            .sort((x, y) => x.node.localeCompare(y.node)),
        );
      } finally {
        db.close();
      }
    });
});

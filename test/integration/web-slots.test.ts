// GET /jobs/{name}/slots over real HTTP against a real scheduler and a real (inline SQLite) store
// that two "nodes" (two store connections with their own writer names) share.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.ts';
import type { Store } from '../../src/store/types.ts';
import { writeTree } from '../helpers/tmp.ts';
import { type Harness, job, LOOPBACK, startHarness } from './web-harness.ts';

const Database = createRequire(import.meta.url)('better-sqlite3') as typeof import('better-sqlite3');

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies, checked field by field below
type Parsed = Record<string, any>;

const at = (h: number) => `2026-03-01T${String(h).padStart(2, '0')}:00:00.000Z`;

describe('/jobs/{name}/slots with a shared store', () => {
  let a: Store;
  let b: Store;
  let h: Harness;
  let base: string;
  let dir: string;
  beforeAll(async () => {
    dir = writeTree({ 'keep.txt': '' }, true);
    const open = (writer: string) =>
      openStore({ path: dir, namespace: 'default', topology: 'auto', inline: true, writer });
    a = await open('node-a#1');
    b = await open('node-b#2');
    const row = (scheduled: string, outcome: string, extra: Record<string, unknown> = {}) => ({
      outcome,
      scheduled_at: scheduled,
      trigger: 'schedule',
      attempt: 0,
      run_id: null,
      fail_reason: null,
      finished_at: scheduled,
      ...extra,
    });
    await a.append('runs/hourly', row(at(0), 'success', { run_id: 'run-0' }));
    await b.append('runs/hourly', row(at(0), 'claimed-elsewhere', { fail_reason: 'claimed by node-a' }));
    await b.append('runs/hourly', row(at(1), 'skipped:overlap'));
    await a.append('runs/hourly', row(at(2), 'success', { run_id: 'run-2', trigger: 'catchup' }));
    await b.append('runs/hourly', row(at(3), 'missed', { fail_reason: 'node down' }));
    h = await startHarness(job('hourly', 'true', '0 * * * *'), LOOPBACK, {
      wire: (ctx) => {
        ctx.store = a;
      },
    });
    base = h.base;
  });
  afterAll(async () => {
    await h.stop();
    await a.close();
    await b.close();
  });

  const get = async (path: string) => {
    const res = await fetch(base + path);
    expect(res.headers.get('content-type')).toContain('application/json');
    return { status: res.status, body: (await res.json()) as Parsed };
  };

  it('lists every slot of the window with the fleet’s most informative row', async () => {
    const { status, body } = await get(`/jobs/hourly/slots?from=${at(0)}&to=${at(5)}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ name: 'hourly', source: 'ledger', from: at(0), to: at(5), unaccounted: 1 });
    expect(body.slots.map((s: Parsed) => [s.scheduled_at, s.outcome, s.node, s.run_id])).toEqual([
      [at(0), 'ran', 'node-a', 'run-0'],
      [at(1), 'skipped-overlap', 'node-b', null],
      [at(2), 'caught-up', 'node-a', 'run-2'],
      [at(3), 'missed', 'node-b', null],
      [at(4), 'unaccounted', null, null],
    ]);
    expect(body.slots[0].others).toEqual([
      { node: 'node-b', outcome: 'claimed-elsewhere', reason: 'claimed by node-a' },
    ]);
    expect(body.slots[3].reason).toBe('node down');
    expect(body.counts).toEqual({ ran: 1, 'skipped-overlap': 1, 'caught-up': 1, missed: 1, unaccounted: 1 });
  });

  it('the slots SQL view carries the same rows (every recorded slot, same fate and node)', async () => {
    const { body } = await get(`/jobs/hourly/slots?from=${at(0)}&to=${at(5)}`);
    const db = new Database(join(dir, 'cronstable.db'), { readonly: true });
    try {
      const rows = db
        .prepare(
          "SELECT scheduled_at, outcome, node, run_id, reason, records FROM slots WHERE ns = 'default' AND job = 'hourly' ORDER BY scheduled_at",
        )
        .all();
      const recorded = body.slots.filter((s: Parsed) => s.outcome !== 'unaccounted');
      expect(rows).toEqual(
        recorded.map((s: Parsed) => ({
          scheduled_at: s.scheduled_at,
          outcome: s.outcome,
          node: s.node,
          run_id: s.run_id,
          reason: s.reason,
          records: 1 + s.others.length,
        })),
      );
    } finally {
      db.close();
    }
  });

  it("answers the README's slots query (What happened to my 02:00 run?)", () => {
    const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
    const start = readme.indexOf('## What happened to my 02:00 run?');
    const section = readme.slice(start, readme.indexOf('\n## ', start + 3));
    const queries = [...section.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(queries).toHaveLength(1);
    const db = new Database(join(dir, 'cronstable.db'), { readonly: true });
    try {
      expect(db.prepare(queries[0]!).all()).toEqual([
        { scheduled_at: at(2), outcome: 'caught-up', node: 'node-a', reason: null, records: 1 },
      ]);
    } finally {
      db.close();
    }
  });

  it('defaults to the last 24 hours', async () => {
    const { status, body } = await get('/jobs/hourly/slots');
    expect(status).toBe(200);
    expect(Date.parse(body.to) - Date.parse(body.from)).toBe(86_400_000);
    expect(body.slots).toHaveLength(24);
  });

  it('/slots/unaccounted sums the unaccounted slots of every job over the last 24 hours', async () => {
    const { status, body } = await get('/slots/unaccounted');
    expect(status).toBe(200);
    // The ledger knows hourly since 2026-03-01 and holds nothing for the last day.
    expect(body).toMatchObject({
      source: 'ledger',
      unaccounted: 24,
      jobs: [{ name: 'hourly', unaccounted: 24 }],
    });
  });

  it('answers bad windows with a JSON 400 and unknown jobs with a JSON 404', async () => {
    const bad = [
      '?from=yesterday',
      `?from=${at(0)}&to=not-a-date`,
      `?from=${at(5)}&to=${at(5)}`,
      `?from=${at(5)}&to=${at(1)}`,
      '?from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z',
    ];
    for (const q of bad) {
      const { status, body } = await get(`/jobs/hourly/slots${q}`);
      expect(status, q).toBe(400);
      expect(typeof body.error).toBe('string');
    }
    expect((await get('/jobs/hourly/slots?from=yesterday')).body.error).toMatch(/invalid 'from'/);
    expect((await get(`/jobs/hourly/slots?from=${at(5)}&to=${at(1)}`)).body.error).toMatch(/before/);
    expect(
      (await get('/jobs/hourly/slots?from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z')).body.error,
    ).toMatch(/31 days/);
    const missing = await get('/jobs/ghost/slots');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatch(/ghost/);
  });
});

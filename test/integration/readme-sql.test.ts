// The README's "Inspecting state with SQL" section: its views exist, and each of its queries
// answers from a real store the daemon's code wrote.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.ts';
import type { Json } from '../../src/store/types.ts';
import { writeTree } from '../helpers/tmp.ts';

const require = createRequire(import.meta.url);
const Database = require('better-sqlite3') as typeof import('better-sqlite3');
const README = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
const start = README.indexOf('### Inspecting state with SQL');
const section = README.slice(start, README.indexOf('\n## ', start));
const queries = [...section.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!);
/** The views the section's table documents, in its order. */
const views = [...section.matchAll(/^\| `(\w+)` +\|/gm)].map((m) => m[1]!);

/** A run record shaped as the scheduler writes it (src/scheduler/durable.ts). */
function run(outcome: string, exitCode: number, scheduledAt: string | null, attempt: number): Json {
  return {
    outcome,
    exit_code: exitCode,
    started_at: scheduledAt,
    finished_at: scheduledAt ?? '2026-07-05T09:30:00.000Z',
    duration: 1,
    fail_reason: outcome === 'failure' ? `exit code ${exitCode}` : null,
    resources: null,
    run_id: `r${attempt}-${scheduledAt}`,
    trigger: scheduledAt === null ? 'manual' : attempt > 0 ? 'retry' : 'schedule',
    attempt,
    scheduled_at: scheduledAt,
  };
}

async function writeStore(dir: string): Promise<void> {
  const store = await openStore({
    path: dir,
    namespace: 'meridian-prod',
    topology: 'single-node',
    inline: true,
    writer: 'meridian-a#4242',
  });
  try {
    await store.append('runs/orders-ingest', run('failure', 3, '2026-07-05T09:00:00.000Z', 0));
    await store.append('runs/orders-ingest', run('success', 0, '2026-07-05T09:00:00.000Z', 1));
    await store.append('runs/orders-ingest', run('failure', 3, '2026-07-05T09:05:00.000Z', 0));
    await store.append('runs/backup', run('success', 0, '2026-07-05T09:06:00.000Z', 0));
    await store.append('runs/backup', run('success', 0, null, 0));
    const at = '2026-07-05T09:06:01.000Z';
    await store.append('retries/orders-ingest', {
      kind: 'pending',
      attempt: 1,
      notBefore: '2026-07-05T09:00:30.000Z',
      host: 'meridian-a',
      at,
    });
    await store.append('retries/orders-ingest', {
      kind: 'settled',
      reason: 'succeeded',
      host: 'meridian-a',
      at,
    });
    await store.append('retries/backup', {
      kind: 'pending',
      attempt: 2,
      notBefore: '2026-07-05T09:10:00.000Z',
      host: 'meridian-b',
      at,
    });
    await store.leaseAcquire('lock/global/warehouse#0', 'meridian-a#p1#h1', 300);
    const released = await store.leaseAcquire('lock/orders/export-db2#1', 'meridian-a#p1#h2', 300);
    await store.leaseRelease(released!);
    await store.cursorAdvance('orders', 'export', '2026-07-05T09:00:00Z', false);
    await store.kvSet('global', 'pulse-count', 7);
    await store.idempotencyClaim('global', 'charge-2026-07-05', 0);
    await store.idempotencyClaim('orders', 'import-42', 3600);
    await store.artifactPut('orders', 'report.csv', new TextEncoder().encode('a,b\n'));
    await store.artifactPut('orders', 'report.csv', new TextEncoder().encode('a,b\n1,2\n'));
    // A DAG run whose first task pushed a value (spec 04 §6.1: scope dagxcom/<dag>/<runId>).
    const runId = 'a'.repeat(32);
    const entry = {
      id: 'discover',
      mapIndex: null,
      state: 'success',
      attempt: 0,
      proc: null,
      pid: null,
      host: 'meridian-a',
      startedAt: 1,
      finishedAt: 2,
      exitCode: 0,
      failReason: null,
      resources: null,
      updatedAt: 2,
      nextRetryAt: null,
    };
    await store.dagRunCreate({
      dag: 'orders-etl',
      runKey: '2026-07-05T09:03:00_00:00',
      runId,
      logicalDate: '2026-07-05T09:03:00+00:00',
      kind: 'scheduled',
      state: 'running',
      createdAt: 1,
      updatedAt: 2,
      tasks: { discover: entry },
      mapped: {},
    });
    await store.artifactPut(
      `dagxcom/orders-etl/${runId}`,
      'discover/shards',
      new TextEncoder().encode('["eu"]\n'),
    );
    // The fleet claimed the orders-ingest slots (the second node's claims lost).
    for (const at of ['2026-07-05T09:00:00.000Z', '2026-07-05T09:05:00.000Z']) {
      await store.fireClaim('orders-ingest', Date.parse(at), 'meridian-a');
      expect((await store.fireClaim('orders-ingest', Date.parse(at), 'meridian-b')).won).toBe(false);
    }
  } finally {
    await store.close();
  }
  // Another deployment in the same file: the README's `ns =` filter keeps it out.
  const other = await openStore({ path: dir, namespace: 'staging', topology: 'single-node', inline: true });
  await other.append('runs/orders-ingest', run('failure', 1, '2026-07-05T09:00:00.000Z', 0));
  await other.kvSet('global', 'pulse-count', 1);
  await other.close();
}

describe("the README's SQL section", () => {
  it('documents a view per kind of state, each one in the store and queried by the section', async () => {
    expect(views).toEqual([
      'runs',
      'slots',
      'kv',
      'cursors',
      'idempotency_keys',
      'locks',
      'artifacts',
      'retries',
      'fire_claims',
      'xcom',
    ]);
    for (const v of views)
      expect(
        queries.some((q) => new RegExp(`FROM ${v}\\b`).test(q)),
        v,
      ).toBe(true);
    const dir = writeTree({});
    await writeStore(dir);
    const db = new Database(join(dir, 'cronstable.db'), { readonly: true });
    try {
      // fire_claims is a plain table (its own readable view); the others are views.
      const inStore = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'view' OR name = 'fire_claims'")
        .all()
        .map((r) => (r as { name: string }).name);
      expect(inStore.sort()).toEqual([...views].sort());
    } finally {
      db.close();
    }
  });

  it('answers each query from a real store', async () => {
    expect(queries).toHaveLength(11);
    const dir = writeTree({});
    await writeStore(dir);
    const db = new Database(join(dir, 'cronstable.db'), { readonly: true });
    try {
      const [ran, failures, slots, retries, locks, kv, cursors, claims, artifacts, fireClaims, xcom] =
        queries.map((q) => db.prepare(q).all() as Record<string, unknown>[]);
      expect(ran).toHaveLength(5);
      expect(ran![0]).toEqual({
        job: 'backup',
        scheduled_at: null,
        outcome: 'success',
        exit_code: 0,
        attempt: 0,
        node: 'meridian-a',
      });
      expect(ran![3]).toMatchObject({ job: 'orders-ingest', outcome: 'success', attempt: 1 });
      expect(failures).toEqual([
        { job: 'orders-ingest', runs: 3, failures: 2 },
        { job: 'backup', runs: 2, failures: 0 },
      ]);
      expect(slots).toEqual([
        {
          job: 'backup',
          scheduled_at: '2026-07-05T09:06:00.000Z',
          outcome: 'ran',
          node: 'meridian-a',
          attempts: 1,
        },
        {
          job: 'orders-ingest',
          scheduled_at: '2026-07-05T09:05:00.000Z',
          outcome: 'failed',
          node: 'meridian-a',
          attempts: 1,
        },
        {
          job: 'orders-ingest',
          scheduled_at: '2026-07-05T09:00:00.000Z',
          outcome: 'ran',
          node: 'meridian-a',
          attempts: 2,
        },
      ]);
      expect(retries).toEqual([
        { job: 'backup', attempt: 2, not_before: '2026-07-05T09:10:00.000Z', node: 'meridian-b' },
      ]);
      expect(locks).toEqual([
        expect.objectContaining({
          scope: 'global',
          name: 'warehouse',
          permit: 0,
          holder: 'meridian-a#p1#h1',
          fence: 1,
        }),
      ]);
      expect(kv).toEqual([expect.objectContaining({ scope: 'global', key: 'pulse-count', value: 7 })]);
      expect(cursors).toEqual([{ scope: 'orders', name: 'export', value: '2026-07-05T09:00:00Z' }]);
      expect(claims).toEqual([
        expect.objectContaining({ scope: 'global', key: 'charge-2026-07-05', expires_at: null }),
        expect.objectContaining({ scope: 'orders', key: 'import-42', expires_at: expect.any(Number) }),
      ]);
      expect(artifacts).toEqual([
        // A DAG task's XCom is an artifact in its run's scope too (spec 04 §6.1).
        expect.objectContaining({
          scope: `dagxcom/orders-etl/${'a'.repeat(32)}`,
          name: 'discover/shards',
          size: 7,
        }),
        expect.objectContaining({ scope: 'orders', name: 'report.csv', size: 8, versions: 1 }),
      ]);
      expect(fireClaims).toEqual([
        {
          job: 'orders-ingest',
          scheduled_at: '2026-07-05T09:05:00.000Z',
          claimed_by: 'meridian-a',
          ran_on: 'meridian-a',
          outcome: 'failure',
          attempt: 0,
        },
        {
          job: 'orders-ingest',
          scheduled_at: '2026-07-05T09:00:00.000Z',
          claimed_by: 'meridian-a',
          ran_on: 'meridian-a',
          outcome: 'failure',
          attempt: 0,
        },
        {
          job: 'orders-ingest',
          scheduled_at: '2026-07-05T09:00:00.000Z',
          claimed_by: 'meridian-a',
          ran_on: 'meridian-a',
          outcome: 'success',
          attempt: 1,
        },
      ]);
      expect(xcom).toEqual([
        {
          dag: 'orders-etl',
          run_key: '2026-07-05T09:03:00_00:00',
          task_key: 'discover',
          key: 'shards',
          size: 7,
          state: 'success',
        },
      ]);
    } finally {
      db.close();
    }
  });

  it('parses lock names whose name ends in digits or holds a slash', async () => {
    const dir = writeTree({});
    const store = await openStore({ path: dir, namespace: 'default', topology: 'single-node', inline: true });
    await store.leaseAcquire('lock/job-a/db2#12', 'h#1#a', 60);
    await store.leaseAcquire('lock/global/a/b#0', 'h#1#b', 60);
    await store.close();
    const db = new Database(join(dir, 'cronstable.db'), { readonly: true });
    try {
      expect(db.prepare('SELECT scope, name, permit FROM locks ORDER BY scope').all()).toEqual([
        { scope: 'global', name: 'a/b', permit: 0 },
        { scope: 'job-a', name: 'db2', permit: 12 },
      ]);
    } finally {
      db.close();
    }
  });
});

// The DAG run rows (spec 04 §4, §10) on a real SQLite store: create-if-absent, the version CAS that
// serialises concurrent writers, summaries, the adoption list, retention, and the xcom view.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunStore } from '../../src/dag/engine/run-store.ts';
import { apply, claimPass, newRun, type RunState } from '../../src/dag/index.ts';
import { openStore, type Store } from '../../src/store/index.ts';
import { writeTree } from '../helpers/tmp.ts';
import { loadDags, T0 } from './dag-fixtures.ts';

const [ETL] = loadDags(`  - name: etl
    retainRuns: 2
    tasks:
      - id: discover
        command: echo
      - id: load
        dependsOn:
          - discover
        expand:
          fromTask: discover
          key: items
        command: echo
      - id: gate
        type: approval
        dependsOn:
          - load
      - id: wait
        type: sensor
        dependsOn:
          - gate
        command: "true"
`);
const dag = ETL!;

let store: Store;
let runs: RunStore;

beforeEach(async () => {
  store = await openStore({ path: writeTree({}), namespace: 'ns1', topology: 'single-node', inline: true });
  runs = new RunStore(store);
});
afterEach(async () => {
  await store.close();
});

const fresh = (runKey: string, now = T0): RunState =>
  newRun(dag, {
    runKey,
    runId: `${runKey.length}`.padStart(32, '0'),
    logicalDate: null,
    kind: 'manual',
    now,
  });

describe('dag run rows', () => {
  it('creates once per key and reads the same document back', async () => {
    const run = fresh('manual-000000000001');
    expect(await runs.create(run)).toBe(true);
    expect(await runs.create({ ...run, runId: 'f'.repeat(32) })).toBe(false);
    const got = await runs.get('etl', 'manual-000000000001');
    expect(got!.version).toBe(1);
    expect(got!.run).toEqual(run);
  });

  it('a write lands only on the version it read; the loser re-reads and applies on top', async () => {
    await runs.create(fresh('k'));
    const a = (await store.dagRunGet('etl', 'k'))!;
    const first = await store.dagRunWrite({
      dag: 'etl',
      runKey: 'k',
      version: a.version,
      state: 'running',
      updatedAt: T0 + 1,
      mapped: {},
      tasks: {},
    });
    expect(first).toEqual({ ok: true, version: 2 });
    const stale = await store.dagRunWrite({
      dag: 'etl',
      runKey: 'k',
      version: a.version,
      state: 'failed',
      updatedAt: T0 + 2,
      mapped: {},
      tasks: {},
    });
    expect(stale.ok).toBe(false);
    expect((await runs.get('etl', 'k'))!.run.state).toBe('running');
  });

  it('a claim pass, an expansion and a decision round-trip every entry field', async () => {
    await runs.create(fresh('k'));
    const ctx = { proc: 'p1', host: 'h1' };
    await runs.mutate('etl', 'k', (r) => claimPass(r, dag, { ...ctx, now: T0 + 1 }));
    await runs.mutate('etl', 'k', (r) =>
      apply(r, dag, { type: 'pid', taskKey: 'discover', proc: 'p1', attempt: 0, pid: 4242, now: T0 + 1 }),
    );
    expect((await runs.get('etl', 'k'))!.run.tasks.discover).toMatchObject({
      pid: 4242,
      proc: 'p1',
      host: 'h1',
    });
    await runs.mutate('etl', 'k', (r) =>
      apply(r, dag, {
        type: 'complete',
        taskKey: 'discover',
        proc: 'p1',
        attempt: 0,
        ok: true,
        exitCode: 0,
        failReason: null,
        now: T0 + 2,
      }),
    );
    const items = [{ shard: 'eu' }, 'us', 7, null];
    await runs.mutate('etl', 'k', (r) =>
      claimPass(r, dag, { ...ctx, now: T0 + 3, expansions: new Map([['load', items]]) }),
    );
    let got = (await runs.get('etl', 'k'))!.run;
    expect(got.mapped.load!.items).toEqual(items);
    expect(got.tasks['load#0']!.mapItem).toEqual({ shard: 'eu' });
    expect(got.tasks['load#3']!.mapItem).toBeNull();
    expect(got.tasks['load#1']!.state).toBe('running');
    expect(got.tasks.discover).toMatchObject({
      state: 'success',
      pid: null,
      exitCode: 0,
      finishedAt: T0 + 2,
    });
    for (const i of [0, 1, 2, 3])
      await runs.mutate('etl', 'k', (r) =>
        apply(r, dag, {
          type: 'complete',
          taskKey: `load#${i}`,
          proc: 'p1',
          attempt: 0,
          ok: true,
          exitCode: 0,
          failReason: null,
          now: T0 + 4,
        }),
      );
    await runs.mutate('etl', 'k', (r) => claimPass(r, dag, { ...ctx, now: T0 + 5 }));
    got = (await runs.get('etl', 'k'))!.run;
    expect(got.tasks.gate!.awaitingApproval).toBe(true);
    expect(got.tasks.gate!.approval).toBeNull();
    const decided = await runs.mutate('etl', 'k', (r) =>
      apply(r, dag, { type: 'decision', taskKey: 'gate', decision: 'approve', by: 'me', now: T0 + 6 }),
    );
    expect(decided!.taskState).toBe('success');
    got = (await runs.get('etl', 'k'))!.run;
    expect(got.tasks.gate!.approval).toEqual({ decision: 'approved', by: 'me', at: T0 + 6 });
    expect('awaitingApproval' in got.tasks.gate!).toBe(false);
    await runs.mutate('etl', 'k', (r) => claimPass(r, dag, { ...ctx, now: T0 + 7 }));
    got = (await runs.get('etl', 'k'))!.run;
    expect(got.tasks.wait!).toMatchObject({ state: 'running', pokeCount: 0, firstPokeAt: T0 + 7 });
    // What a second decision meets: not waiting any more.
    const again = await runs.mutate('etl', 'k', (r) =>
      apply(r, dag, { type: 'decision', taskKey: 'gate', decision: 'reject', by: 'x', now: T0 + 8 }),
    );
    expect(again!.rejected).not.toBeNull();
  });

  it('lists newest first with task-state counts, and the active runs for adoption', async () => {
    await runs.create(fresh('a', T0));
    await runs.create(fresh('b', T0 + 10));
    const list = await store.dagRunList('etl', 50);
    expect(list.map((r) => r.runKey)).toEqual(['b', 'a']);
    expect(list[0]!.taskStates).toEqual({ pending: 4 });
    expect(await store.dagRunsActive()).toEqual([
      { dag: 'etl', runKey: 'a' },
      { dag: 'etl', runKey: 'b' },
    ]);
  });

  it('retention keeps the newest terminal runs, never an active one, and drops their XCom', async () => {
    for (let i = 0; i < 5; i++) {
      const r = fresh(`r${i}`, T0 + i);
      await runs.create({ ...r, runId: `${i}`.repeat(32) });
      await store.artifactPut(
        `dagxcom/etl/${`${i}`.repeat(32)}`,
        'discover/items',
        new TextEncoder().encode('[]'),
      );
      if (i !== 0)
        await runs.mutate('etl', `r${i}`, (run) => ({
          run: { ...run, state: 'success', updatedAt: T0 + i },
          changed: true,
          touched: [],
        }));
    }
    expect(await store.dagRunPrune('etl', 2)).toBe(2);
    const left = (await store.dagRunList('etl', 50)).map((r) => r.runKey).sort();
    expect(left).toEqual(['r0', 'r3', 'r4']); // r0 is still running
    expect(await store.artifactList(`dagxcom/etl/${'1'.repeat(32)}`)).toEqual([]);
    expect((await store.artifactList(`dagxcom/etl/${'4'.repeat(32)}`)).map((a) => a.name)).toEqual([
      'discover/items',
    ]);
  });

  it('namespaces never see each other', async () => {
    await runs.create(fresh('a'));
    const other = await openStore({
      path: store.path,
      namespace: 'ns2',
      topology: 'single-node',
      inline: true,
    });
    try {
      expect(await other.dagRunGet('etl', 'a')).toBeNull();
      expect(await other.dagRunsActive()).toEqual([]);
    } finally {
      await other.close();
    }
  });
});

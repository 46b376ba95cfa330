// S2 `nightly-close` (spec 04 §12) on the engine with a fake clock, a real store and real processes:
// 01:00 New York fires at 05:00Z under EDT and 06:00Z under EST, under the UTC key; the chain runs in
// order; a node the `dag:<name>` gate refuses creates nothing, and with `onMissed: skip` regaining the
// gate replays nothing.
import { afterEach, describe, expect, it } from 'vitest';
import { DagEngine } from '../../src/dag/engine/engine.ts';
import type { RunState } from '../../src/dag/index.ts';
import { launch } from '../../src/exec/index.ts';
import { openStore, type Store } from '../../src/store/index.ts';
import { FakeClock } from '../../src/util/clock.ts';
import { getLogger } from '../../src/util/log.ts';
import { writeTree } from '../helpers/tmp.ts';
import { loadDags } from '../unit/dag-fixtures.ts';

const [NIGHTLY] = loadDags(`  - name: nightly-close
    schedule: "0 1 * * *"
    timezone: America/New_York
    clusterPolicy: Leader
    retainRuns: 10
    tasks:
      - id: freeze-ledgers
        command: echo "ledgers frozen"
      - id: post-journals
        dependsOn:
          - freeze-ledgers
        command: echo "journals posted"
      - id: close-books
        dependsOn:
          - post-journals
        command: echo "books closed"
`);
const dag = NIGHTLY!;

const open: { engine: DagEngine; store: Store }[] = [];
afterEach(async () => {
  for (const { engine, store } of open.splice(0)) {
    await engine.stop(0);
    await store.close();
  }
});

async function node(startIso: string, gate: { allow: boolean }) {
  const clock = new FakeClock(Date.parse(startIso));
  const store = await openStore({
    path: writeTree({}),
    namespace: 'n',
    topology: 'single-node',
    inline: true,
  });
  const engine = new DagEngine({
    store,
    clock,
    log: getLogger('test.dag'),
    host: 'h1',
    launch: (spec, opts) => launch(spec, { ...opts, sinks: { stdout: () => {}, stderr: () => {} } }),
    registry: null,
    gate: () => gate.allow,
  });
  open.push({ engine, store });
  engine.load([dag]);
  engine.start();
  await settle();
  return { clock, store, engine };
}

/** Lets the engine's store calls and child processes make progress in real time. */
const settle = (ms = 30) => new Promise((r) => setTimeout(r, ms));

async function until<T>(read: () => Promise<T | null>, what: string): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const v = await read();
    if (v !== null) return v;
    await settle();
  }
  throw new Error(`timed out: ${what}`);
}

/** nightly-close's runs, once there is one. */
const firstRuns = (store: Store, what: string) =>
  until(async () => {
    const r = await store.dagRunList('nightly-close', 10);
    return r.length > 0 ? r : null;
  }, what);

describe('S2 nightly-close on the engine', () => {
  it('fires at 01:00 New York (05:00Z in July) under the UTC key, and runs the chain in order', async () => {
    const { clock, store } = await node('2026-07-05T04:59:30Z', { allow: true });
    await clock.advance(20_000);
    expect(await store.dagRunList('nightly-close', 10)).toEqual([]);
    await clock.advance(15_000);
    const run = await until(async () => {
      const got = await store.dagRunGet('nightly-close', '2026-07-05T05:00:00_00:00');
      return got && got.run.state !== 'running' ? (got.run as unknown as RunState) : null;
    }, 'the 05:00Z run to finish');
    expect(run).toMatchObject({
      kind: 'scheduled',
      logicalDate: '2026-07-05T05:00:00+00:00',
      state: 'success',
    });
    const [a, b, c] = ['freeze-ledgers', 'post-journals', 'close-books'].map((k) => run.tasks[k]!);
    expect([a!.state, b!.state, c!.state]).toEqual(['success', 'success', 'success']);
    expect(b!.startedAt!).toBeGreaterThanOrEqual(a!.finishedAt!);
    expect(c!.startedAt!).toBeGreaterThanOrEqual(b!.finishedAt!);
    expect((await store.dagRunList('nightly-close', 10)).map((r) => r.taskStates)).toEqual([{ success: 3 }]);
  }, 20_000);

  it('fires at 06:00Z in January (EST)', async () => {
    const { clock, store } = await node('2026-01-05T05:59:50Z', { allow: true });
    await clock.advance(15_000);
    const runs = await firstRuns(store, 'the 06:00Z run');
    expect(runs.map((r) => r.runKey)).toEqual(['2026-01-05T06:00:00_00:00']);
  }, 20_000);

  it('creates nothing while the gate refuses, and replays nothing once it allows (onMissed: skip)', async () => {
    const gate = { allow: false };
    const { clock, store } = await node('2026-07-05T04:59:30Z', gate);
    await clock.advance(60_000);
    await settle(100);
    expect(await store.dagRunList('nightly-close', 10)).toEqual([]);
    gate.allow = true;
    await clock.advance(25_000); // a seeding pass on the gate's return
    await settle(100);
    expect(await store.dagRunList('nightly-close', 10)).toEqual([]);
  }, 20_000);

  it('a node the gate opens to seeds within a second, not on the next 20 s pass: the next instant is not lost', async () => {
    const gate = { allow: false };
    // Seeding passes run at start (04:59:30), 04:59:50 and 05:00:10; the gate opens between them.
    const { clock, store } = await node('2026-07-05T04:59:30Z', gate);
    await clock.advance(22_000);
    await settle(50);
    gate.allow = true;
    for (let i = 0; i < 9; i++) {
      await clock.advance(1000);
      await settle(20);
    }
    const runs = await firstRuns(store, 'the 05:00Z run');
    expect(runs.map((r) => r.runKey)).toEqual(['2026-07-05T05:00:00_00:00']);
  }, 20_000);
});

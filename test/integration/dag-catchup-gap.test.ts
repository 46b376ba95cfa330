// Spec 09 §9.3, vector 42, on the engine with an injectable clock, a real store and real task processes:
// the wall clock jumps 30 minutes while the node runs. With `onMissed: skip` the pass warns, creates at
// most one `scheduled` run and no catch-up; with `run-all` and `catchupJitterSeconds: 20` it writes an
// `open` checkpoint to `catchup-dag/orders-etl`, creates the gap's `catchup` runs 4.871 s later, then
// writes `close`. A shutdown inside the jitter window leaves the checkpoint open and creates nothing.
import { afterEach, describe, expect, it } from 'vitest';
import type { DagConfig } from '../../src/config/types.ts';
import { DagEngine } from '../../src/dag/engine/engine.ts';
import { launch } from '../../src/exec/index.ts';
import { openStore, type Store } from '../../src/store/index.ts';
import { FakeClock } from '../../src/util/clock.ts';
import type { Logger } from '../../src/util/log.ts';
import { RecordingLogger } from '../helpers/report-kit.ts';
import { writeTree } from '../helpers/tmp.ts';
import { loadDags } from '../unit/dag-fixtures.ts';

const dagOf = (name: string, extra: string) =>
  loadDags(
    `  - name: ${name}\n    schedule: "* * * * *"\n${extra}    tasks:\n      - id: a\n        command: "true"\n`,
  )[0]!;

const open: { engine: DagEngine; store: Store; clock: FakeClock }[] = [];
afterEach(async () => {
  for (const { engine, store, clock } of open.splice(0)) {
    // A stop waits out its kill sequence on the engine's clock: a fake one moves only when told.
    let stopped = false;
    const stopping = engine.stop(0).then(() => {
      stopped = true;
    });
    for (let i = 0; i < 200 && !stopped; i++) {
      await clock.advance(1000);
      await settle(20);
    }
    await stopping;
    await store.close();
  }
});

/** Lets the store calls and child processes make progress in real time. */
const settle = (ms = 30) => new Promise((r) => setTimeout(r, ms));

async function node(dag: DagConfig) {
  const clock = new FakeClock(Date.parse('2026-07-05T09:03:30Z'));
  const store = await openStore({
    path: writeTree({}),
    namespace: 'n',
    topology: 'single-node',
    inline: true,
  });
  const log = new RecordingLogger();
  const engine = new DagEngine({
    store,
    clock,
    log: log as unknown as Logger,
    host: 'h1',
    launch: (spec, opts) => launch(spec, { ...opts, sinks: { stdout: () => {}, stderr: () => {} } }),
    registry: null,
    gate: () => true,
  });
  open.push({ engine, store, clock });
  engine.load([dag]);
  engine.start();
  await settle();
  // The 09:04 fire, on time.
  await clock.advance(31_000);
  await settle();
  return { clock, store, engine, log };
}

const kinds = async (store: Store, dag: string) =>
  (await store.dagRunList(dag, 200)).map((r) => `${r.kind} ${r.logicalDate?.slice(11, 16)}`).sort();

const checkpoints = async (store: Store, dag: string) =>
  (await store.list(`catchup-dag/${dag}`)).map((r) => r.data as { kind: string; watermark: string });

describe('a clock jump while running (spec 09 §9.3, vector 42)', () => {
  it('onMissed: skip warns, creates one scheduled run for the current slot, and no catch-up', async () => {
    const { clock, store, log } = await node(dagOf('d', '    onMissed: skip\n'));
    expect(await kinds(store, 'd')).toEqual(['scheduled 09:04']);
    clock.jumpWall(30 * 60_000);
    await clock.advance(1000);
    await settle(100);
    expect(log.at('warning')).toEqual([
      expect.stringMatching(
        /^dag d: its next fire fell 1\d{3}s behind \(a slow pass, stall, suspend, or clock change\); resuming at the current slot and leaving the gap to onMissed=skip instead of replaying it$/,
      ),
    ]);
    expect(await kinds(store, 'd')).toEqual(['scheduled 09:04', 'scheduled 09:34']);
    // The index moved past now: the next minute fires normally, once.
    await clock.advance(60_000);
    await settle(100);
    expect(await kinds(store, 'd')).toEqual(['scheduled 09:04', 'scheduled 09:34', 'scheduled 09:35']);
    expect(await checkpoints(store, 'd')).toEqual([]);
    expect(log.all().some((m) => m.includes('catch-up'))).toBe(false);
  }, 30_000);

  it('run-all with a 20 s jitter: open checkpoint, the gap replayed 4.871 s later, then close', async () => {
    const { clock, store, log } = await node(
      dagOf('orders-etl', '    onMissed: run-all\n    catchupJitterSeconds: 20\n'),
    );
    clock.jumpWall(30 * 60_000);
    await clock.advance(1000);
    await settle(100);
    expect(log.at('warning')[0]).toMatch(
      /^dag orders-etl: its next fire fell \d+s behind .*onMissed=run-all/,
    );
    expect(log.at('info')).toContain(
      'dag orders-etl: catch-up replaying 29 missed run(s) after a 4.9s jitter offset',
    );
    expect(await checkpoints(store, 'orders-etl')).toEqual([
      { kind: 'open', watermark: '2026-07-05T09:04:00+00:00', at: expect.any(String) },
    ]);
    expect(await kinds(store, 'orders-etl')).toEqual(['scheduled 09:04', 'scheduled 09:34']);
    // The catch-up waits its offset from the pass that found the gap (fire passes go on meanwhile).
    await clock.advance(4_800);
    await settle(100);
    expect((await kinds(store, 'orders-etl')).filter((k) => k.startsWith('catchup'))).toEqual([]);
    await clock.advance(100);
    for (let i = 0; i < 100 && (await checkpoints(store, 'orders-etl')).length < 2; i++) await settle(50);
    const all = await kinds(store, 'orders-etl');
    expect(all.filter((k) => k.startsWith('catchup'))).toHaveLength(29);
    expect(all).toContain('catchup 09:05');
    expect(all).toContain('catchup 09:33');
    expect(all.filter((k) => k.startsWith('scheduled'))).toEqual(['scheduled 09:04', 'scheduled 09:34']);
    expect((await checkpoints(store, 'orders-etl')).map((c) => c.kind)).toEqual(['open', 'close']);
  }, 30_000);

  it('a shutdown inside the jitter window leaves the checkpoint open; the next catch-up resumes from it', async () => {
    const dag = dagOf('orders-etl', '    onMissed: run-all\n    catchupJitterSeconds: 20\n');
    const { clock, store, engine } = await node(dag);
    clock.jumpWall(30 * 60_000);
    await clock.advance(1000);
    await settle(100);
    await engine.stop(0);
    await clock.advance(10_000);
    await settle(100);
    expect((await kinds(store, 'orders-etl')).filter((k) => k.startsWith('catchup'))).toEqual([]);
    expect((await checkpoints(store, 'orders-etl')).map((c) => c.kind)).toEqual(['open']);
    // A new node (a restart) on the same store seeds: its watermark is the 09:34 run, lowered to the
    // open checkpoint's 09:04, so it replays the gap too (and closes the checkpoint after its jitter).
    // Its count includes 09:34, whose run exists: creation is create-if-absent.
    const log = new RecordingLogger();
    const next = new DagEngine({
      store,
      clock,
      log: log as unknown as Logger,
      host: 'h2',
      launch: (spec, opts) => launch(spec, { ...opts, sinks: { stdout: () => {}, stderr: () => {} } }),
      registry: null,
      gate: () => true,
    });
    open.push({ engine: next, store: { close: async () => {} } as unknown as Store, clock });
    next.load([dag]);
    next.start();
    await settle(100);
    expect(log.at('info').some((m) => /catch-up replaying 30 missed run\(s\) after a 4\.9s/.test(m))).toBe(
      true,
    );
    await clock.advance(5_000);
    for (let i = 0; i < 100 && (await checkpoints(store, 'orders-etl')).length < 3; i++) await settle(50);
    expect((await kinds(store, 'orders-etl')).filter((k) => k.startsWith('catchup'))).toHaveLength(29);
    expect((await checkpoints(store, 'orders-etl')).map((c) => c.kind)).toEqual(['open', 'open', 'close']);
  }, 30_000);
});

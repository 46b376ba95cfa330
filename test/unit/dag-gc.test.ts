// Retention and GC of DAG runs (spec 04 §10). The pure rules (manifests, the largest advertised
// retainRuns, when removed DAGs may be collected), then the engine's hourly pass on a real SQLite
// store shared by two nodes on different configs: a node on an older config never collects runs of
// a DAG a newer node still has, a removed DAG is collected only after the grace window, active runs
// and other DAGs' XCom are never touched.
import { afterEach, describe, expect, it } from 'vitest';
import { DagEngine } from '../../src/dag/engine/engine.ts';
import { staleCheckpointStreams } from '../../src/dag/gc.ts';
import {
  type DagManifest,
  effectiveRetain,
  newRun,
  nextManifest,
  parseManifest,
  planRemovedGc,
} from '../../src/dag/index.ts';
import { launch } from '../../src/exec/index.ts';
import { openStore, type Store } from '../../src/store/index.ts';
import type { StoredDagRun } from '../../src/store/types.ts';
import { FakeClock } from '../../src/util/clock.ts';
import { getLogger } from '../../src/util/log.ts';
import { writeTree } from '../helpers/tmp.ts';
import { loadDags, makeDag, T0 } from './dag-fixtures.ts';

const DAY = 86_400;

describe('dag manifests and the removed-DAG plan (pure)', () => {
  it('stamps configured DAGs now and keeps dropped ones with their old seenAt until the grace passes', () => {
    const m1 = nextManifest('a', null, [{ name: 'x', retainRuns: 5 }], T0, DAY);
    expect(m1).toEqual({ host: 'a', since: T0, dags: { x: { seenAt: T0, retainRuns: 5 } } });
    const m2 = nextManifest('a', m1, [{ name: 'y', retainRuns: 1 }], T0 + 10, DAY);
    expect(m2.since).toBe(T0);
    expect(m2.dags).toEqual({ x: { seenAt: T0, retainRuns: 5 }, y: { seenAt: T0 + 10, retainRuns: 1 } });
    const m3 = nextManifest('a', m2, [], T0 + DAY + 1, DAY);
    expect(m3.dags).toEqual({ y: { seenAt: T0 + 10, retainRuns: 1 } });
    expect(parseManifest('a', JSON.parse(JSON.stringify({ since: m3.since, dags: m3.dags })))).toEqual(m3);
  });

  it('refuses records that are not manifests', () => {
    for (const bad of [
      null,
      3,
      [],
      { since: 'x', dags: {} },
      { since: 1, dags: [] },
      { since: 1, dags: { x: 1 } },
    ])
      expect(parseManifest('h', bad)).toBeNull();
  });

  it('retention keeps the largest retainRuns any recent manifest advertises', () => {
    const ms: DagManifest[] = [
      { host: 'a', since: 0, dags: { x: { seenAt: T0, retainRuns: 7 } } },
      { host: 'b', since: 0, dags: { x: { seenAt: T0 - 2 * DAY, retainRuns: 99 } } },
    ];
    expect(effectiveRetain('x', 3, ms, T0, DAY)).toBe(7);
    expect(effectiveRetain('x', 10, ms, T0, DAY)).toBe(10);
    expect(effectiveRetain('y', 4, ms, T0, DAY)).toBe(4);
  });

  it('collects only with gc enabled, every manifest readable and a history as long as the grace', () => {
    const base = { configured: ['mine'], unreadable: [] as string[], now: T0, graceSeconds: DAY };
    const old: DagManifest = {
      host: 'a',
      since: T0 - 2 * DAY,
      dags: { mine: { seenAt: T0, retainRuns: 1 } },
    };
    expect(planRemovedGc({ ...base, graceSeconds: 0, manifests: [old] })).toMatchObject({ collect: false });
    expect(planRemovedGc({ ...base, manifests: [] })).toMatchObject({ collect: false });
    expect(planRemovedGc({ ...base, manifests: [old], unreadable: ['c'] })).toEqual({
      collect: false,
      reason: 'unreadable dag manifest(s): c',
    });
    const young = { ...old, since: T0 - 100 };
    expect(planRemovedGc({ ...base, manifests: [young] })).toEqual({
      collect: false,
      reason: 'dag manifest history spans 100 s, less than the grace window (86400 s)',
    });
    const peer: DagManifest = {
      host: 'b',
      since: T0 - 100,
      dags: { newer: { seenAt: T0 - 5, retainRuns: 1 }, stale: { seenAt: T0 - DAY - 1, retainRuns: 1 } },
    };
    expect(planRemovedGc({ ...base, manifests: [old, peer] })).toEqual({
      collect: true,
      keep: ['mine', 'newer'],
      cutoff: T0 - DAY,
    });
  });
});

// ---- the engine's pass on a real store, two nodes on different configs ----

const etlOld = makeDag('etl', [{ id: 'a' }], { retainRuns: 2 });
const etlNew = makeDag('etl', [{ id: 'a' }], { retainRuns: 3 });
const added = makeDag('added', [{ id: 'a' }]);
const gone = makeDag('gone', [{ id: 'a' }]);

const open: { engine: DagEngine; store: Store }[] = [];
afterEach(async () => {
  for (const { engine, store } of open.splice(0)) {
    await engine.stop(0);
    await store.close();
  }
});

async function fleet() {
  const clock = new FakeClock(T0 * 1000);
  const dir = writeTree({});
  const stores = await Promise.all(
    ['a', 'b'].map(() =>
      openStore({ path: dir, namespace: 'n', topology: 'shared', inline: true, now: () => clock.now() }),
    ),
  );
  const node = (host: string, store: Store) => {
    const engine = new DagEngine({
      store,
      clock,
      log: getLogger('test.dag'),
      host,
      launch,
      registry: null,
      gate: () => false,
      gcGraceSeconds: DAY,
    });
    open.push({ engine, store });
    return engine;
  };
  return { clock, store: stores[0]!, a: node('a', stores[0]!), b: node('b', stores[1]!) };
}

let seq = 0;
async function seedRun(store: Store, dag: ReturnType<typeof makeDag>, state: string, at: number) {
  const key = `k${String(seq++).padStart(4, '0')}`;
  const run = newRun(dag, {
    runKey: key,
    runId: `${seq}`.padStart(32, '0'),
    logicalDate: null,
    kind: 'manual',
    now: at,
  });
  const stored = { ...run, state, updatedAt: at } as unknown as StoredDagRun;
  expect((await store.dagRunCreate(stored)).created).toBe(true);
  await store.artifactPut(`dagxcom/${dag.name}/${run.runId}`, 'a/out', new TextEncoder().encode('x'));
  return { key, runId: run.runId };
}

const keys = async (store: Store, dag: string) =>
  (await store.dagRunList(dag, 500)).map((r) => `${r.runKey}:${r.state}`).sort();

describe('retention and GC across two nodes on one SQLite store', () => {
  it('prunes to the largest advertised retainRuns and collects removed DAGs only after the grace', async () => {
    const { clock, store, a, b } = await fleet();
    a.load([etlOld]); // the older config: no `added`
    b.load([etlNew, added]);
    const t = () => clock.now() / 1000;
    const etlRuns = [];
    for (let i = 0; i < 5; i++) etlRuns.push(await seedRun(store, etlNew, 'success', t() - 100 + i));
    const etlActive = await seedRun(store, etlNew, 'running', t() - 200);
    for (let i = 0; i < 3; i++) await seedRun(store, added, i === 0 ? 'failed' : 'success', t() - 50);
    const goneDone = await seedRun(store, gone, 'success', t() - 10);
    const goneActive = await seedRun(store, gone, 'running', t() - 10);
    await b.publishManifest();

    // Day 0: a's history is younger than the grace: prune only (to b's 3, not a's 2), collect nothing.
    const r0 = await a.retention();
    expect(r0.pruned).toBe(2);
    expect(r0.collected).toBe(0);
    expect(r0.deferred).toMatch(/less than the grace window/);
    expect(await keys(store, 'etl')).toHaveLength(4); // 3 terminal + the active one
    expect(await keys(store, 'etl')).toContain(`${etlActive.key}:running`);
    expect(await store.artifactList(`dagxcom/etl/${etlRuns[0]!.runId}`)).toEqual([]);
    expect(await store.artifactList(`dagxcom/etl/${etlRuns[4]!.runId}`)).toHaveLength(1);

    // A day later, b still has `added`: a collects `gone` (terminal only, with its XCom) and keeps `added`.
    await clock.advance((DAY + 60) * 1000);
    await b.publishManifest();
    const r1 = await a.retention();
    expect(r1.deferred).toBeNull();
    expect(r1.collected).toBe(1);
    expect(await keys(store, 'gone')).toEqual([`${goneActive.key}:running`]);
    expect(await store.artifactList(`dagxcom/gone/${goneDone.runId}`)).toEqual([]);
    expect(await store.artifactList(`dagxcom/gone/${goneActive.runId}`)).toHaveLength(1);
    expect(await keys(store, 'added')).toHaveLength(3);

    // b drops `added` from its config: its manifest keeps advertising it until the grace has passed.
    b.load([etlNew]);
    await b.publishManifest();
    await clock.advance((DAY / 2) * 1000);
    await b.publishManifest();
    expect((await a.retention()).collected).toBe(0);
    expect(await keys(store, 'added')).toHaveLength(3);
    await clock.advance((DAY / 2 + 120) * 1000);
    await b.publishManifest();
    expect((await a.retention()).collected).toBe(3);
    expect(await keys(store, 'added')).toEqual([]);
    // etl stays at b's retainRuns while b advertises it.
    expect(await keys(store, 'etl')).toHaveLength(4);
  });

  it('collects nothing while any manifest is unreadable, or with gc disabled', async () => {
    const { clock, store, a } = await fleet();
    a.load([etlOld]);
    await seedRun(store, gone, 'success', clock.now() / 1000 - 10);
    await a.publishManifest();
    await clock.advance((DAY + 60) * 1000);
    await store.append('dagmanifests/c', { not: 'a manifest' });
    expect(await a.retention()).toMatchObject({ collected: 0, deferred: 'unreadable dag manifest(s): c' });
    expect(await keys(store, 'gone')).toHaveLength(1);

    const off = new DagEngine({
      store,
      clock,
      log: getLogger('test.dag'),
      host: 'a',
      launch,
      registry: null,
      gate: () => false,
      gcGraceSeconds: 0,
    });
    off.load([etlOld]);
    await store.deleteStream('dagmanifests/c');
    expect(await off.retention()).toMatchObject({
      collected: 0,
      deferred: 'gc is disabled (state.gcGraceSeconds <= 0)',
    });
    expect((await a.retention()).collected).toBe(1);
  });
});

describe('a DAG removed from the config and added back (§3.7, §10)', () => {
  it('its owner stops advancing and releases the lease; the run stays; re-adding it resumes the run', async () => {
    const clock = new FakeClock(T0 * 1000);
    const store = await openStore({
      path: writeTree({}),
      namespace: 'n',
      topology: 'single-node',
      inline: true,
      now: () => clock.now(),
    });
    const [gated] = loadDags(`  - name: gated
    tasks:
      - id: gate
        type: approval
      - id: after
        dependsOn:
          - gate
        command: "true"
`);
    if (!gated) throw new Error('no dag');
    const engine = new DagEngine({
      store,
      clock,
      log: getLogger('test.dag'),
      host: 'a',
      launch,
      registry: null,
      gate: () => false,
    });
    open.push({ engine, store });
    engine.load([gated]);
    engine.start();
    const settle = () => new Promise((r) => setTimeout(r, 30));
    const key = await engine.trigger(gated);
    const lease = () => store.leaseRead(`dagadvance/gated/${key}`);
    for (let i = 0; i < 100 && !(await store.dagRunGet('gated', key))?.run.tasks.gate?.awaitingApproval; i++)
      await settle();
    expect(engine.owns('gated', key)).toBe(true);
    expect((await lease())?.expiresAt).toBeGreaterThan(clock.now() / 1000);

    engine.load([]);
    const released = async () => {
      const l = await lease();
      return l === null || l.expiresAt === 0;
    };
    for (let i = 0; i < 100 && !(await released()); i++) await settle();
    expect(engine.owns('gated', key)).toBe(false);
    expect(await released()).toBe(true);
    // A decision still lands (any node may decide), but nobody advances the run while it is unconfigured.
    expect(await engine.decide(gated, key, 'gate', 'approve', 'me')).toEqual({ ok: true, state: 'success' });
    await clock.advance(31_000); // past an adoption scan
    await settle();
    expect((await store.dagRunGet('gated', key))!.run.tasks.after!.state).toBe('pending');
    expect(await engine.retention()).toMatchObject({ collected: 0 }); // active runs are never collected

    engine.load([gated]);
    await engine.adoptScan();
    let run = (await store.dagRunGet('gated', key))!.run;
    for (let i = 0; i < 200 && run.state === 'running'; i++) {
      await clock.advance(100);
      await settle();
      run = (await store.dagRunGet('gated', key))!.run;
    }
    expect(run.state).toBe('success');
    expect(run.tasks.after!.state).toBe('success');
  }, 20_000);
});

describe('catch-up checkpoints are DAG-managed (spec 09 §9.3)', () => {
  it('drops a removed DAG’s catchup-dag stream once it is older than the grace window', () => {
    const streams = [
      { stream: 'catchup-dag/kept', newestAt: 10 },
      { stream: 'catchup-dag/gone', newestAt: 10 },
      { stream: 'catchup-dag/gone-recent', newestAt: 500 },
      { stream: 'catchup/gone', newestAt: 10 },
    ];
    expect(staleCheckpointStreams(streams, ['kept'], 100)).toEqual(['catchup-dag/gone']);
  });
});

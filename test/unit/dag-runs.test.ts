// Which runs get created and under which keys (spec 04 §4.2, §8), and what a reload means (§3.7).

import { describe, expect, it } from 'vitest';
import type { DagConfig } from '../../src/config/types.ts';
import {
  acceptsCompletion,
  BACKFILL_NEEDS_DATES,
  BAD_DATE_RANGE,
  catchupRuns,
  diffDags,
  dueFires,
  logicalDateOf,
  manualRunKey,
  membership,
  NO_COMPUTABLE_INSTANTS,
  NO_SUCH_SCHEDULED_DAG,
  newRun,
  planBackfill,
  runKeyAt,
  sanitizeRunKey,
  seedNextFire,
  watermarkOf,
} from '../../src/dag/index.ts';
import { Driver, loadDags, makeDag, T0 } from './dag-fixtures.ts';

const task = '    tasks:\n      - id: a\n        command: echo a\n';
const [ordersEtl, shardEtl, nightly, manualOnly, runOnce] = loadDags(
  `  - name: orders-etl\n    schedule: "*/3 * * * *"\n    onMissed: run-all\n    startingDeadlineSeconds: 1800\n${task}` +
    `  - name: shard-etl\n    schedule: "*/2 * * * *"\n${task}` +
    `  - name: nightly-close\n    schedule: "0 1 * * *"\n    timezone: America/New_York\n${task}` +
    `  - name: release\n${task}` +
    `  - name: once\n    schedule: "*/3 * * * *"\n    onMissed: run-once\n${task}`,
) as [DagConfig, DagConfig, DagConfig, DagConfig, DagConfig];

const ms = (iso: string) => Date.parse(iso);

describe('run keys (§4.2)', () => {
  it('renders the UTC instant with +00:00, whole seconds, and sanitises it', () => {
    expect(logicalDateOf(ms('2026-07-05T09:03:00.750Z'))).toBe('2026-07-05T09:03:00+00:00');
    expect(runKeyAt(ms('2026-07-05T09:03:00Z'))).toBe('2026-07-05T09:03:00_00:00');
    expect(sanitizeRunKey('a  b/+c::d')).toBe('a_b_c::d');
    expect(manualRunKey('3f9a0c1be2d4')).toBe('manual-3f9a0c1be2d4');
    expect(() => manualRunKey('XYZ')).toThrow(/12 lowercase hex/);
  });
});

describe('backfill (§8.3)', () => {
  it('S1: 09:00..09:30 every 3 min is 11 runs, inclusive at both ends, kind backfill', () => {
    const p = planBackfill(ordersEtl, '2026-07-05T09:00:00Z', '2026-07-05T09:30:00Z');
    expect(p.ok && p.created).toBe(11);
    if (!p.ok) throw new Error(p.reason);
    expect(p.runs[0]).toEqual({
      runKey: '2026-07-05T09:00:00_00:00',
      logicalDate: '2026-07-05T09:00:00+00:00',
      kind: 'backfill',
      at: ms('2026-07-05T09:00:00Z'),
    });
    expect(p.runs.at(-1)!.runKey).toBe('2026-07-05T09:30:00_00:00');
  });
  it('is idempotent: the same window, or the same window in another offset or naive, gives the same keys', () => {
    const a = planBackfill(shardEtl, '2026-01-01T00:00:00+00:00', '2026-01-01T00:10:00+00:00');
    const b = planBackfill(shardEtl, '2026-01-01T00:00:00+00:00', '2026-01-01T00:10:00+00:00');
    const c = planBackfill(shardEtl, '2026-01-01T02:00:00+02:00', '2026-01-01T00:10:00');
    expect(a.ok && a.created).toBe(6);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
  });
  it('caps a call at 100 instants and does not clamp to now', () => {
    const p = planBackfill(ordersEtl, '2030-01-01T00:00:00Z', '2030-01-02T00:00:00Z');
    expect(p.ok && p.created).toBe(100);
  });
  it('refuses what §9 lists, with its reasons', () => {
    expect(planBackfill(ordersEtl, 1, '2026-01-01')).toEqual({ ok: false, reason: BACKFILL_NEEDS_DATES });
    expect(planBackfill(ordersEtl, '2026-01-01', undefined)).toEqual({
      ok: false,
      reason: BACKFILL_NEEDS_DATES,
    });
    expect(planBackfill(manualOnly, '2026-01-01', '2026-01-02')).toEqual({
      ok: false,
      reason: NO_SUCH_SCHEDULED_DAG,
    });
    expect(planBackfill(undefined, '2026-01-01', '2026-01-02')).toEqual({
      ok: false,
      reason: NO_SUCH_SCHEDULED_DAG,
    });
    expect(planBackfill(ordersEtl, 'yesterday', '2026-01-02')).toEqual({ ok: false, reason: BAD_DATE_RANGE });
    expect(planBackfill(ordersEtl, '2026-01-02', '2026-01-01')).toEqual({
      ok: false,
      reason: BAD_DATE_RANGE,
    });
    expect(planBackfill(ordersEtl, '2199-01-01', '2199-01-02')).toEqual({
      ok: false,
      reason: NO_COMPUTABLE_INSTANTS,
    });
  });
  it('a window without a fire instant creates nothing', () => {
    expect(planBackfill(ordersEtl, '2026-07-05T09:01:00Z', '2026-07-05T09:02:59Z')).toEqual({
      ok: true,
      created: 0,
      runs: [],
    });
  });
});

describe('forward firing and catch-up (§8.1, §8.2)', () => {
  it('S2: seeds 01:00 New York as 05:00Z under EDT, strictly after now', () => {
    const next = seedNextFire(nightly, ms('2026-07-05T05:00:00Z'));
    expect(logicalDateOf(next!)).toBe('2026-07-06T05:00:00+00:00');
    expect(logicalDateOf(seedNextFire(nightly, ms('2026-12-01T00:00:00Z'))!)).toBe(
      '2026-12-01T06:00:00+00:00',
    );
    expect(seedNextFire(manualOnly, ms('2026-07-05T05:00:00Z'))).toBeNull();
  });
  it('creates each due instant once and advances the index', () => {
    const next = ms('2026-07-05T09:03:00Z');
    const due = dueFires(ordersEtl, next, ms('2026-07-05T09:07:00Z'));
    expect(due.runs.map((r) => [r.runKey, r.kind])).toEqual([
      ['2026-07-05T09:03:00_00:00', 'scheduled'],
      ['2026-07-05T09:06:00_00:00', 'scheduled'],
    ]);
    expect(due.next).toBe(ms('2026-07-05T09:09:00Z'));
    expect(dueFires(ordersEtl, due.next, ms('2026-07-05T09:07:00Z')).runs).toEqual([]);
  });
  it('run-all replays every missed instant after the watermark within the deadline', () => {
    const now = ms('2026-07-05T10:00:00Z');
    const wm = watermarkOf(['2026-07-05T09:00:00+00:00', null, '2026-07-05T09:51:00+00:00']);
    expect(wm).toBe(ms('2026-07-05T09:51:00Z'));
    expect(catchupRuns(ordersEtl, wm, now).map((r) => [r.logicalDate, r.kind])).toEqual([
      ['2026-07-05T09:54:00+00:00', 'catchup'],
      ['2026-07-05T09:57:00+00:00', 'catchup'],
      ['2026-07-05T10:00:00+00:00', 'catchup'],
    ]);
    // an old watermark is cut at now - 1800 s
    const far = catchupRuns(ordersEtl, ms('2026-07-01T00:00:00Z'), now);
    expect(far[0]!.logicalDate).toBe('2026-07-05T09:33:00+00:00');
    expect(far).toHaveLength(10);
  });
  it('run-once takes the newest missed instant; skip and a brand-new DAG replay nothing', () => {
    const now = ms('2026-07-05T10:01:00Z');
    expect(catchupRuns(runOnce, ms('2026-07-05T09:00:00Z'), now).map((r) => r.logicalDate)).toEqual([
      '2026-07-05T10:00:00+00:00',
    ]);
    expect(catchupRuns(runOnce, ms('2026-07-05T10:00:00Z'), now)).toEqual([]);
    expect(catchupRuns(shardEtl, ms('2026-07-05T09:00:00Z'), now)).toEqual([]);
    expect(catchupRuns(ordersEtl, null, now)).toEqual([]);
  });
});

describe('reloads (§3.7)', () => {
  it('classifies each DAG', () => {
    const prev = [ordersEtl, shardEtl, nightly, manualOnly, { ...runOnce, enabled: false }];
    const next = [
      { ...ordersEtl },
      { ...shardEtl, schedule: '*/5 * * * *' },
      { ...nightly, enabled: false },
      { ...runOnce, enabled: true },
      makeDag('fresh', [{ id: 'a' }]),
    ];
    expect(diffDags(prev, next)).toEqual([
      { name: 'orders-etl', change: 'kept' },
      { name: 'shard-etl', change: 'reseed' },
      { name: 'nightly-close', change: 'disabled' },
      { name: 'once', change: 'reseed' },
      { name: 'fresh', change: 'added' },
      { name: 'release', change: 'removed' },
    ]);
    expect(diffDags([nightly], [{ ...nightly, timezone: 'Europe/Berlin' }])[0]!.change).toBe('reseed');
  });

  it('a task added after the run was created is not part of it and never blocks it', () => {
    const v1 = makeDag('d', [{ id: 'a' }]);
    const v2 = makeDag('d', [
      { id: 'a' },
      { id: 'late', dependsOn: ['a'] },
      { id: 'b', dependsOn: ['a', 'late'] },
    ]);
    const d = new Driver(v1);
    const created = d.run;
    // the run gets a 'b' entry only if it existed at creation; simulate v1.5 that had b without late
    d.run = { ...created, tasks: { ...created.tasks, b: { ...created.tasks.a!, id: 'b' } } };
    d.dag = v2;
    expect(membership(d.run, v2)).toEqual({ members: ['a', 'b'], notInRun: ['late'], removed: [] });
    d.pass();
    expect(d.launched.map((l) => l.taskKey)).toEqual(['a']);
    d.complete('a', true);
    d.pass();
    expect(d.passes.at(-1)!.launches.map((l) => l.taskKey)).toEqual(['b']); // 'late' does not gate b
    d.complete('b', true);
    d.pass();
    expect(d.run.state).toBe('success');
    expect(d.run.tasks.late).toBeUndefined();
  });

  it('a removed task drops out of the run: no completion, no vote on termination', () => {
    const v1 = makeDag('d', [{ id: 'a' }, { id: 'gone' }]);
    const v2 = makeDag('d', [{ id: 'a' }]);
    const d = new Driver(v1);
    d.pass();
    expect(acceptsCompletion(d.run, v2, 'gone')).toBe(false);
    expect(acceptsCompletion(d.run, v2, 'a')).toBe(true);
    expect(membership(d.run, v2).removed).toEqual(['gone']);
    d.dag = v2;
    expect(d.complete('gone', true).rejected).toBe('no such task');
    d.complete('a', true);
    d.pass();
    expect(d.run.state).toBe('success');
  });

  it('newRun makes a placeholder per mapped task and sensor/approval fields', () => {
    const dag = makeDag('n', [
      { id: 's', type: 'sensor' },
      { id: 'g', type: 'approval' },
      { id: 'm', dependsOn: ['s'], expand: { fromTask: 's', key: 'k' } },
    ]);
    const run = newRun(dag, {
      runKey: 'k',
      runId: 'f'.repeat(32),
      logicalDate: null,
      kind: 'manual',
      now: T0,
    });
    expect(run.tasks.m).toMatchObject({ mapped: true, state: 'pending', mapIndex: null });
    expect(run.tasks.s).toMatchObject({ pokeCount: 0, firstPokeAt: null, nextPokeAt: null });
    expect(run.tasks.g).toMatchObject({ approval: null });
    expect(run).toMatchObject({ state: 'running', createdAt: T0, mapped: {} });
  });
});

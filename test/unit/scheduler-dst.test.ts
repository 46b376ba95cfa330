// Issue 15: the scheduler fires by the job's DST policy and the slot ledger (a real SQLite store)
// records dst-shifted / dst-skipped / dst-repeated rows.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { parseCron, resolveFrame } from '../../src/schedule/index.ts';
import { DurableFeatures } from '../../src/scheduler/durable.ts';
import { Scheduler } from '../../src/scheduler/scheduler.ts';
import { type LedgerRow, slotFates } from '../../src/scheduler/slots.ts';
import { openStore } from '../../src/store/index.ts';
import type { Store } from '../../src/store/types.ts';
import { FakeClock } from '../../src/util/clock.ts';
import { Logger, setSink } from '../../src/util/log.ts';
import { FakeLauncher } from '../helpers/fake-launcher.ts';
import { writeTree } from '../helpers/tmp.ts';

const MIN = 60_000;
const NY = '    timezone: America/New_York\n';
const job = (name: string, schedule: string, extra = '') =>
  `  - name: ${name}\n    command: echo ${name}\n    schedule: "${schedule}"\n${NY}${extra}`;

/** A ledger row as the slots view reads it. */
const row = (id: number, at: string, outcome: string): LedgerRow => ({
  id,
  node: 'node-a',
  scheduledAt: at,
  outcome,
  trigger: 'schedule',
  attempt: 0,
  runId: outcome === 'success' ? `r${id}` : null,
  failReason: null,
});

const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

async function setup(yaml: string, startIso: string) {
  const start = Date.parse(startIso);
  const clock = new FakeClock(start);
  const launcher = new FakeLauncher(clock);
  setSink(() => {});
  const dir = writeTree({ 'c.yaml': `state:\n  path: ${join(writeTree({}), 'state')}\njobs:\n${yaml}` });
  const cfg = loadConfig(join(dir, 'c.yaml'), { nowMs: start });
  const store = await openStore({
    path: writeTree({}),
    namespace: 'x',
    topology: 'single-node',
    inline: true,
  });
  stores.push(store);
  const log = new Logger('cronstable');
  const durable = new DurableFeatures({
    store,
    registry: null,
    clock,
    log,
    host: 'node-a',
    onStoreUnavailable: 'degrade',
    maxRunsPerJob: 100,
    slotTtlSeconds: 30,
    bootId: 'boot-1',
  });
  const scheduler = new Scheduler({ clock, log, launch: launcher.launch, report: async () => {} });
  scheduler.subscribe(durable.onEvent);
  scheduler.load(cfg.jobs);
  scheduler.start();
  const ledger = async (name: string) => {
    await new Promise((r) => setTimeout(r, 50));
    return (await store.list(`runs/${name}`))
      .map((r) => r.data as { outcome: string; scheduled_at: string; fail_reason: string | null })
      .filter((d) => d.outcome.startsWith('dst-'))
      .map((d) => `${d.outcome} ${d.scheduled_at}`);
  };
  return { clock, launcher, scheduler, ledger };
}

describe('the scheduler under a DST policy (fake clock, real ledger)', () => {
  it('a stall that wakes on the repeated 01:30 fires it only when the policy has that slot', async () => {
    const t = await setup(
      job('first', '30 1 * * *') + job('both', '30 1 * * *', '    dst:\n      repeated: both\n'),
      '2026-11-01T05:29:00Z',
    );
    // A one-hour suspend just before the first 01:30 (EDT): the timers wake at 06:30Z, the second
    // 01:30 (EST). For `first` that instant is no slot (its 05:30Z slot is dropped as missed).
    t.clock.jumpWall(60 * MIN);
    await t.clock.advance(MIN);
    expect(t.launcher.times('first')).toEqual([]);
    expect(t.launcher.times('both')).toEqual(['2026-11-01T06:30:00.000Z']);
  });

  it('fall-back night: last fires the second 01:30 only, both fires both; dst-repeated recorded', async () => {
    const t = await setup(
      job('first', '30 1 * * *') +
        job('last', '30 1 * * *', '    dst:\n      repeated: last\n') +
        job('both', '30 1 * * *', '    dst:\n      repeated: both\n'),
      '2026-10-31T12:00:00Z',
    );
    await t.clock.advance(2 * 24 * 60 * MIN);
    expect(t.launcher.times('first')).toEqual(['2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z']);
    expect(t.launcher.times('last')).toEqual(['2026-11-01T06:30:00.000Z', '2026-11-02T06:30:00.000Z']);
    expect(t.launcher.times('both')).toEqual([
      '2026-11-01T05:30:00.000Z',
      '2026-11-01T06:30:00.000Z',
      '2026-11-02T06:30:00.000Z',
    ]);
    expect(await t.ledger('first')).toEqual([]);
    expect(await t.ledger('last')).toEqual(['dst-repeated 2026-11-01T06:30:00.000Z']);
    expect(await t.ledger('both')).toEqual(['dst-repeated 2026-11-01T06:30:00.000Z']);
  });

  it('half-hour gap (Lord Howe): skip fires the real 02:40 and files the dropped 02:20 at its shifted 02:50', async () => {
    // 2026-10-04 02:00 -> 02:30 in Australia/Lord_Howe: 02:20 does not exist, 02:40 does. `shift`
    // moves 02:20 to 02:50 (15:50Z), after the real 02:40 (15:40Z) that `skip` fires.
    const t = await setup(
      '  - name: lh\n    command: echo lh\n    schedule: "20,40 2 * * *"\n    timezone: Australia/Lord_Howe\n' +
        '    dst:\n      skipped: skip\n',
      '2026-10-03T12:00:00Z',
    );
    await t.clock.advance(2 * 24 * 60 * MIN);
    expect(t.launcher.times('lh')).toEqual([
      '2026-10-03T15:40:00.000Z',
      '2026-10-04T15:20:00.000Z',
      '2026-10-04T15:40:00.000Z',
    ]);
    expect(await t.ledger('lh')).toEqual(['dst-skipped 2026-10-03T15:50:00.000Z']);
    const lh = resolveFrame({ timezone: 'Australia/Lord_Howe' });
    const fates = slotFates({
      cron: parseCron('20,40 2 * * *'),
      frame: lh,
      dst: { repeated: 'first', skipped: 'skip' },
      everyNode: false,
      fromMs: Date.parse('2026-10-03T12:00:00Z'),
      toMs: Date.parse('2026-10-04T12:00:00Z'),
      rows: [
        row(1, '2026-10-03T15:40:00.000Z', 'success'),
        row(2, '2026-10-03T15:50:00.000Z', 'dst-skipped'),
      ],
      limit: 100,
    });
    expect(fates.slots.map((s) => `${s.scheduled_at} ${s.outcome}`)).toEqual([
      '2026-10-03T15:40:00.000Z ran',
      '2026-10-03T15:50:00.000Z dst-skipped',
    ]);
    expect(fates.counts.unaccounted ?? 0).toBe(0);
  });

  it('spring-forward: shift fires 03:30 EDT (dst-shifted), skip drops it (dst-skipped slot)', async () => {
    const t = await setup(
      job('shift', '30 2 * * *') + job('skip', '30 2 * * *', '    dst:\n      skipped: skip\n'),
      '2026-03-07T12:00:00Z',
    );
    await t.clock.advance(2 * 24 * 60 * MIN);
    expect(t.launcher.times('shift')).toEqual(['2026-03-08T07:30:00.000Z', '2026-03-09T06:30:00.000Z']);
    expect(t.launcher.times('skip')).toEqual(['2026-03-09T06:30:00.000Z']);
    expect(await t.ledger('shift')).toEqual(['dst-shifted 2026-03-08T07:30:00.000Z']);
    expect(await t.ledger('skip')).toEqual(['dst-skipped 2026-03-08T07:30:00.000Z']);
    const slots = t.scheduler.history('skip')!.recentSlots();
    expect(slots.find((s) => s.outcome === 'dst-skipped')?.detail).toContain('not run (dst.skipped: skip)');
  });
});

describe('the slots view lists the policy slots (issue 15 parts 1 + 2)', () => {
  const ny = resolveFrame({ timezone: 'America/New_York' });
  it('repeated: both has two slots on the fall-back night; skipped: skip lists the dropped slot as dst-skipped', () => {
    const both = slotFates({
      cron: parseCron('30 1 * * *'),
      frame: ny,
      dst: { repeated: 'both', skipped: 'shift' },
      everyNode: false,
      fromMs: Date.parse('2026-11-01T00:00:00Z'),
      toMs: Date.parse('2026-11-01T12:00:00Z'),
      rows: [
        row(1, '2026-11-01T05:30:00.000Z', 'success'),
        row(2, '2026-11-01T06:30:00.000Z', 'dst-repeated'),
        row(3, '2026-11-01T06:30:00.000Z', 'success'),
      ],
      limit: 100,
    });
    expect(both.slots.map((s) => `${s.scheduled_at} ${s.outcome}`)).toEqual([
      '2026-11-01T05:30:00.000Z ran',
      '2026-11-01T06:30:00.000Z ran',
    ]);
    const skip = slotFates({
      cron: parseCron('30 2 * * *'),
      frame: ny,
      dst: { repeated: 'first', skipped: 'skip' },
      everyNode: false,
      fromMs: Date.parse('2026-03-08T00:00:00Z'),
      toMs: Date.parse('2026-03-08T12:00:00Z'),
      rows: [row(1, '2026-03-08T07:30:00.000Z', 'dst-skipped')],
      limit: 100,
    });
    expect(skip.slots.map((s) => `${s.scheduled_at} ${s.outcome}`)).toEqual([
      '2026-03-08T07:30:00.000Z dst-skipped',
    ]);
    expect(skip.counts.unaccounted ?? 0).toBe(0);
  });
});

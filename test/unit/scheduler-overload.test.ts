// Overload is visible (issue 14 item 9), on the fake clock: when launches cost more loop time than the
// node has, the scheduler paces them, and every fire it cannot start within the late-fire window (or
// that a stall skipped) is a `missed-overload` slot, counted in /metrics, and the node reads overloaded.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { WebContext } from '../../src/api/context.ts';
import { loadConfig } from '../../src/config/load.ts';
import type { JobConfig } from '../../src/config/types.ts';
import type { LaunchOptions, LaunchSpec } from '../../src/exec/types.ts';
import { Metrics } from '../../src/metrics/index.ts';
import type { SlotRecord } from '../../src/scheduler/history.ts';
import { MISSED_SINGLE_RECORDS } from '../../src/scheduler/missed.ts';
import { Scheduler } from '../../src/scheduler/scheduler.ts';
import { type Clock, FakeClock, type TimerHandle } from '../../src/util/clock.ts';
import { Logger, setSink } from '../../src/util/log.ts';
import { FakeLauncher } from '../helpers/fake-launcher.ts';
import { writeTree } from '../helpers/tmp.ts';

/**
 * The fake clock plus time a launch burns on the main thread (what a real spawn costs), and time
 * the process was stopped in the middle of a launch (SIGSTOP): it passes, but uses no CPU.
 */
class BusyClock implements Clock {
  burnt = 0;
  stopped = 0;
  /** How long the next launch is stopped for. */
  stopNext = 0;
  constructor(readonly inner: FakeClock) {}
  now(): number {
    return this.inner.now() + this.burnt + this.stopped;
  }
  monotonic(): number {
    return this.inner.monotonic() + this.burnt + this.stopped;
  }
  cpu(): number {
    return this.inner.monotonic() + this.burnt;
  }
  setTimer(fn: () => void, delayMs: number): TimerHandle {
    return this.inner.setTimer(fn, delayMs);
  }
  clearTimer(handle: TimerHandle): void {
    this.inner.clearTimer(handle);
  }
}

function setup(count: number, launchCostMs: number, startIso = '2026-01-07T12:00:00.500Z', extra = '') {
  const start = Date.parse(startIso);
  const fake = new FakeClock(start);
  const clock = new BusyClock(fake);
  const launcher = new FakeLauncher(fake);
  const logs: string[] = [];
  setSink((r) => logs.push(`${r.levelName} ${r.message}`));
  const names = Array.from({ length: count }, (_, i) => `j${String(i).padStart(2, '0')}`);
  const yaml = names
    .map((n) => `  - name: ${n}\n    command: "true"\n    schedule: "* * * * * * *"\n${extra}`)
    .join('');
  const dir = writeTree({ 'c.yaml': `jobs:\n${yaml}` });
  const configs: JobConfig[] = loadConfig(join(dir, 'c.yaml'), { nowMs: start }).jobs;
  const scheduler = new Scheduler({
    clock,
    log: new Logger('cronstable'),
    launch: (spec: LaunchSpec, opts: LaunchOptions) => {
      clock.burnt += launchCostMs;
      clock.stopped += clock.stopNext;
      clock.stopNext = 0;
      return launcher.launch(spec, opts);
    },
    report: async () => {},
  });
  scheduler.load(configs);
  const metrics = new Metrics({ version: 't', startTimeMs: start });
  const ctx = {
    version: 't',
    hostname: 'h',
    clock,
    config: () => ({ jobs: configs, web: null }),
    jobSetId: () => 'v1:x',
    scheduler,
    store: null,
    cluster: () => ({ enabled: false, nodeName: 'h' }),
  } as unknown as WebContext;
  metrics.attach(ctx);
  scheduler.start();
  return { fake, clock, launcher, scheduler, metrics, names, logs, start };
}

const slotsOf = (s: Scheduler, name: string): readonly SlotRecord[] => s.history(name)!.recentSlots();
const missedCount = (slots: readonly SlotRecord[]) =>
  slots.filter((x) => x.outcome === 'missed-overload').reduce((n, x) => n + (x.count ?? 1), 0);

async function counters(metrics: Metrics): Promise<Map<string, number>> {
  const { body } = await metrics.exposition(undefined);
  const out = new Map<string, number>();
  for (const m of body.matchAll(
    /^cronstable_job_missed_fires_total\{job_name="([^"]+)",reason="overload"\} (\d+)$/gm,
  ))
    out.set(m[1]!, Number(m[2]));
  return out;
}

describe('overload (fake clock)', () => {
  it('a node launching more than it can drops late fires as missed-overload slots, counted, never silently', async () => {
    // 40 jobs every second, each launch burning 40 ms: half the loop starts ~12 launches a second.
    const t = setup(40, 40);
    for (let i = 0; i < 30; i++) await t.fake.advance(1000);
    const o = t.scheduler.overload();
    expect(o.overloaded).toBe(true);
    expect(o.missedFires).toBeGreaterThan(0);
    const byJob = await counters(t.metrics);
    let launched = 0;
    let missed = 0;
    for (const name of t.names) {
      const slots = slotsOf(t.scheduler, name);
      // No slot twice, and every slot the queue fired has an outcome or is still waiting for its turn.
      const instants = slots.map((s) => s.scheduledAt);
      expect(new Set(instants).size).toBe(instants.length);
      const m = missedCount(slots);
      for (const s of slots.filter((x) => x.outcome === 'missed-overload'))
        expect(s.detail).toMatch(/not started within 10 s/);
      expect(byJob.get(name)).toBe(m);
      launched += t.launcher.of(name).length;
      missed += m;
    }
    expect(missed).toBe(o.missedFires);
    expect(missed).toBeGreaterThan(launched);
    // Every slot the queue passed (all before each job's next fire) is launched, missed, or waiting.
    const firstDue = Math.ceil(t.start / 1000) * 1000;
    let due = 0;
    for (const st of t.scheduler.status()) due += (st.nextFire! - firstDue) / 1000;
    expect(launched + missed + o.waitingLaunches).toBe(due);
    expect(t.logs.some((l) => /fire\(s\) missed \(missed-overload\)/.test(l))).toBe(true);
  });

  it('a launch waiting for its turn counts as running: Forbid skips the next slot instead of stacking it', async () => {
    // 30 jobs, 100 ms per launch: the pacer holds most of them for seconds.
    const t = setup(30, 100, undefined, '    concurrencyPolicy: Forbid\n');
    for (const name of t.names) t.launcher.behave(name, { durationMs: 60_000 });
    for (let i = 0; i < 4; i++) await t.fake.advance(1000);
    for (const name of t.names) {
      const outcomes = slotsOf(t.scheduler, name).map((s) => s.outcome);
      // One fire per job is admitted at a time; the slots after it are overlap skips, never a second launch.
      expect(t.launcher.of(name).length).toBeLessThanOrEqual(1);
      expect(outcomes.filter((o) => o === 'running' || o === 'succeeded').length).toBeLessThanOrEqual(1);
    }
    expect(t.names.some((n) => slotsOf(t.scheduler, n).some((s) => s.outcome === 'skipped:overlap'))).toBe(
      true,
    );
  });

  it('a light load launches every fire inline, on time, with nothing missed', async () => {
    const t = setup(5, 1);
    for (let i = 0; i < 5; i++) await t.fake.advance(1000);
    for (const name of t.names) expect(t.launcher.of(name)).toHaveLength(5);
    expect(t.scheduler.overload()).toMatchObject({ overloaded: false, missedFires: 0, waitingLaunches: 0 });
    expect([...(await counters(t.metrics)).values()]).toEqual([0, 0, 0, 0, 0]);
  });

  it('a process stopped mid-launch (SIGSTOP) launches again as soon as it runs: the stop is not launch time', async () => {
    // Two jobs, 1 ms per launch; the process is stopped for 6 s during the launch of 12:00:02.
    const t = setup(2, 1);
    await t.fake.advance(1000);
    t.clock.stopNext = 6000;
    await t.fake.advance(1000);
    // Awake at 12:00:08: the slots of the stop fire late (within the late-fire window), the
    // ones after on time; nothing waits for twice the stop and nothing is dropped.
    for (let i = 0; i < 3; i++) await t.fake.advance(1000);
    const want = Array.from({ length: 11 }, (_, i) => `12:00:${String(i + 1).padStart(2, '0')} succeeded`);
    for (const name of t.names) {
      const slots = slotsOf(t.scheduler, name);
      expect(slots.map((x) => `${new Date(x.scheduledAt).toISOString().slice(11, 19)} ${x.outcome}`)).toEqual(
        want,
      );
      expect(t.launcher.of(name)).toHaveLength(11);
    }
    expect(t.scheduler.overload()).toMatchObject({ missedFires: 0, waitingLaunches: 0 });
  });

  it('launches a stop longer than the late-fire window cost are missed for the stop, not for overload', async () => {
    // 30 jobs at 2 ms a launch: each second ten launch inline and twenty wait for the pacer. The
    // process is stopped for 12 s in the first launch of 12:00:02, so its twenty waiters pass
    // their deadline while stopped: missed, and the record says the node was stopped.
    const t = setup(30, 2);
    await t.fake.advance(1000);
    t.clock.stopNext = 12_000;
    await t.fake.advance(1000);
    for (let i = 0; i < 3; i++) await t.fake.advance(1000);
    const dropped = t.names.flatMap((n) =>
      slotsOf(t.scheduler, n).filter(
        (x) => x.outcome === 'missed-overload' && new Date(x.scheduledAt).toISOString().endsWith(':02.000Z'),
      ),
    );
    expect(dropped.length).toBeGreaterThan(0);
    for (const d of dropped) expect(d.detail).toMatch(/the node was stopped or stalled for 12\.0 s/);
    expect(t.logs.some((l) => l.includes('is launching more than it can'))).toBe(false);
  });

  it('launches that wait out their window with no stop are missed for overload', async () => {
    // 400 jobs at 30 ms a launch: 12 s of launching every second, so most never get their turn.
    const t = setup(400, 30);
    for (let i = 0; i < 14; i++) await t.fake.advance(1000);
    const dropped = t.names.flatMap((n) =>
      slotsOf(t.scheduler, n).filter((x) => x.outcome === 'missed-overload'),
    );
    expect(dropped.length).toBeGreaterThan(0);
    expect(dropped.some((d) => /the node is launching more than it can/.test(d.detail ?? ''))).toBe(true);
    expect(dropped.some((d) => /stopped or stalled/.test(d.detail ?? ''))).toBe(false);
  });

  it('a half-hour stall records its dropped slots compactly: a few single slots and one counted range', async () => {
    const t = setup(2, 0);
    await t.fake.advance(1000);
    t.fake.jumpWall(1_800_000);
    await t.fake.advance(1000);
    const slots = slotsOf(t.scheduler, 'j00');
    const missed = slots.filter((s) => s.outcome === 'missed-overload');
    expect(missed).toHaveLength(MISSED_SINGLE_RECORDS);
    expect(missed.slice(0, -1).every((s) => s.count === undefined)).toBe(true);
    const range = missed[missed.length - 1]!;
    // The slot at 12:00:02 was due when the wall clock jumped 30 minutes: everything from it up to the
    // resync second is missed, except the resync second itself, which fires.
    const total = missedCount(slots);
    expect(total).toBe(1800);
    expect(range.count).toBe(1800 - (MISSED_SINGLE_RECORDS - 1));
    expect(range.lastAt! - range.scheduledAt).toBe((range.count! - 1) * 1000);
    expect(range.detail).toMatch(/^1798 slots from .* stall, suspend or clock jump$/);
    expect(t.scheduler.overload()).toMatchObject({ overloaded: true, missedFires: 3600 });
    expect((await counters(t.metrics)).get('j01')).toBe(1800);
  });
});

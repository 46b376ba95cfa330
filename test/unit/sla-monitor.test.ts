// The SLA monitor (spec 09 §2.2-§2.6, §2.8) on a fake clock, fed the scheduler's own event types:
// the checks, the staleness reference and its credit, latch and re-fire, excused slots, the
// payload and the metric series. Vectors 12-17 as pure logic; the daemon runs them end to end in
// test/integration/sla-daemon.test.ts.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import type { JobConfig } from '../../src/config/types.ts';
import { EventStream } from '../../src/scheduler/events.ts';
import { JobHistory, type RunRecord } from '../../src/scheduler/history.ts';
import { PauseBook } from '../../src/scheduler/pauses.ts';
import { type SlaBreach, SlaMonitor } from '../../src/scheduler/sla/monitor.ts';
import { creditWithin, excusesDue, newTrack } from '../../src/scheduler/sla/track.ts';
import { FakeClock } from '../../src/util/clock.ts';
import { Logger, type LogRecord, setSink } from '../../src/util/log.ts';
import { writeTree } from '../helpers/tmp.ts';

const T0 = Date.UTC(2026, 6, 20, 4, 0, 0);

function jobs(yaml: string): JobConfig[] {
  const dir = writeTree({ 'c.yaml': yaml });
  return loadConfig(join(dir, 'c.yaml'), { cwd: dir, nowMs: T0 }).jobs;
}

const job = (name: string, extra: string, schedule = '* * * * *') =>
  `  - name: ${name}\n    command: "true"\n    schedule: "${schedule}"\n${extra}`;

interface RigOptions {
  owns?: (j: JobConfig) => boolean;
  hasStore?: boolean;
  ledgerReference?: (job: string) => Promise<{ at: number; success: boolean } | null>;
  /** A job's completion reports under way (the scheduler's reap chain); absent: none. */
  reportsSettled?: (job: string) => Promise<void>;
  report?: (job: string, breach: SlaBreach) => Promise<void>;
}

function rig(configs: JobConfig[], o: RigOptions = {}) {
  const clock = new FakeClock(T0);
  const events = new EventStream();
  const histories = new Map<string, JobHistory>();
  const logs: LogRecord[] = [];
  setSink((r: LogRecord) => logs.push(r));
  const reports: { job: string; breach: SlaBreach }[] = [];
  const pauses = new PauseBook(clock, new Logger('cronstable'));
  const monitor = new SlaMonitor({
    clock,
    log: new Logger('cronstable'),
    scheduler: {
      subscribe: events.subscribe,
      history: (n) => {
        const h = histories.get(n) ?? new JobHistory();
        histories.set(n, h);
        return h;
      },
      pauses,
      reportsSettled: o.reportsSettled ?? (() => Promise.resolve()),
    },
    owns: o.owns ?? (() => true),
    report: async (j, breach) => {
      await o.report?.(j.name, breach);
      reports.push({ job: j.name, breach });
    },
    hasStore: o.hasStore ?? false,
    ledgerReference: o.ledgerReference,
  });
  monitor.configure(configs);
  monitor.start();
  const byName = new Map(configs.map((c) => [c.name, c]));
  let runs = 0;
  const api = {
    clock,
    monitor,
    reports,
    pauses,
    histories,
    warnings: () => logs.filter((l) => l.level >= 30).map((l) => l.message),
    infos: () => logs.map((l) => l.message),
    start(name: string): string {
      const id = `r${++runs}`;
      events.emit({
        type: 'run-started',
        job: byName.get(name)!,
        runId: id,
        trigger: 'manual',
        attempt: 0,
        scheduledAt: null,
        pid: 1,
        startedAt: clock.now(),
      });
      return id;
    },
    finish(name: string, id: string, outcome: RunRecord['outcome'] = 'success') {
      const run = { id, job: name, outcome, finishedAt: clock.now() } as RunRecord;
      events.emit({ type: 'run-finished', job: byName.get(name)!, run, result: {} as never });
    },
    due(name: string, at: number) {
      events.emit({ type: 'due', job: byName.get(name)!, scheduledAt: at });
    },
    slot(name: string, at: number, outcome: string, detail: string | null = null) {
      events.emit({
        type: 'slot',
        slot: { job: name, scheduledAt: at, outcome: outcome as never, runId: null, detail },
      });
    },
    /** Moves the clock by whole minutes: one pass each. */
    minutes: (n: number) => clock.advance(n * 60_000),
  };
  return api;
}

describe('maxRuntime (vectors 12, 13)', () => {
  const J = jobs(`jobs:\n${job('J', '    sla:\n      maxRuntimeSeconds: 60\n')}${job('K', '')}`);

  it('breaches once while the run outlasts the threshold, recovers silently after it ends', async () => {
    const r = rig(J);
    await r.clock.advance(60_000 - (T0 % 60_000));
    expect(r.monitor.series()).toEqual([{ job: 'J', check: 'maxRuntime', late: 0, breaches: 0 }]);
    const id = r.start('J');
    await r.minutes(1);
    expect(r.reports).toHaveLength(0); // exactly 60 s is not over
    await r.minutes(1);
    expect(r.reports).toHaveLength(1);
    expect(r.reports[0]!.breach).toMatchObject({
      check: 'maxRuntime',
      thresholdSeconds: 60,
      observedSeconds: 120,
    });
    expect(r.warnings()).toContain(
      'Job J: SLA check maxRuntime breached: observed 120s exceeds the threshold of 60s',
    );
    expect(r.monitor.series()).toEqual([{ job: 'J', check: 'maxRuntime', late: 1, breaches: 1 }]);
    await r.minutes(3);
    expect(r.reports).toHaveLength(1);
    r.finish('J', id, 'failure');
    await r.minutes(1);
    expect(r.reports).toHaveLength(1);
    expect(r.infos().some((m) => /^Job J: SLA check maxRuntime recovered \(observed 0s/.test(m))).toBe(true);
    // K has no sla: never a series, never a payload.
    expect(r.monitor.series()).toEqual([{ job: 'J', check: 'maxRuntime', late: 0, breaches: 1 }]);
    expect(r.monitor.view('K')).toBeNull();
    await r.monitor.stop();
  });
});

describe('maxTimeSinceSuccess (vectors 14, 16)', () => {
  it('v14: stateless, nothing known: measured from first sight; a success clears it at the next pass', async () => {
    const r = rig(
      jobs(`jobs:\n${job('J', '    sla:\n      maxTimeSinceSuccessSeconds: 120\n', '0 0 1 1 *')}`),
    );
    await r.clock.advance(120_000);
    expect(r.reports).toHaveLength(0);
    await r.minutes(1);
    expect(r.reports).toHaveLength(1);
    expect(r.reports[0]!.breach).toMatchObject({ check: 'maxTimeSinceSuccess', lastSuccessAt: null });
    expect(r.monitor.view('J')?.state).toBe('late');
    r.finish('J', r.start('J'));
    expect(r.monitor.view('J')?.state).toBe('late'); // the latch holds until the next pass
    await r.minutes(1);
    expect(r.monitor.view('J')).toEqual({
      thresholds: { maxTimeSinceSuccessSeconds: 120 },
      state: 'ok',
      breaches: [],
    });
    expect(r.reports).toHaveLength(1);
    await r.monitor.stop();
  });

  it('v16: disabled for 10 minutes, then enabled by reload: no breach, nor in the first 60 s', async () => {
    const disabled = jobs(
      `jobs:\n${job('J', '    enabled: false\n    sla:\n      maxTimeSinceSuccessSeconds: 60\n')}`,
    );
    const enabled = jobs(`jobs:\n${job('J', '    sla:\n      maxTimeSinceSuccessSeconds: 60\n')}`);
    const r = rig(disabled);
    await r.minutes(10);
    expect(r.reports).toHaveLength(0);
    expect(r.monitor.series()).toEqual([]);
    await r.clock.advance(17_000);
    r.monitor.configure(enabled);
    await r.clock.advance(60_000);
    expect(r.reports).toHaveLength(0);
    await r.minutes(1);
    expect(r.reports).toHaveLength(1);
    await r.monitor.stop();
  });

  it('the reference is the newest success, live or rehydrated, and is reported as last_success_at', async () => {
    const configs = jobs(`jobs:\n${job('J', '    sla:\n      maxTimeSinceSuccessSeconds: 300\n')}`);
    const r = rig(configs, { hasStore: true });
    const h = r.histories.get('J') ?? new JobHistory();
    r.histories.set('J', h);
    h.restore([{ id: 'old', job: 'J', outcome: 'success', finishedAt: T0 - 200_000 } as RunRecord]);
    await r.clock.advance(101_000);
    expect(r.reports).toHaveLength(0);
    await r.minutes(1);
    expect(r.reports).toHaveLength(1);
    expect(r.reports[0]!.breach.lastSuccessAt).toBe(T0 - 200_000);
    await r.monitor.stop();
  });

  it('with a store and no success, the oldest rehydrated finish is the reference (not last_success_at)', async () => {
    const configs = jobs(`jobs:\n${job('J', '    sla:\n      maxTimeSinceSuccessSeconds: 300\n')}`);
    const r = rig(configs, { hasStore: true });
    const h = new JobHistory();
    r.histories.set('J', h);
    h.restore([
      { id: 'a', job: 'J', outcome: 'failure', finishedAt: T0 - 290_000 } as RunRecord,
      { id: 'b', job: 'J', outcome: 'failure', finishedAt: T0 - 100_000 } as RunRecord,
    ]);
    await r.minutes(1);
    expect(r.reports).toHaveLength(1);
    expect(r.reports[0]!.breach.lastSuccessAt).toBeNull();
    await r.monitor.stop();
  });

  it('a pause counts as credit, like a disabled span', async () => {
    const configs = jobs(`jobs:\n${job('J', '    sla:\n      maxTimeSinceSuccessSeconds: 150\n')}`);
    const r = rig(configs);
    r.pauses.pause('J', { sinceMs: T0, untilMs: T0 + 300_000, note: '', by: 't', channel: 'api' });
    await r.minutes(5);
    expect(r.reports).toHaveLength(0);
    r.pauses.resume('J', 't', 'api');
    await r.minutes(2);
    expect(r.reports).toHaveLength(0);
    await r.minutes(2);
    expect(r.reports).toHaveLength(1);
    await r.monitor.stop();
  });
});

describe('lateAfter (vector 15 and the excusals of §2.3)', () => {
  const configs = () =>
    jobs(`jobs:\n${job('J', '    concurrencyPolicy: Forbid\n    sla:\n      lateAfterSeconds: 30\n')}`);

  it('v15: a Forbid skip excuses the slot, a running instance holds the check off', async () => {
    const r = rig(configs());
    const id = r.start('J');
    for (let m = 1; m <= 3; m++) {
      const at = r.clock.now();
      r.due('J', at);
      r.slot('J', at, 'skipped:overlap');
      await r.minutes(1);
    }
    r.finish('J', id);
    await r.minutes(2);
    expect(r.reports).toHaveLength(0);
    await r.monitor.stop();
  });

  it('a slot neither launched nor excused breaches; an onlyIfLastSucceeded skip does not excuse', async () => {
    const r = rig(configs());
    const at = r.clock.now();
    r.due('J', at);
    r.slot('J', at, 'skipped:only-if-last-succeeded');
    await r.minutes(1);
    expect(r.reports.map((x) => x.breach.check)).toEqual(['lateAfter']);
    expect(r.monitor.view('J')?.breaches[0]).toMatchObject({
      check: 'lateAfter',
      thresholdSeconds: 30,
      since: at + 60_000,
    });
    r.finish('J', r.start('J')); // a manual launch at or after the due slot ends the breach
    await r.minutes(1);
    expect(r.monitor.view('J')?.state).toBe('ok');
    await r.monitor.stop();
  });

  it('a node that does not own the job records no slot and drops its latches', async () => {
    let owned = true;
    const r = rig(configs(), { owns: () => owned });
    const at = r.clock.now();
    r.due('J', at);
    await r.minutes(1);
    expect(r.monitor.view('J')?.state).toBe('late');
    owned = false;
    await r.minutes(1);
    expect(r.monitor.view('J')?.state).toBe('ok');
    owned = true;
    await r.minutes(2);
    expect(r.reports).toHaveLength(1); // the slot was forgotten with the ownership
    await r.monitor.stop();
  });

  it('excusal rules', () => {
    expect(excusesDue('skipped:overlap', null)).toBe(true);
    expect(excusesDue('claimed-elsewhere', 'claimed by b')).toBe(true);
    expect(
      excusesDue('skipped:gate', 'its cluster concurrency slot is held by b (concurrencyPolicy Forbid)'),
    ).toBe(true);
    expect(excusesDue('skipped:gate', 'its fire claim cannot be made (state store unavailable: x)')).toBe(
      false,
    );
    expect(excusesDue('skipped:only-if-last-succeeded', null)).toBe(false);
  });
});

describe('latch and re-fire (§2.5)', () => {
  it('recovered then re-breached reports again; removing the check drops its latch', async () => {
    const one = jobs(`jobs:\n${job('J', '    sla:\n      maxRuntimeSeconds: 30\n')}`);
    const r = rig(one);
    let id = r.start('J');
    await r.minutes(1);
    r.finish('J', id);
    await r.minutes(1);
    id = r.start('J');
    await r.minutes(1);
    expect(r.reports).toHaveLength(2);
    expect(r.monitor.series()[0]).toMatchObject({ late: 1, breaches: 2 });
    r.monitor.configure(jobs(`jobs:\n${job('J', '')}`));
    await r.minutes(1);
    expect(r.monitor.view('J')).toBeNull();
    expect(r.monitor.series()).toEqual([{ job: 'J', check: 'maxRuntime', late: 0, breaches: 2 }]);
    r.monitor.configure([]);
    expect(r.monitor.series()).toEqual([]);
    await r.monitor.stop();
  });
});

describe('credit windows (§2.4 step 4)', () => {
  it('merges overlaps, clips to [reference, now] and drops windows before the reference', () => {
    const t = newTrack(0);
    t.credit = [
      [0, 10_000],
      [20_000, 40_000],
      [30_000, 50_000],
      [90_000, 200_000],
    ];
    expect(creditWithin(t, 25_000, 100_000)).toBe(25 + 10);
    expect(t.credit).toHaveLength(3);
  });
});

describe('vector 17: the payload of a job with a threshold', () => {
  it('A carries sla with only its set thresholds; B has none', async () => {
    const r = rig(jobs(`jobs:\n${job('A', '    sla:\n      lateAfterSeconds: 900\n')}${job('B', '')}`));
    expect(r.monitor.view('A')).toEqual({ thresholds: { lateAfterSeconds: 900 }, state: 'ok', breaches: [] });
    expect(r.monitor.view('B')).toBeNull();
    await r.monitor.stop();
  });
});

describe('§2.4 step 2: the ledger at boot, with a store', () => {
  const sla = '    sla:\n      maxTimeSinceSuccessSeconds: 300\n';
  const failures = (h: JobHistory, n: number, newest: number) =>
    h.restore(
      Array.from({ length: n }, (_, i) => ({
        id: `f${i}`,
        job: 'J',
        outcome: 'failure',
        finishedAt: newest - (n - 1 - i) * 1000,
      })) as RunRecord[],
    );

  it('a success older than the in-memory window is the reference and the report’s last_success_at', async () => {
    const asked: string[] = [];
    const r = rig(jobs(`jobs:\n${job('J', sla)}${job('K', '')}${job('L', sla)}`), {
      hasStore: true,
      ledgerReference: async (name) => {
        asked.push(name);
        return name === 'J' ? { at: T0 - 1_000_000, success: true } : null;
      },
    });
    const h = new JobHistory();
    r.histories.set('J', h);
    failures(h, 50, T0 - 1000);
    await r.monitor.warmUp;
    // Only jobs with the check read the ledger (K has no SLA), one after the other.
    expect(asked).toEqual(['J', 'L']);
    await r.minutes(1);
    expect(r.reports.map((x) => x.job)).toEqual(['J']);
    expect(r.reports[0]!.breach.lastSuccessAt).toBe(T0 - 1_000_000);
    expect(r.reports[0]!.breach.observedSeconds).toBeGreaterThan(1000);
    await r.monitor.stop();
  });

  it('no success there either: the oldest finish seen is the reference (pages later, never earlier)', async () => {
    const r = rig(jobs(`jobs:\n${job('J', sla)}`), {
      hasStore: true,
      ledgerReference: async () => ({ at: T0 - 250_000, success: false }),
    });
    const h = new JobHistory();
    r.histories.set('J', h);
    failures(h, 50, T0 - 1000);
    await r.monitor.warmUp;
    // The ledger's oldest finish (250 s ago), not the in-memory window's (50 s ago) and not start-up.
    expect(r.monitor.view('J')!.state).toBe('ok');
    await r.clock.advance(51_000);
    await r.minutes(0);
    await r.clock.advance(60_000 - ((T0 + 51_000) % 60_000));
    expect(r.reports).toHaveLength(1);
    expect(r.reports[0]!.breach.lastSuccessAt).toBeNull();
    expect(r.reports[0]!.breach.observedSeconds).toBeGreaterThanOrEqual(301);
    await r.monitor.stop();
  });

  it('a success recorded live during the warm-up wins over the ledger’s', async () => {
    let answer: (v: { at: number; success: boolean }) => void = () => {};
    const r = rig(jobs(`jobs:\n${job('J', sla)}`), {
      hasStore: true,
      ledgerReference: () => new Promise((res) => (answer = res)),
    });
    await r.clock.advance(10_000);
    r.finish('J', r.start('J'));
    answer({ at: T0 - 1_000_000, success: true });
    await r.monitor.warmUp;
    await r.minutes(5);
    expect(r.reports).toHaveLength(0);
    await r.minutes(1);
    expect(r.reports).toHaveLength(1);
    expect(r.reports[0]!.breach.lastSuccessAt).toBe(T0 + 10_000);
    await r.monitor.stop();
  });

  it('a failed read is logged and leaves the reference to memory', async () => {
    const r = rig(jobs(`jobs:\n${job('J', sla)}`), {
      hasStore: true,
      ledgerReference: async () => {
        throw new Error('store call timed out');
      },
    });
    await r.monitor.warmUp;
    expect(r.warnings()).toContain(
      'state: reading the run ledger of J for its SLA failed: store call timed out',
    );
    await r.minutes(1);
    expect(r.reports).toHaveLength(0);
    await r.monitor.stop();
  });
});

describe('§2.6 dispatch order', () => {
  it('waits for the job’s completion reports under way and its earlier onLate, never for other jobs; drained at stop', async () => {
    const sla = '    sla:\n      maxRuntimeSeconds: 30\n      lateAfterSeconds: 30\n';
    let completionsOfJ: () => void = () => {};
    const pendingJ = new Promise<void>((res) => (completionsOfJ = res));
    const sent: string[] = [];
    const r = rig(jobs(`jobs:\n${job('J', sla)}${job('K', sla)}`), {
      reportsSettled: (name) => (name === 'J' ? pendingJ : Promise.resolve()),
      report: async (name, b) => {
        sent.push(`${name}:${b.check}`);
      },
    });
    await r.clock.advance(60_000 - (T0 % 60_000));
    r.start('J');
    r.start('K');
    await r.minutes(1);
    // K's report goes out; J's waits for J's completion reports, which a slow reporter still holds.
    expect(sent).toEqual(['K:maxRuntime']);
    const stopped = r.monitor.stop();
    completionsOfJ();
    await stopped;
    expect(sent).toEqual(['K:maxRuntime', 'J:maxRuntime']);
  });
});

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import type { JobConfig } from '../../src/config/types.ts';
import type { ReportHook } from '../../src/report/types.ts';
import type { DurableControl } from '../../src/scheduler/control.ts';
import { retryDelaySeconds } from '../../src/scheduler/ladder.ts';
import { type LogRecord, setSink } from '../../src/util/log.ts';
import { fakeScheduler } from '../helpers/fake-scheduler.ts';
import { writeTree } from '../helpers/tmp.ts';

function jobs(yaml: string, nowMs: number): JobConfig[] {
  const dir = writeTree({ 'c.yaml': yaml });
  return loadConfig(join(dir, 'c.yaml'), { nowMs }).jobs;
}

const job = (name: string, schedule: string, extra = '') =>
  `  - name: ${name}\n    command: echo ${name}\n    schedule: "${schedule}"\n${extra}`;

function setup(yaml: string, startIso: string) {
  const start = Date.parse(startIso);
  const reports: { hook: ReportHook; job: string; at: number; exit: number | null }[] = [];
  const logs: string[] = [];
  setSink((r: LogRecord) => logs.push(`${r.levelName} ${r.message}`));
  const { clock, launcher, scheduler } = fakeScheduler(start, (clock) => ({
    report: async (hook, j, ctx) => {
      reports.push({ hook, job: j.name, at: clock.now(), exit: ctx.exit_code });
    },
  }));
  scheduler.load(jobs(`jobs:\n${yaml}`, start));
  scheduler.start();
  return { clock, launcher, reports, logs, scheduler };
}

const MIN = 60_000;

describe('the schedule loop (fake clock)', () => {
  it('fires strictly after start, at each instant, never in the in-progress period', async () => {
    const t = setup(job('a', '*/5 * * * *'), '2026-01-07T12:00:00Z');
    await t.clock.advance(16 * MIN);
    expect(t.launcher.times('a')).toEqual([
      '2026-01-07T12:05:00.000Z',
      '2026-01-07T12:10:00.000Z',
      '2026-01-07T12:15:00.000Z',
    ]);
  });

  it('tells how many fires fall due together before the first of them launches', async () => {
    const start = Date.parse('2026-01-07T12:00:00.500Z');
    const told: { count: number; launchedBefore: number }[] = [];
    const { clock, scheduler } = fakeScheduler(start, (_clock, launcher) => ({
      expectLaunches: (count) => told.push({ count, launchedBefore: launcher.times('a').length }),
    }));
    scheduler.load(
      jobs(
        `jobs:\n${job('a', '*/2 * * * * * *')}${job('b', '*/2 * * * * * *')}${job('c', '*/3 * * * * * *')}`,
        start,
      ),
    );
    scheduler.start();
    await clock.advance(3_000);
    // 12:00:02 (a, b), then 12:00:03 (c): one word per tick, before that tick's launches.
    expect(told).toEqual([
      { count: 2, launchedBefore: 0 },
      { count: 1, launchedBefore: 1 },
    ]);
  });

  it('runs second-level jobs every N seconds', async () => {
    const t = setup(job('pulse', '*/2 * * * * * *'), '2026-01-07T12:00:00.500Z');
    await t.clock.advance(6_000);
    expect(t.launcher.times('pulse')).toEqual([
      '2026-01-07T12:00:02.000Z',
      '2026-01-07T12:00:04.000Z',
      '2026-01-07T12:00:06.000Z',
    ]);
  });

  it('walks month ends (L) and leap days', async () => {
    const t = setup(job('eom', '0 0 L * *') + job('leap', '0 12 29 2 *'), '2028-01-30T00:00:00Z');
    await t.clock.advance(70 * 24 * 60 * MIN);
    expect(t.launcher.times('eom')).toEqual([
      '2028-01-31T00:00:00.000Z',
      '2028-02-29T00:00:00.000Z',
      '2028-03-31T00:00:00.000Z',
    ]);
    expect(t.launcher.times('leap')).toEqual(['2028-02-29T12:00:00.000Z']);
  });

  it('fires a DST-skipped wall time once at the shifted instant, and a repeated one once', async () => {
    const t = setup(
      job('spring', '30 2 * * *', '    timezone: America/New_York\n') +
        job('fall', '30 1 * * *', '    timezone: America/New_York\n'),
      '2026-03-07T12:00:00Z',
    );
    await t.clock.advance(2 * 24 * 60 * MIN);
    expect(t.launcher.times('spring')).toEqual(['2026-03-08T07:30:00.000Z', '2026-03-09T06:30:00.000Z']);
    const f = setup(job('fall', '30 1 * * *', '    timezone: America/New_York\n'), '2026-10-31T12:00:00Z');
    await f.clock.advance(2 * 24 * 60 * MIN);
    expect(f.launcher.times('fall')).toEqual(['2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z']);
  });

  it('records skipped slots for disabled jobs and never launches them', async () => {
    const t = setup(job('off', '* * * * *', '    enabled: false\n'), '2026-01-07T12:00:00Z');
    await t.clock.advance(2 * MIN);
    expect(t.launcher.of('off')).toHaveLength(0);
    expect(
      t.scheduler
        .history('off')!
        .recentSlots()
        .map((s) => s.outcome),
    ).toEqual(['skipped:disabled', 'skipped:disabled']);
    expect(await t.scheduler.startJob('off')).toBe('disabled');
    expect(await t.scheduler.startJob('ghost')).toBe('unknown');
  });

  it('skips an overlapping fire under Forbid and records it', async () => {
    const t = setup(job('slow', '* * * * *', '    concurrencyPolicy: Forbid\n'), '2026-01-07T12:00:00Z');
    t.launcher.behave('slow', { durationMs: 75_000 });
    await t.clock.advance(3 * MIN + 30_000);
    expect(t.launcher.times('slow')).toEqual(['2026-01-07T12:01:00.000Z', '2026-01-07T12:03:00.000Z']);
    const slots = t.scheduler
      .history('slow')!
      .recentSlots()
      .map((s) => s.outcome);
    expect(slots).toEqual(['succeeded', 'skipped:overlap', 'running']);
    expect(t.logs).toContain('WARNING Job slow: still running and concurrencyPolicy is Forbid');
  });

  it('runs alongside under Allow and replaces under Replace (recorded as cancelled, not reported)', async () => {
    const t = setup(
      job('allow', '* * * * *') + job('replace', '* * * * *', '    concurrencyPolicy: Replace\n'),
      '2026-01-07T12:00:00Z',
    );
    t.launcher.behave('allow', { durationMs: 90_000 });
    t.launcher.behave('replace', { durationMs: 90_000, exitCode: 1 });
    await t.clock.advance(2 * MIN);
    expect(t.launcher.of('allow')).toHaveLength(2);
    const rep = t.launcher.of('replace');
    expect(rep).toHaveLength(2);
    expect(rep[0]!.cancelled).toBe('replaced');
    const runs = t.scheduler.history('replace')!.recentRuns();
    expect(runs.map((r) => [r.outcome, r.failReason])).toEqual([
      ['cancelled', 'replaced by a newer instance'],
    ]);
    expect(t.scheduler.history('replace')!.recentSlots()[0]!.outcome).toBe('cancelled:replaced');
    expect(t.reports.filter((r) => r.job === 'replace')).toHaveLength(0);
  });

  it('retries with exponential backoff capped at maximumDelay, then reports a permanent failure', async () => {
    const retry =
      '    onFailure:\n      retry:\n        maximumRetries: 3\n        initialDelay: 2\n        maximumDelay: 5\n        backoffMultiplier: 2\n';
    const t = setup(job('flaky', '0 * * * *', retry), '2026-01-07T12:00:00Z');
    t.launcher.behave('flaky', { exitCode: 3 });
    await t.clock.advance(61 * MIN);
    expect(t.launcher.times('flaky')).toEqual([
      '2026-01-07T13:00:00.000Z',
      '2026-01-07T13:00:02.000Z',
      '2026-01-07T13:00:06.000Z',
      '2026-01-07T13:00:11.000Z',
    ]);
    const hooks = t.reports.map((r) => r.hook);
    expect(hooks).toEqual(['failure', 'failure', 'failure', 'failure', 'permanentFailure']);
    expect(t.logs).toContain('INFO Cron job flaky scheduled to be retried (#2) in 4.0 seconds');
    expect(t.launcher.of('flaky').map((l) => l.opts.injectedEnv)).toHaveLength(4);
    expect(
      retryDelaySeconds({ maximumRetries: 9, initialDelay: 400, maximumDelay: 300, backoffMultiplier: 2 }, 1),
    ).toBe(400);
  });

  it('retries forever with -1 until a success, which reports success and ends the ladder', async () => {
    const retry =
      '    onFailure:\n      retry:\n        maximumRetries: -1\n        initialDelay: 1\n        maximumDelay: 1\n        backoffMultiplier: 2\n';
    const t = setup(job('heal', '0 * * * *', retry), '2026-01-07T12:00:00Z');
    t.launcher.behave('heal', (n) => ({ exitCode: n < 5 ? 1 : 0 }));
    await t.clock.advance(61 * MIN);
    expect(t.launcher.of('heal')).toHaveLength(6);
    expect(t.reports.map((r) => r.hook)).toEqual([...Array(5).fill('failure'), 'success']);
    expect(t.scheduler.status().find((s) => s.name === 'heal')!.retry).toBeNull();
  });

  it('fires onFailure and onPermanentFailure for a single failure without retries', async () => {
    const t = setup(job('once', '0 * * * *'), '2026-01-07T12:00:00Z');
    t.launcher.behave('once', { exitCode: 2 });
    await t.clock.advance(61 * MIN);
    expect(t.reports.map((r) => [r.hook, r.exit])).toEqual([
      ['failure', 2],
      ['permanentFailure', 2],
    ]);
  });

  it('supersedes a pending retry when the next scheduled fire comes first', async () => {
    const retry =
      '    onFailure:\n      retry:\n        maximumRetries: 5\n        initialDelay: 90\n        maximumDelay: 300\n        backoffMultiplier: 2\n';
    const t = setup(job('busy', '* * * * *', retry), '2026-01-07T12:00:00Z');
    t.launcher.behave('busy', { exitCode: 1 });
    await t.clock.advance(3 * MIN + 1000);
    expect(t.launcher.times('busy')).toEqual([
      '2026-01-07T12:01:00.000Z',
      '2026-01-07T12:02:00.000Z',
      '2026-01-07T12:03:00.000Z',
    ]);
  });

  it('skips under onlyIfLastSucceeded after a failure', async () => {
    const t = setup(job('dep', '* * * * *', '    onlyIfLastSucceeded: true\n'), '2026-01-07T12:00:00Z');
    t.launcher.behave('dep', (n) => ({ exitCode: n === 0 ? 1 : 0 }));
    await t.clock.advance(3 * MIN);
    expect(t.launcher.of('dep')).toHaveLength(1);
    expect(
      t.scheduler
        .history('dep')!
        .recentSlots()
        .map((s) => s.outcome),
    ).toEqual(['failed', 'skipped:only-if-last-succeeded', 'skipped:only-if-last-succeeded']);
  });

  it('runs @reboot jobs once at start, and not when added by a reload', async () => {
    const t = setup(job('boot', '@reboot'), '2026-01-07T12:00:00Z');
    await t.clock.advance(1000);
    expect(t.launcher.of('boot')).toHaveLength(1);
    t.scheduler.load(jobs(`jobs:\n${job('boot', '@reboot')}${job('boot2', '@reboot')}`, t.clock.now()));
    await t.clock.advance(MIN);
    expect(t.launcher.of('boot')).toHaveLength(1);
    expect(t.launcher.of('boot2')).toHaveLength(0);
  });

  it('keeps the next fire of an unchanged job across a reload and reseeds a changed one', async () => {
    const t = setup(job('hourly', '0 * * * *') + job('other', '0 * * * *'), '2026-01-07T12:30:00Z');
    const before = t.scheduler.status().find((s) => s.name === 'hourly')!.nextFire;
    await t.clock.advance(10 * MIN);
    t.scheduler.load(
      jobs(`jobs:\n${job('hourly', '0 */1 * * *')}${job('other', '*/15 * * * *')}`, t.clock.now()),
    );
    expect(t.scheduler.status().find((s) => s.name === 'hourly')!.nextFire).toBe(before);
    await t.clock.advance(20 * MIN);
    expect(t.launcher.times('hourly')).toEqual(['2026-01-07T13:00:00.000Z']);
    expect(t.launcher.times('other')).toEqual(['2026-01-07T12:45:00.000Z', '2026-01-07T13:00:00.000Z']);
  });

  it('lets a removed job finish, and drops its pending retry with a warning', async () => {
    const retry =
      '    onFailure:\n      retry:\n        maximumRetries: 2\n        initialDelay: 30\n        maximumDelay: 30\n        backoffMultiplier: 1\n';
    const t = setup(job('gone', '0 * * * *', retry) + job('stay', '0 0 1 1 *'), '2026-01-07T12:59:00Z');
    t.launcher.behave('gone', { exitCode: 1, durationMs: 5000 });
    await t.clock.advance(MIN + 1000);
    t.scheduler.load(jobs(`jobs:\n${job('stay', '0 0 1 1 *')}`, t.clock.now()));
    await t.clock.advance(MIN);
    expect(t.launcher.of('gone')).toHaveLength(1);
    expect(t.launcher.of('gone')[0]!.finished).toBe(true);
    expect(t.logs).toContain(
      'WARNING Cron job gone was scheduled for retry, but disappeared from the configuration',
    );
  });

  it('replays a short stall and resyncs after a long clock jump', async () => {
    const t = setup(job('tick', '* * * * * * *'), '2026-01-07T12:00:00.200Z');
    await t.clock.advance(1000);
    expect(t.launcher.of('tick')).toHaveLength(1);
    t.clock.jumpWall(5_000);
    await t.clock.advance(1000);
    // 12:00:01 fired; 12:00:02..07 are due after a 5 s stall: all replayed, each as its own slot.
    expect(t.launcher.of('tick')).toHaveLength(7);
    const slots = t.scheduler
      .history('tick')!
      .recentSlots()
      .map((sl) => new Date(sl.scheduledAt).toISOString().slice(17, 19));
    expect(slots).toEqual(['01', '02', '03', '04', '05', '06', '07']);
    const m = setup(job('minutely', '* * * * *'), '2026-01-07T12:00:30Z');
    m.clock.jumpWall(3 * 3_600_000 + 7_000);
    await m.clock.advance(30_000);
    expect(
      m.logs.some(
        (l) => l.includes("job 'minutely': its fire at 2026-01-07T12:01:00.000Z is") && l.includes('late'),
      ),
    ).toBe(true);
    expect(m.launcher.of('minutely')).toHaveLength(0);
    await m.clock.advance(MIN);
    expect(m.launcher.times('minutely')).toEqual(['2026-01-07T15:02:00.000Z']);
  });

  it('warns once about a schedule that never fires and reports never_fires', async () => {
    const t = setup(job('dead', '0 0 1 1 * 2020'), '2026-01-07T12:00:00Z');
    expect(
      t.logs.filter((l) => l.includes("job 'dead': schedule '0 0 1 1 * 2020' has no future occurrence")),
    ).toHaveLength(1);
    expect(t.scheduler.status()[0]!.neverFires).toBe(true);
  });

  it('keeps running when a reporter throws', async () => {
    const start = Date.parse('2026-01-07T12:00:00Z');
    const logs: string[] = [];
    setSink((r) => logs.push(r.message));
    const {
      clock,
      launcher,
      scheduler: s,
    } = fakeScheduler(start, () => ({
      report: async () => {
        throw new Error('smtp exploded');
      },
    }));
    s.load(jobs(`jobs:\n${job('x', '* * * * *')}`, start));
    s.start();
    launcher.behave('x', { exitCode: 1 });
    await clock.advance(3 * MIN);
    expect(launcher.of('x')).toHaveLength(3);
    expect(logs.some((l) => l.startsWith('Problem reporting job x failure: smtp exploded'))).toBe(true);
  });

  it('arms a retry before awaiting the failure reporters: a reporter that never answers delays nothing', async () => {
    const start = Date.parse('2026-01-07T12:59:00Z');
    setSink(() => {});
    const {
      clock,
      launcher,
      scheduler: s,
    } = fakeScheduler(start, () => ({
      // A hung Sentry/SMTP call: the failure report never settles.
      report: (hook) => (hook === 'failure' ? new Promise<void>(() => {}) : Promise.resolve()),
    }));
    const retry =
      '    onFailure:\n      retry:\n        maximumRetries: 3\n        initialDelay: 2\n        maximumDelay: 60\n        backoffMultiplier: 2\n';
    s.load(jobs(`jobs:\n${job('hung', '0 * * * *', retry)}`, start));
    s.start();
    launcher.behave('hung', { exitCode: 1 });
    await clock.advance(MIN + 2_000);
    expect(launcher.times('hung')).toEqual(['2026-01-07T13:00:00.000Z', '2026-01-07T13:00:02.000Z']);
  });

  it('a slow reporter (10 s) does not push the retry ladder back', async () => {
    const start = Date.parse('2026-01-07T12:59:00Z');
    setSink(() => {});
    const reported: string[] = [];
    const {
      clock,
      launcher,
      scheduler: s,
    } = fakeScheduler(start, (clock) => ({
      report: (hook) =>
        new Promise<void>((resolve) =>
          clock.setTimer(() => {
            reported.push(`${hook} ${new Date(clock.now()).toISOString().slice(11, 19)}`);
            resolve();
          }, 10_000),
        ),
    }));
    const retry =
      '    onFailure:\n      retry:\n        maximumRetries: 2\n        initialDelay: 2\n        maximumDelay: 60\n        backoffMultiplier: 2\n';
    s.load(jobs(`jobs:\n${job('slowrep', '0 * * * *', retry)}`, start));
    s.start();
    launcher.behave('slowrep', { exitCode: 1 });
    await clock.advance(2 * MIN);
    // The first retry runs 2 s after the failure, while its report is still in flight; the second
    // is armed when the first retry's completion is handled (after the earlier report: per-job order).
    expect(launcher.times('slowrep')).toEqual([
      '2026-01-07T13:00:00.000Z',
      '2026-01-07T13:00:02.000Z',
      '2026-01-07T13:00:14.000Z',
    ]);
    expect(reported).toEqual([
      'failure 13:00:10',
      'failure 13:00:20',
      'failure 13:00:30',
      'permanentFailure 13:00:40',
    ]);
  });

  it('stops gracefully: no new fires, and kills what outlives the grace period', async () => {
    const t = setup(job('long', '* * * * *') + job('short', '* * * * *'), '2026-01-07T12:00:00Z');
    t.launcher.behave('long', { durationMs: 10 * MIN });
    t.launcher.behave('short', { durationMs: 5_000 });
    await t.clock.advance(MIN);
    const stopped = t.scheduler.stop(30_000);
    await t.clock.advance(31_000);
    await stopped;
    expect(t.launcher.of('short')[0]!.cancelled).toBeNull();
    expect(t.launcher.of('long')[0]!.cancelled).toBe('shutdown');
    await t.clock.advance(5 * MIN);
    expect(t.launcher.of('long')).toHaveLength(1);
  });
});

describe('durable control and durable entry points (fake clock)', () => {
  function hooked(yaml: string, startIso: string, over: Partial<DurableControl> = {}, top = '') {
    const durable: DurableControl = {
      lastOutcome: async (_job, memory) => memory,
      rebootAllowed: async () => true,
      claimSlot: async () => ({}),
      register: async () => ({}),
      ...over,
    };
    const start = Date.parse(startIso);
    setSink(() => {});
    const { clock, launcher, scheduler, events } = fakeScheduler(start, () => ({ durable }));
    scheduler.load(jobs(`jobs:\n${yaml}${top}`, start));
    scheduler.start();
    return { clock, launcher, scheduler, events };
  }
  const retry =
    '    onFailure:\n      retry:\n        maximumRetries: 2\n        initialDelay: 5\n        maximumDelay: 5\n        backoffMultiplier: 1\n';

  it('passes the grant env to the launch, releases it at the end, and honours a skip', async () => {
    const released: string[] = [];
    const clusterForbid = '    concurrencyPolicy: Forbid\n    concurrencyScope: cluster\n';
    const t = hooked(
      job('a', '* * * * *') + job('b', '* * * * *', clusterForbid),
      '2026-01-07T12:00:00Z',
      {
        claimSlot: async () => ({ skip: 'its cluster concurrency slot is held elsewhere' }),
        register: async (_j, run) => ({
          env: { CRONSTABLE_RUN_ID: run.id },
          release: () => void released.push(run.id),
        }),
      },
      `state:\n  path: ${writeTree({})}\n`,
    );
    await t.clock.advance(MIN);
    const a = t.launcher.of('a')[0]!;
    expect(a.opts.injectedEnv?.CRONSTABLE_RUN_ID).toMatch(/^[0-9a-f]{32}$/);
    expect(released).toEqual([a.opts.injectedEnv!.CRONSTABLE_RUN_ID]);
    expect(t.launcher.of('b')).toHaveLength(0);
    expect(t.scheduler.history('b')!.recentSlots()[0]!.outcome).toBe('skipped:gate');
  });

  it('stamps a run finished before its release waits on the store: a Forbid run after it starts no earlier', async () => {
    // The grant's release takes 2 s (a store under load); each run takes 1.5 s; a fire every second.
    const t = hooked(job('f', '* * * * * * *', '    concurrencyPolicy: Forbid\n'), '2026-01-07T12:00:00Z', {
      register: async () => ({
        release: () => new Promise<void>((r) => t.clock.setTimer(r, 2000)),
      }),
    });
    t.launcher.behave('f', { durationMs: 1500 });
    await t.clock.advance(12_000);
    const runs = [...t.scheduler.history('f')!.recentRuns()].sort((a, b) => a.startedAt! - b.startedAt!);
    expect(runs.length).toBeGreaterThanOrEqual(3);
    for (const run of runs) expect(run.finishedAt - run.startedAt!).toBe(1500);
    for (let i = 1; i < runs.length; i++)
      expect(runs[i]!.startedAt!).toBeGreaterThanOrEqual(runs[i - 1]!.finishedAt);
  });

  it('reports armed and settled retries, settling "launched" before each retry runs', async () => {
    const t = hooked(job('r', '0 * * * *', retry), '2026-01-07T12:59:00Z');
    t.launcher.behave('r', { exitCode: 1 });
    await t.clock.advance(2 * MIN);
    const events = t.events.flatMap((e) =>
      e.type === 'retry-armed'
        ? [`armed ${e.attempt} ${new Date(e.notBefore).toISOString()}`]
        : e.type === 'retry-settled'
          ? [`settled ${e.reason} ${e.attempt}`]
          : [],
    );
    expect(events).toEqual([
      'armed 1 2026-01-07T13:00:05.000Z',
      'settled launched 1',
      'armed 2 2026-01-07T13:00:10.000Z',
      'settled launched 2',
      'settled exhausted 2',
    ]);
  });

  it('blocks a fire when the store says the last outcome was a failure or cannot be read', async () => {
    let answer: 'failure' | 'blocked' | null = 'failure';
    const t = hooked(job('dep', '* * * * *', '    onlyIfLastSucceeded: true\n'), '2026-01-07T12:00:00Z', {
      lastOutcome: async () => answer,
    });
    await t.clock.advance(MIN);
    answer = 'blocked';
    await t.clock.advance(MIN);
    answer = null;
    await t.clock.advance(MIN);
    expect(t.launcher.times('dep')).toEqual(['2026-01-07T12:03:00.000Z']);
  });

  it('skips an @reboot run the boot marker says already happened', async () => {
    const t = hooked(job('boot', '@reboot') + job('boot2', '@reboot'), '2026-01-07T12:00:00Z', {
      rebootAllowed: async (j) => j.name === 'boot2',
    });
    await t.clock.advance(1000);
    expect(t.launcher.of('boot')).toHaveLength(0);
    expect(t.launcher.of('boot2')).toHaveLength(1);
  });

  it('runs backfills one at a time without a retry ladder, and re-arms a durable retry', async () => {
    const t = hooked(job('bf', '0 0 1 1 *', retry), '2026-01-07T12:00:00Z');
    t.launcher.behave('bf', (n) => ({ durationMs: 2000, exitCode: n === 0 ? 1 : 0 }));
    const first = t.scheduler.runBackfill('bf', Date.parse('2026-01-07T11:00:00Z'));
    const second = t.scheduler.runBackfill('bf', Date.parse('2026-01-07T11:30:00Z'));
    for (let i = 0; i < 10; i++) await t.clock.advance(1000);
    expect(await first).toBe('failure');
    expect(await second).toBe('success');
    const starts = t.launcher.of('bf').map((l) => l.at);
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(2000);
    expect(t.scheduler.status()[0]!.retry).toBeNull();
    expect(t.scheduler.rearmRetry('bf', 1, t.clock.now() + 3000)).toBe(true);
    await t.clock.advance(3000);
    expect(t.launcher.of('bf')).toHaveLength(3);
    expect(t.launcher.of('bf')[2]!.at).toBe(Date.parse('2026-01-07T12:00:13Z'));
    expect(t.launcher.of('bf').map((l) => l.opts.injectedEnv)).toHaveLength(3);
  });
});

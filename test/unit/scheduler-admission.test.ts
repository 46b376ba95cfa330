// The admission pipeline (src/scheduler/admission.ts): one test per gate, per decision kind,
// and the scheduler's handling of each decision on the fake clock.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import type { JobConfig } from '../../src/config/types.ts';
import {
  type AdmissionEnv,
  admit,
  clusterGate,
  clusterSlotGate,
  type Decision,
  enabledGate,
  type Fire,
  fireClaimGate,
  GATES,
  ladderStep,
  nodeConcurrencyGate,
  onlyIfLastSucceededGate,
  pauseGate,
  rebootOnceGate,
  shutdownGate,
} from '../../src/scheduler/admission.ts';
import { type DurableControl, LOCAL_CLAIMS } from '../../src/scheduler/control.ts';
import { type ClusterGate, RUN_HERE } from '../../src/scheduler/gate.ts';
import type { RunTrigger } from '../../src/scheduler/history.ts';
import { RetryLadder } from '../../src/scheduler/ladder.ts';
import type { Scheduler } from '../../src/scheduler/scheduler.ts';
import { FakeClock } from '../../src/util/clock.ts';
import { Logger, type LogRecord, setSink } from '../../src/util/log.ts';
import { fakeScheduler } from '../helpers/fake-scheduler.ts';
import { writeTree } from '../helpers/tmp.ts';

const START = Date.parse('2026-01-07T12:00:00Z');
const MIN = 60_000;

function jobOf(extra = '', top = ''): JobConfig {
  const dir = writeTree({
    'c.yaml': `jobs:\n  - name: j\n    command: echo j\n    schedule: "* * * * *"\n${extra}${top}`,
  });
  return loadConfig(join(dir, 'c.yaml'), { nowMs: START }).jobs[0]!;
}

const stateSection = () => `state:\n  path: ${writeTree({})}\n`;
const clusterForbid = '    concurrencyPolicy: Forbid\n    concurrencyScope: cluster\n';

function fireOf(job: JobConfig, trigger: RunTrigger = 'schedule', scheduledAt: number | null = START): Fire {
  return { job, trigger, scheduledAt, ladder: null, releases: [] };
}

function durable(over: Partial<DurableControl> = {}): DurableControl {
  return {
    lastOutcome: async (_job, memory) => memory,
    rebootAllowed: async () => true,
    claimSlot: async () => ({}),
    register: async () => ({}),
    ...over,
  };
}

function envOf(over: Partial<AdmissionEnv> = {}): AdmissionEnv & { calls: string[]; logs: string[] } {
  const calls: string[] = [];
  const logs: string[] = [];
  setSink((r: LogRecord) => logs.push(`${r.levelName} ${r.message}`));
  return {
    log: new Logger('cronstable'),
    gate: RUN_HERE,
    durable: null,
    claims: LOCAL_CLAIMS,
    stopping: () => false,
    paused: () => null,
    now: () => START,
    runningCount: () => 0,
    replaceRunning: async () => {
      calls.push('replace');
    },
    lastOutcome: () => null,
    freshLadder: () => null,
    ...over,
    calls,
    logs,
  };
}

const gateSaying = (d: ReturnType<ClusterGate['decide']>, seen: string[] = []): ClusterGate => ({
  decide: (_job, _at, kind) => {
    seen.push(kind);
    return d;
  },
});

describe('admission gates, one by one', () => {
  it('enabled: a disabled job is skipped as skipped:disabled, an enabled one passes', () => {
    expect(enabledGate(fireOf(jobOf('    enabled: false\n')), envOf())).toEqual({
      kind: 'skip',
      outcome: 'skipped:disabled',
      reason: null,
    });
    expect(enabledGate(fireOf(jobOf()), envOf())).toBeNull();
  });

  it('cluster gate: run passes, a refusal skips, a deferral defers; manual and catch-up are not asked', () => {
    const seen: string[] = [];
    const job = jobOf();
    expect(clusterGate(fireOf(job), envOf({ gate: gateSaying({ run: true }, seen) }))).toBeNull();
    expect(
      clusterGate(fireOf(job), envOf({ gate: gateSaying({ run: false, reason: 'not leader' }) })),
    ).toEqual({ kind: 'skip', outcome: 'skipped:gate', reason: 'not leader' });
    expect(
      clusterGate(
        fireOf(job),
        envOf({ gate: gateSaying({ run: false, reason: 'no quorum', noQuorum: true }) }),
      ),
    ).toEqual({ kind: 'skip', outcome: 'no-quorum', reason: 'no quorum' });
    const until = START + 5_000;
    expect(
      clusterGate(
        fireOf(job),
        envOf({ gate: gateSaying({ run: false, reason: 'no quorum', deferUntil: until }) }),
      ),
    ).toEqual({ kind: 'defer', until, reason: 'no quorum' });
    const refuse = gateSaying({ run: false, reason: 'never' }, seen);
    expect(clusterGate(fireOf(job, 'manual', null), envOf({ gate: refuse }))).toBeNull();
    expect(clusterGate(fireOf(job, 'catchup'), envOf({ gate: refuse }))).toBeNull();
    const env = envOf({ gate: refuse });
    expect(clusterGate(fireOf(job, 'retry'), env)).toMatchObject({ kind: 'skip' });
    expect(env.logs).toContain('INFO Cron job j: retry not run here (never)');
    expect(seen).toEqual(['schedule', 'retry']);
  });

  it('onlyIfLastSucceeded: skips after a failure (memory) or a blocked store, only for scheduled and @reboot fires', async () => {
    const job = jobOf('    onlyIfLastSucceeded: true\n');
    const skipped: Decision = { kind: 'skip', outcome: 'skipped:only-if-last-succeeded', reason: null };
    const env = envOf({ lastOutcome: () => 'failure' });
    expect(onlyIfLastSucceededGate(fireOf(job), env)).toEqual(skipped);
    expect(env.logs).toContain('INFO Job j skipped: onlyIfLastSucceeded is set and its last run failed');
    expect(onlyIfLastSucceededGate(fireOf(job), envOf({ lastOutcome: () => 'success' }))).toBeNull();
    expect(onlyIfLastSucceededGate(fireOf(job, 'manual', null), env)).toBeNull();
    expect(onlyIfLastSucceededGate(fireOf(job, 'retry'), env)).toBeNull();
    expect(onlyIfLastSucceededGate(fireOf(job, 'catchup'), env)).toBeNull();
    expect(onlyIfLastSucceededGate(fireOf(jobOf()), env)).toBeNull();
    const blocked = envOf({ durable: durable({ lastOutcome: async () => 'blocked' }) });
    expect(await onlyIfLastSucceededGate(fireOf(job), blocked)).toEqual(skipped);
    const fromLedger = envOf({ durable: durable({ lastOutcome: async () => 'success' }) });
    expect(await onlyIfLastSucceededGate(fireOf(job), fromLedger)).toBeNull();
  });

  it('@reboot once per boot: skipped when the marker says it already ran; other fires pass at once', async () => {
    const job = jobOf();
    const env = envOf({ durable: durable({ rebootAllowed: async () => false }) });
    expect(await rebootOnceGate(fireOf(job, 'reboot', null), env)).toEqual({
      kind: 'skip',
      outcome: 'skipped:already-ran-this-boot',
      reason: null,
    });
    expect(rebootOnceGate(fireOf(job), env)).toBeNull();
    expect(rebootOnceGate(fireOf(job, 'reboot', null), envOf())).toBeNull();
  });

  it('ladder step: a scheduled fire gets a fresh ladder, a retry settles `launched` first', () => {
    const clock = new FakeClock(START);
    const job = jobOf(
      '    onFailure:\n      retry:\n        maximumRetries: 2\n        initialDelay: 1\n        maximumDelay: 1\n        backoffMultiplier: 1\n',
    );
    const settled: string[] = [];
    const ladder = new RetryLadder(job.onFailure.retry, {
      clock,
      due: () => {},
      armed: () => {},
      settled: (reason, attempt) => settled.push(`${reason} ${attempt}`),
    });
    const fresh = envOf({ freshLadder: () => ladder });
    const scheduled = fireOf(job);
    expect(ladderStep(scheduled, fresh)).toBeNull();
    expect(scheduled.ladder).toBe(ladder);
    const manual = fireOf(job, 'manual', null);
    expect(ladderStep(manual, fresh)).toBeNull();
    expect(manual.ladder).toBeNull();
    ladder.arm();
    expect(ladderStep({ ...fireOf(job, 'retry'), ladder }, envOf())).toBeNull();
    expect(settled).toEqual(['launched 1']);
  });

  it('node concurrency: Allow passes, Forbid skips as overlap, Replace cancels the running run then passes', async () => {
    const busy = { runningCount: () => 1 };
    expect(nodeConcurrencyGate(fireOf(jobOf()), envOf(busy))).toBeNull();
    const forbid = envOf(busy);
    expect(nodeConcurrencyGate(fireOf(jobOf('    concurrencyPolicy: Forbid\n')), forbid)).toEqual({
      kind: 'skip',
      outcome: 'skipped:overlap',
      reason: null,
    });
    expect(forbid.logs).toContain('WARNING Job j: still running and concurrencyPolicy is Forbid');
    const replace = envOf(busy);
    expect(await nodeConcurrencyGate(fireOf(jobOf('    concurrencyPolicy: Replace\n')), replace)).toBeNull();
    expect(replace.calls).toEqual(['replace']);
    const idle = envOf();
    expect(nodeConcurrencyGate(fireOf(jobOf('    concurrencyPolicy: Replace\n')), idle)).toBeNull();
    expect(idle.calls).toEqual([]);
  });

  it('shutdown: nothing launches once the daemon is stopping', () => {
    expect(shutdownGate(fireOf(jobOf()), envOf({ stopping: () => true }))).toEqual({
      kind: 'skip',
      outcome: 'skipped:gate',
      reason: 'daemon is shutting down',
    });
    expect(shutdownGate(fireOf(jobOf()), envOf())).toBeNull();
  });

  it('cluster slot: held elsewhere skips; a granted slot is kept for release; node scope never asks', async () => {
    const job = jobOf(clusterForbid, stateSection());
    const denied = envOf({ durable: durable({ claimSlot: async () => ({ skip: 'held by node-b' }) }) });
    expect(await clusterSlotGate(fireOf(job), denied)).toEqual({
      kind: 'skip',
      outcome: 'skipped:gate',
      reason: 'held by node-b',
    });
    expect(denied.logs).toContain('WARNING Job j skipped: held by node-b');
    const release = async () => {};
    const granted = fireOf(job);
    expect(
      await clusterSlotGate(granted, envOf({ durable: durable({ claimSlot: async () => ({ release }) }) })),
    ).toBe(null);
    expect(granted.releases).toEqual([release]);
    const asked: string[] = [];
    const counting = durable({
      claimSlot: async (j) => {
        asked.push(j.name);
        return {};
      },
    });
    expect(
      clusterSlotGate(fireOf(jobOf('    concurrencyPolicy: Forbid\n')), envOf({ durable: counting })),
    ).toBeNull();
    expect(asked).toEqual([]);
  });

  it('fire claim: a lost claim is claimed-elsewhere; sync and async claims; only slot fires claim', async () => {
    const job = jobOf();
    const lost = envOf({ claims: { claim: () => false } });
    expect(fireClaimGate(fireOf(job), lost)).toEqual({
      kind: 'skip',
      outcome: 'claimed-elsewhere',
      reason: null,
    });
    expect(
      await fireClaimGate(fireOf(job, 'catchup'), envOf({ claims: { claim: async () => false } })),
    ).toEqual({
      kind: 'skip',
      outcome: 'claimed-elsewhere',
      reason: null,
    });
    expect(fireClaimGate(fireOf(job), envOf())).toBeNull();
    const claimed: number[] = [];
    const spy = envOf({
      claims: {
        claim: (_j, at) => {
          claimed.push(at);
          return false;
        },
      },
    });
    expect(fireClaimGate(fireOf(job, 'manual', null), spy)).toBeNull();
    expect(fireClaimGate(fireOf(job, 'retry'), spy)).toBeNull();
    expect(fireClaimGate(fireOf(job, 'reboot', null), spy)).toBeNull();
    expect(claimed).toEqual([]);
  });
});

describe('the pipeline', () => {
  it('runs the gates in the documented order', () => {
    expect(GATES).toEqual([
      enabledGate,
      clusterGate,
      pauseGate,
      onlyIfLastSucceededGate,
      rebootOnceGate,
      ladderStep,
      nodeConcurrencyGate,
      shutdownGate,
      clusterSlotGate,
      fireClaimGate,
    ]);
  });

  it('decides run synchronously when no gate needs the store', () => {
    const d = admit(fireOf(jobOf()), envOf());
    expect(d).toEqual({ kind: 'run' });
  });

  it('stops at the first gate that decides (the reset ladder quirk: reset happens before Forbid skips)', () => {
    const seen: string[] = [];
    const env = envOf({
      runningCount: () => 1,
      freshLadder: () => {
        seen.push('ladder reset');
        return null;
      },
      claims: {
        claim: () => {
          seen.push('claim');
          return true;
        },
      },
    });
    expect(admit(fireOf(jobOf('    concurrencyPolicy: Forbid\n')), env)).toMatchObject({
      kind: 'skip',
      outcome: 'skipped:overlap',
    });
    expect(seen).toEqual(['ladder reset']);
  });

  it('releases the cluster slot when a later gate skips the fire', async () => {
    const released: string[] = [];
    const env = envOf({
      durable: durable({ claimSlot: async () => ({ release: async () => void released.push('slot') }) }),
      claims: { claim: () => false },
    });
    const fire = fireOf(jobOf(clusterForbid, stateSection()));
    expect(await admit(fire, env)).toEqual({ kind: 'skip', outcome: 'claimed-elsewhere', reason: null });
    expect(released).toEqual(['slot']);
    expect(fire.releases).toEqual([]);
  });

  it('releases what it holds when a gate throws, and rethrows', async () => {
    const released: string[] = [];
    const env = envOf({
      durable: durable({ claimSlot: async () => ({ release: async () => void released.push('slot') }) }),
      claims: {
        claim: async () => {
          throw new Error('store gone');
        },
      },
    });
    await expect(admit(fireOf(jobOf(clusterForbid, stateSection())), env)).rejects.toThrow('store gone');
    expect(released).toEqual(['slot']);
  });

  it('keeps a granted slot for the run', async () => {
    const env = envOf({ durable: durable({ claimSlot: async () => ({ release: async () => {} }) }) });
    const fire = fireOf(jobOf(clusterForbid, stateSection()));
    expect(await admit(fire, env)).toEqual({ kind: 'run' });
    expect(fire.releases).toHaveLength(1);
  });
});

describe('the scheduler acts on each decision (fake clock)', () => {
  function setup(yaml: string, deps: Partial<ConstructorParameters<typeof Scheduler>[0]> = {}) {
    setSink(() => {});
    const { clock, launcher, scheduler, events } = fakeScheduler(START, () => deps);
    const dir = writeTree({ 'c.yaml': `jobs:\n${yaml}` });
    scheduler.load(loadConfig(join(dir, 'c.yaml'), { nowMs: START }).jobs);
    scheduler.start();
    const slots = (name: string) =>
      scheduler
        .history(name)!
        .recentSlots()
        .map((s) => `${new Date(s.scheduledAt).toISOString().slice(11, 19)} ${s.outcome}`);
    return { clock, launcher, scheduler, events, slots };
  }
  const job = (name: string, extra = '') =>
    `  - name: ${name}\n    command: echo ${name}\n    schedule: "* * * * *"\n${extra}`;

  it('run: launches, the slot goes running -> succeeded, events in order', async () => {
    const t = setup(job('a'));
    await t.clock.advance(MIN);
    expect(t.launcher.times('a')).toEqual(['2026-01-07T12:01:00.000Z']);
    expect(t.slots('a')).toEqual(['12:01:00 succeeded']);
    const kinds = t.events.map((e) => (e.type === 'slot' ? `slot ${e.slot.outcome}` : e.type));
    expect(kinds).toEqual(['due', 'slot running', 'run-started', 'run-finished', 'slot succeeded']);
  });

  it('skip: a lost fire claim is recorded as claimed-elsewhere and never launched', async () => {
    const t = setup(job('a'), { claims: { claim: (_j, at) => at !== Date.parse('2026-01-07T12:02:00Z') } });
    await t.clock.advance(3 * MIN);
    expect(t.launcher.times('a')).toEqual(['2026-01-07T12:01:00.000Z', '2026-01-07T12:03:00.000Z']);
    expect(t.slots('a')).toEqual(['12:01:00 succeeded', '12:02:00 claimed-elsewhere', '12:03:00 succeeded']);
  });

  it('defer: the slot is recorded as deferred, then admitted again at the given instant', async () => {
    let closedUntil = Date.parse('2026-01-07T12:01:20Z');
    const gate: ClusterGate = {
      decide: () => {
        const now = t.clock.now();
        return now < closedUntil
          ? { run: false, reason: 'no quorum', deferUntil: closedUntil }
          : { run: true };
      },
    };
    const t = setup(job('a'), { gate });
    await t.clock.advance(MIN);
    expect(t.launcher.of('a')).toHaveLength(0);
    expect(t.slots('a')).toEqual(['12:01:00 deferred']);
    await t.clock.advance(20_000);
    expect(t.launcher.times('a')).toEqual(['2026-01-07T12:01:20.000Z']);
    expect(t.slots('a')).toEqual(['12:01:00 succeeded']);
    closedUntil = 0;
    await t.clock.advance(40_000);
    expect(t.slots('a')).toEqual(['12:01:00 succeeded', '12:02:00 succeeded']);
  });

  it('defer of a retry: the ladder re-arms at the deferred instant', async () => {
    const retry =
      '    onFailure:\n      retry:\n        maximumRetries: 1\n        initialDelay: 5\n        maximumDelay: 5\n        backoffMultiplier: 1\n';
    const gate: ClusterGate = {
      decide: (_job, _at, kind) =>
        kind === 'retry' && t.clock.now() < Date.parse('2026-01-07T12:01:30Z')
          ? { run: false, reason: 'electing', deferUntil: Date.parse('2026-01-07T12:01:30Z') }
          : { run: true },
    };
    const t = setup(job('r', retry).replace('"* * * * *"', '"1 12 * * *"'), { gate });
    t.launcher.behave('r', (n) => ({ exitCode: n === 0 ? 1 : 0 }));
    await t.clock.advance(MIN);
    expect(t.scheduler.status()[0]!.retry?.nextRetryAt).toBe(Date.parse('2026-01-07T12:01:05Z'));
    await t.clock.advance(5_000);
    expect(t.launcher.of('r')).toHaveLength(1);
    expect(t.scheduler.status()[0]!.retry?.nextRetryAt).toBe(Date.parse('2026-01-07T12:01:30Z'));
    await t.clock.advance(25_000);
    expect(t.launcher.times('r')).toEqual(['2026-01-07T12:01:00.000Z', '2026-01-07T12:01:30.000Z']);
  });

  it('skip of a retry of a job disabled meanwhile cancels its ladder', async () => {
    const retry =
      '    onFailure:\n      retry:\n        maximumRetries: 3\n        initialDelay: 5\n        maximumDelay: 5\n        backoffMultiplier: 1\n';
    const t = setup(job('r', retry));
    t.launcher.behave('r', { exitCode: 1 });
    await t.clock.advance(MIN);
    const dir = writeTree({ 'c.yaml': `jobs:\n${job('r', `${retry}    enabled: false\n`)}` });
    t.scheduler.load(loadConfig(join(dir, 'c.yaml'), { nowMs: t.clock.now() }).jobs);
    await t.clock.advance(10_000);
    expect(t.launcher.of('r')).toHaveLength(1);
    const settled = t.events
      .filter((e) => e.type === 'retry-settled')
      .map((e) => (e as { reason: string }).reason);
    expect(settled).toEqual(['cancelled']);
  });
});

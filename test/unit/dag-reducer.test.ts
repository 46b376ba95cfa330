// The reducers on their own (spec 04 §3.3-§3.5, §7.3, §7.5): claim bookkeeping, completion fencing,
// pid fencing, the crash reconciler, and events for tasks the config no longer has.
import { describe, expect, it } from 'vitest';
import { apply, RECONCILED_CRASH } from '../../src/dag/index.ts';
import { Driver, makeDag } from './dag-fixtures.ts';

const dag = makeDag('r', [
  { id: 'once' },
  { id: 'twice', retries: 1, retryDelaySeconds: -3 },
  { id: 'probe', type: 'sensor', pokeIntervalSeconds: 10 },
  { id: 'gate', type: 'approval' },
]);

function started() {
  const d = new Driver(dag);
  d.pass();
  expect(d.launched.map((l) => l.taskKey)).toEqual(['once', 'twice', 'probe']);
  return d;
}

describe('claim bookkeeping', () => {
  it('stamps proc and host, clears pid, keeps attempt, starts the clock', () => {
    const d = started();
    expect(d.run.tasks.once).toMatchObject({
      state: 'running',
      proc: 'proc-a',
      host: 'host-a',
      pid: null,
      attempt: 0,
      startedAt: d.now,
    });
    expect(d.run.updatedAt).toBe(d.now);
  });
  it('a negative retryDelaySeconds acts as 0', () => {
    const d = started();
    d.complete('twice', false);
    expect(d.run.tasks.twice).toMatchObject({ state: 'up_for_retry', attempt: 1, nextRetryAt: d.now });
    d.pass();
    expect(d.passes.at(-1)!.launches.map((l) => l.taskKey)).toEqual(['twice']);
  });
  it('refuses to claim what is not claimable', () => {
    const d = started();
    const r = d.event({ type: 'claim', taskKey: 'once', proc: 'p', host: 'h', now: d.now });
    expect(r.rejected).toMatch(/not claimable/);
    expect(r.changed).toBe(false);
    expect(r.run).toBe(d.run);
    expect(d.event({ type: 'claim', taskKey: 'gate', proc: 'p', host: 'h', now: d.now }).rejected).toMatch(
      /parked/,
    );
    const m = new Driver(
      makeDag('m', [{ id: 's' }, { id: 'x', dependsOn: ['s'], expand: { fromTask: 's', key: 'k' } }]),
    );
    expect(m.event({ type: 'claim', taskKey: 'x', proc: 'p', host: 'h', now: m.now }).rejected).toMatch(
      /placeholder/,
    );
  });
});

describe('completion fencing (§7.5)', () => {
  const base = { ok: true, exitCode: 0, failReason: null };
  it('drops a completion from another proc, another attempt, or a duplicate', () => {
    const d = started();
    const now = d.now;
    expect(
      d.event({ type: 'complete', taskKey: 'once', proc: 'other', attempt: 0, ...base, now }).rejected,
    ).toBe('fenced');
    expect(
      d.event({ type: 'complete', taskKey: 'once', proc: 'proc-a', attempt: 1, ...base, now }).rejected,
    ).toBe('fenced');
    const ok = d.event({ type: 'complete', taskKey: 'once', proc: 'proc-a', attempt: 0, ...base, now });
    expect(ok.rejected).toBeNull();
    expect(d.run.tasks.once).toMatchObject({ state: 'success', proc: null, pid: null, exitCode: 0 });
    const dup = d.event({ type: 'complete', taskKey: 'once', proc: 'proc-a', attempt: 0, ...base, now });
    expect(dup).toMatchObject({ rejected: 'fenced', changed: false });
  });
  it('fences a sensor poke on its poke count', () => {
    const d = started();
    const stale = d.event({
      type: 'complete',
      taskKey: 'probe',
      proc: 'proc-a',
      attempt: 0,
      pokeCount: 3,
      ...base,
      now: d.now,
    });
    expect(stale.rejected).toBe('fenced');
    expect(d.complete('probe', false).rejected).toBeNull();
    // the idle sensor (proc null) takes no completion at all
    expect(d.complete('probe', true).rejected).toBe('fenced');
  });
  it('fences the pid write the same way', () => {
    const d = started();
    expect(
      d.event({ type: 'pid', taskKey: 'once', proc: 'x', attempt: 0, pid: 42, now: d.now }).rejected,
    ).toBe('fenced');
    d.event({ type: 'pid', taskKey: 'once', proc: 'proc-a', attempt: 0, pid: 42, now: d.now });
    expect(d.run.tasks.once!.pid).toBe(42);
  });
  it('drops a completion for a task removed from the DAG (§3.7)', () => {
    const d = started();
    const smaller = makeDag('r', [
      { id: 'twice' },
      { id: 'probe', type: 'sensor' },
      { id: 'gate', type: 'approval' },
    ]);
    const r = apply(d.run, smaller, {
      type: 'complete',
      taskKey: 'once',
      proc: 'proc-a',
      attempt: 0,
      ...base,
      now: d.now,
    });
    expect(r.rejected).toBe('no such task');
    expect(r.run).toBe(d.run);
  });
});

describe('reconciler (§7.3)', () => {
  function crashed() {
    const d = started();
    d.event({ type: 'pid', taskKey: 'twice', proc: 'proc-a', attempt: 0, pid: 100, now: d.now });
    d.pass(); // parks nothing new; the gate was parked in the first pass
    expect(d.run.tasks.gate!.awaitingApproval).toBe(true);
    return d;
  }

  it('leaves my own claims, idle sensors and waiting gates alone', () => {
    const d = crashed();
    const r = d.event({ type: 'reconcile', proc: 'proc-a', host: 'host-a', alive: () => false, now: d.now });
    expect(r.changed).toBe(false);
    d.complete('probe', false);
    const r2 = d.event({ type: 'reconcile', proc: 'proc-b', host: 'host-b', alive: () => true, now: d.now });
    expect(r2.touched.sort()).toEqual(['once', 'twice']); // not the idle probe, not the gate
  });

  it('a new owner retries what has attempts left at once, fails the rest, re-pokes sensors', () => {
    const d = crashed();
    d.now += 40;
    const r = d.event({ type: 'reconcile', proc: 'proc-b', host: 'host-b', alive: () => true, now: d.now });
    expect(r.touched.sort()).toEqual(['once', 'probe', 'twice']);
    expect(d.run.tasks.twice).toMatchObject({
      state: 'up_for_retry',
      attempt: 1,
      failReason: RECONCILED_CRASH,
      nextRetryAt: d.now,
      proc: null,
      pid: null,
    });
    expect(d.run.tasks.once).toMatchObject({
      state: 'failed',
      attempt: 1,
      failReason: RECONCILED_CRASH,
      finishedAt: d.now,
    });
    expect(d.run.tasks.probe).toMatchObject({
      state: 'running',
      proc: null,
      nextPokeAt: d.now,
      pokeCount: 0,
    });
    expect(d.run.tasks.probe!.firstPokeAt).toBe(d.now - 40); // the timeout window is not reset
    expect(d.run.tasks.gate).toMatchObject({ state: 'running', awaitingApproval: true });
    // the old owner's late completion is fenced out
    const late = d.event({
      type: 'complete',
      taskKey: 'twice',
      proc: 'proc-a',
      attempt: 0,
      ok: true,
      exitCode: 0,
      failReason: null,
      now: d.now,
    });
    expect(late.rejected).toBe('fenced');
    d.proc = 'proc-b';
    d.pass();
    expect(d.passes.at(-1)!.launches).toMatchObject([
      { taskKey: 'twice', attempt: 1, reason: 'retry' },
      { taskKey: 'probe', reason: 'repoke', pokeCount: 0 },
    ]);
  });

  it('a restarted daemon on the same host spares a live pid and reconciles a dead one', () => {
    const d = crashed();
    const alive = (pid: number) => pid === 100;
    const r = d.event({ type: 'reconcile', proc: 'proc-a2', host: 'host-a', alive, now: d.now });
    expect(r.touched.sort()).toEqual(['once', 'probe']); // 'twice' has live pid 100; 'once' has no pid
    expect(d.state('twice')).toBe('running');
  });
});

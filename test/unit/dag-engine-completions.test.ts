// Batched completions (src/dag/engine/completions.ts) land exactly as the same completions applied one
// by one through the reducer: verdicts, retries, sensor re-pokes, and fenced (stale) reports dropped.
import { describe, expect, it } from 'vitest';
import { applyCompletions, type CompleteEvent } from '../../src/dag/engine/completions.ts';
import { apply, claimPass, newRun, type RunState } from '../../src/dag/index.ts';
import { loadDags, T0 } from './dag-fixtures.ts';

const [DAG] = loadDags(`  - name: fan
    tasks:
      - id: discover
        command: echo
      - id: load
        dependsOn:
          - discover
        expand:
          fromTask: discover
          key: items
        retries: 1
        retryDelaySeconds: 5
        command: echo
      - id: poke
        type: sensor
        pokeIntervalSeconds: 10
        command: "true"
`);
const dag = DAG!;

function running(): RunState {
  let r = newRun(dag, { runKey: 'k', runId: '0'.repeat(32), logicalDate: null, kind: 'manual', now: T0 });
  r = claimPass(r, dag, { now: T0, proc: 'p', host: 'h' }).run;
  r = apply(r, dag, {
    type: 'complete',
    taskKey: 'discover',
    proc: 'p',
    attempt: 0,
    ok: true,
    exitCode: 0,
    failReason: null,
    now: T0 + 1,
  }).run;
  return claimPass(r, dag, {
    now: T0 + 2,
    proc: 'p',
    host: 'h',
    expansions: new Map([['load', [1, 2, 3, 4]]]),
  }).run;
}

const done = (taskKey: string, over: Partial<CompleteEvent> = {}): CompleteEvent => ({
  type: 'complete',
  taskKey,
  proc: 'p',
  attempt: 0,
  ok: true,
  exitCode: 0,
  failReason: null,
  now: T0 + 3,
  ...over,
});

describe('applyCompletions', () => {
  it('equals the one-by-one reducer, dropping what the reducer fences', () => {
    const base = running();
    expect(base.tasks['load#3']!.state).toBe('running');
    const events = [
      done('load#0'),
      done('load#1', { ok: false, exitCode: 2, failReason: 'failsWhen=nonzeroReturn and retcode=2' }),
      done('load#2', { proc: 'someone-else' }), // stale owner: fenced
      done('load#3', { attempt: 1 }), // wrong attempt: fenced
      done('poke', { ok: false, exitCode: 1, failReason: 'x', pokeCount: 0, jitter: 0 }),
      done('load#0'), // duplicate: fenced (no longer running)
      done('gone'), // not in the run
    ];
    const batched = applyCompletions(base, dag, events);
    let one = base;
    for (const ev of events) if (one.tasks[ev.taskKey]) one = apply(one, dag, ev).run;
    expect(batched.run.tasks).toEqual(one.tasks);
    expect(batched.touched).toEqual(['load#0', 'load#1', 'poke']);
    expect(batched.run.tasks['load#1']).toMatchObject({
      state: 'up_for_retry',
      attempt: 1,
      nextRetryAt: T0 + 8,
    });
    expect(batched.run.tasks.poke).toMatchObject({ state: 'running', pokeCount: 1, nextPokeAt: T0 + 13 });
    expect(batched.run.tasks['load#2']!.state).toBe('running');
    expect(batched.run.updatedAt).toBe(T0 + 3);
  });

  it('changes nothing when every report is fenced', () => {
    const base = running();
    const out = applyCompletions(base, dag, [done('load#0', { proc: 'x' })]);
    expect(out.changed).toBe(false);
    expect(out.run).toBe(base);
  });
});

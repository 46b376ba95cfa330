// Trigger rules and the fan-in barrier (spec 04 §3.2), exhaustively over every upstream combination.
import { describe, expect, it } from 'vitest';
import {
  effectiveState,
  groupState,
  newRun,
  parseTaskKey,
  type RunState,
  type TaskState,
  taskKeyOf,
  type Verdict,
  verdictOf,
} from '../../src/dag/index.ts';
import { makeDag, T0 } from './dag-fixtures.ts';

const STATES: TaskState[] = [
  'pending',
  'running',
  'up_for_retry',
  'success',
  'failed',
  'upstream_failed',
  'skipped',
];

/** Every list of upstream states of length 0..3 (343 + 49 + 7 + 1 combinations). */
function* combos(max: number): Generator<TaskState[]> {
  yield [];
  for (let n = 1; n <= max; n++) {
    const idx = new Array(n).fill(0);
    for (;;) {
      yield idx.map((i) => STATES[i]!);
      let k = n - 1;
      while (k >= 0 && ++idx[k] === STATES.length) idx[k--] = 0;
      if (k < 0) break;
    }
  }
}

/** The spec's rule, restated by counting rather than by scanning. */
function expected(rule: 'all_success' | 'all_done', ups: TaskState[]): Verdict {
  const waiting = ups.filter((s) => ['pending', 'running', 'up_for_retry'].includes(s)).length;
  if (waiting > 0) return 'wait';
  if (rule === 'all_done') return 'ready';
  if (ups.some((s) => s === 'failed' || s === 'upstream_failed')) return 'upstream_failed';
  if (ups.includes('skipped')) return 'skipped';
  return 'ready';
}

describe('verdictOf', () => {
  it('matches the spec for every combination of up to 3 upstreams, both rules', () => {
    let n = 0;
    for (const ups of combos(3)) {
      for (const rule of ['all_success', 'all_done'] as const) {
        expect(verdictOf(rule, ups), `${rule} ${ups.join(',')}`).toBe(expected(rule, ups));
        n++;
      }
    }
    expect(n).toBe(2 * (1 + 7 + 49 + 343));
  });
  it('failure wins over skip under all_success; all_done never fails or skips', () => {
    expect(verdictOf('all_success', ['skipped', 'failed'])).toBe('upstream_failed');
    expect(verdictOf('all_success', ['skipped', 'success'])).toBe('skipped');
    expect(verdictOf('all_done', ['failed', 'skipped', 'upstream_failed'])).toBe('ready');
    expect(verdictOf('all_success', [])).toBe('ready');
  });
});

describe('groupState (the fan-in barrier)', () => {
  it('reads running while any instance is out, then failure over skip over success', () => {
    for (const inst of combos(3)) {
      const out = groupState(inst);
      if (inst.some((s) => ['pending', 'running', 'up_for_retry'].includes(s))) expect(out).toBe('running');
      else if (inst.some((s) => s === 'failed' || s === 'upstream_failed'))
        expect(out).toBe('upstream_failed');
      else if (inst.includes('skipped')) expect(out).toBe('skipped');
      else expect(out).toBe('success');
    }
  });
  it('an empty expansion is success', () => {
    expect(groupState([])).toBe('success');
  });
});

describe('effectiveState', () => {
  const dag = makeDag('e', [
    { id: 'src' },
    { id: 'm', dependsOn: ['src'], expand: { fromTask: 'src', key: 'k' } },
  ]);
  it('is the placeholder state before expansion, the group state after, null without an entry', () => {
    const run = newRun(dag, { runKey: 'k', runId: 'r', logicalDate: null, kind: 'manual', now: T0 });
    expect(effectiveState(run, 'm')).toBe('pending');
    expect(effectiveState(run, 'ghost')).toBeNull();
    const expandedRun: RunState = {
      ...run,
      mapped: { m: { items: ['a', 'b'], expandedAt: T0 } },
      tasks: {
        ...run.tasks,
        m: { ...run.tasks.m!, state: 'expanded' as const },
        'm#0': { ...run.tasks.m!, mapIndex: 0, state: 'failed' as const },
        'm#1': { ...run.tasks.m!, mapIndex: 1, state: 'running' as const },
      },
    };
    expect(effectiveState(expandedRun, 'm')).toBe('running');
    expandedRun.tasks['m#1'] = { ...expandedRun.tasks['m#1']!, state: 'success' };
    expect(effectiveState(expandedRun, 'm')).toBe('upstream_failed');
  });
});

describe('task keys (§1)', () => {
  it('round-trips plain and mapped keys; a non-numeric suffix is not an index', () => {
    expect(taskKeyOf('load', null)).toBe('load');
    expect(taskKeyOf('load', 2)).toBe('load#2');
    expect(parseTaskKey('load#2')).toEqual({ id: 'load', mapIndex: 2 });
    expect(parseTaskKey('load')).toEqual({ id: 'load', mapIndex: null });
    expect(parseTaskKey('load#x')).toEqual({ id: 'load#x', mapIndex: null });
  });
});

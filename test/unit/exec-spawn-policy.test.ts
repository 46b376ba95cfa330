// Where a launch spawns: in-thread while quiet, the spawner/pool in a burst (pure decision).
import { describe, expect, it } from 'vitest';
import { SpawnLoad } from '../../src/exec/spawn-policy.ts';

describe('SpawnLoad', () => {
  it('keeps an occasional launch in-thread', () => {
    const load = new SpawnLoad(100, 10);
    for (let t = 0; t < 10_000; t += 1000) {
      expect(load.prefersPool(t, 0)).toBe(false);
      load.add(t, 3);
    }
  });

  it('moves launches off the thread once a burst has cost more than the limit', () => {
    const load = new SpawnLoad(100, 10);
    const choices: boolean[] = [];
    for (let i = 0; i < 6; i++) {
      const pool = load.prefersPool(i, 0);
      choices.push(pool);
      if (!pool) load.add(i, 3);
    }
    expect(choices).toEqual([false, false, false, false, true, true]);
  });

  it('decays with its half-life, so the thread is used again after the burst', () => {
    const load = new SpawnLoad(100, 10);
    load.add(0, 40);
    expect(load.current(100)).toBeCloseTo(20);
    expect(load.prefersPool(100, 0)).toBe(true);
    expect(load.current(300)).toBeCloseTo(5);
    expect(load.prefersPool(300, 0)).toBe(false);
  });

  it('stays with the pool while launches sent to it are unanswered', () => {
    const load = new SpawnLoad(100, 10);
    expect(load.prefersPool(0, 1)).toBe(true);
  });
});

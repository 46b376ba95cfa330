// Where a launch spawns: in-thread while launches are few, off the thread in a burst (pure).
import { describe, expect, it } from 'vitest';
import { SpawnLoad } from '../../src/exec/spawn-policy.ts';

describe('SpawnLoad', () => {
  it('keeps occasional launches, and a handful started together, in-thread', () => {
    const load = new SpawnLoad(250, 8);
    for (let t = 0; t < 10_000; t += 1000) {
      expect(load.prefersSpawners(t, 0)).toBe(false);
      load.add(t);
    }
    const together = new SpawnLoad(250, 8);
    for (let i = 0; i < 8; i++) {
      expect(together.prefersSpawners(0, 0)).toBe(false);
      together.add(0);
    }
  });

  it('moves launches off the thread once more than the limit came within a half-life', () => {
    const load = new SpawnLoad(250, 8);
    const choices: boolean[] = [];
    for (let i = 0; i < 11; i++) {
      const off = load.prefersSpawners(i, 0);
      choices.push(off);
      if (!off) load.add(i);
    }
    expect(choices.filter((c) => !c)).toHaveLength(9);
    expect(choices.slice(9)).toEqual([true, true]);
  });

  it('decays with its half-life, so the thread is used again after the burst', () => {
    const load = new SpawnLoad(250, 8);
    load.add(0, 40);
    expect(load.current(250)).toBeCloseTo(20);
    expect(load.prefersSpawners(250, 0)).toBe(true);
    expect(load.current(750)).toBeCloseTo(5);
    expect(load.prefersSpawners(750, 0)).toBe(false);
  });

  it('sends a batch announced bigger than the limit off the thread from its first launch', () => {
    const herd = new SpawnLoad(250, 8);
    herd.expect(0, 500);
    expect(herd.prefersSpawners(0, 0)).toBe(true);
    // A handful announced together changes nothing: they stay in-thread as before.
    const few = new SpawnLoad(250, 8);
    few.expect(0, 8);
    for (let i = 0; i < 8; i++) {
      expect(few.prefersSpawners(0, 0)).toBe(false);
      few.add(0);
    }
  });

  it('stays off the thread while launches sent there are unanswered', () => {
    const load = new SpawnLoad(250, 8);
    expect(load.prefersSpawners(0, 1)).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { longestFirst, type Timed } from '../helpers/longest-first.ts';

const f = (name: string, group: number, project: string, seconds: number) => ({
  name,
  t: { group, project, seconds },
});
const order = (files: { name: string; t: Timed }[]) => longestFirst(files, (x) => x.t).map((x) => x.name);

describe('the test sequencer', () => {
  it('puts the longest files of a project first', () => {
    expect(order([f('a', 1, 's', 2), f('b', 1, 's', 70), f('c', 1, 's', 8)])).toEqual(['b', 'c', 'a']);
  });
  it('keeps group order and the base order of projects, and of equal times', () => {
    const files = [
      f('u1', 0, 'unit', 1),
      f('u2', 0, 'unit', 9),
      f('s1', 1, 'system', 3),
      f('s2', 1, 'system', 3),
    ];
    expect(order([files[2]!, files[0]!, files[3]!, files[1]!])).toEqual(['u2', 'u1', 's1', 's2']);
  });
});

import { describe, expect, it } from 'vitest';
import { cpuBalanced, longestFirst, type Timed } from '../helpers/longest-first.ts';

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
  it('starts long waiting files beside busy ones, not together, on a model of the pool', () => {
    // name, seconds, cores alone; longest first would start the two waiting files together
    const files: [string, number, number][] = [
      ['wait-a', 100, 0.2],
      ['wait-b', 95, 0.2],
      ['busy', 90, 1.6],
      ['short-busy', 5, 1],
    ];
    const timed = ([, seconds, cores]: [string, number, number]): Timed => ({
      group: 1,
      project: 's',
      seconds,
      cores,
    });
    const plan = cpuBalanced(files, timed, 2, 2).map(([name]) => name);
    // busy first (0 + 1.6 is closest to 2 cores), then a waiting file beside it; when busy ends,
    // the other waiting file; the 5 s file (under half of the longest left) only at the end
    expect(plan).toEqual(['busy', 'wait-a', 'wait-b', 'short-busy']);
  });
  it('keeps longest first where no file has a measured rate', () => {
    const files = [f('a', 1, 's', 70), f('b', 1, 's', 60), f('c', 1, 's', 40), f('d', 1, 's', 2)];
    expect(cpuBalanced(files, (x) => x.t, 5, 2).map((x) => x.name)).toEqual(['a', 'b', 'c', 'd']);
  });
});

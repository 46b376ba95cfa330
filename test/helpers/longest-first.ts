// Longest files first, on a clean clone too. vitest orders a project's files by the durations it
// cached on this machine; a fresh CI clone has no cache and falls back to file size, which puts a
// 70 s browser or fleet file behind dozens of 2 s ones and leaves a worker busy with it long after
// the others have finished. test/durations.json (scripts/test-durations.mjs writes it from a JSON
// report of a whole run) gives the sequencer each file's last measured time instead.
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const ROOT = join(import.meta.dirname, '..', '..');
const TABLE = join(ROOT, 'test', 'durations.json');
/** A file the table does not know yet (new since the last measurement): about a median file. */
const UNKNOWN_S = 8;

type Table = Record<string, Record<string, number>>;

function readTable(): Table {
  if (!existsSync(TABLE)) return {};
  return JSON.parse(readFileSync(TABLE, 'utf8')) as Table;
}

/** What the order needs of a file: its group order, project and measured seconds. */
export interface Timed {
  group: number;
  project: string;
  seconds: number;
}

/**
 * `files` (already in the base order) longest first inside each project; group order and the
 * order of projects stay as the base put them, and equal times keep their base order.
 */
export function longestFirst<T>(files: readonly T[], timed: (f: T) => Timed): T[] {
  const rank = new Map(files.map((f, i) => [f, i]));
  return [...files].sort((a, b) => {
    const x = timed(a);
    const y = timed(b);
    if (x.group !== y.group) return x.group - y.group;
    if (x.project !== y.project) return rank.get(a)! - rank.get(b)!;
    return y.seconds - x.seconds || rank.get(a)! - rank.get(b)!;
  });
}

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const table = readTable();
    return longestFirst(await super.sort(files), (f) => ({
      group: f.project.config.sequence.groupOrder,
      project: f.project.name,
      seconds: table[f.project.name]?.[relative(ROOT, f.moduleId)] ?? UNKNOWN_S,
    }));
  }
}

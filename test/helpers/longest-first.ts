// Longest files first, on a clean clone too. vitest orders a project's files by the durations it
// cached on this machine; a fresh CI clone has no cache and falls back to file size, which puts a
// 70 s browser or fleet file behind dozens of 2 s ones and leaves a worker busy with it long after
// the others have finished. test/durations.json (scripts/test-durations.mjs writes it from a JSON
// report of a whole run) gives the sequencer each file's last measured time instead.
//
// Longest first alone started the long fleet files (which mostly wait on real timers) one after
// another, and for ~20 s of each run five of them ran together on cores ~30% idle. Where
// test/cpu-rates.json (scripts/test-cpu-rates.mjs) says how many cores a file keeps busy alone,
// the order is planned on a model of the pool: each free worker takes, among the files at least
// half as long as the longest one left, the one that brings the running files' cores closest to
// the machine's.
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const ROOT = join(import.meta.dirname, '..', '..');
const TABLE = join(ROOT, 'test', 'durations.json');
const RATES = join(ROOT, 'test', 'cpu-rates.json');
/** A file the table does not know yet (new since the last measurement): about a median file. */
const UNKNOWN_S = 8;
/** The cores a file without a measured rate keeps busy: about the median of those measured. */
export const UNKNOWN_CORES = 0.7;

type Table = Record<string, Record<string, number>>;

function readTable(file: string): Table {
  if (!existsSync(file)) return {};
  return JSON.parse(readFileSync(file, 'utf8')) as Table;
}

/** What the order needs of a file: its group order, project and measured seconds. */
export interface Timed {
  group: number;
  project: string;
  seconds: number;
  /** Cores the file keeps busy alone (CPU-seconds over wall seconds), when measured. */
  cores?: number;
}

/**
 * `files` (one project's, longest first) in the order a pool of `workers` on `cores` cores should
 * start them. The pool is modelled with the files' measured seconds: whenever a worker is free it
 * takes, among the files left that are at least half as long as the longest, the one whose cores
 * bring the running files' sum closest to `cores` (the longer on a tie), so long waiting files
 * start beside busy ones instead of together, and no long file is left for the end.
 */
export function cpuBalanced<T>(
  files: readonly T[],
  timed: (f: T) => Timed,
  workers: number,
  cores: number,
): T[] {
  const left = [...files];
  const running: { end: number; cores: number }[] = [];
  const out: T[] = [];
  let now = 0;
  while (left.length > 0) {
    if (running.length >= workers) {
      running.sort((a, b) => a.end - b.end);
      now = running.shift()!.end;
      continue;
    }
    const load = running.reduce((sum, r) => sum + r.cores, 0);
    const longest = timed(left[0]!).seconds;
    let pick = 0;
    let gap = Number.POSITIVE_INFINITY;
    for (let i = 0; i < left.length; i++) {
      const t = timed(left[i]!);
      if (t.seconds < longest / 2) break;
      const g = Math.abs(load + (t.cores ?? UNKNOWN_CORES) - cores);
      if (g < gap - 1e-9) {
        gap = g;
        pick = i;
      }
    }
    const [file] = left.splice(pick, 1);
    const t = timed(file!);
    running.push({ end: now + t.seconds, cores: t.cores ?? UNKNOWN_CORES });
    out.push(file!);
  }
  return out;
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
    const table = readTable(TABLE);
    const rates = readTable(RATES);
    const timed = (f: TestSpecification): Timed => {
      const path = relative(ROOT, f.moduleId);
      const cores = rates[f.project.name]?.[path];
      return {
        group: f.project.config.sequence.groupOrder,
        project: f.project.name,
        seconds: table[f.project.name]?.[path] ?? UNKNOWN_S,
        ...(cores !== undefined ? { cores } : {}),
      };
    };
    const ordered = longestFirst(await super.sort(files), timed);
    // Each project's run of files, planned on its own pool where its rates were measured.
    const out: TestSpecification[] = [];
    for (let i = 0; i < ordered.length; ) {
      const project = ordered[i]!.project;
      let j = i;
      while (j < ordered.length && ordered[j]!.project === project) j++;
      const run = ordered.slice(i, j);
      const workers = project.config.maxWorkers;
      out.push(
        ...(rates[project.name] && typeof workers === 'number'
          ? cpuBalanced(run, timed, workers, availableParallelism())
          : run),
      );
      i = j;
    }
    return out;
  }
}

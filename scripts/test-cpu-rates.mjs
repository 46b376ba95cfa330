// Writes test/cpu-rates.json: how many cores each system test file keeps busy when it runs alone
// (CPU-seconds of the file's whole process tree over its wall seconds), which the test sequencer
// reads to start wait-bound files beside CPU-bound ones (test/helpers/longest-first.ts):
//   node scripts/test-cpu-rates.mjs FILE...      (after `npm run build`; on a quiet machine)
// Each file runs alone through `npx vitest run --project system FILE` under bash, whose `times`
// gives the CPU of every process the run waited for, the daemons, Chromium and CLI runs the file
// started included. A file measured again replaces its old figure; the others keep theirs.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const out = join(root, 'test', 'cpu-rates.json');
const files = process.argv.slice(2);
if (files.length === 0) {
  process.stderr.write('usage: node scripts/test-cpu-rates.mjs test/x.test.ts ...\n');
  process.exit(2);
}

/** Seconds from one `times` figure ("1m2.345s"). */
const seconds = (figure) => {
  const m = /^(\d+)m([\d.]+)s$/.exec(figure);
  if (!m) throw new Error(`unreadable times figure ${figure}`);
  return Number(m[1]) * 60 + Number(m[2]);
};

const table = existsSync(out) ? JSON.parse(readFileSync(out, 'utf8')) : {};
table.system ??= {};
for (const file of files) {
  const started = performance.now();
  const r = spawnSync(
    'bash',
    ['-c', 'npx vitest run --project system "$1" >/dev/null 2>&1; code=$?; times; exit $code', '_', file],
    {
      cwd: root,
      encoding: 'utf8',
    },
  );
  const wall = (performance.now() - started) / 1000;
  // `times` prints the shell's own user/sys, then its children's.
  const children = r.stdout.trim().split('\n')[1]?.split(' ') ?? [];
  if (r.status !== 0 || children.length !== 2) {
    process.stderr.write(`${file}: the run failed (exit ${r.status}); not measured\n`);
    continue;
  }
  const cpu = seconds(children[0]) + seconds(children[1]);
  table.system[file] = Math.round((cpu / wall) * 100) / 100;
  process.stdout.write(
    `${file}: ${cpu.toFixed(1)} CPU-s in ${wall.toFixed(1)} s = ${table.system[file]} cores\n`,
  );
}
table.system = Object.fromEntries(Object.entries(table.system).sort(([, a], [, b]) => b - a));
for (const path of Object.keys(table.system)) if (!existsSync(join(root, path))) delete table.system[path];
writeFileSync(out, `${JSON.stringify(table, null, 1)}\n`);

// Writes test/durations.json, the per-file times the test sequencer orders by (longest first),
// from a vitest JSON report or the default reporter's output of a run:
//   node scripts/test-durations.mjs [REPORT.json | RUN.log ...]
// Every `npm test` leaves its JSON report in .tmp/vitest-report.json (vitest.config.ts), the
// default. The JSON report times some files at 0 s (its start and end are those of the tests'
// results, not of the file); a file's line in the default output ("✓ test/x.test.ts (5 tests)
// 25248ms") is its whole time and wins where both are given. Given several runs' output, a file
// gets the mean of its times: one run's figures swing by 2x with what ran beside the file.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '..');
const reports = process.argv.length > 2 ? process.argv.slice(2) : [join(root, '.tmp', 'vitest-report.json')];
const out = join(root, 'test', 'durations.json');
// A report of part of the suite updates those files and keeps the others' last times.
const table = existsSync(out) ? JSON.parse(readFileSync(out, 'utf8')) : {};
for (const project of Object.keys(table))
  for (const path of Object.keys(table[project]))
    if (!existsSync(join(root, path))) delete table[project][path];
const put = (path, ms) => {
  const project = path.startsWith('test/unit/') ? 'unit' : 'system';
  table[project] ??= {};
  table[project][path] = Math.round(ms / 100) / 10;
};
/** Whole-file times from the default output, per file, over every log given. */
const logged = new Map();
const COLOUR = /\x1b\[[0-9;]*m/g;
const LINE = /(test\/\S+\.test\.ts) \(\d+ tests?[^)]*\)\s+(\d+)ms/;
const text = reports.map((r) => [r, readFileSync(r, 'utf8')]);
for (const [, body] of text.filter(([, b]) => b.trimStart().startsWith('{')))
  for (const file of JSON.parse(body).testResults)
    put(relative(root, file.name).replace(/^.*?(test\/)/, '$1'), file.endTime - file.startTime);
for (const [, body] of text.filter(([, b]) => !b.trimStart().startsWith('{')))
  for (const line of body.replace(COLOUR, '').split('\n')) {
    const m = LINE.exec(line);
    if (m) logged.set(m[1], [...(logged.get(m[1]) ?? []), Number(m[2])]);
  }
for (const [path, times] of logged) put(path, times.reduce((a, b) => a + b, 0) / times.length);
for (const project of Object.keys(table))
  table[project] = Object.fromEntries(Object.entries(table[project]).sort(([, a], [, b]) => b - a));
writeFileSync(out, `${JSON.stringify(table, null, 1)}\n`);
console.log(
  `test/durations.json: ${Object.values(table).reduce((n, t) => n + Object.keys(t).length, 0)} files`,
);

// Writes test/durations.json, the per-file times the test sequencer orders by (longest first),
// from a vitest JSON report of a whole run:
//   node scripts/test-durations.mjs [REPORT.json ...]
// Every `npm test` leaves its report in .tmp/vitest-report.json (vitest.config.ts), the default.
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
for (const file of reports.flatMap((r) => JSON.parse(readFileSync(r, 'utf8')).testResults)) {
  const path = relative(root, file.name);
  const project = path.startsWith('test/unit/') ? 'unit' : 'system';
  const seconds = Math.round((file.endTime - file.startTime) / 100) / 10;
  table[project] ??= {};
  table[project][path] = seconds;
}
for (const project of Object.keys(table))
  table[project] = Object.fromEntries(Object.entries(table[project]).sort(([, a], [, b]) => b - a));
writeFileSync(out, `${JSON.stringify(table, null, 1)}\n`);
console.log(
  `test/durations.json: ${Object.values(table).reduce((n, t) => n + Object.keys(t).length, 0)} files`,
);

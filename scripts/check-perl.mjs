#!/usr/bin/env node
// `perl -c` on every .pl file under src/ (the spawner's program, src/exec/spawner.pl), so a Perl
// syntax error fails `npm run check` instead of the first herd of a running daemon. Fails with
// perl's own message; fails, saying so, when perl is not installed (CI has it, as the daemon's
// hosts do). Usage: node scripts/check-perl.mjs [dir]   (default: src)
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = resolve(process.argv[2] ?? 'src');

function perlFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== 'node_modules') out.push(...perlFiles(path));
    } else if (name.endsWith('.pl')) out.push(path);
  }
  return out.sort();
}

const files = perlFiles(root);
let failed = 0;
for (const file of files) {
  const r = spawnSync('perl', ['-c', file], { encoding: 'utf8' });
  if (r.error) {
    const why =
      r.error.code === 'ENOENT'
        ? 'perl is not installed (it is needed to check'
        : 'cannot run perl (to check';
    process.stderr.write(`check-perl: ${why} ${relative(process.cwd(), file)}): ${r.error.message}\n`);
    process.exit(1);
  }
  if (r.status !== 0) {
    failed++;
    process.stderr.write(r.stderr || r.stdout || `perl -c ${file}: exit ${r.status}\n`);
  }
}
if (failed > 0) {
  process.stderr.write(`check-perl: ${failed} of ${files.length} Perl files fail perl -c\n`);
  process.exit(1);
}
process.stdout.write(
  `perl -c passes: ${files.length} Perl file(s) under ${relative(process.cwd(), root) || '.'}\n`,
);

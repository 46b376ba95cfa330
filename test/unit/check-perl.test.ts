// The Perl check (`npm run check`, scripts/check-perl.mjs): `perl -c` passes on the spawner's program as it
// is, fails with perl's own message on a syntax error in any .pl under the tree, and fails saying so when
// perl is missing. And the program the spawner runs from the source tree is that file, as it is.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnerScript } from '../../src/exec/spawner-script.ts';
import { writeTree as tree } from '../helpers/tmp.ts';

const repo = resolve(import.meta.dirname, '../..');
const script = join(repo, 'scripts/check-perl.mjs');

function check(root?: string, env: NodeJS.ProcessEnv = process.env): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, root ? [script, root] : [script], {
    cwd: repo,
    encoding: 'utf8',
    env,
  });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('the perl check', () => {
  it('passes on src/ as it is', () => {
    const r = check();
    expect(r.out).toMatch(/perl -c passes: [1-9]\d* Perl file\(s\) under src/);
    expect(r.code).toBe(0);
  });

  it("fails on a syntax error in a nested .pl, with perl's message", () => {
    const root = tree({
      'exec/good.pl': 'use strict; print "ok\\n";\n',
      'deep/er/bad.pl': 'use strict;\nmy $x = ;\n',
    });
    const r = check(root);
    expect(r.code).toBe(1);
    expect(r.out).toContain('syntax error at');
    expect(r.out).toContain('bad.pl line 2');
    expect(r.out).toContain('1 of 2 Perl files fail perl -c');
  });

  it('fails, saying so, when perl is not installed', () => {
    const root = tree({ 'x.pl': '1;\n' });
    const r = check(root, { ...process.env, PATH: root });
    expect(r.code).toBe(1);
    expect(r.out).toContain('perl is not installed');
  });

  it('checks the file the spawner runs from the source tree', () => {
    expect(spawnerScript()).toBe(readFileSync(join(repo, 'src/exec/spawner.pl'), 'utf8'));
  });
});

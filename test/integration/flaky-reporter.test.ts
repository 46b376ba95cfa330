// The suite retries a failed test once; the flaky reporter must still name every test that passed
// only on its retry, with the first attempt's error, and say nothing when no test needed one.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const REPORTER = resolve('test/helpers/flaky-reporter.ts');
const VITEST = resolve('node_modules/vitest/vitest.mjs');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function runVitest(source: string): { status: number | null; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), 'cronstable-flaky-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'probe.test.ts'), source);
  const res = spawnSync(
    process.execPath,
    [VITEST, 'run', '--root', dir, '--retry', '1', '--reporter', 'dot', '--reporter', REPORTER],
    { encoding: 'utf8', env: { ...process.env, CI: 'true', NO_COLOR: '1' }, timeout: 60_000 },
  );
  return { status: res.status, stderr: res.stderr };
}

describe('flaky reporter', () => {
  it('lists a test that passed only on its retry, with the first error', () => {
    const { status, stderr } = runVitest(`import { expect, it } from 'vitest';
let tries = 0;
it('settles on the second try', () => { tries++; expect(tries, 'attempt').toBe(2); });
it('steady', () => { expect(1).toBe(1); });
`);
    expect(status).toBe(0);
    expect(stderr).toContain('FLAKY: 1 test(s) passed only on a retry:');
    expect(stderr).toContain('probe.test.ts > settles on the second try (retried 1x)');
    expect(stderr).toContain('first attempt: attempt: expected 1 to be 2');
    expect(stderr).not.toContain('> steady');
  }, 60_000);

  it('is silent when every test passes at once', () => {
    const { status, stderr } = runVitest(`import { expect, it } from 'vitest';
it('steady', () => { expect(1).toBe(1); });
`);
    expect(status).toBe(0);
    expect(stderr).not.toContain('FLAKY');
  }, 60_000);
});

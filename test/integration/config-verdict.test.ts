// Issue 14 item 3: `-v`, `--job-set-id`, `state check` and the daemon give the same verdict on the
// same file: each refuses a bad config with exit 1 and the same located error, and none of them
// blocks or balloons on a hostile one. A large job set takes the daemon's worker-thread loader, with
// the same verdicts.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WORKER_FROM_BYTES } from '../../src/config/isolated.ts';
import { startDaemonRun, stopDaemonRun } from '../helpers/daemon-run.ts';
import { writeTree } from '../helpers/tmp.ts';
import { until } from '../helpers/until.ts';

const BUNDLE = join(import.meta.dirname, '..', '..', 'dist', 'cronstable.mjs');
const VERBS: string[][] = [['-v'], ['--job-set-id'], ['state', 'check'], []];

const BAD: Record<string, string> = {
  'a non-finite duration':
    'jobs:\n  - name: a\n    command: x\n    schedule: "* * * * *"\n    killTimeout: .nan\n',
  'a blank job list': 'jobs:\n',
  'a control character in a name':
    'jobs:\n  - name: "a\\u0007b"\n    command: x\n    schedule: "* * * * *"\n',
  'nesting past the cap': `jobs:\n  - name: a\n    command: x\n    schedule: "* * * * *"\n    environment: ${'['.repeat(200)}${']'.repeat(200)}\n`,
  'an include of a device': 'include:\n  - /dev/zero\njobs: []\n',
};

describe('every verb gives the same verdict on the same config file', () => {
  for (const [what, text] of Object.entries(BAD))
    it(`refuses ${what} with exit 1 and the same located error`, () => {
      const dir = writeTree({}, true);
      const file = join(dir, 'bad.yaml');
      writeFileSync(file, text);
      const errors = VERBS.map((verb) => {
        const r = spawnSync(process.execPath, [BUNDLE, '-c', file, ...verb], {
          cwd: dir,
          encoding: 'utf8',
          timeout: 20_000,
        });
        expect([verb.join(' ') || 'daemon', r.status]).toEqual([verb.join(' ') || 'daemon', 1]);
        // The first located error line, whatever prefix the verb gives it.
        const line = `${r.stdout}${r.stderr}`.split('\n').find((l) => l.includes(`${file}:`)) ?? '';
        return line.slice(line.indexOf(file));
      });
      expect(errors[0]).toMatch(/bad\.yaml:\d+:\d+: /);
      expect(new Set(errors).size).toBe(1);
    });
});

describe('a job set past WORKER_FROM_BYTES is parsed in a worker thread', () => {
  /** `n` jobs, one of them per-second, and enough of them to pass the threshold. */
  const jobs = (n: number, broken = -1) =>
    `jobs:\n${Array.from({ length: n }, (_, i) =>
      i === 0
        ? '  - name: tick\n    command: echo "tick-from-the-worker-config"\n    schedule: "* * * * * * *"\n'
        : `  - name: job-${i}\n    command: echo ${i}\n    schedule: "${i % 60} ${i % 24} * * *"\n${i === broken ? '    killTimeout: .nan\n' : ''}`,
    ).join('')}`;
  const count = Math.ceil(WORKER_FROM_BYTES / 60);

  it('and the daemon reports its error at the same file and line as the in-process verbs', () => {
    const dir = writeTree({}, true);
    const file = join(dir, 'big.yaml');
    const text = jobs(count, count - 5);
    writeFileSync(file, text);
    expect(text.length).toBeGreaterThan(WORKER_FROM_BYTES);
    const line = text.split('\n').findIndex((l) => l.includes('killTimeout')) + 1;
    const daemon = spawnSync(process.execPath, [BUNDLE, '-c', file, '-l', 'DEBUG'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(daemon.status).toBe(1);
    expect(daemon.stdout + daemon.stderr).toContain('parsed in a worker thread');
    expect(daemon.stdout + daemon.stderr).toContain(`${file}:${line}:`);
    const validate = spawnSync(process.execPath, [BUNDLE, '-c', file, '-v'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(validate.status).toBe(1);
    expect(validate.stdout + validate.stderr).toContain(`${file}:${line}:`);
  });

  it('and the daemon runs what it loaded there, schedules included; a small file is parsed in-process', async () => {
    for (const [n, worker] of [
      [count, true],
      [3, false],
    ] as const) {
      const dir = writeTree({}, true);
      const file = join(dir, 'jobs.yaml');
      writeFileSync(file, jobs(n));
      const run = startDaemonRun(file, process.env, ['-l', 'DEBUG']);
      await until('the per-second job to run', 20_000, async () =>
        (run.out + run.err).includes('tick-from-the-worker-config') ? true : null,
      );
      await stopDaemonRun(run);
      const out = run.out + run.err;
      expect(out).toContain(`(${n} jobs)`);
      expect(out.includes('parsed in a worker thread')).toBe(worker);
    }
  });
});

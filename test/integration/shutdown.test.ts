// Issue 14 item 3: SIGTERM always exits within --shutdown-timeout, even when a job ignores SIGTERM
// and its killTimeout (default 30 s) is longer than the whole timeout.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pidAlive } from '../../src/util/pid.ts';
import { writeTree } from '../helpers/tmp.ts';

const BUNDLE = join(import.meta.dirname, '..', '..', 'dist', 'cronstable.mjs');

describe('shutdown', () => {
  it('exits within --shutdown-timeout when a job ignores SIGTERM, its process group killed', async () => {
    const dir = writeTree({}, true);
    const pids = join(dir, 'pids');
    const file = join(dir, 'jobs.yaml');
    writeFileSync(
      file,
      `jobs:\n  - name: stubborn\n    command: 'trap "" TERM; echo $$ >> ${pids}; sleep 60'\n    schedule: "* * * * * * *"\n`,
    );
    const child = spawn(process.execPath, [BUNDLE, '-c', file, '--shutdown-timeout', '2'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
    });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const deadline = Date.now() + 15_000;
    while (!/Job stubborn spawned/.test(err) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect(err).toMatch(/Job stubborn spawned/);
    const t0 = Date.now();
    child.kill('SIGTERM');
    const code = await exited;
    const took = Date.now() - t0;
    expect(code).toBe(0);
    // The job's killTimeout (30 s) would have held the daemon for 30 s; the bound is the timeout
    // (2 s) plus slack for a loaded machine, far below that.
    expect(took).toBeLessThan(8_000);
    for (const pid of readFileSync(pids, 'utf8').trim().split('\n').map(Number))
      expect(pidAlive(pid)).toBe(false);
  }, 30_000);
});

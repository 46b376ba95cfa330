// Reload on file change, a broken reload keeping the old config, and the second-signal stop.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { Daemon } from '../../src/daemon/daemon.ts';
import { type LogRecord, setSink } from '../../src/util/log.ts';
import { waitFor } from '../helpers/sinks.ts';
import { writeTree } from '../helpers/tmp.ts';

const BUNDLE = join(import.meta.dirname, '..', '..', 'dist', 'cronstable.mjs');
const job = (name: string, file: string) =>
  `  - name: ${name}\n    command: echo ${name} >> ${file}\n    schedule: "* * * * * * *"\n    captureStderr: false\n`;

describe('daemon lifecycle', () => {
  it('reloads when a config file changes, and keeps the old config when the new one is broken', async () => {
    const dir = writeTree({});
    const conf = join(dir, 'jobs.yaml');
    writeFileSync(conf, `jobs:\n${job('first', join(dir, 'first.log'))}`);
    const logs: string[] = [];
    setSink((r: LogRecord) => logs.push(`${r.levelName} ${r.message}`));
    const daemon = new Daemon(loadConfig(conf), { configPath: conf, reloadPollMs: 200 });
    await daemon.start();
    try {
      await waitFor(() => existsSync(join(dir, 'first.log')), 5_000, 'the first job');
      writeFileSync(conf, `jobs:\n${job('second', join(dir, 'second.log'))}`);
      await waitFor(() => existsSync(join(dir, 'second.log')), 5_000, 'the reloaded job');
      expect(daemon.scheduler.jobNames()).toEqual(['second']);
      await waitFor(
        () => (daemon.scheduler.history('second')?.recentRuns().length ?? 0) > 0,
        5_000,
        'a recorded run of the reloaded job',
      );
      expect(daemon.scheduler.history('second')!.recentRuns()[0]!.outcome).toBe('success');
      writeFileSync(conf, 'jobs:\n  - name: broken\n    schedule: "* * * * *"\n');
      await waitFor(
        () =>
          logs.some((l) => l.includes('Error in configuration file(s), so not updating any of the config.')),
        5_000,
        'the reload error',
      );
      expect(logs.filter((l) => l.includes('Error in configuration file(s)'))).toHaveLength(1);
      const before = readFileSync(join(dir, 'second.log'), 'utf8').length;
      await new Promise((r) => setTimeout(r, 1500));
      expect(readFileSync(join(dir, 'second.log'), 'utf8').length).toBeGreaterThan(before);
      expect(daemon.scheduler.jobNames()).toEqual(['second']);
      // A reload that fails on a hostile file (an include of a device) is logged too, and the
      // next change is still honoured (issue 14 item 3).
      writeFileSync(conf, `include:\n  - /dev/zero\njobs:\n${job('second', join(dir, 'second.log'))}`);
      await waitFor(
        () => logs.filter((l) => l.includes('Error in configuration file(s)')).length === 2,
        5_000,
        'the second reload error',
      );
      expect(daemon.scheduler.jobNames()).toEqual(['second']);
      writeFileSync(conf, `jobs:\n${job('third', join(dir, 'third.log'))}`);
      await waitFor(() => existsSync(join(dir, 'third.log')), 5_000, 'the job of the next good reload');
      expect(daemon.scheduler.jobNames()).toEqual(['third']);
    } finally {
      await daemon.stop(1000);
      setSink(null);
    }
  });

  it('stops at once on a second signal, killing running jobs', async () => {
    const dir = writeTree({
      'jobs.yaml':
        'jobs:\n  - name: long\n    command: echo $$ > long.pid; exec sleep 60\n    schedule: "@reboot"\n',
    });
    const child = spawn(process.execPath, [BUNDLE, '-c', join(dir, 'jobs.yaml')], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
    });
    const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    // Signal handlers are installed once start-up completes (after the @reboot job is spawned).
    const pidFile = join(dir, 'long.pid');
    await waitFor(
      () =>
        existsSync(pidFile) &&
        readFileSync(pidFile, 'utf8').endsWith('\n') &&
        err.includes('cronstable started'),
      10_000,
      'the job to start',
    );
    const pid = Number(readFileSync(pidFile, 'utf8'));
    child.kill('SIGTERM');
    await waitFor(() => err.includes('waiting up to 60 s for 1 running job(s)'), 5_000, 'graceful stop');
    const t0 = Date.now();
    child.kill('SIGTERM');
    expect(await exit).toBe(130);
    expect(Date.now() - t0).toBeLessThan(10_000);
    // The job's process is gone, killed by SIGTERM (the run line of spec 02 §4.7).
    expect(() => process.kill(pid, 0)).toThrow();
    expect(err).toContain('Job long exit code -15');
  });
});

describe('automatic store gc', () => {
  it('runs `state gc` in a child process on its schedule', async () => {
    const dir = writeTree({});
    const conf = join(dir, 'jobs.yaml');
    writeFileSync(
      conf,
      `state:\n  path: ${join(dir, 'state')}\n  topology: single-node\njobs:\n  - name: a\n    command: "true"\n    schedule: "0 0 1 1 *"\n`,
    );
    const logs: string[] = [];
    setSink((r: LogRecord) => logs.push(`${r.levelName} ${r.message}`));
    const daemon = new Daemon(loadConfig(conf), {
      configPath: conf,
      gc: { firstDelayMs: 100, intervalMs: 60_000, command: [process.execPath, BUNDLE] },
    });
    await daemon.start();
    try {
      await waitFor(() => logs.some((l) => l.startsWith('INFO state gc: state: gc')), 20_000, 'a gc pass');
    } finally {
      await daemon.stop(1000);
      setSink(null);
    }
  });
});

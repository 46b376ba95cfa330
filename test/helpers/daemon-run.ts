// The built daemon as a plain child process on one config file, its stdout and stderr collected
// apart, for tests that read what it logs and how it exits rather than talk to its API.
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname } from 'node:path';
import { expect } from 'vitest';
import { DAEMON } from './e2e-daemon.ts';

export interface DaemonRun {
  out: string;
  err: string;
  child: ChildProcess;
  exit: Promise<number | null>;
}

/**
 * Starts the daemon on `config` (a file), in that file's directory; `env` replaces its environment,
 * `args` follow `-c config` (e.g. `-l DEBUG`).
 */
export function startDaemonRun(
  config: string,
  env: NodeJS.ProcessEnv = process.env,
  args: string[] = [],
): DaemonRun {
  const child = spawn(process.execPath, [DAEMON, '-c', config, ...args], {
    cwd: dirname(config),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const run: DaemonRun = {
    out: '',
    err: '',
    child,
    exit: new Promise((r) => child.on('exit', (code) => r(code))),
  };
  child.stdout!.on('data', (c: Buffer) => {
    run.out += c.toString();
  });
  child.stderr!.on('data', (c: Buffer) => {
    run.err += c.toString();
  });
  return run;
}

/** SIGTERM, and the daemon must finish its work and exit 0. */
export async function stopDaemonRun(run: DaemonRun): Promise<void> {
  run.child.kill('SIGTERM');
  expect(await run.exit).toBe(0);
}

/** Runs `node ...args` to its end: the exit code and stdout and stderr as one text. */
export function runNode(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, out }));
  });
}

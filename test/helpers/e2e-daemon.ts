// The e2e files' one way to get a daemon: the built binary on a config directory, its output
// collected for failure messages, and a wait until its web API answers that fails at once (with
// the log) when the daemon exits instead of timing out on a dead port.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { CHROMIUM } from '../../scripts/chromium.ts';
import { stopChild } from './child.ts';
import { until } from './until.ts';

export const ROOT = join(import.meta.dirname, '..', '..');
export const DAEMON = join(ROOT, 'dist', 'cronstable.mjs');

/** Throws a message saying what to install when the built daemon or Chromium is missing. */
export function requireE2ePrereqs(): void {
  if (!existsSync(DAEMON)) throw new Error(`${DAEMON} is missing: run npm run build`);
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
}

export interface E2eDaemon {
  child: ChildProcess;
  /** Everything the daemon printed so far, stdout and stderr interleaved. */
  logs(): string;
}

export interface E2eDaemonOptions {
  /** The daemon's web base URL, e.g. http://127.0.0.1:PORT. */
  base: string;
  /** What `-c` names: default the whole directory, or one file of it when others sit beside it. */
  config?: string;
  env?: NodeJS.ProcessEnv;
  /** Ready when this answers true; default: `GET /jobs` is 200. */
  ready?: (base: string) => Promise<boolean>;
  /** What the wait is for, in the timeout message. */
  what?: string;
  timeoutMs?: number;
}

export async function startE2eDaemon(dir: string, opts: E2eDaemonOptions): Promise<E2eDaemon> {
  let out = '';
  const child = spawn(process.execPath, [DAEMON, '-c', opts.config ?? dir], {
    cwd: dir,
    env: opts.env ? { ...process.env, ...opts.env } : process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const collect = (c: Buffer) => {
    out += c.toString();
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const daemon: E2eDaemon = { child, logs: () => out };
  const ready = opts.ready ?? (async (base: string) => (await fetch(`${base}/jobs`)).ok);
  let exited = false;
  const exit = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) => {
      exited = true;
      reject(new Error(`daemon exited (${signal ?? code}) before it was ready; log:\n${out}`));
    }),
  );
  // A rejection nobody awaits after readiness must not fail the test run.
  exit.catch(() => {});
  const waited = until(
    opts.what ?? `the daemon's web API on ${opts.base}`,
    opts.timeoutMs ?? 20_000,
    async () => {
      if (exited) return false;
      return (await ready(opts.base)) ? true : null;
    },
  );
  try {
    await Promise.race([waited, exit]);
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`${(err as Error).message}${exited ? '' : `\nlog:\n${out}`}`);
  }
  return daemon;
}

/** The e2e files' afterAll: the browser context, then the daemon (SIGTERM, then SIGKILL), then their temp directories. */
export async function tearDownE2e(
  context: BrowserContext | null,
  daemon: E2eDaemon | null,
  ...dirs: string[]
): Promise<void> {
  await context?.close().catch(() => {});
  await stopChild(daemon?.child);
  for (const d of dirs) if (d) rmSync(d, { recursive: true, force: true });
}

// `npm run fleet -- --nodes 3 --backend gossip` starts three daemons that serve `/cluster`, and
// Ctrl-C (SIGINT) stops every one of them and removes the fleet's temp directory.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canBind, freePort } from '../../scripts/fleet/ports.ts';
import { pidAlive } from '../../src/util/pid.ts';
import { waitUntil } from './harness.ts';

const ROOT = join(import.meta.dirname, '..', '..');

async function freeRun(n: number): Promise<number> {
  for (;;) {
    const base = await freePort();
    let ok = base + n < 65536;
    for (let i = 1; ok && i < n; i++) ok = await canBind('127.0.0.1', base + i);
    if (ok) return base;
  }
}

describe('npm run fleet', () => {
  it('starts three gossip nodes serving /cluster and stops them all on SIGINT', async () => {
    const web = await freeRun(3);
    const peer = await freePort('127.0.0.11');
    const child = spawn(
      'npm',
      [
        'run',
        'fleet',
        '--',
        '--nodes',
        '3',
        '--backend',
        'gossip',
        '--interval',
        '1',
        '--web-port',
        String(web),
        '--peer-port',
        String(peer),
      ],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.stderr!.on('data', (c: Buffer) => {
      out += c.toString();
    });
    let runner = 0;
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      await waitUntil(() => out.includes('fleet: running'), {
        timeoutMs: 30_000,
        label: `the fleet to start:\n${out}`,
      });
      runner = Number(/fleet: running \(pid (\d+)\)/.exec(out)![1]);
      expect(runner).toBeGreaterThan(1);
      const urls = [...out.matchAll(/dashboard (http:\/\/127\.0\.0\.1:\d+)\//g)].map((m) => m[1]!);
      expect(urls).toEqual([0, 1, 2].map((i) => `http://127.0.0.1:${web + i}`));
      const root = /shared state: (.*)\/state\/cronstable\.db/.exec(out)![1]!;
      expect(existsSync(root)).toBe(true);
      for (const url of urls) {
        const view = await waitUntil(
          async () => {
            const v = (await (await fetch(`${url}/cluster`)).json()) as {
              enabled: boolean;
              peers: unknown[];
            };
            return v.enabled ? v : null;
          },
          { timeoutMs: 10_000, label: `${url}/cluster enabled` },
        );
        expect(view.peers).toHaveLength(2);
      }
      // Ctrl-C: the terminal's SIGINT reaches the runner (the daemons run in process groups of
      // their own, so only the runner stops them, in order).
      process.kill(runner, 'SIGINT');
      await exited;
      await waitUntil(() => out.includes('fleet: stopped'), {
        timeoutMs: 20_000,
        label: `the runner to stop:\n${out}`,
      });
      // Nothing listens on the dashboards' ports any more: every daemon is gone.
      for (let i = 0; i < 3; i++) expect(await canBind('127.0.0.1', web + i)).toBe(true);
      expect(existsSync(root)).toBe(false);
    } finally {
      // A failed run still stops its nodes: SIGTERM lets the runner stop them.
      if (runner && pidAlive(runner)) {
        process.kill(runner, 'SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      }
    }
  }, 60_000);
});

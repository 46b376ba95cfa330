// `npm run grand-tour -- --nodes 3` (scripts/tour/main.ts): the tour's nodes come up with the
// mail, webhook and statsd sinks, the printed table leads to all of them, WEB_TOKEN turns on
// auth, and Ctrl-C (SIGINT) stops every node and sink and removes the temp directory. Fixed
// ports that are taken (another test, a running tour) fall back to free ones, as the table says.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GiveUp, waitUntil } from '../../scripts/fleet/fleet.ts';
import { startTour } from '../../scripts/tour/tour.ts';

const ROOT = join(import.meta.dirname, '..', '..');

describe('npm run grand-tour', () => {
  it('starts the nodes and the sinks, prints where they are, and stops all on SIGINT', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/tour/main.ts', '--nodes', '3'], {
      cwd: ROOT,
      env: { ...process.env, WEB_TOKEN: 'tour-s3cret', BACKEND: 'gossip', DISTRIBUTION: 'spread' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.stderr!.on('data', (c: Buffer) => {
      out += c.toString();
    });
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      await waitUntil(
        () => {
          if (child.exitCode !== null) throw new GiveUp(`the tour exited ${child.exitCode}:\n${out}`);
          return out.includes('The grand tour is up');
        },
        { timeoutMs: 60_000, label: 'the tour to come up' },
      );
      const field = (label: string) => new RegExp(`${label}\\s+(\\S+)`).exec(out)?.[1] ?? '';
      const dashboards = [...out.matchAll(/meridian-[abc] dashboard\s+(http:\/\/127\.0\.0\.1:\d+)\//g)].map(
        (m) => m[1]!,
      );
      expect(dashboards).toHaveLength(3);
      const auth = { authorization: 'Bearer tour-s3cret' };
      for (const url of dashboards) {
        // WEB_TOKEN: the API wants the bearer token, /metrics stays public.
        expect((await fetch(`${url}/status`)).status).toBe(401);
        const view = (await (await fetch(`${url}/cluster`, { headers: auth })).json()) as {
          enabled: boolean;
          backend: string;
          distribution: string;
          cluster_size: number;
        };
        expect(view).toMatchObject({
          enabled: true,
          backend: 'gossip',
          distribution: 'spread',
          cluster_size: 3,
        });
        expect((await fetch(`${url}/metrics`)).status).toBe(200);
      }
      const inbox = field('On-call inbox \\(mail sink\\)');
      expect(await (await fetch(inbox)).text()).toContain('On-call inbox');
      const statsd = field('Job metrics \\(statsd sink\\)');
      expect(await (await fetch(statsd)).text()).toContain('statsd_sink_packets_total');
      const hooks = field('Webhook sink');
      expect(await (await fetch(hooks)).json()).toBeInstanceOf(Array);
      const root = /Shared state store\s+(\S+)\/state\/cronstable\.db/.exec(out)![1]!;
      expect(existsSync(join(root, 'nodes', 'meridian-b', 'config', 'platform.yaml'))).toBe(true);

      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(out).toContain('grand-tour: stopped');
      for (const url of [...dashboards, inbox, statsd]) await expect(fetch(url)).rejects.toThrow();
      expect(existsSync(root)).toBe(false);
    } finally {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      }
    }
  }, 90_000);

  it('--nodes 1 runs one plain node (no cluster section) that serves the tour', async () => {
    const notes: string[] = [];
    const tour = await startTour({ nodes: 1, sinks: false, note: (l) => notes.push(l) });
    try {
      expect(notes.join('\n')).toContain('one node: no cluster section');
      const node = tour.nodes[0]!;
      const status = await node.get<{ ok?: boolean }>('/status');
      expect(status).toBeTruthy();
      const cluster = await node.get<{ enabled: boolean }>('/cluster');
      expect(cluster.enabled).toBe(false);
      const jobs = await node.jobs();
      expect(Object.keys(jobs)).toContain('platform-pulse-counter');
    } finally {
      await tour.stop();
    }
  }, 60_000);
});

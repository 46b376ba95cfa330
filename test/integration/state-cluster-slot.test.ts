// concurrencyScope: cluster — two daemons sharing one store never run the job at the same time.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/sinks.ts';
import { writeTree } from '../helpers/tmp.ts';

const BUNDLE = join(import.meta.dirname, '..', '..', 'dist', 'cronstable.mjs');

describe('cluster concurrency slots', () => {
  it('lets only one node of the fleet run a Forbid + cluster job at a time', async () => {
    const dir = writeTree({});
    const log = join(dir, 'runs.log');
    writeFileSync(log, '');
    writeFileSync(
      join(dir, 'jobs.yaml'),
      `state:
  path: ${join(dir, 'state')}
  topology: shared
  slotTtlSeconds: 5
jobs:
  - name: inventory-sync
    command: echo "start $(date +%s%N) $NODE" >> ${log}; sleep 2.5; echo "end $(date +%s%N) $NODE" >> ${log}
    schedule: "* * * * * * *"
    concurrencyPolicy: Forbid
    concurrencyScope: cluster
    clusterPolicy: EveryNode
`,
    );
    const nodes: { child: ChildProcess; err: string }[] = [];
    for (const name of ['node-a', 'node-b']) {
      const child = spawn(process.execPath, [BUNDLE, '-c', join(dir, 'jobs.yaml')], {
        env: { ...process.env, NODE: name, HOSTNAME: name },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      const node = { child, err: '' };
      child.stderr!.on('data', (c: Buffer) => {
        node.err += c.toString();
      });
      nodes.push(node);
    }
    try {
      await waitFor(
        () => (readFileSync(log, 'utf8').match(/^end /gm) ?? []).length >= 3,
        30_000,
        'three finished runs',
      );
    } finally {
      for (const n of nodes) n.child.kill('SIGTERM');
      await Promise.all(
        nodes.map((n) => new Promise((r) => (n.child.exitCode !== null ? r(null) : n.child.on('exit', r)))),
      );
    }
    // Replay the log: at no point are two runs in progress.
    let inside = 0;
    let most = 0;
    for (const line of readFileSync(log, 'utf8').trim().split('\n')) {
      inside += line.startsWith('start') ? 1 : -1;
      most = Math.max(most, inside);
    }
    expect(most).toBe(1);
    const skipped = nodes.map((n) => n.err).join('\n');
    expect(skipped).toMatch(/Job inventory-sync skipped: its cluster concurrency slot is held by node-[ab]/);
  }, 60_000);
});

// Issue 34 item 4: the standalone binary is compiled from the split program with the store lane
// entry as an entry of its own (scripts/build-binary.mjs), so a lane worker starts on that entry,
// not on the whole program. A real binary daemon with a store and a web listener: it writes data
// through its lane, and its debug memory report names the module the lane started on,
// JavaScriptCore's heap figures, the collections after large bodies and the idle ones, and the
// bytecode order the build recorded (`topology: shared` keeps the store in worker lanes).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/fleet/ports.ts';
import { IDLE_COLLECT_MS } from '../../src/util/idle-collections.ts';
import { stopChild } from '../helpers/child.ts';
import { standaloneBinary } from '../helpers/standalone-binary.ts';
import { writeTree } from '../helpers/tmp.ts';
import { until } from '../helpers/until.ts';

let child: ChildProcess | null = null;
afterAll(() => stopChild(child));

describe('the standalone binary', () => {
  it('runs its store lane on the lane entry it carries', async () => {
    const binary = standaloneBinary();
    const port = await freePort();
    const dir = writeTree(
      {
        'cronstable.yaml': [
          'jobs:',
          '  - name: tick',
          '    command: echo tick',
          '    schedule: "* * * * * * *"',
          'state:',
          '  path: state',
          '  topology: shared',
          'web:',
          '  listen:',
          `    - http://127.0.0.1:${port}`,
          '',
        ].join('\n'),
      },
      true,
    );
    const report = join(dir, 'memory.json');
    let out = '';
    const startedAt = Date.now();
    child = spawn(binary, ['-c', dir], {
      cwd: dir,
      env: { ...process.env, CRONSTABLE_DEBUG_MEMORY: report },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (c: Buffer) => (out += c));
    child.stderr!.on('data', (c: Buffer) => (out += c));
    const base = `http://127.0.0.1:${port}`;
    // A run of `tick` recorded: the ledger is written through the lane.
    await until(`a recorded run of tick; log:\n${out}`, 30_000, async () => {
      const r = await fetch(`${base}/jobs/tick/runs`);
      if (!r.ok) return null;
      const body = (await r.json()) as { runs?: unknown[] } | unknown[];
      const runs = Array.isArray(body) ? body : (body.runs ?? []);
      return runs.length > 0 ? true : null;
    });
    // Big calendar feeds (1000 events each, ~0.4 MB): whole, and past a megabyte of bodies the
    // binary collects (src/http/collect-after.ts), which the report counts.
    for (let i = 0; i < 4; i++) {
      const feed = await (await fetch(`${base}/calendar.ics?days=60&per_job=1000`)).text();
      expect(feed.split('BEGIN:VEVENT').length - 1).toBe(1000);
      expect(feed.endsWith('END:VCALENDAR\r\n')).toBe(true);
    }
    // A period of the idle collections (src/util/idle-collections.ts) has passed before the report:
    // their timer starts with the daemon, which a loaded machine starts seconds after the spawn, so
    // the report is asked for again until it counts one.
    await new Promise((r) => setTimeout(r, Math.max(0, startedAt + IDLE_COLLECT_MS + 500 - Date.now())));
    const r = await until('a memory report counting an idle collection', 30_000, async () => {
      rmSync(report, { force: true });
      child!.kill('SIGUSR2');
      const got = await until('the memory report', 10_000, async () =>
        existsSync(report) ? (JSON.parse(readFileSync(report, 'utf8')) as Record<string, any>) : null,
      );
      if (got.idleCollections?.runs >= 1) return got;
      await new Promise((r) => setTimeout(r, 1000));
      return null;
    });
    expect(out).not.toContain('running the store on the main thread');
    expect(r.runtime).toMatch(/^bun /);
    const lanes = Object.entries(r.isolates as Record<string, any>).filter(([k]) =>
      k.startsWith('store-lane'),
    );
    expect(lanes.length).toBeGreaterThan(0);
    for (const [, lane] of lanes) expect(lane.extra.entry).toMatch(/\/cronstable-lane\.m?js$/);
    expect(r.bun.heapSize).toBeGreaterThan(0);
    expect(r.bun.heapCapacity).toBeGreaterThanOrEqual(r.bun.heapSize);
    expect(r.bodyCollections.runs).toBeGreaterThanOrEqual(1);
    expect(r.bodyCollections.spentMs).toBeGreaterThanOrEqual(0);
    expect(r.idleCollections.runs).toBeGreaterThanOrEqual(1);
    // In the binary the idle step also drops code it can load back from the embedded bytecode,
    // in the lanes' VMs too (src/util/idle-collections.ts).
    expect(r.idleCollections.shrinks).toBe(true);
    for (const [, lane] of lanes) expect(lane.extra.idleCollections.shrinks).toBe(true);
    // Built with a bytecode order recorded on a training run (scripts/binary-order.mjs): most of
    // the functions this daemon loaded lie in the profile's hot part.
    const order = r.bun.bytecodeOrder;
    expect(order).not.toBeNull();
    expect(order.hot).toBeGreaterThan(3 * (order.cold + order.unknown));
  }, 240_000);
});

// A 256-wide mapped fan-out drained end to end on a real daemon (issue 11 acceptance): bursts of at
// most 32 launches per pass, every instance run once, the fan-in after the last one.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeTree } from '../helpers/tmp.ts';
import { query, startDaemon, stopDaemon, trigger, waitRun, writeConfig } from './dag-helpers.ts';

const DAGS = (dir: string) => `
  - name: wide
    tasks:
      - id: list
        command: seq 0 255 | tr '\\n' ',' | sed 's/,$//; s/^/[/; s/$/]/' | cronstable xcom push --key ids
      - id: work
        dependsOn:
          - list
        expand:
          fromTask: list
          key: ids
        command: echo "$CRONSTABLE_DAG_MAP_ITEM" >> ${dir}/work.log
      - id: sum
        dependsOn:
          - work
        command: echo done
`;

describe('a 256-wide fan-out', () => {
  it('drains: 256 instances, each run once, then the fan-in; run success', async () => {
    const dir = writeTree({});
    writeConfig(dir, DAGS(dir));
    const d = await startDaemon(dir);
    try {
      const key = await trigger(d, 'wide');
      const started = Date.now();
      const run = await waitRun(d, 'wide', key, (r) => r.state !== 'running', 120_000);
      const seconds = (Date.now() - started) / 1000;
      expect(run.state).toBe('success');
      expect(run.mapped.work!.items).toHaveLength(256);
      const items = readFileSync(join(dir, 'work.log'), 'utf8').trim().split('\n').map(Number);
      expect(items.sort((a, b) => a - b)).toEqual(Array.from({ length: 256 }, (_, i) => i));
      const counts = query<{ state: string; n: number }>(
        dir,
        "SELECT state, count(*) AS n FROM dag_tasks WHERE dag = 'wide' AND run_key = ? GROUP BY state ORDER BY state",
        key,
      );
      expect(counts).toEqual([
        { state: 'expanded', n: 1 },
        { state: 'success', n: 258 },
      ]);
      const last = Math.max(
        ...Object.values(run.tasks)
          .filter((t) => t.id === 'work')
          .map((t) => t.finishedAt!),
      );
      expect(run.tasks.sum!.startedAt!).toBeGreaterThanOrEqual(last);
      console.log(`256-wide fan-out drained in ${seconds.toFixed(1)} s`);
    } finally {
      expect(await stopDaemon(d)).toBe(0);
    }
  }, 150_000);
});

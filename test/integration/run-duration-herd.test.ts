// Issue 33 item 14: runs that start together (a herd at :00, launched through the spawner process)
// report the time their processes took, on a real daemon with real child processes: a `sleep 0.2`
// never reports less than 200 ms, and a run of `true` never reports the ~0.01 ms that only the
// gap between two frames of one pipe read measures.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type E2eDaemon, startE2eDaemon, tearDownE2e } from '../helpers/e2e-daemon.ts';
import { freePort } from '../helpers/etcd.ts';
import { writeTree } from '../helpers/tmp.ts';
import { until } from '../helpers/until.ts';

const SLEEPERS = ['s1', 's2', 's3', 's4'];
const QUICK = ['q1', 'q2', 'q3', 'q4', 'q5', 'q6'];

describe('durations of runs fired at the same instant', () => {
  let daemon: E2eDaemon | null = null;
  let dir = '';
  afterAll(() => tearDownE2e(null, daemon, dir));

  it('each run reports at least what its process took', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    dir = writeTree({});
    const job = (name: string, command: string) => [
      `  - name: ${name}`,
      `    command: ${JSON.stringify(command)}`,
      '    schedule: "*/2 * * * * * *"',
    ];
    writeFileSync(
      join(dir, 'cronstable.yaml'),
      [
        'jobs:',
        ...SLEEPERS.flatMap((n) => job(n, 'sleep 0.2')),
        ...QUICK.flatMap((n) => job(n, 'true')),
        'web:',
        '  listen:',
        `    - ${base}`,
        '',
      ].join('\n'),
    );
    daemon = await startE2eDaemon(dir, { base });
    type Row = { name: string; last_run: { duration: number | null; started_at: string | null } | null };
    const rows = await until('every job to have finished a run', 30_000, async () => {
      const all = (await (await fetch(`${base}/jobs`)).json()) as Row[];
      return all.every((r) => r.last_run?.duration != null) ? all : null;
    });
    const byName = new Map(rows.map((r) => [r.name, r.last_run!.duration!]));
    for (const n of SLEEPERS) expect(byName.get(n), n).toBeGreaterThanOrEqual(0.2);
    // fork + exec of /bin/true takes far more than 0.1 ms on any machine
    for (const n of QUICK) expect(byName.get(n), n).toBeGreaterThan(0.0001);
  });
});

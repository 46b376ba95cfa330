// Issue 33 item 15: a daemon with a `state:` section reloads each job's retained runs from the
// run ledger at start-up, so `GET /jobs/NAME/runs` (and the dashboards' History) lists the runs
// from before a restart with their outcomes, exit codes and times.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/fleet/ports.ts';
import { stopChild } from '../helpers/child.ts';
import { type E2eDaemon, startE2eDaemon } from '../helpers/e2e-daemon.ts';
import { writeTree } from '../helpers/tmp.ts';
import { until } from '../helpers/until.ts';

interface Run {
  id: string;
  outcome: string;
  exit_code: number | null;
  started_at: string | null;
  finished_at: string | null;
}

describe('job history across a restart', () => {
  const dir = writeTree({ 'keep.txt': '' }, true);
  let daemon: E2eDaemon | null = null;
  afterAll(async () => {
    await stopChild(daemon?.child);
  });

  async function start(port: number): Promise<string> {
    const base = `http://127.0.0.1:${port}`;
    daemon = await startE2eDaemon(dir, { base });
    return base;
  }
  const runsOf = async (base: string, job: string) =>
    ((await (await fetch(`${base}/jobs/${job}/runs`)).json()) as { runs: Run[] }).runs;

  it('lists the runs from before the restart with their outcomes, exit codes and times', async () => {
    const state = join(dir, 'state');
    mkdirSync(state);
    const port = await freePort();
    writeFileSync(
      join(dir, 'cronstable.yaml'),
      [
        'jobs:',
        '  - name: good',
        '    command: "true"',
        '    schedule: "0 0 1 1 *"',
        '  - name: bad',
        '    command: "exit 3"',
        '    schedule: "0 0 1 1 *"',
        'web:',
        '  listen:',
        `    - http://127.0.0.1:${port}`,
        'state:',
        `  path: ${state}`,
        '  topology: single-node',
        '',
      ].join('\n'),
    );
    let base = await start(port);
    const fire = async (job: string, n: number) => {
      const before = (await runsOf(base, job)).length;
      await fetch(`${base}/jobs/${job}/start`, { method: 'POST' });
      await until(`run ${n} of ${job}`, 10_000, async () =>
        (await runsOf(base, job)).length > before ? true : null,
      );
    };
    for (let n = 1; n <= 3; n++) await fire('good', n);
    for (let n = 1; n <= 2; n++) await fire('bad', n);
    const goodBefore = await runsOf(base, 'good');
    const badBefore = await runsOf(base, 'bad');
    expect(goodBefore.map((r) => [r.outcome, r.exit_code])).toEqual([
      ['success', 0],
      ['success', 0],
      ['success', 0],
    ]);
    expect(badBefore.map((r) => [r.outcome, r.exit_code])).toEqual([
      ['failure', 3],
      ['failure', 3],
    ]);
    // The ledger is written in the background: wait until the store holds every run.
    await until('the ledger rows', 10_000, async () => {
      const db = new Database(join(state, 'cronstable.db'), { readonly: true });
      try {
        const { n } = db.prepare('SELECT count(*) AS n FROM runs WHERE run_id IS NOT NULL').get() as {
          n: number;
        };
        return n === 5 ? true : null;
      } finally {
        db.close();
      }
    });
    await stopChild(daemon?.child);
    daemon = null;

    base = await start(port);
    const pick = (r: Run) => ({
      id: r.id,
      outcome: r.outcome,
      exit_code: r.exit_code,
      started_at: r.started_at,
      finished_at: r.finished_at,
    });
    const good = await until('the restored history of good', 10_000, async () => {
      const runs = await runsOf(base, 'good');
      return runs.length >= 3 ? runs : null;
    });
    expect(good.map(pick)).toEqual(goodBefore.map(pick));
    expect((await runsOf(base, 'bad')).map(pick)).toEqual(badBefore.map(pick));
  });
});

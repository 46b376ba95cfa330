// Crash-resume and graceful stop (spec 04 §7.3, §7.7) on real daemon processes sharing one store:
// kill -9 mid fan-out, restart, and every instance ran once per attempt (counted from the store and
// from the tasks' own start markers); SIGTERM mid-run lets the tasks finish and hands the run over.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/sinks.ts';
import { writeTree } from '../helpers/tmp.ts';
import {
  BUNDLE,
  type Daemon,
  query,
  type RunDoc,
  startDaemon,
  stopDaemon,
  trigger,
  waitRun,
  writeConfig,
} from './dag-helpers.ts';

const DAGS = (dir: string) => `
  - name: crashy
    tasks:
      - id: discover
        command: echo "start $CRONSTABLE_DAG_TASKKEY $CRONSTABLE_ATTEMPT" >> ${dir}/starts.log; echo '["a", "b", "c"]' | cronstable xcom push --key items
      - id: load
        dependsOn:
          - discover
        expand:
          fromTask: discover
          key: items
        retries: 1
        command: echo "start $CRONSTABLE_DAG_TASKKEY $CRONSTABLE_ATTEMPT" >> ${dir}/starts.log; sleep 3
      - id: verify
        dependsOn:
          - load
        command: echo "start $CRONSTABLE_DAG_TASKKEY $CRONSTABLE_ATTEMPT" >> ${dir}/starts.log
`;

const starts = (dir: string) =>
  readFileSync(join(dir, 'starts.log'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.replace(/^start /, ''));

// Six-second advance leases (the daemon's test hook; renewal and adoption scale with it): the
// restarted daemon adopts a dead holder's run in seconds rather than the spec's 30-60 s.
const FAST_LEASES = { CRONSTABLE_TEST_DAG_LEASE_SECONDS: '6' };

const loadsRunning = (r: RunDoc) =>
  [0, 1, 2].every((i) => r.tasks[`load#${i}`]?.state === 'running' && r.tasks[`load#${i}`]?.pid !== null);

describe('DAG runs survive their daemon', () => {
  it('kill -9 mid fan-out: a restarted daemon adopts the run, retries the interrupted instances once', async () => {
    const dir = writeTree({});
    writeConfig(dir, DAGS(dir));
    let d: Daemon = await startDaemon(dir, FAST_LEASES);
    const key = await trigger(d, 'crashy');
    await waitRun(d, 'crashy', key, loadsRunning);
    d.child.kill('SIGKILL');
    await d.exit;
    d = await startDaemon(dir, FAST_LEASES);
    try {
      // The dead holder's lease lapses within its TTL; the next adoption scan (as often) takes it.
      expect(d.err).toMatch(/test hook CRONSTABLE_TEST_DAG_LEASE_SECONDS=6/);
      const run = await waitRun(d, 'crashy', key, (r) => r.state !== 'running', 110_000);
      expect(run.state).toBe('success');
      for (const i of [0, 1, 2]) {
        const t = run.tasks[`load#${i}`]!;
        expect(t.state).toBe('success');
        expect(t.attempt).toBe(1); // reconciled-crash consumed one attempt
      }
      expect(run.tasks.discover!.attempt).toBe(0);
      expect(run.tasks.verify!.attempt).toBe(0);
      expect(d.err).toMatch(/reconciled load#/);
      // Once per attempt: no (instance, attempt) started twice, and every attempt the store counts started.
      const seen = starts(dir);
      expect(new Set(seen).size).toBe(seen.length);
      const rows = query<{ task_key: string; attempt: number }>(
        dir,
        "SELECT task_key, attempt FROM dag_tasks WHERE dag = 'crashy' AND run_key = ? AND mapped = 0",
        key,
      );
      const expected = rows.flatMap((r) =>
        Array.from({ length: r.attempt + 1 }, (_, a) => `${r.task_key} ${a}`),
      );
      expect(seen.sort()).toEqual(expected.sort());
    } finally {
      expect(await stopDaemon(d)).toBe(0);
    }
  }, 150_000);

  it('SIGTERM mid-run: running tasks finish, the lease is released, the next daemon finishes the run', async () => {
    const dir = writeTree({});
    writeConfig(dir, DAGS(dir));
    let d: Daemon = await startDaemon(dir);
    const key = await trigger(d, 'crashy');
    await waitRun(d, 'crashy', key, loadsRunning);
    expect(await stopDaemon(d)).toBe(0);
    const mid = query<{ task_key: string; state: string }>(
      dir,
      "SELECT task_key, state FROM dag_tasks WHERE dag = 'crashy' AND run_key = ? AND task_key LIKE 'load#%'",
      key,
    );
    expect(mid.map((r) => r.state)).toEqual(['success', 'success', 'success']);
    const lease = query<{ expires_at: number }>(
      dir,
      'SELECT expires_at FROM leases WHERE name = ?',
      `dagadvance/crashy/${key}`,
    );
    expect(lease[0]!.expires_at).toBe(0);
    d = await startDaemon(dir);
    try {
      const run = await waitRun(d, 'crashy', key, (r) => r.state !== 'running', 20_000);
      expect(run.state).toBe('success');
      for (const i of [0, 1, 2]) expect(run.tasks[`load#${i}`]!.attempt).toBe(0);
      await waitFor(() => starts(dir).includes('verify 0'), 5000, 'verify');
      expect(d.err).not.toMatch(/reconciled/);
    } finally {
      expect(await stopDaemon(d)).toBe(0);
    }
  }, 60_000);

  it('the lease test hook takes only 3 to 30 whole seconds, and says why it refuses', () => {
    const dir = writeTree({});
    writeConfig(dir, DAGS(dir));
    for (const bad of ['2', '31', '1.5', 'soon']) {
      const r = spawnSync(process.execPath, [BUNDLE, '-c', join(dir, 'cronstable.yaml')], {
        env: { ...process.env, CRONSTABLE_TEST_DAG_LEASE_SECONDS: bad },
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(
        `CRONSTABLE_TEST_DAG_LEASE_SECONDS: '${bad}' is not a whole number of seconds from 3 to 30`,
      );
    }
  });
});

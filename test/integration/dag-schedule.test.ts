// Scheduled DAG runs and catch-up (spec 04 §8.1-§8.2) on a real daemon: one run per instant with the
// deterministic key, and after a stop, the missed instants replayed as `catchup` runs with no gap and
// no duplicate.
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/sinks.ts';
import { writeTree } from '../helpers/tmp.ts';
import { type Daemon, query, startDaemon, stopDaemon, writeConfig } from './dag-helpers.ts';

const DAGS = `
  - name: ticker
    schedule: "*/2 * * * * * *"
    onMissed: run-all
    startingDeadlineSeconds: 60
    retainRuns: 500
    tasks:
      - id: tick
        command: echo tick
`;

interface Row {
  run_key: string;
  kind: string;
  logical_date: string;
  state: string;
}

const rows = (dir: string) =>
  query<Row>(
    dir,
    "SELECT run_key, kind, logical_date, state FROM dag_runs WHERE dag = 'ticker' ORDER BY logical_date",
  );

describe('scheduled DAG runs', () => {
  it('fires once per instant and replays the instants missed while stopped', async () => {
    const dir = writeTree({});
    writeConfig(dir, DAGS);
    let d: Daemon = await startDaemon(dir);
    await waitFor(
      () => rows(dir).filter((r) => r.state === 'success').length >= 2,
      15_000,
      'two scheduled runs',
    );
    expect(await stopDaemon(d)).toBe(0);
    const before = rows(dir);
    expect(before.every((r) => r.kind === 'scheduled')).toBe(true);
    for (const r of before) {
      expect(r.logical_date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:[0-5][02468]\+00:00$/);
      expect(r.run_key).toBe(r.logical_date.replace('+', '_'));
    }
    await new Promise((r) => setTimeout(r, 5000));
    d = await startDaemon(dir);
    try {
      await waitFor(() => rows(dir).some((r) => r.kind === 'catchup'), 10_000, 'catch-up runs');
      await waitFor(
        () => rows(dir).filter((r) => r.kind === 'scheduled').length > before.length,
        10_000,
        'a new fire',
      );
      const all = rows(dir);
      // Every even second from the first run to the last has exactly one run: no gap, no duplicate.
      const ms = all.map((r) => Date.parse(r.logical_date));
      for (let i = 1; i < ms.length; i++) expect(ms[i]! - ms[i - 1]!).toBe(2000);
      expect(all.filter((r) => r.kind === 'catchup').length).toBeGreaterThanOrEqual(2);
      expect(d.err).toMatch(/dag \S+: catch-up replaying \d+ missed run\(s\)/);
    } finally {
      expect(await stopDaemon(d)).toBe(0);
    }
  }, 60_000);
});

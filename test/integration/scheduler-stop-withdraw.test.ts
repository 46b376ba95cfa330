// A daemon stopped with launches still queued on a spawner process (an overloaded node) takes them
// back instead of starting them during the stop: each is recorded once, as a cancelled run that
// never started, and the stop does not wait for them. Real launches through a real spawner that
// starts reading late; the scheduler's clock is a fake one (no wall-clock waits for the schedule).
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { launch, SpawnerProcess } from '../../src/exec/index.ts';
import { spawnerScript } from '../../src/exec/spawner-script.ts';
import { WITHDRAWN_AT_STOP } from '../../src/scheduler/firebook.ts';
import type { RunRecord } from '../../src/scheduler/history.ts';
import { Scheduler } from '../../src/scheduler/scheduler.ts';
import { FakeClock } from '../../src/util/clock.ts';
import { Logger, type LogRecord, setSink } from '../../src/util/log.ts';
import { writeTree } from '../helpers/tmp.ts';

// The spawner sleeps before its first read: every launch of the herd is still queued at the stop.
const late = new SpawnerProcess({
  idleMs: 1000,
  command: ['/bin/sh', '-c', `sleep 0.5; exec perl -e "$0"`, spawnerScript()],
});
afterAll(() => late.close());

describe('stopping with launches queued on the spawner', () => {
  it('withdraws them: recorded once as cancelled runs that never started, the slots settled', async () => {
    const start = Date.parse('2026-01-07T12:00:00.500Z');
    const names = Array.from({ length: 30 }, (_, i) => `j${i}`);
    const dir = writeTree({
      'c.yaml': `jobs:\n${names.map((n) => `  - name: ${n}\n    command: echo ${n}\n    schedule: "* * * * * * *"\n`).join('')}`,
    });
    const clock = new FakeClock(start);
    const logs: string[] = [];
    setSink((r: LogRecord) => logs.push(`${r.levelName} ${r.message}`));
    const scheduler = new Scheduler({
      clock,
      log: new Logger('cronstable'),
      launch: (spec, opts) => launch(spec, { ...opts, spawner: late.spawn }),
      report: async () => {},
    });
    const runs: RunRecord[] = [];
    const slots: { job: string; outcome: string }[] = [];
    scheduler.subscribe((e) => {
      if (e.type === 'run-finished') runs.push(e.run);
      if (e.type === 'slot' && e.slot.outcome !== 'running')
        slots.push({ job: e.slot.job, outcome: e.slot.outcome });
    });
    scheduler.load(loadConfig(join(dir, 'c.yaml'), { nowMs: start }).jobs);
    scheduler.start();
    await clock.advance(1_000);
    expect(scheduler.runningCount()).toBe(names.length);
    await scheduler.stop(60_000);
    expect(runs.map((r) => r.job).sort()).toEqual([...names].sort());
    for (const r of runs) {
      expect(r.outcome).toBe('cancelled');
      expect(r.failReason).toBe(WITHDRAWN_AT_STOP);
      expect(r.stdout).toBeNull();
    }
    expect(slots.filter((s) => s.outcome === 'cancelled')).toHaveLength(names.length);
    expect(late.backlog).toBe(0);
    expect(logs.filter((l) => l.endsWith(WITHDRAWN_AT_STOP))).toHaveLength(names.length);
    expect(logs.filter((l) => l.startsWith('ERROR'))).toEqual([]);
  });
});

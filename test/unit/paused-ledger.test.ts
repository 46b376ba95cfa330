// A slot a pause held, in the durable run ledger (spec 10 §1.3, §1.5; issue 32): the row's shape, its
// share of maxRunsPerJob, its way back into a restarted daemon's `/runs` history, and the readers that
// must not take it for a run (onlyIfLastSucceeded, a retry's superseded-by-run check). A real SQLite
// store (inline lane) and a fake clock.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import type { SchedulerControl } from '../../src/scheduler/control.ts';
import type { StoreSide } from '../../src/scheduler/durable/context.ts';
import { restoreHistories, skipFromLedger } from '../../src/scheduler/durable/history-restore.ts';
import { lastOutcomeFromLedger } from '../../src/scheduler/durable/last-outcome.ts';
import {
  latestFinishBefore,
  latestRunFinish,
  successReference,
} from '../../src/scheduler/durable/ledger-scan.ts';
import { RetryRecords } from '../../src/scheduler/durable/retry-records.ts';
import { RunLedger } from '../../src/scheduler/durable/run-ledger.ts';
import { JobHistory, type RunRecord, type SkipRow } from '../../src/scheduler/history.ts';
import { openStore } from '../../src/store/index.ts';
import type { Store } from '../../src/store/types.ts';
import { FakeClock } from '../../src/util/clock.ts';
import { Logger } from '../../src/util/log.ts';
import { writeTree } from '../helpers/tmp.ts';

const T0 = Date.parse('2026-05-01T10:00:00.000Z');
let store: Store | null = null;
afterEach(async () => {
  await store?.close();
  store = null;
});

async function side(): Promise<StoreSide & { clock: FakeClock }> {
  const dir = writeTree({ 'keep.txt': '' });
  store = await openStore({
    path: dir,
    namespace: 'default',
    topology: 'single-node',
    inline: true,
    writer: 'a#1',
  });
  return {
    store,
    clock: new FakeClock(T0),
    log: new Logger('cronstable'),
    host: 'a',
    onStoreUnavailable: 'degrade',
  };
}

const paused = (at: number) => ({
  job: 'j',
  scheduledAt: at,
  outcome: 'paused' as const,
  runId: null,
  detail: 'x',
});
const rows = async (s: Store) => (await s.list('runs/j')).map((r) => r.data as Record<string, unknown>);
const settle = () => new Promise((r) => setTimeout(r, 20));

describe('the ledger row of a paused slot', () => {
  it('is the synthetic run row: skipped, skip_reason paused, nothing started, finished at the skip', async () => {
    const s = await side();
    new RunLedger(s, 1000).slotSettled(paused(T0 - 1000));
    await settle();
    expect(await rows(s.store)).toEqual([
      {
        outcome: 'skipped',
        skip_reason: 'paused',
        exit_code: null,
        started_at: null,
        finished_at: new Date(T0).toISOString(),
        duration: null,
        fail_reason: null,
        resources: null,
        run_id: null,
        trigger: 'schedule',
        attempt: 0,
        scheduled_at: new Date(T0 - 1000).toISOString(),
      },
    ]);
  });

  it('counts against maxRunsPerJob like any row', async () => {
    const s = await side();
    const ledger = new RunLedger(s, 3);
    for (let i = 0; i < 5; i++) {
      ledger.slotSettled(paused(T0 + i * 1000));
      await settle();
    }
    const kept = await rows(s.store);
    expect(kept).toHaveLength(3);
    expect(kept.map((r) => r.scheduled_at)).toEqual(
      [2, 3, 4].map((i) => new Date(T0 + i * 1000).toISOString()),
    );
  });
});

describe('a restarted daemon’s history', () => {
  it('gets the skips back beside the runs, in finish order, and never lists a slot twice', async () => {
    const s = await side();
    await s.store.append('runs/j', {
      outcome: 'failure',
      run_id: 'r1',
      finished_at: new Date(T0).toISOString(),
      scheduled_at: new Date(T0).toISOString(),
    });
    const ledger = new RunLedger(s, 1000);
    s.clock.jumpWall(2000);
    ledger.slotSettled(paused(T0 + 2000));
    await settle();
    const restored: { runs: readonly RunRecord[]; skips: readonly SkipRow[] }[] = [];
    const h = new JobHistory();
    // This process already skipped the same slot: the restore must not add it again.
    h.addSkip({ job: 'j', scheduledAt: T0 + 2000, finishedAt: T0 + 2000, reason: 'paused' });
    await restoreHistories(s, {
      restoreHistory: (_n: string, runs: readonly RunRecord[], skips: readonly SkipRow[] = []) => {
        restored.push({ runs, skips });
        h.restore(runs, skips);
      },
    } as unknown as SchedulerControl);
    expect(restored[0]!.skips).toEqual([
      { job: 'j', scheduledAt: T0 + 2000, finishedAt: T0 + 2000, reason: 'paused' },
    ]);
    expect(h.recentRows().map((r) => ('run' in r ? r.run.outcome : 'skipped'))).toEqual([
      'failure',
      'skipped',
    ]);
    expect(h.lastRun()?.id).toBe('r1');
  });

  it('reads only pause rows as skips', () => {
    expect(skipFromLedger('j', { outcome: 'skipped:overlap', finished_at: 'x' })).toBeNull();
    expect(
      skipFromLedger('j', { outcome: 'skipped', skip_reason: 'paused', finished_at: 'nope' }),
    ).toBeNull();
  });
});

describe('readers that want runs', () => {
  function jobWith(extra = '') {
    const dir = writeTree({
      'c.yaml': `jobs:\n  - name: j\n    command: x\n    schedule: "* * * * * * *"\n${extra}`,
    });
    return loadConfig(join(dir, 'c.yaml'), { nowMs: T0 }).jobs[0]!;
  }

  it('onlyIfLastSucceeded ignores skipped rows, however many follow the last real run', async () => {
    const s = await side();
    await s.store.append('runs/j', {
      outcome: 'failure',
      run_id: 'r1',
      finished_at: new Date(T0).toISOString(),
    });
    const ledger = new RunLedger(s, 1000);
    for (let i = 1; i <= 60; i++) {
      s.clock.jumpWall(1000);
      ledger.slotSettled(paused(T0 + i * 1000));
    }
    await settle();
    expect(await lastOutcomeFromLedger(s, jobWith('    onlyIfLastSucceeded: true\n'), null)).toBe('failure');
  });

  it('a durable retry skipped slots came after is armed again; a later run supersedes it', async () => {
    const s = await side();
    const j = jobWith(
      '    onFailure:\n      retry:\n        maximumRetries: 3\n        initialDelay: 5\n        maximumDelay: 60\n        backoffMultiplier: 2\n',
    );
    const earlier = new RetryRecords(s, 'boot-1', new Date(T0 - 60_000).toISOString());
    s.clock.jumpWall(-30_000);
    earlier.armed(j, 1, T0 + 5000);
    await settle();
    s.clock.jumpWall(30_000);
    const ledger = new RunLedger(s, 1000);
    for (let i = 0; i < 3; i++) ledger.slotSettled(paused(T0 + i));
    await settle();
    const rearmed: number[] = [];
    const control = { rearmRetry: (_n: string, attempt: number) => rearmed.push(attempt) > 0 };
    const now = new RetryRecords(s, 'boot-1', new Date(T0).toISOString());
    await now.rearm(control as unknown as SchedulerControl, j);
    expect(rearmed).toEqual([1]);
    // A real run after the retry was armed does supersede it.
    await s.store.append('runs/j', {
      outcome: 'success',
      run_id: 'r9',
      finished_at: new Date(T0).toISOString(),
    });
    await now.rearm(control as unknown as SchedulerControl, j);
    await settle();
    expect(rearmed).toEqual([1]);
    expect((await s.store.newest('retries/j'))?.data).toMatchObject({
      kind: 'settled',
      reason: 'superseded-by-run',
    });
  });

  it('a retry is superseded by a later run, never by a later skip', () => {
    const at = (ms: number) => new Date(ms).toISOString();
    const skip = { outcome: 'skipped', finished_at: at(T0 + 5000) };
    expect(latestRunFinish([skip, { outcome: 'failure', finished_at: at(T0) }])).toBe(at(T0));
    expect(latestRunFinish([skip, { outcome: 'missed', finished_at: at(T0 + 9000) }])).toBeNull();
  });

  it('the catch-up watermark: the latest finish of any row strictly before the start', () => {
    const at = (ms: number) => new Date(ms).toISOString();
    const rows = [
      { outcome: 'no-quorum', finished_at: at(T0 + 9000) },
      { outcome: 'success', finished_at: at(T0 + 1000) },
      { outcome: 'missed', finished_at: at(T0 + 2000) },
      { outcome: 'failure', finished_at: at(T0 + 5000) },
    ];
    expect(latestFinishBefore(rows, at(T0 + 5000))).toBe(at(T0 + 2000));
    expect(latestFinishBefore(rows, at(T0 + 10_000))).toBe(at(T0 + 9000));
    expect(latestFinishBefore(rows, at(T0 + 1000))).toBeNull();
  });

  it('the SLA reference from the ledger: the newest success, else the oldest finish of any row', () => {
    const at = (ms: number) => new Date(ms).toISOString();
    expect(
      successReference([
        { outcome: 'failure', finished_at: at(T0 + 3000) },
        { outcome: 'success', finished_at: at(T0 + 1000) },
        { outcome: 'success', finished_at: at(T0) },
      ]),
    ).toEqual({ at: T0 + 1000, success: true });
    expect(
      successReference([
        { outcome: 'skipped', finished_at: at(T0 + 3000) },
        { outcome: 'failure', finished_at: at(T0 - 5000) },
        { outcome: 'failure', finished_at: 'garbage' },
      ]),
    ).toEqual({ at: T0 - 5000, success: false });
    expect(successReference([])).toBeNull();
  });
});

// Spec 09 §9.3, the pure side: a firing pass 10 s or more behind is a gap (one `scheduled` run at most,
// for a matching current slot, then the index moves past now); the catch-up starts from the watermark
// or an older open checkpoint, counts the 100-run overflow, and waits the per-DAG crc32 jitter.
import { describe, expect, it } from 'vitest';
import { catchupRuns } from '../../src/dag/backfill.ts';
import {
  forwardFires,
  GAP_MS,
  gapWarning,
  jitterOffsetMs,
  overflowWarning,
  parseCheckpoint,
  planCatchup,
  replayInfo,
} from '../../src/dag/catchup.ts';
import { loadDags } from './dag-fixtures.ts';

const at = (iso: string) => Date.parse(iso);

const dagOf = (extra: string, schedule = '"* * * * *"') =>
  loadDags(
    `  - name: orders-etl\n    schedule: ${schedule}\n${extra}    tasks:\n      - id: a\n        command: x\n`,
  )[0]!;

describe('forward firing across a gap (spec 09 §9.3)', () => {
  const dag = dagOf('    onMissed: skip\n');

  it('within 10 s of next: every due instant, as before', () => {
    const next = at('2026-07-05T09:03:00Z');
    const p = forwardFires(dag, next, next + GAP_MS - 1);
    expect(p.gapMs).toBeNull();
    expect(p.runs.map((r) => r.runKey)).toEqual(['2026-07-05T09:03:00_00:00']);
    expect(p.next).toBe(at('2026-07-05T09:04:00Z'));
  });

  it('vector 42: a 30-minute jump gives one scheduled run for the current slot, and moves past now', () => {
    const next = at('2026-07-05T09:04:00Z');
    const now = at('2026-07-05T09:34:00.400Z');
    const p = forwardFires(dag, next, now);
    expect(p.gapMs).toBe(30 * 60_000 + 400);
    expect(p.runs).toEqual([
      {
        runKey: '2026-07-05T09:34:00_00:00',
        logicalDate: '2026-07-05T09:34:00+00:00',
        kind: 'scheduled',
        at: at('2026-07-05T09:34:00Z'),
      },
    ]);
    expect(p.next).toBe(at('2026-07-05T09:35:00Z'));
    expect(gapWarning(dag, p.gapMs!)).toBe(
      'dag orders-etl: its next fire fell 1800s behind (a slow pass, stall, suspend, or clock change); resuming at the current slot and leaving the gap to onMissed=skip instead of replaying it',
    );
  });

  it('no scheduled run when the current slot is not a fire instant', () => {
    const hourly = dagOf('', '"0 * * * *"');
    const p = forwardFires(hourly, at('2026-07-05T09:00:00Z'), at('2026-07-05T09:30:10Z'));
    expect(p.gapMs).not.toBeNull();
    expect(p.runs).toEqual([]);
    expect(p.next).toBe(at('2026-07-05T10:00:00Z'));
  });

  it('a seconds schedule truncates now to the second', () => {
    const secs = loadDags(
      '  - name: s\n    schedule:\n      second: "*/5"\n    tasks:\n      - id: a\n        command: x\n',
    )[0]!;
    const p = forwardFires(secs, at('2026-07-05T09:00:00Z'), at('2026-07-05T09:01:10.700Z'));
    expect(p.runs.map((r) => r.logicalDate)).toEqual(['2026-07-05T09:01:10+00:00']);
    expect(forwardFires(secs, at('2026-07-05T09:00:00Z'), at('2026-07-05T09:01:11Z')).runs).toEqual([]);
  });

  it('nothing before next, nothing without a schedule', () => {
    expect(forwardFires(dag, at('2026-07-05T09:05:00Z'), at('2026-07-05T09:04:00Z')).runs).toEqual([]);
    expect(forwardFires(dag, null, at('2026-07-05T09:04:00Z'))).toEqual({
      runs: [],
      next: null,
      gapMs: null,
    });
  });
});

describe('the catch-up plan (spec 09 §9.3)', () => {
  const runAll = dagOf('    onMissed: run-all\n    catchupJitterSeconds: 20\n');

  it('vector 42: orders-etl waits 4.871 s (crc32 of the bare name mod 20 000 ms)', () => {
    expect(jitterOffsetMs('orders-etl', 20)).toBe(4871);
    expect(jitterOffsetMs('orders-etl', 0)).toBe(0);
    const plan = planCatchup(
      runAll,
      at('2026-07-05T09:04:00Z'),
      null,
      at('2026-07-05T09:34:00.4Z'),
      at('2026-07-05T09:34:00Z'),
    );
    expect(plan.offsetMs).toBe(4871);
    // 09:05 ... 09:33: the gap, without the slot the pass already created.
    expect(plan.runs).toHaveLength(29);
    expect(plan.runs[0]!.runKey).toBe('2026-07-05T09:05:00_00:00');
    expect(plan.runs.at(-1)!.runKey).toBe('2026-07-05T09:33:00_00:00');
    expect(plan.runs.every((r) => r.kind === 'catchup')).toBe(true);
    expect(plan.watermark).toBe(at('2026-07-05T09:04:00Z'));
    expect(replayInfo(runAll, 29, plan.offsetMs)).toBe(
      'dag orders-etl: catch-up replaying 29 missed run(s) after a 4.9s jitter offset',
    );
    expect(replayInfo(runAll, 3, 0)).toBe('dag orders-etl: catch-up replaying 3 missed run(s)');
  });

  it('an older open checkpoint lowers the watermark; a newer one does not', () => {
    const now = at('2026-07-05T10:00:30Z');
    const open = parseCheckpoint({ kind: 'open', watermark: '2026-07-05T09:55:00+00:00', at: 'x' });
    expect(open).toEqual({ kind: 'open', watermark: at('2026-07-05T09:55:00Z') });
    const lowered = planCatchup(runAll, at('2026-07-05T09:58:00Z'), open, now);
    expect(lowered.watermark).toBe(at('2026-07-05T09:55:00Z'));
    expect(lowered.runs.map((r) => r.logicalDate.slice(11, 16))).toEqual([
      '09:56',
      '09:57',
      '09:58',
      '09:59',
      '10:00',
    ]);
    expect(lowered.resumed).toBe(true);
    const kept = planCatchup(
      runAll,
      at('2026-07-05T09:58:00Z'),
      { kind: 'open', watermark: at('2026-07-05T09:59:00Z') },
      now,
    );
    expect(kept.watermark).toBe(at('2026-07-05T09:58:00Z'));
    // A close record changes nothing.
    expect(
      planCatchup(runAll, at('2026-07-05T09:58:00Z'), { kind: 'close', watermark: 0 }, now).watermark,
    ).toBe(at('2026-07-05T09:58:00Z'));
  });

  it('an open checkpoint with nothing missed is closed; no runs ever means no catch-up', () => {
    const now = at('2026-07-05T10:00:30Z');
    const open = { kind: 'open' as const, watermark: at('2026-07-05T10:00:00Z') };
    const p = planCatchup(runAll, at('2026-07-05T10:00:00Z'), open, now);
    expect(p.runs).toEqual([]);
    expect(p.closeOnly).toBe(true);
    expect(planCatchup(runAll, null, null, now)).toMatchObject({ runs: [], closeOnly: false });
  });

  it('skip replays nothing; run-once the newest instant; over 100 missed warns for run-all only', () => {
    const now = at('2026-07-05T12:00:30Z');
    const from = at('2026-07-05T09:00:00Z');
    expect(planCatchup(dagOf('    onMissed: skip\n'), from, null, now).runs).toEqual([]);
    const once = planCatchup(dagOf('    onMissed: run-once\n'), from, null, now);
    expect(once.runs.map((r) => r.runKey)).toEqual(['2026-07-05T12:00:00_00:00']);
    expect(once.overflow).toBe(false);
    const all = planCatchup(runAll, from, null, now);
    expect(all.runs).toHaveLength(100);
    expect(all.overflow).toBe(true);
    expect(planCatchup(runAll, at('2026-07-05T11:00:00Z'), null, now).overflow).toBe(false);
    expect(overflowWarning(runAll)).toBe(
      'dag catch-up: orders-etl missed at least 100 runs; replaying 100 and dropping the rest (set startingDeadlineSeconds to bound the window, or use onMissed: run-once)',
    );
    // The starting deadline bounds the window (and the overflow).
    const bounded = dagOf('    onMissed: run-all\n    startingDeadlineSeconds: 600\n');
    expect(planCatchup(bounded, from, null, now)).toMatchObject({ overflow: false });
    expect(planCatchup(bounded, from, null, now).runs).toEqual(catchupRuns(bounded, from, now));
  });

  it('reads only well-formed checkpoint records', () => {
    expect(parseCheckpoint(null)).toBeNull();
    expect(parseCheckpoint({ kind: 'opened', watermark: '2026-07-05T09:00:00Z' })).toBeNull();
    expect(parseCheckpoint({ kind: 'open', watermark: 'soon' })).toBeNull();
  });
});

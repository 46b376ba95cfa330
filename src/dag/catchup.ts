// DAG catch-up across gaps and with jitter (spec 09 §9.3), pure: what a firing pass does when its next
// instant fell 10 s or more behind (a stall, a suspend, a clock jump), which missed instants a catch-up
// replays from the watermark or an interrupted checkpoint, and the per-DAG jitter every node computes
// alike. The engine reads the store and the clock and acts on these answers (engine/catchup-runner.ts).
import type { DagConfig } from '../config/types.ts';
import { nextFire, occurrences } from '../schedule/index.ts';
import { crc32 } from '../util/crc32.ts';
import { parseIsoInstant } from '../util/instant.ts';
import { catchupRuns, dueFires, MAX_RUNS_PER_CALL, type RunToCreate } from './backfill.ts';
import { logicalDateOf, runKeyAt } from './runkey.ts';

/** A next instant this far behind now is a gap, not a slow pass. */
export const GAP_MS = 10_000;

/** The stream of a DAG's catch-up checkpoints (`open` before a jittered backfill, `close` after). */
export const checkpointStream = (dag: string): string => `catchup-dag/${dag}`;

/** Checkpoint records kept per DAG. */
export const CHECKPOINTS_KEPT = 8;

export interface ForwardPlan {
  runs: RunToCreate[];
  /** The index's new next instant (null: the schedule has no further fire). */
  next: number | null;
  /** Set when the pass found a gap: how far behind `next` was. */
  gapMs: number | null;
}

/**
 * One firing pass. Within 10 s of `next`: every due instant, as before (04 §8.1). A gap: at most one
 * `scheduled` run, for the current slot when the schedule matches it, and the index moves past now; the
 * gap itself is the catch-up's (onMissed), never a burst of `scheduled` runs.
 */
export function forwardFires(dag: DagConfig, next: number | null, nowMs: number): ForwardPlan {
  if (!dag.cron || next === null || next > nowMs) return { runs: [], next, gapMs: null };
  if (nowMs - next < GAP_MS) return { ...dueFires(dag, next, nowMs), gapMs: null };
  const step = dag.cron.hasSeconds ? 1000 : 60_000;
  const slot = Math.floor(nowMs / step) * step;
  const matches = nextFire(dag.cron, dag.frame, slot - 1, dag.dst) === slot;
  return {
    runs: matches
      ? [{ runKey: runKeyAt(slot), logicalDate: logicalDateOf(slot), kind: 'scheduled', at: slot }]
      : [],
    next: nextFire(dag.cron, dag.frame, nowMs, dag.dst),
    gapMs: nowMs - next,
  };
}

export function gapWarning(dag: DagConfig, gapMs: number): string {
  return `dag ${dag.name}: its next fire fell ${(gapMs / 1000).toFixed(0)}s behind (a slow pass, stall, suspend, or clock change); resuming at the current slot and leaving the gap to onMissed=${dag.onMissed} instead of replaying it`;
}

/** (crc32(UTF-8 of the name) mod (jitter × 1000)) ms: 03's job formula, on the bare DAG name. */
export function jitterOffsetMs(name: string, jitterSeconds: number): number {
  return jitterSeconds > 0 ? crc32(name) % (jitterSeconds * 1000) : 0;
}

export interface Checkpoint {
  kind: 'open' | 'close';
  /** Epoch ms. */
  watermark: number;
}

/** A checkpoint record's data, or null when it is not one. */
export function parseCheckpoint(data: unknown): Checkpoint | null {
  if (data === null || typeof data !== 'object') return null;
  const o = data as { kind?: unknown; watermark?: unknown };
  if (o.kind !== 'open' && o.kind !== 'close') return null;
  const watermark = typeof o.watermark === 'string' ? parseIsoInstant(o.watermark) : null;
  return watermark === null ? null : { kind: o.kind, watermark };
}

export interface CatchupPlan {
  runs: RunToCreate[];
  /** The watermark replayed from, before the starting deadline (what an `open` record keeps). */
  watermark: number | null;
  offsetMs: number;
  /** More than 100 instants were missed and only 100 replay (never with run-once). */
  overflow: boolean;
  /** An interrupted catch-up's `open` record with nothing left to replay: close it. */
  closeOnly: boolean;
  /** Whether the newest checkpoint is an `open` one (a resumed backfill closes it when done). */
  resumed: boolean;
}

/**
 * The catch-up (04 §8.2 plus spec 09 §9.3) as of `nowMs`: from the runs' watermark, lowered to an open
 * checkpoint's when older. `skip` replays nothing; `exclude` is an instant already created this pass
 * (a gap's current slot), left out of the count.
 */
export function planCatchup(
  dag: DagConfig,
  storedWatermark: number | null,
  checkpoint: Checkpoint | null,
  nowMs: number,
  exclude: number | null = null,
): CatchupPlan {
  const resumed = checkpoint?.kind === 'open';
  let watermark = storedWatermark;
  if (resumed && (watermark === null || checkpoint.watermark < watermark)) watermark = checkpoint.watermark;
  const runs =
    dag.onMissed === 'skip' ? [] : catchupRuns(dag, watermark, nowMs).filter((r) => r.at !== exclude);
  return {
    runs,
    watermark,
    offsetMs: jitterOffsetMs(dag.name, dag.catchupJitterSeconds),
    overflow: dag.onMissed === 'run-all' && runs.length > 0 && missedMoreThanCap(dag, watermark!, nowMs),
    closeOnly: runs.length === 0 && resumed,
    resumed,
  };
}

/** Whether more than MAX_RUNS_PER_CALL instants fall after the (deadline-bounded) watermark. */
function missedMoreThanCap(dag: DagConfig, watermark: number, nowMs: number): boolean {
  if (!dag.cron) return false;
  const after =
    dag.startingDeadlineSeconds === null
      ? watermark
      : Math.max(watermark, nowMs - dag.startingDeadlineSeconds * 1000);
  const seen = occurrences(dag.cron, dag.frame, after, {
    untilMs: nowMs,
    limit: MAX_RUNS_PER_CALL + 1,
    dst: dag.dst,
  });
  return seen.length > MAX_RUNS_PER_CALL;
}

export function replayInfo(dag: DagConfig, count: number, offsetMs: number): string {
  const jitter = offsetMs > 0 ? ` after a ${(offsetMs / 1000).toFixed(1)}s jitter offset` : '';
  return `dag ${dag.name}: catch-up replaying ${count} missed run(s)${jitter}`;
}

export function overflowWarning(dag: DagConfig): string {
  return `dag catch-up: ${dag.name} missed at least ${MAX_RUNS_PER_CALL} runs; replaying ${MAX_RUNS_PER_CALL} and dropping the rest (set startingDeadlineSeconds to bound the window, or use onMissed: run-once)`;
}

// Which runs to create, and under which keys (spec 04 §8): forward firing, catch-up (`onMissed`) and
// backfill over a window. Pure: the caller creates each run create-if-absent, which makes a repeat of the
// same window (in any offset) converge on the same documents.
import type { DagConfig } from '../config/types.ts';
import { isSupportedInstant, nextFire, occurrences, prevFire } from '../schedule/index.ts';
import { parseIsoInstant } from '../util/instant.ts';
import type { RunKind } from './model.ts';
import { logicalDateOf, runKeyAt } from './runkey.ts';

/** At most this many runs per firing pass, catch-up seed or backfill call (§7.6). */
export const MAX_RUNS_PER_CALL = 100;

export interface RunToCreate {
  runKey: string;
  logicalDate: string;
  kind: RunKind;
  /** The logical instant, epoch ms. */
  at: number;
}

function toCreate(at: number, kind: RunKind): RunToCreate {
  return { runKey: runKeyAt(at), logicalDate: logicalDateOf(at), kind, at };
}

/** §8.1 seeding: the first fire strictly after `nowMs`, or null for a manual-only or exhausted schedule. */
export function seedNextFire(dag: DagConfig, nowMs: number): number | null {
  return dag.cron ? nextFire(dag.cron, dag.frame, nowMs, dag.dst) : null;
}

export interface DueFires {
  runs: RunToCreate[];
  /** The index's new next instant (null: the schedule has no further fire, drop the DAG from the index). */
  next: number | null;
}

/** §8.1 each pass: while next <= now, at most 100 per pass, a `scheduled` run per instant. */
export function dueFires(dag: DagConfig, next: number | null, nowMs: number): DueFires {
  const runs: RunToCreate[] = [];
  let at = next;
  while (dag.cron && at !== null && at <= nowMs && runs.length < MAX_RUNS_PER_CALL) {
    runs.push(toCreate(at, 'scheduled'));
    at = nextFire(dag.cron, dag.frame, at, dag.dst);
  }
  return { runs, next: at };
}

/** The catch-up watermark: the greatest logicalDate over all of the DAG's runs, or null (none dated). */
export function watermarkOf(logicalDates: Iterable<string | null>): number | null {
  let best: number | null = null;
  for (const text of logicalDates) {
    const ms = text === null ? null : parseIsoInstant(text);
    if (ms !== null && (best === null || ms > best)) best = ms;
  }
  return best;
}

/**
 * §8.2, once per (re)seed on a node that passes the gate. `run-once` takes the **newest** missed instant;
 * the reference takes the 100th-oldest when more than 100 were missed without a deadline (a deviation we
 * chose, as the spec recommends).
 */
export function catchupRuns(dag: DagConfig, watermarkMs: number | null, nowMs: number): RunToCreate[] {
  if (dag.onMissed === 'skip' || !dag.cron || watermarkMs === null) return [];
  const after =
    dag.startingDeadlineSeconds === null
      ? watermarkMs
      : Math.max(watermarkMs, nowMs - dag.startingDeadlineSeconds * 1000);
  if (after >= nowMs) return [];
  if (dag.onMissed === 'run-once') {
    const last = prevFire(dag.cron, dag.frame, nowMs + 1, dag.dst);
    return last !== null && last > after ? [toCreate(last, 'catchup')] : [];
  }
  return occurrences(dag.cron, dag.frame, after, {
    untilMs: nowMs,
    limit: MAX_RUNS_PER_CALL,
    dst: dag.dst,
  }).map((at) => toCreate(at, 'catchup'));
}

export type BackfillPlan =
  | {
      ok: true;
      /** Instants stepped, including ones whose run already exists: a repeat answers the same (§14.3). */
      created: number;
      runs: RunToCreate[];
    }
  | { ok: false; reason: string };

export const BACKFILL_NEEDS_DATES = 'backfill needs string from and to ISO dates';
export const NO_SUCH_SCHEDULED_DAG = 'no such scheduled dag';
export const BAD_DATE_RANGE = 'bad date range';
export const NO_COMPUTABLE_INSTANTS = 'no computable instants';

/**
 * §8.3: every fire instant with from <= t <= to (both inclusive), at most 100, from the body of
 * `POST /dags/{name}/backfill`. A naive date is UTC. `to` is not clamped to now; the starting deadline
 * does not apply. A window holding no instant is `created: 0`; "no computable instants" is kept for a
 * window wholly outside the schedule engine's 1970-2099 calendar, where no instant can be computed.
 */
export function planBackfill(dag: DagConfig | undefined, from: unknown, to: unknown): BackfillPlan {
  if (typeof from !== 'string' || typeof to !== 'string') return { ok: false, reason: BACKFILL_NEEDS_DATES };
  if (!dag?.cron) return { ok: false, reason: NO_SUCH_SCHEDULED_DAG };
  const fromMs = parseIsoInstant(from);
  const toMs = parseIsoInstant(to);
  if (fromMs === null || toMs === null || toMs < fromMs) return { ok: false, reason: BAD_DATE_RANGE };
  if (!isSupportedInstant(fromMs) && !isSupportedInstant(toMs))
    return { ok: false, reason: NO_COMPUTABLE_INSTANTS };
  const instants = occurrences(dag.cron, dag.frame, fromMs - 1, {
    untilMs: toMs,
    limit: MAX_RUNS_PER_CALL,
    dst: dag.dst,
  });
  const runs = instants.map((at) => toCreate(at, 'backfill'));
  return { ok: true, created: runs.length, runs };
}

/** What a backfill of the window would do, creating nothing: the dry run of the MCP backfill tool. */
export type BackfillPreview =
  | {
      ok: true;
      /** The same count the real backfill answers as `created`. */
      wouldCreate: number;
      /** Logical dates (UTC ISO) of the first and last instant walked; null when the window holds none. */
      firstInstant: string | null;
      lastInstant: string | null;
    }
  | { ok: false; reason: string };

/** §8.3 walked exactly as `planBackfill` walks it (same refusals, same instants), as a preview. */
export function previewBackfill(dag: DagConfig | undefined, from: unknown, to: unknown): BackfillPreview {
  const p = planBackfill(dag, from, to);
  if (!p.ok) return p;
  return {
    ok: true,
    wouldCreate: p.created,
    firstInstant: p.runs[0]?.logicalDate ?? null,
    lastInstant: p.runs.at(-1)?.logicalDate ?? null,
  };
}

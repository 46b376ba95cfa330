// A restarted daemon's job histories (spec 03 §8.1): each job's newest ledger runs and pause skips
// (spec 10 §1.3), up to the in-memory cap, read in one bounded query and handed to the scheduler, so
// `GET /jobs/NAME/runs` and the dashboards' History show the rows from before the restart, and a
// node that joins a fleet shows the skips the node that owned the slots recorded. Output stays in the
// archive; a restored run carries none in memory.
import type { Json } from '../../store/types.ts';
import type { SchedulerControl } from '../control.ts';
import { RUN_HISTORY, type RunOutcome, type RunRecord, type RunTrigger, type SkipRow } from '../history.ts';
import { type StoreSide, storeFailed } from './context.ts';
import { SKIPPED_OUTCOME } from './run-ledger.ts';

const OUTCOMES: ReadonlySet<string> = new Set<RunOutcome>(['success', 'failure', 'cancelled', 'unknown']);
const TRIGGERS: ReadonlySet<string> = new Set<RunTrigger>([
  'schedule',
  'retry',
  'manual',
  'reboot',
  'catchup',
]);

const ms = (v: Json | undefined): number | null => {
  if (typeof v !== 'string') return null;
  const t = Date.parse(v);
  return Number.isFinite(t) ? t : null;
};
const num = (v: Json | undefined): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** One ledger row as a run record; null for a row that is not a run (or not readable as one). */
export function runFromLedger(job: string, data: Json): RunRecord | null {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return null;
  const outcome = data.outcome;
  const id = data.run_id;
  const finishedAt = ms(data.finished_at);
  if (typeof id !== 'string' || typeof outcome !== 'string' || !OUTCOMES.has(outcome) || finishedAt === null)
    return null;
  const exitCode = num(data.exit_code);
  const startedAt = ms(data.started_at);
  return {
    id,
    job,
    trigger:
      typeof data.trigger === 'string' && TRIGGERS.has(data.trigger)
        ? (data.trigger as RunTrigger)
        : 'schedule',
    attempt: num(data.attempt) ?? 0,
    scheduledAt: ms(data.scheduled_at),
    outcome: outcome as RunOutcome,
    exitCode,
    startedAt,
    finishedAt,
    durationSeconds: num(data.duration),
    failReason: typeof data.fail_reason === 'string' ? data.fail_reason : null,
    startFailed: exitCode === 127 && startedAt === null,
    stdout: null,
    stderr: null,
    lines: [],
  };
}

/** One ledger row as a pause skip (`outcome: skipped`); null for any other row. */
export function skipFromLedger(job: string, data: Json): SkipRow | null {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return null;
  if (data.outcome !== SKIPPED_OUTCOME || data.skip_reason !== 'paused') return null;
  const finishedAt = ms(data.finished_at);
  const scheduledAt = ms(data.scheduled_at);
  if (finishedAt === null || scheduledAt === null) return null;
  return { job, scheduledAt, finishedAt, reason: 'paused' };
}

/** Reads every job's retained runs once and restores them into the scheduler's histories. */
export async function restoreHistories(side: StoreSide, scheduler: SchedulerControl): Promise<void> {
  let rows: Awaited<ReturnType<StoreSide['store']['recentRuns']>>;
  try {
    rows = await side.store.recentRuns(RUN_HISTORY);
  } catch (e) {
    storeFailed(side, 'reading the run ledger for the job histories', e);
    return;
  }
  const byJob = new Map<string, { runs: RunRecord[]; skips: SkipRow[] }>();
  for (const row of rows) {
    const job = row.stream.slice('runs/'.length);
    const run = runFromLedger(job, row.data);
    const skip = run ? null : skipFromLedger(job, row.data);
    if (!run && !skip) continue;
    let lists = byJob.get(job);
    if (!lists) {
      lists = { runs: [], skips: [] };
      byJob.set(job, lists);
    }
    if (run) lists.runs.push(run);
    else lists.skips.push(skip!);
  }
  for (const [job, { runs, skips }] of byJob) scheduler.restoreHistory(job, runs, skips);
}

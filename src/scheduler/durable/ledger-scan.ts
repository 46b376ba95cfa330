// Bounded reads of one job's run ledger (`runs/<job>`, newest first) for the decisions that want
// runs only: the ledger also holds rows of slots that never ran (a pause's `skipped`, Forbid's
// `skipped:overlap`, `missed`...), and a paused job can write one a second, so a reader that takes
// "the newest N rows" for "the newest N runs" would find none. Pure scans over the rows, plus the
// one read.
import type { Store } from '../../store/types.ts';
import { RUN_LEDGER_OUTCOMES } from '../../util/slot-outcomes.ts';

/** The fields of a ledger row these scans read. */
export interface LedgerFields {
  outcome?: unknown;
  finished_at?: unknown;
}

/** The least a scan reads when the newest rows hold no run: the ledger's default keep. */
export const LEDGER_SCAN_ROWS = 1000;

const RUNS: ReadonlySet<unknown> = new Set(RUN_LEDGER_OUTCOMES);

/** A row that records a run (success, failure, cancelled, unknown), not a slot that never ran. */
export function isRunRow(d: LedgerFields): boolean {
  return RUNS.has(d.outcome);
}

/** The newest `limit` rows of a job's ledger, newest first, as their data. */
export async function newestLedgerRows(store: Store, job: string, limit: number): Promise<LedgerFields[]> {
  const recs = await store.list(`runs/${job}`, { newestFirst: true, limit });
  return recs.map((r) => (r.data ?? {}) as LedgerFields);
}

/** The latest `finished_at` (ISO text compares as time) among the rows `keep` takes, or null. */
function latestFinish(
  rows: readonly LedgerFields[],
  keep: (d: LedgerFields, at: string) => boolean,
): string | null {
  let best: string | null = null;
  for (const d of rows) {
    const at = d.finished_at;
    if (typeof at === 'string' && (best === null || at > best) && keep(d, at)) best = at;
  }
  return best;
}

/** The latest `finished_at` among the run rows, or null with none. */
export function latestRunFinish(rows: readonly LedgerFields[]): string | null {
  return latestFinish(rows, isRunRow);
}

/**
 * The latest `finished_at` of any row (a run's, or a slot's that never ran) strictly before
 * `beforeIso`, or null: what the ledger held before an instant, whatever was written after it.
 */
export function latestFinishBefore(rows: readonly LedgerFields[], beforeIso: string): string | null {
  return latestFinish(rows, (_, at) => at < beforeIso);
}

/**
 * What a ledger says about a job's last success (spec 09 §2.4 step 2): the newest success's finish,
 * else the oldest finish of any row it holds (the job existed then and had no success since, so a
 * staleness measured from there pages later than the truth, never earlier), else nothing.
 */
export function successReference(rows: readonly LedgerFields[]): { at: number; success: boolean } | null {
  let success = Number.NEGATIVE_INFINITY;
  let oldest = Number.POSITIVE_INFINITY;
  for (const d of rows) {
    if (typeof d.finished_at !== 'string') continue;
    const at = Date.parse(d.finished_at);
    if (!Number.isFinite(at)) continue;
    if (d.outcome === 'success' && at > success) success = at;
    if (at < oldest) oldest = at;
  }
  if (success > Number.NEGATIVE_INFINITY) return { at: success, success: true };
  if (oldest < Number.POSITIVE_INFINITY) return { at: oldest, success: false };
  return null;
}

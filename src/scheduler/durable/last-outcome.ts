// onlyIfLastSucceeded from the ledger (spec 03 §8.4): the latest real outcome of a job, newest by
// finished_at among the success and failure rows of the newest 50 (cancelled, skipped and unknown rows
// do not count), unless this process's memory already knows a newer one. When those 50 rows hold no
// success or failure (a paused job writes a `skipped` row per slot), the read widens once to the newest
// LEDGER_SCAN_ROWS: skipped rows are ignored, not a reason to forget the last real outcome.
import type { JobConfig } from '../../config/types.ts';
import { type StoreSide, storeFailed } from './context.ts';
import { LEDGER_SCAN_ROWS, type LedgerFields, newestLedgerRows } from './ledger-scan.ts';

const FIRST_READ = 50;

function latestOutcome(rows: readonly LedgerFields[]): 'success' | 'failure' | null {
  let best: { at: string; outcome: 'success' | 'failure' } | null = null;
  for (const d of rows) {
    if (
      (d.outcome === 'success' || d.outcome === 'failure') &&
      typeof d.finished_at === 'string' &&
      d.finished_at &&
      (!best || d.finished_at > best.at)
    )
      best = { at: d.finished_at, outcome: d.outcome };
  }
  return best?.outcome ?? null;
}

/** The outcome to decide on; 'blocked' when the ledger cannot be read and the policy is fail-closed. */
export async function lastOutcomeFromLedger(
  side: StoreSide,
  job: JobConfig,
  memory: 'success' | 'failure' | null,
): Promise<'success' | 'failure' | null | 'blocked'> {
  try {
    let rows = await newestLedgerRows(side.store, job.name, FIRST_READ);
    let found = latestOutcome(rows);
    // Memory decides when it knows: the wider read is for a process that has not seen a run yet.
    if (found === null && memory === null && rows.length === FIRST_READ) {
      rows = await newestLedgerRows(side.store, job.name, LEDGER_SCAN_ROWS);
      found = latestOutcome(rows);
    }
    // The in-memory outcome is newer than anything the ledger can hold for this process.
    return memory ?? found;
  } catch (e) {
    storeFailed(side, `reading the run ledger of ${job.name}`, e);
    return side.onStoreUnavailable === 'fail-closed' ? 'blocked' : memory;
  }
}

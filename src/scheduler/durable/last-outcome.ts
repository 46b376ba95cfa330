// onlyIfLastSucceeded from the ledger (spec 03 §8.4): the latest real outcome of a job, newest by
// finished_at among the success and failure rows of the newest 50 (cancelled, skipped and unknown rows
// do not count), unless this process's memory already knows a newer one.
import type { JobConfig } from '../../config/types.ts';
import { type StoreSide, storeFailed } from './context.ts';

/** The outcome to decide on; 'blocked' when the ledger cannot be read and the policy is fail-closed. */
export async function lastOutcomeFromLedger(
  side: StoreSide,
  job: JobConfig,
  memory: 'success' | 'failure' | null,
): Promise<'success' | 'failure' | null | 'blocked'> {
  try {
    const rows = await side.store.list(`runs/${job.name}`, { newestFirst: true, limit: 50 });
    let best: { at: string; outcome: 'success' | 'failure' } | null = null;
    for (const r of rows) {
      const d = r.data as { outcome?: string; finished_at?: string };
      if (
        (d.outcome === 'success' || d.outcome === 'failure') &&
        d.finished_at &&
        (!best || d.finished_at > best.at)
      )
        best = { at: d.finished_at, outcome: d.outcome };
    }
    // The in-memory outcome is newer than anything the ledger can hold for this process.
    return memory ?? best?.outcome ?? null;
  } catch (e) {
    storeFailed(side, `reading the run ledger of ${job.name}`, e);
    return side.onStoreUnavailable === 'fail-closed' ? 'blocked' : memory;
  }
}

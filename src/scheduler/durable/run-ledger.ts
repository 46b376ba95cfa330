// The run ledger (spec 03 §8.1): every finished run, and every slot that ended without one, as a
// `runs/<job>` row pruned to maxRunsPerJob, so the `slots` view holds every slot's fate. A run's
// output follows into the archive in the same background write.
import type { JobConfig } from '../../config/types.ts';
import type { RunResult } from '../../exec/types.ts';
import type { Json } from '../../store/types.ts';
import type { RunRecord, SlotRecord } from '../history.ts';
import { inBackground, iso, type StoreSide } from './context.ts';
import { archiveOutput } from './output-archive.ts';

/** The ledger's outcome of a slot a pause held (its `skip_reason` says why). */
export const SKIPPED_OUTCOME = 'skipped';

export class RunLedger {
  constructor(
    private readonly side: StoreSide,
    /** Records kept per job (`maxRunsPerJob`), ledger and archive alike. */
    private readonly keep: number,
  ) {}

  runFinished(job: JobConfig, run: RunRecord, result: RunResult): void {
    const record: Json = {
      outcome: run.outcome,
      exit_code: run.exitCode,
      started_at: iso(run.startedAt),
      finished_at: iso(run.finishedAt),
      duration: run.durationSeconds,
      fail_reason: run.failReason,
      resources: null,
      run_id: run.id,
      trigger: run.trigger,
      attempt: run.attempt,
      scheduled_at: iso(run.scheduledAt),
    };
    const { store } = this.side;
    inBackground(this.side, `appending the run of ${job.name} to the ledger`, async () => {
      await store.append(`runs/${job.name}`, record, { keep: this.keep });
      await archiveOutput(store, this.keep, job, run, result);
    });
  }

  /**
   * A slot that ended without a run (skipped by a gate, claimed elsewhere, missed...) as a row without
   * a run, its outcome the slot's word (`skipped:overlap`, `no-quorum`...); a folded missed record
   * carries how many slots it covers (`missed_count`, up to `missed_until`). A slot a pause held is
   * the synthetic run row instead (`pausedRow`). Readers that want runs filter on outcome (success /
   * failure / cancelled).
   */
  slotSettled(slot: SlotRecord): void {
    const record: Json =
      slot.outcome === 'paused'
        ? pausedRow(slot, this.side.clock.now())
        : {
            outcome: slot.outcome,
            exit_code: null,
            started_at: null,
            finished_at: iso(this.side.clock.now()),
            duration: null,
            fail_reason: slot.detail,
            resources: null,
            run_id: null,
            trigger: 'schedule',
            attempt: 0,
            scheduled_at: iso(slot.scheduledAt),
            missed_count: slot.count ?? 1,
            missed_until: iso(slot.lastAt ?? slot.scheduledAt),
          };
    inBackground(this.side, `recording the ${slot.outcome} slot of ${slot.job} in the ledger`, () =>
      this.side.store.append(`runs/${slot.job}`, record, { keep: this.keep }),
    );
  }
}

/**
 * A slot a pause held, as the ledger's synthetic run row (spec 10 §1.3, spec 03 §3.1's `skipped`):
 * nothing started, so no exit code, start or duration; `finished_at` is the skip instant. It counts
 * against `maxRunsPerJob` like any row, and restarted daemons read it back into `/runs`
 * (history-restore.ts); it is never a run: onlyIfLastSucceeded, retries and trends skip it.
 */
export function pausedRow(slot: SlotRecord, skippedAt: number): Json {
  return {
    outcome: SKIPPED_OUTCOME,
    skip_reason: 'paused',
    exit_code: null,
    started_at: null,
    finished_at: iso(skippedAt),
    duration: null,
    fail_reason: null,
    resources: null,
    run_id: null,
    trigger: 'schedule',
    attempt: 0,
    scheduled_at: iso(slot.scheduledAt),
  };
}

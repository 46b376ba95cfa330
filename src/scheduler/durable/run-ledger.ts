// The run ledger (spec 03 §8.1): every finished run, and every slot that ended without one, as a
// `runs/<job>` row pruned to maxRunsPerJob, so the `slots` view holds every slot's fate. A run's
// output follows into the archive in the same background write.
import type { JobConfig } from '../../config/types.ts';
import type { RunResult } from '../../exec/types.ts';
import type { Json } from '../../store/types.ts';
import type { RunRecord, SlotRecord } from '../history.ts';
import { inBackground, iso, type StoreSide } from './context.ts';
import { archiveOutput } from './output-archive.ts';

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
   * carries how many slots it covers (`missed_count`, up to `missed_until`). Readers that want runs
   * filter on outcome (success / failure / cancelled).
   */
  slotSettled(slot: SlotRecord): void {
    const record: Json = {
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

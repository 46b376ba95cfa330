// Durable retries (spec 02 §8.4, spec 03 §8.6): every armed retry is a `pending` record of
// `retries/<job>`, every ended ladder a `settled` one; at start this host's pending retry from an earlier
// process is armed again, unless the job changed, its budget or deadline is spent, a run superseded it,
// or (for @reboot) it belongs to another boot.
import { jobDigest } from '../../cluster/jobset.ts';
import type { JobConfig } from '../../config/types.ts';
import type { SchedulerControl } from '../control.ts';
import { inBackground, iso, type StoreSide } from './context.ts';
import { LEDGER_SCAN_ROWS, latestRunFinish, newestLedgerRows } from './ledger-scan.ts';

interface PendingRecord {
  kind?: string;
  attempt?: number;
  notBefore?: string;
  jobDigest?: string;
  host?: string;
  at?: string;
  bootId?: string | null;
}

export class RetryRecords {
  constructor(
    private readonly side: StoreSide,
    private readonly bootId: string | null,
    /** Records from before this instant belong to an earlier daemon process. */
    private readonly startedAt: string,
  ) {}

  armed(job: JobConfig, attempt: number, notBefore: number): void {
    const { side } = this;
    inBackground(side, `recording the retry of ${job.name}`, () =>
      side.store.append(
        `retries/${job.name}`,
        {
          kind: 'pending',
          attempt,
          notBefore: iso(notBefore),
          jobDigest: jobDigest(job),
          host: side.host,
          bootId: this.bootId,
          at: iso(side.clock.now()),
        },
        { keep: 8 },
      ),
    );
  }

  settled(job: JobConfig, reason: string, attempt: number): void {
    const { side } = this;
    inBackground(side, `settling the retry of ${job.name}`, () =>
      side.store.append(
        `retries/${job.name}`,
        { kind: 'settled', reason, attempt, host: side.host, at: iso(side.clock.now()) },
        { keep: 8 },
      ),
    );
  }

  /** Arms again the pending retry an earlier process of this host left, or settles it with why not. */
  async rearm(scheduler: SchedulerControl, job: JobConfig): Promise<void> {
    const { store, clock } = this.side;
    const d = (await store.newest(`retries/${job.name}`))?.data as PendingRecord | undefined;
    if (d?.kind !== 'pending' || d.host !== this.side.host || typeof d.attempt !== 'number' || !d.notBefore)
      return;
    // A retry this process armed itself is already live.
    if (!d.at || d.at >= this.startedAt) return;
    const settle = (reason: string) => this.settled(job, reason, d.attempt!);
    if (d.jobDigest !== jobDigest(job)) return settle('config-changed');
    const max = job.onFailure.retry.maximumRetries;
    if (max !== -1 && d.attempt > max) return settle('exhausted');
    const notBefore = Date.parse(d.notBefore);
    const deadline = job.startingDeadlineSeconds;
    if (deadline !== null && clock.now() - notBefore > deadline * 1000) return settle('deadline-passed');
    // Only a run supersedes it: a slot a pause skipped (or Forbid, or the downtime) never settles a ladder.
    const lastRun = latestRunFinish(await newestLedgerRows(store, job.name, LEDGER_SCAN_ROWS));
    if (lastRun !== null && d.at && lastRun > d.at) return settle('superseded-by-run');
    // An @reboot job's ladder belongs to the boot that started it.
    if (job.reboot && d.bootId !== this.bootId) return settle('superseded');
    scheduler.rearmRetry(job.name, d.attempt, notBefore);
  }
}

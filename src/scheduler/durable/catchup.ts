// The missed-run catch-up at start (spec 03 §8.2): from the ledger's watermark (or an open checkpoint
// of an interrupted catch-up) to the start instant, the plan's slots run as backfills between an
// `open` and a `close` record of `catchup/<job>`; the rest go to the ledger as `missed`. A store that
// fails (a fleet booting at once) is tried again after 2, 5, 15 and then every 30 s.
import type { JobConfig } from '../../config/types.ts';
import { errorText } from '../../util/errors.ts';
import type { SchedulerControl } from '../control.ts';
import { compactMissed } from '../missed.ts';
import { crc32, downtimeMissed, MAX_CATCHUP, missedSlots } from './catchup-plan.ts';
import { iso, type StoreSide } from './context.ts';
import { LEDGER_SCAN_ROWS, latestFinishBefore, newestLedgerRows } from './ledger-scan.ts';
import type { RunLedger } from './run-ledger.ts';

/**
 * Waits before a failed catch-up tries again: a store that timed out while a fleet booted is
 * usually back within seconds, and a restarted fleet's missed slots should not wait 30 s for it.
 */
export const CATCHUP_RETRY_MS = [2000, 5000, 15_000, 30_000] as const;

export class CatchUp {
  constructor(
    private readonly side: StoreSide,
    private readonly ledger: RunLedger,
  ) {}

  /** The catch-up of one job as of `anchor` (the start instant, kept across retries). */
  async run(scheduler: SchedulerControl, job: JobConfig, anchor: number, attempt = 0): Promise<void> {
    const { store, clock, log } = this.side;
    try {
      let watermark = await this.watermark(job, anchor);
      const checkpoint = (await store.newest(`catchup/${job.name}`))?.data as
        | { kind?: string; watermark?: string }
        | undefined;
      if (
        checkpoint?.kind === 'open' &&
        checkpoint.watermark &&
        (typeof watermark !== 'string' || checkpoint.watermark < watermark)
      )
        watermark = checkpoint.watermark;
      if (typeof watermark !== 'string') return;
      const watermarkMs = Date.parse(watermark);
      let from = watermarkMs;
      if (job.startingDeadlineSeconds !== null)
        from = Math.max(from, anchor - job.startingDeadlineSeconds * 1000);
      const { slots, dropped } = missedSlots(job, from, anchor);
      this.recordMissed(job, watermarkMs, anchor, slots);
      if (job.onMissed === 'skip') return;
      if (dropped > 0)
        log.warning(
          `Job ${job.name}: ${dropped} more missed run(s) than the catch-up cap of ${MAX_CATCHUP} are dropped`,
        );
      if (slots.length === 0) return;
      log.info(`Job ${job.name}: catching up ${slots.length} missed run(s) (onMissed: ${job.onMissed})`);
      await store.append(
        `catchup/${job.name}`,
        { kind: 'open', watermark: iso(from), at: iso(clock.now()) },
        { keep: 8 },
      );
      const jitter = job.catchupJitterSeconds;
      if (jitter > 0) {
        const offset = crc32(job.name) % (jitter * 1000);
        await new Promise<void>((resolve) => clock.setTimer(resolve, offset));
      }
      for (const at of slots) {
        if (scheduler.shuttingDown || scheduler.job(job.name) === undefined) return;
        await scheduler.runBackfill(job.name, at);
      }
      await store.append(
        `catchup/${job.name}`,
        { kind: 'close', watermark: iso(anchor), at: iso(clock.now()) },
        { keep: 8 },
      );
    } catch (e) {
      const wait = CATCHUP_RETRY_MS[Math.min(attempt, CATCHUP_RETRY_MS.length - 1)]!;
      log.warning(`state: the catch-up of ${job.name} failed: ${errorText(e)}; retrying in ${wait / 1000} s`);
      clock.setTimer(() => {
        if (!scheduler.shuttingDown) void this.run(scheduler, job, anchor, attempt + 1);
      }, wait);
    }
  }

  /**
   * The newest `finished_at` in the job's ledger from before `anchor`. Rows this boot has written by
   * the time the read is answered (a slot refused while the fleet forms its quorum, a run that
   * already finished) are not the end of the downtime: taken for it, they hid every missed slot.
   */
  private async watermark(job: JobConfig, anchor: number): Promise<string | null> {
    const { store } = this.side;
    const stream = `runs/${job.name}`;
    const newest = await store.maxField(stream, 'finished_at');
    if (typeof newest !== 'string') return null;
    const before = new Date(anchor).toISOString();
    if (newest < before) return newest;
    return latestFinishBefore(await newestLedgerRows(store, job.name, LEDGER_SCAN_ROWS), before);
  }

  /** The downtime's slots the catch-up will not run, as `missed` ledger rows (folded past a few). */
  private recordMissed(
    job: JobConfig,
    watermarkMs: number,
    anchor: number,
    planned: readonly number[],
  ): void {
    const { instants, atLeast } = downtimeMissed(job, watermarkMs, anchor, planned);
    if (instants.length === 0) return;
    const why = `no node ran it while it was due (daemon down or not running it); onMissed: ${job.onMissed}`;
    for (const rec of compactMissed(job.name, instants, atLeast, why, 'missed')) this.ledger.slotSettled(rec);
  }
}

// The missed-run catch-up's plan (spec 03 §8.2), pure: which slots of a downtime run again, which are
// recorded as missed, and the jitter every node computes alike.
import type { JobConfig } from '../../config/types.ts';
import { nextFire } from '../../schedule/index.ts';
import { crc32 } from '../../util/crc32.ts';

export const MAX_CATCHUP = 100;

export { crc32 };

/**
 * The missed instants after the watermark up to `now`: one for run-once (the latest), at most
 * MAX_CATCHUP for run-all, none for skip.
 */
export function missedSlots(
  job: JobConfig,
  watermarkMs: number,
  nowMs: number,
): { slots: number[]; dropped: number } {
  if (!job.cron || job.onMissed === 'skip') return { slots: [], dropped: 0 };
  const all: number[] = [];
  let at = nextFire(job.cron, job.frame, watermarkMs, job.dst);
  while (at !== null && at <= nowMs && all.length <= 100_000) {
    all.push(at);
    at = nextFire(job.cron, job.frame, at, job.dst);
  }
  if (job.onMissed === 'run-once') return { slots: all.slice(-1), dropped: 0 };
  return { slots: all.slice(0, MAX_CATCHUP), dropped: Math.max(0, all.length - MAX_CATCHUP) };
}

/**
 * The slots of a downtime that the catch-up plan does not run: every instant after the watermark up to
 * `now` (at most `cap`; `atLeast` when there were more) minus the planned ones. They go to the ledger
 * as `missed`, so the slot view accounts for them (issue 15).
 */
export function downtimeMissed(
  job: JobConfig,
  watermarkMs: number,
  nowMs: number,
  planned: readonly number[],
  cap = 100_000,
): { instants: number[]; atLeast: boolean } {
  if (!job.cron) return { instants: [], atLeast: false };
  const run = new Set(planned);
  const instants: number[] = [];
  let at = nextFire(job.cron, job.frame, watermarkMs);
  let seen = 0;
  while (at !== null && at <= nowMs) {
    if (++seen > cap) return { instants, atLeast: true };
    if (!run.has(at)) instants.push(at);
    at = nextFire(job.cron, job.frame, at);
  }
  return { instants, atLeast: false };
}

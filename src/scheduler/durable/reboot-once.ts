// @reboot once per OS boot (spec 03 §8.7): a `reboot/<job>` marker per (host, boot id, job digest),
// so a daemon restarted within one boot does not run the job again; a changed job runs once more.
import { readFileSync } from 'node:fs';
import { jobDigest } from '../../cluster/jobset.ts';
import type { JobConfig } from '../../config/types.ts';
import { iso, type StoreSide, storeFailed } from './context.ts';

/** Linux's boot id; null where there is none (@reboot then runs at every daemon start). */
export function linuxBootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/** Whether this boot still owes the job its run; the marker is written before the answer is yes. */
export async function rebootAllowed(
  side: StoreSide,
  bootId: string | null,
  job: JobConfig,
): Promise<boolean> {
  if (!bootId) return true;
  const stream = `reboot/${job.name}`;
  const digest = jobDigest(job);
  try {
    const rows = await side.store.list(stream, { newestFirst: true, limit: 32 });
    const seen = rows.some((r) => {
      const d = r.data as { host?: string; bootId?: string; jobDigest?: string };
      return d.host === side.host && d.bootId === bootId && d.jobDigest === digest;
    });
    if (seen) return false;
    await side.store.append(
      stream,
      { host: side.host, bootId, jobDigest: digest, at: iso(side.clock.now()) },
      { keep: 32 },
    );
    return true;
  } catch (e) {
    storeFailed(side, `the @reboot marker of ${job.name}`, e);
    return side.onStoreUnavailable !== 'fail-closed';
  }
}

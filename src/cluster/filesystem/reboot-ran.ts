// The `@reboot` ran-set of a lease backend on the store (spec 05 §3.3, §8.4, §14): append-only
// `{jobSetId, job}` records in one stream, pruned to the newest 512, read back as the union of
// the records carrying the live job-set id. Until the first read, and after gaining
// leadership until the re-read, "not ran" is not an answer we may give: 'unknown'.
import type { Json, Store } from '../../store/types.ts';

export const REBOOT_RAN_STREAM = 'cluster/reboot-ran';
export const REBOOT_RAN_KEEP = 512;

type StreamStore = Pick<Store, 'append' | 'list'>;

function entry(data: Json): { jobSetId: string; job: string } | null {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return null;
  const { jobSetId, job } = data;
  return typeof jobSetId === 'string' && typeof job === 'string' ? { jobSetId, job } : null;
}

function addTo(known: Map<string, Set<string>>, jobSetId: string, job: string): void {
  const jobs = known.get(jobSetId);
  if (jobs) jobs.add(job);
  else known.set(jobSetId, new Set([job]));
}

export class RebootRanSet {
  /** job-set id → one-shots recorded as run; null until the first successful read. */
  private known: Map<string, Set<string>> | null = null;
  private stale = true;

  constructor(
    private readonly store: StreamStore,
    private readonly jobSetId: () => string,
  ) {}

  /** True once ran under the live job set; 'unknown' until the set was (re-)read. */
  has(job: string): boolean | 'unknown' {
    if (this.known === null) return 'unknown';
    if (this.known.get(this.jobSetId())?.has(job)) return true;
    return this.stale ? 'unknown' : false;
  }

  /** A new leader must re-read before answering "not ran". */
  invalidate(): void {
    this.stale = true;
  }

  get fresh(): boolean {
    return this.known !== null && !this.stale;
  }

  /** Re-reads the stream; rejects (and keeps what it knew) when the store does not answer. */
  async refresh(): Promise<void> {
    this.stale = true;
    const rows = await this.store.list(REBOOT_RAN_STREAM, { newestFirst: true, limit: REBOOT_RAN_KEEP });
    const known = new Map<string, Set<string>>();
    for (const row of rows) {
      const e = entry(row.data);
      if (!e) continue;
      addTo(known, e.jobSetId, e.job);
    }
    // Our own records that a concurrent refresh may have missed stay known.
    for (const [id, jobs] of this.known ?? []) {
      const into = known.get(id);
      if (into) for (const j of jobs) into.add(j);
    }
    this.known = known;
    this.stale = false;
  }

  async record(job: string): Promise<void> {
    const jobSetId = this.jobSetId();
    await this.store.append(REBOOT_RAN_STREAM, { jobSetId, job }, { keep: REBOOT_RAN_KEEP });
    this.known ??= new Map();
    addTo(this.known, jobSetId, job);
  }
}

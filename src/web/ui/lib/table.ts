// Filtering and sorting of the jobs table (pure).
import { compareOwners, ownerCell } from './cluster.ts';
import { parseIso } from './format.ts';
import { type JobStatus, jobStatus, STATUS_RANK } from './status.ts';
import type { ApiJob } from './types.ts';

export type Segment = 'all' | 'ok' | 'fail' | 'run' | 'off';
export type SortKey = 'status' | 'name' | 'owner' | 'last' | 'next' | 'took';

export interface Row {
  job: ApiJob;
  status: JobStatus;
  /** next fire as an instant from the poll (`scheduled_in` + fetch time), null when none */
  nextAt: number | null;
  lastAt: number | null;
}

export function toRows(jobs: readonly ApiJob[], fetchedAt: number): Row[] {
  return jobs.map((job) => ({
    job,
    status: jobStatus(job),
    nextAt: job.scheduled_in === null ? null : fetchedAt + job.scheduled_in * 1000,
    lastAt: parseIso(job.last_run?.finished_at),
  }));
}

const SEGMENT_STATUSES: Record<Segment, readonly JobStatus[] | null> = {
  all: null,
  ok: ['ok', 'pending'],
  fail: ['failed', 'unknown', 'cancelled'],
  run: ['running'],
  off: ['disabled'],
};

/** Case-insensitive substring match on name, command and schedule, plus the segment filter. */
export function filterRows(rows: readonly Row[], text: string, segment: Segment): Row[] {
  const wanted = SEGMENT_STATUSES[segment];
  const needle = text.trim().toLowerCase();
  return rows.filter((r) => {
    if (wanted !== null && !wanted.includes(r.status)) return false;
    if (needle === '') return true;
    const j = r.job;
    return (
      j.name.toLowerCase().includes(needle) ||
      j.command.toLowerCase().includes(needle) ||
      j.schedule.toLowerCase().includes(needle)
    );
  });
}

const byName = (a: Row, b: Row): number => (a.job.name < b.job.name ? -1 : a.job.name > b.job.name ? 1 : 0);

/** Nulls last in both directions. */
function nullableCompare(a: number | null, b: number | null, dir: number): number {
  if (a === null && b === null) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return (a - b) * dir;
}

/** Stable sort; ties fall back to the job name. `desc` reverses the primary key only. */
export function sortRows(rows: readonly Row[], key: SortKey, desc: boolean): Row[] {
  const dir = desc ? -1 : 1;
  const out = rows.slice();
  out.sort((a, b) => {
    let c = 0;
    switch (key) {
      case 'status':
        c = (STATUS_RANK[a.status] - STATUS_RANK[b.status]) * dir;
        break;
      case 'name':
        c = byName(a, b) * dir;
        break;
      case 'owner':
        c = compareOwners(ownerCell(a.job, null), ownerCell(b.job, null)) * dir;
        break;
      case 'last':
        // newest first reads naturally, so ascending = most recent first
        c = nullableCompare(a.lastAt === null ? null : -a.lastAt, b.lastAt === null ? null : -b.lastAt, dir);
        break;
      case 'next':
        c = nullableCompare(a.nextAt, b.nextAt, dir);
        break;
      case 'took':
        c = nullableCompare(a.job.last_run?.duration ?? null, b.job.last_run?.duration ?? null, dir);
        break;
    }
    return c !== 0 ? c : byName(a, b);
  });
  return out;
}

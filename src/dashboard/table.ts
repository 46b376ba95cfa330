// Filtering and sorting of the jobs table (pure).
import { compareOwners, ownerCell } from './cluster.ts';
import { policyLabel, successRate, tzLabel } from './columns.ts';
import { parseIso } from './format.ts';
import { inSegment, type Segment } from './health.ts';

import { type JobStatus, jobStatus, STATUS_RANK } from './status.ts';
import type { ApiJob } from './types.ts';

// Segments live with the rest of a status's facts (health.ts); the table's importers keep finding them here.
export type { Segment };

export type SortKey =
  | 'status'
  | 'name'
  | 'owner'
  | 'last'
  | 'next'
  | 'took'
  | 'policy'
  | 'tz'
  | 'nextat'
  | 'rate';

export const SORT_KEYS: readonly SortKey[] = [
  'status',
  'name',
  'owner',
  'last',
  'next',
  'took',
  'policy',
  'tz',
  'nextat',
  'rate',
];

export const SORT_LABEL: Record<SortKey, string> = {
  status: 'status',
  name: 'name',
  owner: 'owner',
  last: 'last run',
  next: 'next fire',
  took: 'duration',
  policy: 'policy',
  tz: 'time zone',
  nextat: 'next at',
  rate: 'success rate',
};

export interface Row {
  job: ApiJob;
  status: JobStatus;
  /** next fire as an instant from the poll (`scheduled_in` + fetch time), null when none */
  nextAt: number | null;
  lastAt: number | null;
  /** success share of `history`, for the Rate column and its sort */
  rate: number | null;
}

export function toRows(jobs: readonly ApiJob[], fetchedAt: number): Row[] {
  return jobs.map((job) => ({
    job,
    status: jobStatus(job),
    nextAt: job.scheduled_in === null ? null : fetchedAt + job.scheduled_in * 1000,
    lastAt: parseIso(job.last_run?.finished_at),
    rate: successRate(job.history),
  }));
}

/** Case-insensitive substring match on name, command and schedule, plus the segment filter. */
export function filterRows(rows: readonly Row[], text: string, segment: Segment): Row[] {
  const needle = text.trim().toLowerCase();
  return rows.filter((r) => {
    if (!inSegment(r.status, segment)) return false;
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

const byText = (a: string | null, b: string | null, dir: number): number => {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return (a < b ? -1 : 1) * dir;
};

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
      case 'nextat':
        // the same instant, shown as a countdown or as a wall-clock time
        c = nullableCompare(a.nextAt, b.nextAt, dir);
        break;
      case 'policy':
        c = byText(policyLabel(a.job), policyLabel(b.job), dir);
        break;
      case 'tz':
        c = byText(tzLabel(a.job), tzLabel(b.job), dir);
        break;
      case 'rate':
        // ascending = the least reliable first, the order an operator scans in
        c = nullableCompare(a.rate, b.rate, dir);
        break;
      case 'took':
        c = nullableCompare(a.job.last_run?.duration ?? null, b.job.last_run?.duration ?? null, dir);
        break;
    }
    return c !== 0 ? c : byName(a, b);
  });
  return out;
}

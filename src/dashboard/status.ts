// Job status badges, summary counts and the failure banner (spec 06 §9.2), derived from `/jobs` alone.
import { nameList } from './advisories.ts';
import { formatAge } from './format.ts';
import {
  type Correlation,
  correlateFailures,
  type Failure,
  failingJobs,
  signatureText,
  verdictText,
} from './incident.ts';
import type { ApiJob } from './types.ts';

export { signatureText };

export type JobStatus =
  | 'running'
  | 'failed'
  | 'pending'
  | 'skipped'
  | 'unknown'
  | 'cancelled'
  | 'ok'
  | 'paused'
  | 'disabled';

export const STATUS_LABEL: Record<JobStatus, string> = {
  running: 'Running',
  failed: 'Failed',
  pending: 'Pending',
  skipped: 'Skipped',
  unknown: 'Unknown',
  cancelled: 'Cancelled',
  ok: 'OK',
  paused: 'Paused',
  disabled: 'Disabled',
};

/** Each status's place in `order` (a rank table built from one list, so it names every status once). */
export function ranked(order: readonly JobStatus[]): Record<JobStatus, number> {
  return Object.fromEntries(order.map((s, i) => [s, i])) as Record<JobStatus, number>;
}

/** Sort order of the Status column: the things that need eyes first (spec 10 §1.5's order). */
export const STATUS_ORDER = [
  ...(['running', 'failed', 'pending', 'skipped', 'unknown'] as const),
  ...(['cancelled', 'ok', 'paused', 'disabled'] as const),
] as const satisfies readonly JobStatus[];
export const STATUS_RANK = ranked(STATUS_ORDER);

/** What `jobStatus` reads of a `/jobs` row; `paused` and `history` are absent from older daemons. */
export type StatusInput = Pick<ApiJob, 'enabled' | 'running' | 'last_run'> &
  Partial<Pick<ApiJob, 'paused' | 'history'>>;

export function jobStatus(job: StatusInput): JobStatus {
  if (!job.enabled) return 'disabled';
  if (job.running) return 'running';
  if (job.paused) return 'paused';
  // `last_run` stays on the last real run; a slot a pause skipped since then is the newest history row.
  if (job.history?.[job.history.length - 1]?.outcome === 'skipped') return 'skipped';
  const last = job.last_run;
  if (last === null) return 'pending';
  if (last.outcome === 'failure') return 'failed';
  if (last.outcome === 'cancelled') return 'cancelled';
  if (last.outcome === 'unknown') return 'unknown';
  return 'ok';
}

export interface Summary {
  total: number;
  running: number;
  failing: number;
  scheduled: number;
  disabled: number;
  /** enabled jobs under a runtime pause (spec 10 §1.5) */
  paused: number;
}

/** Header pills: running, failing (last run failed), scheduled (enabled with a next fire), disabled, paused. */
export function summarize(jobs: readonly ApiJob[]): Summary {
  const out: Summary = { total: jobs.length, running: 0, failing: 0, scheduled: 0, disabled: 0, paused: 0 };
  for (const j of jobs) {
    if (!j.enabled) {
      out.disabled++;
      continue;
    }
    if (j.paused) out.paused++;
    if (j.running) out.running++;
    else if (j.last_run?.outcome === 'failure') out.failing++;
    if (j.scheduled_in !== null || (j.running && !j.never_fires)) out.scheduled++;
  }
  return out;
}

export interface FailureBanner {
  kind: 'single' | 'fleet';
  /** failing jobs, most recent failure first */
  jobs: Failure[];
  /** fleet events: whether most failures share one signature (exit code + reason) within 60 s */
  correlated: boolean;
  /** human text of the shared signature, e.g. "exit 69" */
  signature: string | null;
  correlation: Correlation;
}

/** The banner over the table: one failing job, or a fleet event with a one-cause / independent verdict. */
export function failureBanner(jobs: readonly ApiJob[]): FailureBanner | null {
  const failing = failingJobs(jobs);
  if (failing.length === 0) return null;
  const correlation = correlateFailures(failing);
  if (failing.length === 1)
    return { kind: 'single', jobs: failing, correlated: false, signature: null, correlation };
  const correlated = correlation.verdict === 'one-cause';
  const signature = correlated ? correlation.groups[0]!.signature : null;
  return { kind: 'fleet', jobs: failing, correlated, signature, correlation };
}

/**
 * The verdict bar's two lines at `now`: `JOB FAILING — name · exit 3` over `failed 2m ago`, or
 * `FLEET EVENT — 4 jobs failing` over the correlation verdict and the first three names.
 */
export function bannerText(banner: FailureBanner, now: number): { head: string; sub: string } {
  const first = banner.jobs[0]!;
  if (banner.kind === 'single') {
    const age = first.finishedAt !== null ? formatAge(now - first.finishedAt) : '';
    return {
      head: `JOB FAILING — ${first.name} · ${signatureText(first.exitCode, first.reason)}`,
      sub: age && `failed ${age}`,
    };
  }
  return {
    head: `FLEET EVENT — ${banner.jobs.length} jobs failing`,
    sub: `${verdictText(banner.correlation)} · ${nameList(
      banner.jobs.map((j) => j.name),
      3,
    )}`,
  };
}

// Job status badges, summary counts and the failure banner (spec 06 §9.2), derived from `/jobs` alone.
import { parseIso } from './format.ts';
import type { ApiJob } from './types.ts';

export type JobStatus = 'running' | 'failed' | 'pending' | 'unknown' | 'cancelled' | 'ok' | 'disabled';

export const STATUS_LABEL: Record<JobStatus, string> = {
  running: 'Running',
  failed: 'Failed',
  pending: 'Pending',
  unknown: 'Unknown',
  cancelled: 'Cancelled',
  ok: 'OK',
  disabled: 'Disabled',
};

/** Sort order of the Status column: the things that need eyes first. */
export const STATUS_RANK: Record<JobStatus, number> = {
  running: 0,
  failed: 1,
  pending: 2,
  unknown: 3,
  cancelled: 4,
  ok: 5,
  disabled: 6,
};

export function jobStatus(job: Pick<ApiJob, 'enabled' | 'running' | 'last_run'>): JobStatus {
  if (!job.enabled) return 'disabled';
  if (job.running) return 'running';
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
}

/** Header pills: running, failing (last run failed), scheduled (enabled with a next fire), disabled. */
export function summarize(jobs: readonly ApiJob[]): Summary {
  const out: Summary = { total: jobs.length, running: 0, failing: 0, scheduled: 0, disabled: 0 };
  for (const j of jobs) {
    if (!j.enabled) {
      out.disabled++;
      continue;
    }
    if (j.running) out.running++;
    else if (j.last_run?.outcome === 'failure') out.failing++;
    if (j.scheduled_in !== null || (j.running && !j.never_fires)) out.scheduled++;
  }
  return out;
}

export interface FailureBanner {
  kind: 'single' | 'fleet';
  /** failing jobs, most recent failure first */
  jobs: Array<{ name: string; exitCode: number | null; reason: string | null; finishedAt: number | null }>;
  /** fleet events: whether the failures share one signature (exit code + reason) within 60 s */
  correlated: boolean;
  /** human text of the shared signature, e.g. "exit 69 · exit code 69" */
  signature: string | null;
}

/** The banner over the table: one failing job, or a fleet event with a one-cause / independent verdict. */
export function failureBanner(jobs: readonly ApiJob[]): FailureBanner | null {
  const failing = jobs
    .filter((j) => j.enabled && !j.running && j.last_run?.outcome === 'failure')
    .map((j) => ({
      name: j.name,
      exitCode: j.last_run!.exit_code,
      reason: j.last_run!.fail_reason,
      finishedAt: parseIso(j.last_run!.finished_at),
    }))
    .sort((a, b) => (b.finishedAt ?? 0) - (a.finishedAt ?? 0));
  if (failing.length === 0) return null;
  if (failing.length === 1) return { kind: 'single', jobs: failing, correlated: false, signature: null };
  const first = failing[0]!;
  const times = failing.map((f) => f.finishedAt ?? 0);
  const sameSignature = failing.every((f) => f.exitCode === first.exitCode && f.reason === first.reason);
  const correlated = sameSignature && Math.max(...times) - Math.min(...times) <= 60_000;
  const signature = correlated ? signatureText(first.exitCode, first.reason) : null;
  return { kind: 'fleet', jobs: failing, correlated, signature };
}

export function signatureText(exitCode: number | null, reason: string | null): string {
  const parts: string[] = [];
  if (exitCode !== null) parts.push(`exit ${exitCode}`);
  if (reason && reason !== `exit code ${exitCode}`) parts.push(reason);
  return parts.join(' · ') || 'no exit code';
}

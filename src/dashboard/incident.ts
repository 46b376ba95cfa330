// Incident logic behind the fleet-event banner and the incident timeline (spec 06 §9.2): which failures share a
// cause, and the newest finish of every job in order. Pure; `/jobs` in, plain data out.
import { parseIso } from './format.ts';
import type { ApiJob, Outcome } from './types.ts';

/** One failing job as the banner and the correlation see it. */
export interface Failure {
  name: string;
  exitCode: number | null;
  reason: string | null;
  /** epoch ms of the failed run's end, null when the daemon did not say */
  finishedAt: number | null;
}

/** Failures with one signature (exit code + reason) whose ends lie within the correlation window. */
export interface FailureGroup {
  /** human text of the signature, e.g. "exit 3" or "exit 1 · timed out" */
  signature: string;
  names: string[];
  first: number;
  last: number;
}

export interface Correlation {
  /** one cause: one group of at least two failures holds more than half of them */
  verdict: 'one-cause' | 'independent';
  /** groups of two or more, largest (then most recent) first */
  groups: FailureGroup[];
  total: number;
}

export const CORRELATION_WINDOW_MS = 60_000;

/** "exit N · reason", leaving out a reason that only restates the exit code (the daemon's default wording). */
export function signatureText(exitCode: number | null, reason: string | null): string {
  const parts: string[] = [];
  if (exitCode !== null) parts.push(`exit ${exitCode}`);
  const restated =
    exitCode !== null &&
    (reason === `exit code ${exitCode}` || reason === `failsWhen=nonzeroReturn and retcode=${exitCode}`);
  if (reason && !restated) parts.push(reason);
  return parts.join(' · ') || 'no exit code';
}

/**
 * Groups failures by signature, then splits each signature's failures into runs of at most `windowMs` from the
 * group's first end. Jobs that broke on the same exit code and reason within a minute most likely share a cause
 * (a database, a disk, a credential); a majority in one such group is the verdict "likely one cause".
 */
export function correlateFailures(
  failures: readonly Failure[],
  windowMs: number = CORRELATION_WINDOW_MS,
): Correlation {
  const bySignature = new Map<string, Array<Failure & { finishedAt: number }>>();
  for (const f of failures) {
    // A failure without an end time cannot be placed in a window, so it never joins a group.
    if (f.finishedAt === null) continue;
    const key = JSON.stringify([f.exitCode, f.reason]);
    const list = bySignature.get(key) ?? [];
    list.push(f as Failure & { finishedAt: number });
    bySignature.set(key, list);
  }
  const groups: FailureGroup[] = [];
  for (const list of bySignature.values()) {
    list.sort((a, b) => a.finishedAt - b.finishedAt || a.name.localeCompare(b.name));
    let current: FailureGroup | null = null;
    for (const f of list) {
      if (current === null || f.finishedAt - current.first > windowMs) {
        if (current !== null && current.names.length >= 2) groups.push(current);
        current = {
          signature: signatureText(f.exitCode, f.reason),
          names: [],
          first: f.finishedAt,
          last: f.finishedAt,
        };
      }
      current.names.push(f.name);
      current.last = f.finishedAt;
    }
    if (current !== null && current.names.length >= 2) groups.push(current);
  }
  groups.sort((a, b) => b.names.length - a.names.length || b.last - a.last);
  const top = groups[0];
  const oneCause = top !== undefined && top.names.length * 2 > failures.length;
  return { verdict: oneCause ? 'one-cause' : 'independent', groups, total: failures.length };
}

/** The banner's second line for a fleet event. */
export function verdictText(c: Correlation): string {
  const top = c.groups[0];
  if (c.verdict === 'one-cause' && top !== undefined) {
    const who = top.names.length === c.total ? 'shared' : `${top.names.length} of ${c.total} share a`;
    return `${who} failure signature (${top.signature}) within 60 s — likely one cause`;
  }
  if (top !== undefined) {
    return `no dominant failure signature (${top.names.length} share ${top.signature}) — likely independent`;
  }
  return 'no shared failure signature — likely independent';
}

/** Enabled jobs whose last run failed and that are not running again, most recent failure first. */
export function failingJobs(jobs: readonly ApiJob[]): Failure[] {
  return jobs
    .filter((j) => j.enabled && !j.running && j.last_run?.outcome === 'failure')
    .map((j) => ({
      name: j.name,
      exitCode: j.last_run!.exit_code,
      reason: j.last_run!.fail_reason,
      finishedAt: parseIso(j.last_run!.finished_at),
    }))
    .sort((a, b) => (b.finishedAt ?? 0) - (a.finishedAt ?? 0) || a.name.localeCompare(b.name));
}

export interface TimelineEntry {
  name: string;
  outcome: Outcome;
  finishedAt: number;
  startedAt: number | null;
  duration: number | null;
  exitCode: number | null;
  reason: string | null;
  /** the job is running again right now */
  runningNow: boolean;
  /** ms since the next older entry (null for the oldest) */
  gapMs: number | null;
  /** signature text of the correlation group this failure belongs to, else null */
  group: string | null;
}

/**
 * The incident timeline: every job's newest finished run, newest first. Failures that belong to a correlated group
 * carry the group's signature so the view can show which ones fell together.
 */
export function incidentTimeline(jobs: readonly ApiJob[], correlation?: Correlation): TimelineEntry[] {
  const groupOf = new Map<string, string>();
  for (const g of correlation?.groups ?? []) for (const n of g.names) groupOf.set(n, g.signature);
  const out: TimelineEntry[] = [];
  for (const j of jobs) {
    const run = j.last_run;
    const finishedAt = parseIso(run?.finished_at);
    if (!run || finishedAt === null) continue;
    out.push({
      name: j.name,
      outcome: run.outcome,
      finishedAt,
      startedAt: parseIso(run.started_at),
      duration: run.duration,
      exitCode: run.exit_code,
      reason: run.fail_reason,
      runningNow: j.running,
      gapMs: null,
      group: run.outcome === 'failure' ? (groupOf.get(j.name) ?? null) : null,
    });
  }
  out.sort((a, b) => b.finishedAt - a.finishedAt || a.name.localeCompare(b.name));
  for (let i = 0; i + 1 < out.length; i++) out[i]!.gapMs = out[i]!.finishedAt - out[i + 1]!.finishedAt;
  return out;
}

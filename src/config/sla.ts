// SLA monitoring keys (spec 09 §2.1): the three thresholds and the `onLate` report block of jobs and
// `defaults:` (never DAG tasks). Schema pieces, built-in defaults and the load-time rules; the
// monitor itself lives in scheduler/sla/.
import { int, map, nullable } from './validators.ts';

/** The threshold keys in the order the spec lists checks (payload `breaches`, metrics). */
export const SLA_KEYS = ['maxTimeSinceSuccessSeconds', 'lateAfterSeconds', 'maxRuntimeSeconds'] as const;
export type SlaKey = (typeof SLA_KEYS)[number];
/** A check's name: its key minus `Seconds` (metric label, payload `check`, `{{ sla_check }}`). */
export type SlaCheck = 'maxTimeSinceSuccess' | 'lateAfter' | 'maxRuntime';

export type SlaThresholds = Record<SlaKey, number | null>;

const CHECK_OF: Record<SlaKey, SlaCheck> = {
  maxTimeSinceSuccessSeconds: 'maxTimeSinceSuccess',
  lateAfterSeconds: 'lateAfter',
  maxRuntimeSeconds: 'maxRuntime',
};

export function checkNameOf(key: SlaKey): SlaCheck {
  return CHECK_OF[key];
}

/** `sla:` — an empty value is null, which switches off a check inherited from `defaults:`. */
export const slaSchema = nullable(
  map({
    maxTimeSinceSuccessSeconds: nullable(int()),
    lateAfterSeconds: nullable(int()),
    maxRuntimeSeconds: nullable(int()),
  }),
);

export function builtinSla(): SlaThresholds {
  return { maxTimeSinceSuccessSeconds: null, lateAfterSeconds: null, maxRuntimeSeconds: null };
}

/** The built-in `onLate.report`: every reporter off, with the SLA Sentry fingerprint (spec 09 §2.7). */
export function lateReportBlock<B extends { sentry?: { fingerprint?: string[] } | null }>(base: B): B {
  return {
    ...base,
    sentry: base.sentry && { ...base.sentry, fingerprint: ['cronstable', 'sla', '{{ name }}'] },
  };
}

export function hasThreshold(sla: SlaThresholds): boolean {
  return SLA_KEYS.some((k) => sla[k] != null);
}

type Source = { value?: string | null; fromFile?: string | null; fromEnvVar?: string | null };

/** The report block's destination keys, structurally (file-schema.ts builds on this module). */
interface ReportDestinations {
  sentry?: { dsn?: Source | null } | null;
  mail?: { to?: string | null; from?: string | null } | null;
  shell?: { command?: unknown } | null;
  webhook?: { url?: Source | null } | null;
}

function anySource(s: Source | null | undefined): boolean {
  return s != null && (s.value != null || s.fromFile != null || s.fromEnvVar != null);
}

/**
 * "Names a destination" is looser than "configured" (spec 09 §2.1): a Sentry DSN source, a mail
 * `to` or `from`, a shell command, a webhook URL source, an enabled event log. Templates, headers
 * and methods alone name none.
 */
export function namesDestination(block: ReportDestinations | null): boolean {
  if (!block) return false;
  const eventlog = (block as { eventlog?: { enabled?: boolean } | null }).eventlog;
  return (
    anySource(block.sentry?.dsn) ||
    block.mail?.to != null ||
    block.mail?.from != null ||
    block.shell?.command != null ||
    anySource(block.webhook?.url) ||
    eventlog?.enabled === true
  );
}

/** The load-time rules of spec 09 §2.1, as (key path, text) pairs for the job's error prefix. */
export function slaProblems(job: {
  sla: SlaThresholds;
  onLate: { report: ReportDestinations };
}): [string[], string][] {
  const problems: [string[], string][] = [];
  for (const key of SLA_KEYS) {
    const v = job.sla[key];
    if (v != null && !(v > 0)) problems.push([['sla', key], `sla.${key} must be > 0 when set`]);
  }
  if (!hasThreshold(job.sla) && namesDestination(job.onLate.report))
    problems.push([['onLate'], 'onLate requires sla']);
  return problems;
}

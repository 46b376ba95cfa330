// The job-set id (spec 05 §4): a digest of every job's effective identity, equal on every
// node that loaded the same effective config. Pure; no I/O.
import { createHash } from 'node:crypto';
import type { JobConfig, ReportBlock } from '../config/types.ts';

const REDACTED = '<redacted>';

/** JSON with sorted keys, no spaces, and every non-ASCII character escaped (pure-ASCII output). */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'string')
    return JSON.stringify(value).replace(
      /[\u007f-\uffff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${canonicalJson(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
}

function redactReport(report: ReportBlock | null | undefined): unknown {
  if (!report) return report ?? null;
  const out = structuredClone(report) as Record<string, Record<string, unknown> | null>;
  const redactSecret = (block: Record<string, unknown> | null | undefined, key: string) => {
    const secret = block?.[key] as Record<string, unknown> | null | undefined;
    if (secret?.value) secret.value = REDACTED;
  };
  redactSecret(out.sentry, 'dsn');
  redactSecret(out.mail, 'password');
  redactSecret(out.webhook, 'url');
  const headers = out.webhook?.headers as Record<string, string> | null | undefined;
  if (headers) for (const k of Object.keys(headers)) headers[k] = REDACTED;
  const shell = out.shell;
  if (shell && (shell.timeout === undefined || shell.timeout === null || shell.timeout === 60))
    delete shell.timeout;
  return out;
}

export function jobIdentity(job: JobConfig): Record<string, unknown> {
  const identity: Record<string, unknown> = {
    name: job.name,
    command: typeof job.command === 'string' ? { shell_command: job.command } : { argv: job.command },
    schedule: job.scheduleText,
    shell: job.shell,
    concurrencyPolicy: job.concurrencyPolicy,
    clusterPolicy: job.clusterPolicy,
    captureStderr: job.captureStderr,
    captureStdout: job.captureStdout,
    streamPrefix: job.streamPrefix,
    saveLimit: job.saveLimit,
    maxLineLength: job.maxLineLength,
    timezone: job.frame.kind === 'utc' ? 'UTC' : job.frame.kind === 'zone' ? job.frame.zone : null,
    enabled: job.enabled,
    onlyIfLastSucceeded: job.onlyIfLastSucceeded,
    failsWhen: job.failsWhen,
    onFailure: { retry: job.onFailure.retry, report: redactReport(job.onFailure.report) },
    onPermanentFailure: { report: redactReport(job.onPermanentFailure.report) },
    onSuccess: { report: redactReport(job.onSuccess.report) },
    environment: [...new Set(job.effectiveEnvironment.map((e) => e.key))].sort(),
    executionTimeout: job.executionTimeout,
    killTimeout: job.killTimeout,
    statsd: job.statsd,
    user: job.user,
    group: job.group,
  };
  if (job.concurrencyScope !== 'node') identity.concurrencyScope = job.concurrencyScope;
  // Spec 09 §3.1: `normal` (the default) leaves the id as it was; workingDirectory never counts.
  if (job.priority !== 'normal') identity.priority = job.priority;
  return identity;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

export function jobDigest(job: JobConfig): string {
  return sha256(canonicalJson(jobIdentity(job)));
}

export function jobSetId(jobs: readonly JobConfig[]): string {
  const digests = jobs.map(jobDigest).sort();
  return `v1:${sha256(`v1\n${digests.join('\n')}`)}`;
}

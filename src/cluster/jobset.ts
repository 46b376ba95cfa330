// The job-set id (spec 05 §4): a digest of every job's effective identity, equal on every
// node that loaded the same effective config. Pure; no I/O.
import { createHash } from 'node:crypto';
import type { JobConfig } from '../config/types.ts';
import { reportIdentity } from './identity-report.ts';

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

/**
 * Keys newer than the identity's first version (spec 05 §4.2, spec 09 §1.4): hashed only when
 * set away from their default, so an upgrade never changes an existing id. A new key that
 * belongs to identity is added here with its default test; keys that never count (`sla`,
 * `onLate`, `workingDirectory`, catch-up settings) are simply not listed.
 */
const OPTIONAL_JOB_KEYS: Record<string, (value: unknown) => boolean> = {
  concurrencyScope: (v) => v === undefined || v === 'node',
  priority: (v) => v === undefined || v === null || v === 'normal',
};

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
    onFailure: { retry: job.onFailure.retry, report: reportIdentity(job.onFailure.report) },
    onPermanentFailure: { report: reportIdentity(job.onPermanentFailure.report) },
    onSuccess: { report: reportIdentity(job.onSuccess.report) },
    environment: [...new Set(job.effectiveEnvironment.map((e) => e.key))].sort(),
    executionTimeout: job.executionTimeout,
    killTimeout: job.killTimeout,
    statsd: job.statsd,
    user: job.user,
    group: job.group,
  };
  for (const [key, isDefault] of Object.entries(OPTIONAL_JOB_KEYS)) {
    const value = (job as unknown as Record<string, unknown>)[key];
    if (!isDefault(value)) identity[key] = value;
  }
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

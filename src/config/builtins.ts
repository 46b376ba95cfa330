// Built-in job defaults (spec 01 §3, spec 02 §1 and §9, spec 03 §1.3): step 1 of the merge.
import { DEFAULT_DST_POLICY } from '../schedule/dst.ts';
import { EVENTLOG_DEFAULTS } from './eventlog.ts';
import type { ReportBlock } from './file-schema.ts';
import { builtinSla, lateReportBlock } from './sla.ts';
import type { JobOptions } from './types.ts';

function emptySecret() {
  return { value: null, fromFile: null, fromEnvVar: null };
}

/** Reporter defaults; null subject/body mean "the default template" (reporting spec §9.5). */
export function defaultReportBlock(): ReportBlock {
  return {
    eventlog: { ...EVENTLOG_DEFAULTS },
    mail: {
      from: null,
      to: null,
      smtpHost: null,
      smtpPort: 25,
      tls: false,
      starttls: false,
      validate_certs: true,
      html: false,
      username: null,
      password: emptySecret(),
      subject: null,
      body: null,
    },
    sentry: {
      dsn: emptySecret(),
      fingerprint: ['cronstable', '{{ environment.HOSTNAME }}', '{{ name }}'],
      level: 'error',
      extra: {},
      body: null,
      environment: null,
      maxStringLength: 8192,
    },
    shell: null,
    webhook: {
      url: emptySecret(),
      method: 'POST',
      contentType: 'application/json',
      headers: {},
      body: null,
      timeout: 10,
    },
  };
}

export const DEFAULT_STREAM_PREFIX = '[{job_name} {stream_name}] ';

/** A fresh copy of the built-in defaults (callers may mutate it). */
export function builtinJobOptions(): JobOptions {
  return {
    shell: process.platform === 'win32' ? '' : '/bin/sh',
    environment: [],
    env_file: null,
    captureStdout: false,
    captureStderr: true,
    saveLimit: 4096,
    maxLineLength: 16_777_216,
    streamPrefix: DEFAULT_STREAM_PREFIX,
    failsWhen: { producesStdout: false, producesStderr: true, nonzeroReturn: true, always: false },
    executionTimeout: null,
    killTimeout: 30,
    user: null,
    group: null,
    statsd: null,
    monitorResources: false,
    secrets: [],
    stateAllowedScopes: [],
    workingDirectory: null,
    priority: 'normal',
    enabled: true,
    utc: true,
    timezone: null,
    dst: { ...DEFAULT_DST_POLICY },
    onFailure: {
      retry: { maximumRetries: 0, initialDelay: 1, maximumDelay: 300, backoffMultiplier: 2 },
      report: defaultReportBlock(),
    },
    onPermanentFailure: { report: defaultReportBlock() },
    onSuccess: { report: defaultReportBlock() },
    sla: builtinSla(),
    onLate: { report: lateReportBlock(defaultReportBlock()) },
    concurrencyPolicy: 'Allow',
    concurrencyScope: 'node',
    clusterPolicy: 'Leader',
    onMissed: 'skip',
    startingDeadlineSeconds: null,
    catchupJitterSeconds: 0,
    onlyIfLastSucceeded: false,
    archiveOutput: false,
    redactArchivedSecrets: true,
  };
}

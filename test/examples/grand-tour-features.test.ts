// The grand tour's feature map (the seed's table, example/grand-tour/README.md): every feature
// has its job under the seed's job name in the config the entrypoint assembles, and the job
// really carries the setting the feature is about.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import type { JobConfig, LoadedConfig } from '../../src/config/types.ts';
import { assemble, EXAMPLE } from './grand-tour-kit.ts';

let work: string;
let cfg: LoadedConfig;
const platform = readFileSync(join(EXAMPLE, 'platform.yaml'), 'utf8');

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'tour-features-'));
  const r = assemble({
    NODE_NAME: 'meridian-a',
    BACKEND: 'none',
    CONFIG_DIR: join(work, 'cfg'),
    STATE_DIR: join(work, 'state'),
  });
  expect(r.status, r.stderr).toBe(0);
  cfg = loadConfig(join(work, 'cfg'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const cmd = (j: JobConfig) => (Array.isArray(j.command) ? j.command.join(' ') : j.command);

/** [seed job name, what the feature needs of it]. */
const FEATURES: [string, string, (j: JobConfig) => boolean][] = [
  ['pulse-liveness', 'object-form second:', (j) => typeof j.schedule === 'object' && 'second' in j.schedule],
  [
    'pulse-latency',
    '7-field string',
    (j) => typeof j.schedule === 'string' && j.schedule.split(/\s+/).length === 7,
  ],
  ['fiscal-year-open', 'year field', (j) => typeof j.schedule === 'object' && 'year' in j.schedule],
  ['monthly-close-prep', 'LW', (j) => j.scheduleText.includes('LW')],
  ['payroll-file-transmit', 'L-3', (j) => j.scheduleText.includes('L-3')],
  ['invoice-day-run', '15W', (j) => j.scheduleText.includes('15W')],
  ['board-pack-render', '5#3', (j) => j.scheduleText.includes('5#3')],
  ['finance-eod-close', 'New York', (j) => j.timezone === 'America/New_York'],
  [
    'eu-open-report',
    'London, named fields',
    (j) => j.timezone === 'Europe/London' && typeof j.schedule === 'object',
  ],
  ['apac-open-report', 'Tokyo', (j) => j.timezone === 'Asia/Tokyo'],
  ['tmp-sweeper', 'utc: false', (j) => j.utc === false],
  ['warm-cache-on-boot', '@reboot', (j) => j.reboot],
  ['vacuum-analytics-db', '@daily', (j) => j.schedule === '@daily'],
  [
    'orders-ingest',
    'string command, environment, streamPrefix template',
    (j) =>
      typeof j.command === 'string' &&
      j.environment.some((e) => e.key === 'DB_HOST') &&
      j.streamPrefix.includes('{job_name}'),
  ],
  [
    'backup-warehouse',
    'env_file',
    (j) => j.env_file !== null && j.effectiveEnvironment.some((e) => e.key === 'BACKUP_BUCKET'),
  ],
  ['sla-rollup', 'empty streamPrefix', (j) => j.streamPrefix === ''],
  ['silent-cleanup', 'capture off', (j) => !j.captureStdout && !j.captureStderr],
  ['log-rotate', 'maxLineLength', (j) => j.maxLineLength === 512],
  [
    'slow-report-generator',
    'executionTimeout + killTimeout + shell reporter',
    (j) => j.executionTimeout === 20 && j.killTimeout === 5 && !!j.onFailure.report.shell,
  ],
  ['legacy-nightly-sync', 'enabled: false', (j) => !j.enabled],
  ['audit-log-ship', 'saveLimit', (j) => j.saveLimit === 1024],
  ['config-lint', 'failsWhen stderr', (j) => j.failsWhen.producesStderr && !j.failsWhen.producesStdout],
  ['format-check', 'failsWhen stdout', (j) => j.failsWhen.producesStdout && !j.failsWhen.producesStderr],
  ['alert-selftest', 'failsWhen always', (j) => j.failsWhen.always],
  [
    'webhook-dispatch',
    'finite retry -> onPermanentFailure',
    (j) => j.onFailure.retry.maximumRetries === 2 && !!j.onPermanentFailure.report.mail,
  ],
  ['outbox-flush', 'retry forever', (j) => j.onFailure.retry.maximumRetries === -1],
  [
    'cert-expiry-check',
    'mail with SMTP auth + HTML',
    (j) => j.onFailure.report.mail?.html === true && j.onFailure.report.mail.username === 'cronstable',
  ],
  [
    'db-health-orders',
    'webhook method/headers/contentType + shell',
    (j) => {
      const w = j.onFailure.report.webhook;
      return (
        w?.method === 'POST' &&
        !!w.contentType &&
        Object.keys(w.headers ?? {}).length > 0 &&
        !!j.onFailure.report.shell
      );
    },
  ],
  ['fraud-model-refresh', 'sentry + mail', (j) => !!j.onFailure.report.sentry && !!j.onFailure.report.mail],
  ['ops-heartbeat-report', 'onSuccess', (j) => !!j.onSuccess.report.webhook && !!j.onSuccess.report.mail],
  [
    'warehouse-sync',
    'Forbid (node)',
    (j) => j.concurrencyPolicy === 'Forbid' && j.concurrencyScope === 'node',
  ],
  ['search-reindex', 'Replace', (j) => j.concurrencyPolicy === 'Replace'],
  [
    'inventory-sync',
    'Forbid (cluster)',
    (j) => j.concurrencyPolicy === 'Forbid' && j.concurrencyScope === 'cluster',
  ],
  ['compact-warehouse', 'fleet mutex', (j) => /cronstable lock run \S+ --global/.test(cmd(j))],
  ['render-thumbnails', 'fleet semaphore', (j) => cmd(j).includes('--permits 2')],
  [
    'incremental-orders-export',
    'cursor (default scope)',
    (j) => cmd(j).includes('cronstable cursor advance') && !cmd(j).includes('--scope'),
  ],
  [
    'dedup-orders',
    'cursor --scope',
    (j) => cmd(j).includes('--scope orders-domain') && j.stateAllowedScopes.includes('orders-domain'),
  ],
  ['charge-subscriptions', 'idempotent', (j) => cmd(j).includes('cronstable idempotent')],
  [
    'build-daily-report',
    'artifact put/get/list + secret + KV + archive',
    (j) =>
      ['artifact put', 'artifact get', 'artifact list', 'secret get', 'state set', '--json'].every((v) =>
        cmd(j).includes(v),
      ) &&
      j.archiveOutput &&
      j.redactArchivedSecrets &&
      j.secrets.some((s) => s.fromFile !== null),
  ],
  [
    'platform-pulse-counter',
    'durable counter',
    (j) => cmd(j).includes('state set pulse-count') && j.clusterPolicy === 'Leader',
  ],
  [
    'daily-reconcile',
    'run-once + onlyIfLastSucceeded',
    (j) => j.onMissed === 'run-once' && j.startingDeadlineSeconds !== null && j.onlyIfLastSucceeded,
  ],
  ['hourly-invoice-emit', 'run-all + jitter', (j) => j.onMissed === 'run-all' && j.catchupJitterSeconds > 0],
  ['etl-build-facts', 'statsd', (j) => j.statsd !== null],
  ['queue-depth-probe', 'statsd, EveryNode', (j) => j.statsd !== null && j.clusterPolicy === 'EveryNode'],
  ['customers-ingest', 'PreferLeader', (j) => j.clusterPolicy === 'PreferLeader'],
  ['run-schema-migration', 'Leader, started by hand', (j) => j.clusterPolicy === 'Leader'],
];

describe('grand tour feature map', () => {
  it.each(FEATURES)('%s: %s', (name, _what, holds) => {
    const j = cfg.jobs.find((x) => x.name === name);
    expect(j, `platform.yaml has no job ${name}`).toBeDefined();
    expect(holds(j!)).toBe(true);
  });

  it('has the five DAGs, one per pattern', () => {
    const dag = (n: string) => cfg.dags.find((d) => d.name === n)!;
    expect(cfg.dags.map((d) => d.name).sort()).toEqual(
      ['data-quality-gate', 'hotfix-release', 'nightly-close', 'orders-etl', 'release-train'].sort(),
    );
    const etl = dag('orders-etl');
    expect(etl.tasks.find((t) => t.id === 'load')!.expand).toEqual({ fromTask: 'discover', key: 'shards' });
    expect(etl.onMissed).toBe('run-all');
    const close = dag('nightly-close');
    expect(close.timezone).toBe('America/New_York');
    expect(close.tasks.map((t) => t.dependsOn.length)).toEqual([0, 1, 1]);
    const gate = dag('data-quality-gate');
    expect(gate.tasks.find((t) => t.id === 'certify')!.dependsOn).toHaveLength(3);
    const release = dag('release-train');
    expect(release.cron).toBeNull(); // manual trigger
    expect(release.tasks.map((t) => [t.id, t.type])).toContainEqual(['canary', 'sensor']);
    expect(release.tasks.find((t) => t.type === 'approval')!.onReject).toBe('skip');
    expect(dag('hotfix-release').tasks.find((t) => t.type === 'approval')!.onReject).toBe('fail');
  });

  it('carries the state, web, include, logging and crontab features', () => {
    expect(cfg.state).toMatchObject({
      topology: 'shared',
      deploymentId: 'meridian-prod',
      onStoreUnavailable: 'degrade',
      gcGraceSeconds: 86400,
    });
    expect(cfg.web?.headers).toEqual({ 'X-Meridian-Platform': 'grand-tour' });
    expect(cfg.web?.metrics).toMatchObject({ public: true });
    expect(cfg.logging).not.toBeNull(); // from _defaults.yaml, through include:
    expect(cfg.jobs.filter((j) => j.name.startsWith('legacy.crontab:'))).toHaveLength(3);
    // The opt-in token and the privilege drop stay commented out, ready to uncomment.
    expect(platform).toContain('\n  # authToken:\n  #   fromEnvVar: WEB_TOKEN\n');
    expect(cfg.web?.authToken ?? null).toBeNull();
    expect(platform).toMatch(
      /# - name: drop-privileges\n\s+# {3}command: .*\n\s+# {3}schedule: .*\n\s+# {3}user: www-data/,
    );
  });
});

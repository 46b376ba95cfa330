import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDocument, type YAMLMap, type YAMLSeq } from 'yaml';
import { jobSetId } from '../../src/cluster/jobset.ts';
import { loadConfig } from '../../src/config/load.ts';
import { assembledNode } from '../examples/grand-tour-kit.ts';

const NOW = Date.parse('2026-11-29T12:00:00Z');

describe('grand tour config', () => {
  const DIR = assembledNode();
  const load = () => loadConfig(DIR, { nowMs: NOW, cwd: DIR, euid: 0 });
  const cfg = load();

  it('loads 63 jobs (3 crontab first) and 5 DAGs', () => {
    expect(cfg.jobs).toHaveLength(63);
    expect(cfg.jobs.slice(0, 3).map((j) => j.name)).toEqual([
      'legacy.crontab:18',
      'legacy.crontab:19',
      'legacy.crontab:20',
    ]);
    expect(cfg.dags.map((d) => d.name).sort()).toEqual(
      ['data-quality-gate', 'hotfix-release', 'nightly-close', 'orders-etl', 'release-train'].sort(),
    );
    expect(cfg.state?.deploymentId).toBe('meridian-prod');
    expect(cfg.cluster?.distribution).toBe('spread');
    expect(cfg.web?.headers).toEqual({ 'X-Meridian-Platform': 'grand-tour' });
    expect(cfg.logging?.version).toBe(1);
  });

  it('gives platform jobs the included defaults and crontab jobs only the built-ins', () => {
    const ingest = cfg.jobs.find((j) => j.name === 'orders-ingest')!;
    expect(ingest.shell).toBe('/bin/sh');
    expect(ingest.captureStdout).toBe(true);
    expect(ingest.monitorResources).toEqual({ interval: 0.5, history: 240 });
    expect(ingest.environment.slice(0, 2).map((e) => e.key)).toEqual(['PYTHONIOENCODING', 'PLATFORM']);
    const legacy = cfg.jobs[0]!;
    expect(legacy.captureStdout).toBe(false);
    expect(legacy.environment.map((e) => e.key)).toEqual(['SHELL', 'PATH', 'CRON_TZ']);
    expect(legacy.timezone).toBe('UTC');
    expect(legacy.command).toContain('$(date -u +%H:%M) (% is escaped)');
  });

  it('reads the env_file and renders object-form schedules', () => {
    const backup = cfg.jobs.find((j) => j.name === 'backup-warehouse')!;
    expect(backup.effectiveEnvironment.map((e) => e.key)).toContain('BACKUP_BUCKET');
    expect(cfg.jobs.find((j) => j.name === 'fiscal-year-open')!.scheduleText).toBe('0 0 1 1 * 2026/2');
    expect(cfg.jobs.find((j) => j.name === 'pulse-liveness')!.scheduleText).toBe('*/5 * * * * * *');
    expect(cfg.jobs.find((j) => j.name === 'eu-open-report')!.scheduleText).toBe('0 6 * * mon-fri');
  });

  it('reports exactly the expected schedule lints', () => {
    const lints = cfg.warnings
      .filter((w) => w.logger === 'cronstable.config')
      .map((w) => `${w.level} ${w.message}`);
    expect(lints).toHaveLength(4);
    expect(
      lints.some((l) => l.startsWith("warning job 'silent-cleanup'") && l.includes('[uneven-step]')),
    ).toBe(true);
    expect(
      lints.some((l) => l.startsWith("warning job 'legacy.crontab:18'") && l.includes('[uneven-step]')),
    ).toBe(true);
    expect(
      lints.some((l) => l.startsWith("info job 'finance-eod-close'") && l.includes('[dst-skipped-time]')),
    ).toBe(true);
    expect(
      lints.some((l) => l.startsWith("info job 'dag:nightly-close'") && l.includes('[dst-repeated-time]')),
    ).toBe(true);
  });

  it('sends the three most important failures to phones through the push relay (spec 10 §6)', () => {
    expect(cfg.push).toEqual({
      relayUrl: 'http://webhook-sink:8080/push',
      relayTimeout: 5,
      devicesFile: null,
      allowUnauthenticated: true,
    });
    const pushed = cfg.jobs.filter((j) => j.onFailure.report.push?.enabled).map((j) => j.name);
    expect(pushed.sort()).toEqual(['cert-expiry-check', 'db-health-orders', 'fraud-model-refresh']);
  });

  it('loads with the other keys the 1.2.45 tour carries: sla, priority, workingDirectory, notify, authTokens, anonymousScopes', () => {
    // The reference's own 1.2.45 tour is not available here; its seven new keys are (issue 31):
    // push is in this tour itself, the other six are added to an assembled node's platform.yaml.
    const dir = assembledNode('meridian-b');
    const file = join(dir, 'platform.yaml');
    const doc = parseDocument(readFileSync(file, 'utf8'));
    const ingest = (doc.get('jobs') as YAMLSeq<YAMLMap>).items.find(
      (j) => j.get('name') === 'orders-ingest',
    )!;
    ingest.set('sla', doc.createNode({ lateAfterSeconds: 600, maxRuntimeSeconds: 3600 }));
    ingest.set('priority', 'below-normal');
    ingest.set('workingDirectory', '/tmp');
    doc.set(
      'notify',
      doc.createNode({
        events: ['dag_failure', 'approval_waiting', 'leader_change', 'quorum_loss'],
        report: { webhook: { url: { value: 'http://webhook-sink:8080/hooks/notify' } } },
      }),
    );
    const web = doc.get('web') as YAMLMap;
    web.set('authTokens', doc.createNode([{ label: 'wall', scopes: ['view'], value: 'wall-secret' }]));
    web.set('anonymousScopes', doc.createNode(['view']));
    writeFileSync(file, doc.toString());
    const tour = loadConfig(dir, { nowMs: NOW, cwd: dir, euid: 0 });
    const job = tour.jobs.find((j) => j.name === 'orders-ingest')!;
    expect(JSON.stringify(job)).toContain('"lateAfterSeconds":600');
    expect(job).toMatchObject({ priority: 'below-normal', workingDirectory: '/tmp' });
    expect(tour.notify?.events).toHaveLength(4);
    expect(tour.web?.anonymousScopes).toEqual(['view']);
    expect(tour.push?.relayUrl).toBe('http://webhook-sink:8080/push');
  });

  it('has a stable job-set id across loads', () => {
    expect(jobSetId(load().jobs)).toBe(jobSetId(cfg.jobs));
  });
});

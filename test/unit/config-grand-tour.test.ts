import { describe, expect, it } from 'vitest';
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

  it('has a stable job-set id across loads', () => {
    expect(jobSetId(load().jobs)).toBe(jobSetId(cfg.jobs));
  });
});

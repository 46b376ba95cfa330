// The grand tour's self-driving failures (seed table; example/grand-tour/README.md): each job's
// real command, from the config the entrypoint assembles, runs as a real child process through
// the daemon's exec path (launchSpecOf + launch) with the wall-clock minute injected through
// TOUR_MINUTE/TOUR_HOUR, and its reports go through the daemon's dispatch to real sinks.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import type { DagConfig, JobConfig, LoadedConfig } from '../../src/config/types.ts';
import { launchSpecOfTask } from '../../src/dag/engine/launch-spec.ts';
import { verdictOf } from '../../src/dag/trigger-rules.ts';
import { TIMEOUT_EXIT_CODE } from '../../src/exec/exitcode.ts';
import { launch } from '../../src/exec/run.ts';
import type { LaunchSpec, RunResult } from '../../src/exec/types.ts';
import { dispatchReports } from '../../src/report/index.ts';
import type { ReportHook } from '../../src/report/types.ts';
import { nextFire } from '../../src/schedule/index.ts';
import { RetryLadder } from '../../src/scheduler/ladder.ts';
import { reportContext } from '../../src/scheduler/reports.ts';
import { launchSpecOf } from '../../src/scheduler/runtime.ts';
import { FakeClock } from '../../src/util/clock.ts';
import { RecordingLogger } from '../helpers/report-kit.ts';
import { httpSink, smtpSink } from '../helpers/sinks.ts';
import { assemble } from './grand-tour-kit.ts';

let work: string;
let cfg: LoadedConfig;
let smtp: Awaited<ReturnType<typeof smtpSink>>;
let hooks: Awaited<ReturnType<typeof httpSink>>;
const quiet = { stdout: () => {}, stderr: () => {} };

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'tour-demos-'));
  smtp = await smtpSink();
  hooks = await httpSink();
  const r = assemble({
    NODE_NAME: 'meridian-a',
    BACKEND: 'none',
    CONFIG_DIR: join(work, 'cfg'),
    STATE_DIR: join(work, 'state'),
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(smtp.port),
    WEBHOOK_URL: `http://127.0.0.1:${hooks.port}`,
  });
  expect(r.status, r.stderr).toBe(0);
  cfg = loadConfig(join(work, 'cfg'));
});

afterAll(async () => {
  await smtp?.close();
  await hooks?.close();
  rmSync(work, { recursive: true, force: true });
});

function job(name: string): JobConfig {
  const j = cfg.jobs.find((x) => x.name === name);
  if (!j) throw new Error(`platform.yaml has no job ${name}`);
  return j;
}

function dag(name: string): DagConfig {
  const d = cfg.dags.find((x) => x.name === name);
  if (!d) throw new Error(`platform.yaml has no dag ${name}`);
  return d;
}

function runSpec(spec: LaunchSpec, env: Record<string, string>): Promise<RunResult> {
  return launch(spec, { baseEnv: { ...process.env, ...env }, sinks: quiet, drainAfterKillMs: 500 }).done;
}

/** One run of a job's real command with the wall clock at minute `mm` (and hour `hh`). */
function runAt(name: string, mm: string, extra: Record<string, string> = {}): Promise<RunResult> {
  return runSpec(launchSpecOf(job(name)), { TOUR_MINUTE: mm, ...extra });
}

async function report(hook: ReportHook, name: string, result: RunResult): Promise<RecordingLogger> {
  const j = job(name);
  const block =
    hook === 'failure'
      ? j.onFailure.report
      : hook === 'success'
        ? j.onSuccess.report
        : j.onPermanentFailure.report;
  const logger = new RecordingLogger();
  await dispatchReports(hook, block, reportContext(j, result, result.failReason, 'tour-run'), {
    logger,
    env: { SMTP_PASSWORD: 'tour-pass', PATH: process.env.PATH },
  });
  return logger;
}

/** Minutes of one UTC hour at which a job's schedule fires. */
function minutesFired(j: JobConfig): number[] {
  const hourStart = Date.UTC(2026, 6, 6, 10, 0, 0);
  const out: number[] = [];
  let t = hourStart - 1;
  for (;;) {
    const next = nextFire(j.cron!, j.frame, t);
    if (next === null || next >= hourStart + 3_600_000) return out;
    out.push(new Date(next).getUTCMinutes());
    t = next;
  }
}

describe('grand tour self-driving demos (injected minute)', () => {
  it(':05 and :35: slow-report-generator is killed by its executionTimeout and pages through the shell reporter', async () => {
    const j = job('slow-report-generator');
    expect([j.executionTimeout, j.killTimeout]).toEqual([20, 5]);
    expect(minutesFired(j)).toContain(5);
    expect(minutesFired(j)).toContain(35);
    // The config's 20 s limit, shortened to 1 s so the test does not wait for it.
    const short = { ...launchSpecOf(j), executionTimeout: 1, killTimeout: 1 };
    let killed: RunResult | undefined;
    for (const mm of ['05', '35']) {
      killed = await runSpec(short, { TOUR_MINUTE: mm });
      expect(killed.cancelReason).toBe('timeout');
      expect(killed.exitCode).toBe(TIMEOUT_EXIT_CODE);
      expect(killed.failReason).not.toBeNull();
      expect(killed.stdout).toContain('slow path');
    }
    const fine = await runSpec(short, { TOUR_MINUTE: '10' });
    expect([fine.exitCode, fine.failReason, fine.stdout]).toEqual([0, null, 'report rendered\n']);
    // The shell reporter pages on the daemon's stdout; it must run without a reporting error.
    expect(j.onFailure.report.shell?.command).toContain('[page]');
    expect((await report('failure', 'slow-report-generator', killed!)).at('error')).toEqual([]);
  }, 20_000);

  it(':15-:19: the four db-health checks exit 69 together; db-health-orders posts its webhook', async () => {
    const names = ['db-health-orders', 'db-health-payments', 'db-health-inventory', 'db-health-users'];
    for (const name of names) {
      for (const [mm, code] of [
        ['14', 0],
        ['15', 69],
        ['17', 69],
        ['19', 69],
        ['20', 0],
      ] as const) {
        const r = await runAt(name, mm);
        expect(r.exitCode, `${name} at :${mm}`).toBe(code);
        expect(r.failReason === null, `${name} at :${mm}`).toBe(code === 0);
        if (code) expect(r.stderr).toContain('primary unreachable');
      }
    }
    const failed = await runAt('db-health-orders', '16');
    const before = hooks.hits.length;
    const log = await report('failure', 'db-health-orders', failed);
    expect(log.at('error')).toEqual([]);
    const hit = hooks.hits[before]!;
    expect(hit.method).toBe('POST');
    expect(hit.url).toBe('/hooks/db-health');
    expect(hit.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(hit.headers['x-meridian-severity']).toBe('critical');
    const body = JSON.parse(hit.body);
    expect(body).toMatchObject({ source: 'cronstable', job: 'db-health-orders', exit_code: '69' });
  });

  it(':25-:29: config-lint fails only because it wrote to stderr (exit 0)', async () => {
    for (const [mm, fails] of [
      ['24', false],
      ['25', true],
      ['29', true],
      ['30', false],
    ] as const) {
      const r = await runAt('config-lint', mm);
      expect(r.exitCode).toBe(0);
      expect(r.failReason !== null, `:${mm}`).toBe(fails);
      if (fails) expect(r.failReason).toMatch(/stderr/i);
    }
  });

  it(':35-:39: format-check fails only because it wrote to stdout (exit 0)', async () => {
    for (const [mm, fails] of [
      ['34', false],
      ['35', true],
      ['39', true],
      ['40', false],
    ] as const) {
      const r = await runAt('format-check', mm);
      expect(r.exitCode).toBe(0);
      expect(r.failReason !== null, `:${mm}`).toBe(fails);
      if (fails) expect(r.failReason).toMatch(/stdout/i);
    }
  });

  it(':45-:47: cert-expiry-check fails alone and mails on-call over SMTP auth with an HTML body', async () => {
    for (const [mm, code] of [
      ['44', 0],
      ['45', 1],
      ['47', 1],
      ['48', 0],
    ] as const)
      expect((await runAt('cert-expiry-check', mm)).exitCode, `:${mm}`).toBe(code);
    const before = smtp.mails.length;
    const log = await report('failure', 'cert-expiry-check', await runAt('cert-expiry-check', '46'));
    expect(log.at('error')).toEqual([]);
    const got = smtp.mails[before]!;
    expect([got.user, got.password]).toEqual(['cronstable', 'tour-pass']);
    expect(got.envelopeTo).toEqual(['oncall@meridian.example', 'security@meridian.example']);
    expect(got.mail.subject).toBe('[meridian] certificate expiry: cert-expiry-check failed');
    expect(got.mail.html).toContain('<b>1</b>');
    expect(got.mail.html).toContain('expires in 6 days');
  });

  it(':20 and :40: alert-selftest always fails and posts its webhook', async () => {
    const j = job('alert-selftest');
    expect(minutesFired(j)).toEqual([20, 40]);
    const r = await runAt('alert-selftest', '20');
    expect(r.exitCode).toBe(0);
    expect(r.failReason).not.toBeNull();
    const before = hooks.hits.length;
    expect((await report('failure', 'alert-selftest', r)).at('error')).toEqual([]);
    expect(hooks.hits[before]?.url).toBe('/hooks/alert-selftest');
  });

  it(':50: fraud-model-refresh fails and mails risk on-call (Sentry stays a no-op without a DSN)', async () => {
    expect(minutesFired(job('fraud-model-refresh'))).toContain(50);
    expect((await runAt('fraud-model-refresh', '40')).exitCode).toBe(0);
    const r = await runAt('fraud-model-refresh', '50');
    expect(r.exitCode).toBe(2);
    const before = smtp.mails.length;
    const log = await report('failure', 'fraud-model-refresh', r);
    expect(log.at('error')).toEqual(["sentry: dsn env var 'SENTRY_DSN' is not set; not reporting"]);
    expect(smtp.mails[before]?.envelopeTo).toEqual(['risk-oncall@meridian.example']);
  });

  it('every 5th minute: webhook-dispatch fails, retries twice with backoff, then mails its permanent failure', async () => {
    const j = job('webhook-dispatch');
    expect(minutesFired(j)).toHaveLength(12);
    const ladder = new RetryLadder(j.onFailure.retry, {
      clock: new FakeClock(0),
      due: () => {},
      armed: () => {},
      settled: () => {},
    });
    const delays: number[] = [];
    let last: RunResult;
    for (;;) {
      last = await runAt('webhook-dispatch', '05');
      expect(last.exitCode).toBe(1);
      if (!ladder.canRetry()) break;
      delays.push(ladder.arm());
    }
    ladder.cancel('cancelled');
    expect(delays).toEqual([5, 10]);
    const before = smtp.mails.length;
    const log = await report('permanentFailure', 'webhook-dispatch', last);
    expect(log.at('error')).toEqual([]);
    expect(smtp.mails[before]?.mail.subject).toBe('[meridian] webhook-dispatch gave up after its retries');
  });

  it('every 5 minutes: ops-heartbeat-report succeeds and posts a success webhook and mail', async () => {
    const r = await runAt('ops-heartbeat-report', '05');
    expect([r.exitCode, r.failReason]).toEqual([0, null]);
    const hitsBefore = hooks.hits.length;
    const mailsBefore = smtp.mails.length;
    expect((await report('success', 'ops-heartbeat-report', r)).at('error')).toEqual([]);
    expect(hooks.hits[hitsBefore]?.url).toBe('/hooks/heartbeat');
    expect(smtp.mails[mailsBefore]?.mail.subject).toBe('[meridian] heartbeat ok: ops-heartbeat-report');
  });

  it('every 5 minutes: outbox-flush fails twice, then heals; its retries never run out', async () => {
    const j = job('outbox-flush');
    expect(j.onFailure.retry.maximumRetries).toBe(-1);
    const scratch = mkdtempSync(join(work, 'outbox-'));
    const codes: number[] = [];
    for (let i = 0; i < 4; i++) codes.push((await runAt('outbox-flush', '10', { TMPDIR: scratch })).exitCode);
    // Three attempts heal it; the fourth run is the next cycle's first attempt.
    expect(codes).toEqual([75, 75, 0, 75]);
    const ladder = new RetryLadder(j.onFailure.retry, {
      clock: new FakeClock(0),
      due: () => {},
      armed: () => {},
      settled: () => {},
    });
    for (let i = 0; i < 50; i++) ladder.arm();
    expect(ladder.canRetry()).toBe(true);
    ladder.cancel('cancelled');
  });

  it(':00: the four hourly-* reports collide in the same minute', () => {
    const hourly = cfg.jobs.filter((j) => j.name.startsWith('hourly-') && j.name.endsWith('-report'));
    expect(hourly.map((j) => j.name).sort()).toEqual([
      'hourly-refunds-report',
      'hourly-sales-report',
      'hourly-signups-report',
      'hourly-traffic-report',
    ]);
    const from = Date.UTC(2026, 6, 6, 10, 7);
    const nexts = new Set(hourly.map((j) => nextFire(j.cron!, j.frame, from)));
    expect([...nexts]).toEqual([Date.UTC(2026, 6, 6, 11, 0)]);
  });

  it('continuous: the concurrency demos outlast their one-minute cadence; the pulse and orders-etl cadences', () => {
    const sleepOf = (j: JobConfig) => Number(/sleep (\d+)/.exec(String(j.command))?.[1] ?? 0);
    for (const [name, policy, scope] of [
      ['warehouse-sync', 'Forbid', 'node'],
      ['inventory-sync', 'Forbid', 'cluster'],
      ['search-reindex', 'Replace', 'node'],
    ] as const) {
      const j = job(name);
      expect([j.concurrencyPolicy, j.concurrencyScope], name).toEqual([policy, scope]);
      expect(minutesFired(j), name).toHaveLength(60);
      // Each run is still going when the next minute fires, so the policy always has work.
      expect(sleepOf(j), name).toBeGreaterThan(60);
    }
    const thumbs = job('render-thumbnails');
    expect(thumbs.clusterPolicy).toBe('EveryNode');
    expect(String(thumbs.command)).toMatch(/lock run render-thumbnails --permits 2 --wait/);
    // Second-level probes: the next-run countdown ticks in seconds.
    const gaps = (name: string) => {
      const j = job(name);
      const t0 = Date.UTC(2026, 6, 6, 10, 0, 0);
      const a = nextFire(j.cron!, j.frame, t0)!;
      return (nextFire(j.cron!, j.frame, a)! - a) / 1000;
    };
    expect(gaps('pulse-liveness')).toBe(5);
    expect(gaps('pulse-latency')).toBe(2);
    const etl = dag('orders-etl');
    const first = nextFire(etl.cron!, etl.frame, Date.UTC(2026, 6, 6, 10, 0, 30))!;
    expect((nextFire(etl.cron!, etl.frame, first)! - first) / 60_000).toBe(3);
    const gate = dag('data-quality-gate');
    const g = nextFire(gate.cron!, gate.frame, Date.UTC(2026, 6, 6, 10, 0, 30))!;
    expect((nextFire(gate.cron!, gate.frame, g)! - g) / 60_000).toBe(15);
  });

  it('data-quality-gate certifies in even UTC hours and leaves certify upstream_failed in odd ones', async () => {
    const d = dag('data-quality-gate');
    const certify = d.tasks.find((t) => t.id === 'certify')!;
    expect(certify.triggerRule).toBe('all_success');
    expect(certify.dependsOn.sort()).toEqual(['check-freshness', 'check-nulls', 'check-volume']);
    for (const [hh, verdict] of [
      ['14', 'ready'],
      ['13', 'upstream_failed'],
      ['00', 'ready'],
      ['09', 'upstream_failed'],
    ] as const) {
      const states = await Promise.all(
        certify.dependsOn.map(async (id) => {
          const task = d.tasks.find((t) => t.id === id)!;
          const r = await runSpec(launchSpecOfTask(task), { TOUR_HOUR: hh });
          return r.failReason === null ? ('success' as const) : ('failed' as const);
        }),
      );
      expect(verdictOf(certify.triggerRule, states), `hour ${hh}`).toBe(verdict);
    }
  });
});

describe('the probes and the release canary present $WEB_TOKEN', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      const ok = req.url === '/status' && req.headers.authorization === 'Bearer s3cret';
      res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
      res.end(ok ? '{"ok":true}' : '{"error":"unauthorized"}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('pulse-liveness, pulse-latency and the canary pass with the token and fail without it', async () => {
    const canary = dag('release-train').tasks.find((t) => t.id === 'canary')!;
    expect(canary.type).toBe('sensor');
    const specs = [
      launchSpecOf(job('pulse-liveness')),
      launchSpecOf(job('pulse-latency')),
      launchSpecOfTask(canary),
    ];
    for (const spec of specs) {
      const withToken = await runSpec(spec, { CRONSTABLE_URL: url, WEB_TOKEN: 's3cret' });
      expect(withToken.exitCode, `${spec.name}: ${withToken.stderr}`).toBe(0);
      const without = await runSpec(spec, { CRONSTABLE_URL: url, WEB_TOKEN: '' });
      expect(without.exitCode, spec.name).not.toBe(0);
    }
  });
});

// /metrics over real HTTP: families, types, labels and bucket bounds, parsed from the exposition.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Metrics } from '../../src/metrics/index.ts';
import { type Harness, job, LOOPBACK, startHarness, waitUntil } from './web-harness.ts';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}
interface Family {
  name: string;
  type: string;
  help: string;
  samples: Sample[];
}

/** A small parser of the Prometheus text / OpenMetrics exposition formats. */
function parseExposition(text: string): { families: Map<string, Family>; order: string[]; eof: boolean } {
  const families = new Map<string, Family>();
  const order: string[] = [];
  let current: Family | null = null;
  let eof = false;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line === '# EOF') {
      eof = true;
      continue;
    }
    expect(eof, 'nothing after # EOF').toBe(false);
    let m = /^# HELP (\S+) (.*)$/.exec(line);
    if (m) {
      current = { name: m[1]!, type: '', help: m[2]!, samples: [] };
      expect(families.has(current.name), `family ${current.name} appears once`).toBe(false);
      families.set(current.name, current);
      order.push(current.name);
      continue;
    }
    m = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (m) {
      expect(m[1]).toBe(current?.name);
      current!.type = m[2]!;
      continue;
    }
    m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    expect(m, `sample line: ${line}`).not.toBeNull();
    const labels: Record<string, string> = {};
    for (const pair of (m![2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[pair[1]!] = pair[2]!.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    const raw = m![3]!;
    const value =
      raw === '+Inf' ? Number.POSITIVE_INFINITY : raw === '-Inf' ? Number.NEGATIVE_INFINITY : Number(raw);
    expect(current, `sample ${line} belongs to a family`).not.toBeNull();
    expect(m![1]!.startsWith(current!.name), `${m![1]} in family ${current!.name}`).toBe(true);
    current!.samples.push({ name: m![1]!, labels, value });
  }
  return { families, order, eof };
}

const BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const WEB = `${LOOPBACK}
  authToken:
    value: s3cret
  headers:
    X-Meridian-Platform: grand-tour
    content-TYPE: text/x-operator
  metrics:
    public: true
    durationBuckets:
${BUCKETS.map((b) => `      - ${b}`).join('\n')}`;

describe('/metrics', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(
      [
        job('ok-job', 'echo fine', '0 0 1 1 *'),
        job('bad-job', 'echo broken >&2; exit 3', '0 0 1 1 *'),
        job('off', 'true', '0 0 1 1 *', ['enabled: false']),
        job('boot', 'true', '@reboot'),
      ].join('\n'),
      WEB,
    );
    await waitUntil(() => (h.scheduler.history('boot')?.recentRuns().length ?? 0) === 1);
    expect((await h.post('/jobs/ok-job/start', { token: 's3cret' })).status).toBe(200);
    expect((await h.post('/jobs/bad-job/start', { token: 's3cret' })).status).toBe(200);
    await waitUntil(
      () =>
        (h.scheduler.history('ok-job')?.recentRuns().length ?? 0) === 1 &&
        (h.scheduler.history('bad-job')?.recentRuns().length ?? 0) === 1,
    );
  });
  afterAll(async () => {
    await h.stop();
  });

  it('serves the text format publicly, with its content type despite an operator Content-Type', async () => {
    const res = await h.get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.headers.get('x-meridian-platform')).toBe('grand-tour');
    const text = await res.text();
    expect(text.endsWith('\n')).toBe(true);
    const { families, order, eof } = parseExposition(text);
    expect(eof).toBe(false);
    const types = Object.fromEntries([...families.values()].map((f) => [f.name, f.type]));
    expect(types).toMatchObject({
      cronstable_info: 'gauge',
      cronstable_start_time_seconds: 'gauge',
      cronstable_job_set_info: 'gauge',
      cronstable_jobs: 'gauge',
      cronstable_config_last_reload_successful: 'gauge',
      cronstable_config_last_reload_success_timestamp_seconds: 'gauge',
      cronstable_job_runs_total: 'counter',
      cronstable_job_retries_total: 'counter',
      cronstable_job_permanent_failures_total: 'counter',
      cronstable_job_start_failures_total: 'counter',
      cronstable_job_duration_seconds: 'histogram',
      cronstable_job_last_success_timestamp_seconds: 'gauge',
      cronstable_job_last_failure_timestamp_seconds: 'gauge',
      cronstable_job_info: 'gauge',
      cronstable_job_enabled: 'gauge',
      cronstable_job_running: 'gauge',
      cronstable_job_next_run_timestamp_seconds: 'gauge',
      cronstable_job_last_run_timestamp_seconds: 'gauge',
      cronstable_job_last_run_duration_seconds: 'gauge',
      cronstable_job_last_run_exit_code: 'gauge',
      cronstable_job_last_run_success: 'gauge',
      cronstable_cluster_enabled: 'gauge',
    });
    // Daemon, then per-job accumulators, then per-job live, then cluster.
    const at = (n: string) => order.indexOf(n);
    expect(at('cronstable_info')).toBe(0);
    expect(at('cronstable_jobs')).toBeLessThan(at('cronstable_job_runs_total'));
    expect(at('cronstable_job_last_failure_timestamp_seconds')).toBeLessThan(at('cronstable_job_info'));
    expect(at('cronstable_job_last_run_success')).toBeLessThan(at('cronstable_cluster_enabled'));
    // Families without samples are omitted.
    for (const f of families.values()) expect(f.samples.length, f.name).toBeGreaterThan(0);
    expect(families.has('cronstable_cluster_leader_info')).toBe(false);
    expect(families.has('cronstable_state_info')).toBe(false);

    const s = (name: string) => families.get(name)!.samples;
    expect(s('cronstable_info')).toEqual([
      { name: 'cronstable_info', labels: { version: '9.9.9-test' }, value: 1 },
    ]);
    expect(s('cronstable_job_set_info')[0]!.labels.job_set_id).toBe(h.ctx.jobSetId());
    expect(s('cronstable_jobs').map((x) => [x.labels.state, x.value])).toEqual([
      ['enabled', 3],
      ['disabled', 1],
    ]);
    expect(s('cronstable_config_last_reload_successful')[0]!.value).toBe(1);
    expect(s('cronstable_cluster_enabled')[0]!.value).toBe(0);

    // Per-job counters: every job zero-filled, sorted by name, all four statuses (skipped: spec 10 §1.5).
    const runs = s('cronstable_job_runs_total');
    expect(runs.map((x) => `${x.labels.job_name}/${x.labels.status}=${x.value}`)).toEqual([
      'bad-job/success=0',
      'bad-job/failure=1',
      'bad-job/cancelled=0',
      'bad-job/skipped=0',
      'boot/success=1',
      'boot/failure=0',
      'boot/cancelled=0',
      'boot/skipped=0',
      'off/success=0',
      'off/failure=0',
      'off/cancelled=0',
      'off/skipped=0',
      'ok-job/success=1',
      'ok-job/failure=0',
      'ok-job/cancelled=0',
      'ok-job/skipped=0',
    ]);
    expect(runs.every((x) => x.name === 'cronstable_job_runs_total')).toBe(true);
    const perm = s('cronstable_job_permanent_failures_total');
    expect(perm.map((x) => [x.labels.job_name, x.value])).toEqual([
      ['bad-job', 1],
      ['boot', 0],
      ['off', 0],
      ['ok-job', 0],
    ]);
    expect(s('cronstable_job_last_failure_timestamp_seconds').map((x) => x.labels.job_name)).toEqual([
      'bad-job',
    ]);
    expect(s('cronstable_job_last_success_timestamp_seconds').map((x) => x.labels.job_name)).toEqual([
      'boot',
      'ok-job',
    ]);

    // Histogram: the configured bounds (as floats) plus +Inf, cumulative; _sum/_count carry job_name only.
    const hist = s('cronstable_job_duration_seconds').filter((x) => x.labels.job_name === 'ok-job');
    const buckets = hist.filter((x) => x.name === 'cronstable_job_duration_seconds_bucket');
    expect(buckets.map((x) => x.labels.le)).toEqual([
      '0.05',
      '0.1',
      '0.25',
      '0.5',
      '1.0',
      '2.5',
      '5.0',
      '10.0',
      '30.0',
      '60.0',
      '+Inf',
    ]);
    const counts = buckets.map((x) => x.value);
    expect([...counts].sort((a, b) => a - b)).toEqual(counts);
    expect(counts.at(-1)).toBe(1);
    const count = hist.find((x) => x.name === 'cronstable_job_duration_seconds_count')!;
    expect(count).toEqual({
      name: 'cronstable_job_duration_seconds_count',
      labels: { job_name: 'ok-job' },
      value: 1,
    });
    expect(hist.find((x) => x.name === 'cronstable_job_duration_seconds_sum')!.value).toBeGreaterThan(0);

    // Live families: config order; next run absent for disabled and @reboot jobs.
    expect(s('cronstable_job_info').map((x) => x.labels)).toEqual([
      { job_name: 'ok-job', schedule: '0 0 1 1 *', cluster_policy: 'Leader' },
      { job_name: 'bad-job', schedule: '0 0 1 1 *', cluster_policy: 'Leader' },
      { job_name: 'off', schedule: '0 0 1 1 *', cluster_policy: 'Leader' },
      { job_name: 'boot', schedule: '@reboot', cluster_policy: 'Leader' },
    ]);
    expect(s('cronstable_job_enabled').map((x) => x.value)).toEqual([1, 1, 0, 1]);
    expect(s('cronstable_job_next_run_timestamp_seconds').map((x) => x.labels.job_name)).toEqual([
      'ok-job',
      'bad-job',
    ]);
    expect(s('cronstable_job_last_run_exit_code').map((x) => [x.labels.job_name, x.value])).toEqual([
      ['ok-job', 0],
      ['bad-job', 3],
      ['boot', 0],
    ]);
    expect(s('cronstable_job_last_run_success').map((x) => x.value)).toEqual([1, 0, 1]);
  });

  it('serves OpenMetrics when asked, ending with # EOF', async () => {
    const res = await h.get('/metrics', {
      headers: { accept: 'application/openmetrics-text; version=1.0.0' },
    });
    expect(res.headers.get('content-type')).toBe(
      'application/openmetrics-text; version=1.0.0; charset=utf-8',
    );
    const text = await res.text();
    expect(text.endsWith('# EOF\n')).toBe(true);
    expect(text).toContain('# TYPE cronstable_job_runs counter');
    expect(text).toContain('cronstable_job_runs_total{job_name="ok-job",status="success"} 1');
    const { families, eof } = parseExposition(text);
    expect(eof).toBe(true);
    expect(families.get('cronstable_job_runs')!.type).toBe('counter');
    expect(families.get('cronstable_job_duration_seconds')!.type).toBe('histogram');
  });

  it('keeps counters in the daemon-owned registry across server restarts, and resets histograms on new buckets', async () => {
    const metrics = h.metrics;
    expect(h.ctx.metrics).toBe(metrics);
    await h.server.stop();
    const { startWebServer } = await import('../../src/web/server.ts');
    const { Logger } = await import('../../src/util/log.ts');
    const web = { ...h.cfg.web!, metrics: { public: true, durationBuckets: [1, 2] } };
    const again = await startWebServer(h.ctx, web, new Logger('cronstable'));
    try {
      const text = await (await fetch(`${again.urls[0]}/metrics`)).text();
      expect(text).toContain('cronstable_job_runs_total{job_name="ok-job",status="success"} 1');
      expect(text).toContain('cronstable_job_duration_seconds_bucket{le="2.0",job_name="ok-job"} 0');
      expect(text).toContain('cronstable_job_duration_seconds_count{job_name="ok-job"} 0');
    } finally {
      await again.stop();
    }
    expect(metrics.durationBuckets).toEqual([1, 2]);
  });

  it('drops accumulators of jobs no longer configured', async () => {
    const m = new Metrics({ version: 'x' });
    const jobs = h.cfg.jobs;
    let current = jobs;
    const ctx = { ...h.ctx, config: () => ({ ...h.cfg, jobs: current }) };
    m.attach(ctx);
    m.observeRun({ ...h.scheduler.history('ok-job')!.lastRun()! });
    expect((await m.exposition(undefined)).body).toContain(
      'cronstable_job_runs_total{job_name="ok-job",status="success"} 1',
    );
    current = jobs.filter((j) => j.name !== 'ok-job');
    const body = (await m.exposition(undefined)).body;
    expect(body).not.toContain('cronstable_job_runs_total{job_name="ok-job"');
    expect(body).toContain('cronstable_job_runs_total{job_name="bad-job",status="failure"} 0');
  });
});

describe('/metrics settings', () => {
  it('is not served with metrics: false, and needs the token when not public', async () => {
    const off = await startHarness(job('a', 'true', '0 0 1 1 *'), `${LOOPBACK}\n  metrics: false`);
    try {
      expect((await off.get('/metrics')).status).toBe(404);
    } finally {
      await off.stop();
    }
    const closed = await startHarness(
      job('a', 'true', '0 0 1 1 *'),
      `${LOOPBACK}\n  authToken:\n    value: t\n  ui: false\n  metrics:\n    enabled: true`,
    );
    try {
      expect((await closed.get('/metrics')).status).toBe(401);
      expect((await closed.get('/metrics', { token: 't' })).status).toBe(200);
      // ui: false removes the route and its public exception
      expect((await closed.get('/')).status).toBe(401);
      expect((await closed.get('/', { token: 't' })).status).toBe(404);
    } finally {
      await closed.stop();
    }
  });
});

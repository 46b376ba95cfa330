// The web API over real HTTP against a real scheduler and real child processes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/util/clock.ts';
import { ORIGIN_REFUSED } from '../../src/web/origin.ts';
import { type Harness, job, LOOPBACK, readSse, startHarness, waitUntil } from './web-harness.ts';

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies, checked field by field below
type Parsed = Record<string, any>;

const YEARLY = '0 0 1 1 *';
const JOBS = [
  job('quick', 'echo quick-out', YEARLY, ['captureStdout: true']),
  job('slow', 'echo slow-start; sleep 30', YEARLY, ['captureStdout: true', 'killTimeout: 1']),
  job('talker', 'echo line-one; sleep 1; echo line-two', YEARLY, ['captureStdout: true']),
  job('off', 'true', YEARLY, ['enabled: false']),
  job('boot', 'true', '@reboot'),
  job('dead', 'true', '0 0 1 1 * 2020'),
  job('monthly-close-prep', 'true', '30 1 LW * *', ['timezone: Europe/London']),
  job('hashed', 'true', 'H 3 * * *'),
].join('\n');

const TOKEN = 's3cret';
const AUTH_WEB = `${LOOPBACK}
  authToken:
    value: ${TOKEN}
  headers:
    X-Meridian-Platform: grand-tour
  metrics:
    public: true`;

// [method, path, status with the right token]
const ROUTES: [string, string, number][] = [
  ['GET', '/version', 200],
  ['GET', '/status', 200],
  ['GET', '/jobs', 200],
  ['GET', '/jobs/quick/runs', 200],
  ['GET', '/jobs/ghost/runs', 404],
  ['GET', '/jobs/off/logs', 200],
  ['GET', '/jobs/quick/resources', 200],
  ['GET', '/jobs/quick/trends', 200],
  ['GET', '/jobs/quick/slots', 200],
  ['GET', '/jobs/ghost/slots', 404],
  ['GET', '/slots/unaccounted', 200],
  ['GET', '/jobs/quick/calendar.ics', 200],
  ['GET', '/calendar.ics', 200],
  ['GET', '/job-set-id', 200],
  ['GET', '/cluster', 200],
  ['GET', '/fleet', 200],
  ['GET', '/node', 200],
  ['GET', '/node/history', 200],
  ['GET', '/schedule/preview?expr=*/5+*+*+*+*', 200],
  ['GET', '/schedule/pressure', 200],
  ['GET', '/schedule/duplicates', 200],
  ['GET', '/schedule/suggest', 200],
  ['GET', '/schedule/why?job=quick&at=2026-01-01T00:00:00Z', 200],
  ['GET', '/dags', 200],
  ['GET', '/dags/nightly/runs', 404],
  ['GET', '/dags/nightly/runs/rk', 404],
  ['GET', '/dags/nightly/runs/rk/xcom', 404],
  ['GET', '/dags/nightly/runs/rk/tasks/t/logs', 404],
  ['GET', '/state', 200],
  ['GET', '/state/documents?ns=kv/x', 404],
  ['GET', '/state/records?stream=runs/x', 404],
  ['GET', '/no/such/path', 404],
  ['POST', '/jobs/ghost/start', 404],
  ['POST', '/jobs/off/start', 409],
  ['POST', '/jobs/off/cancel', 409],
  ['POST', '/jobs/ghost/cancel', 404],
  ['POST', '/dags/nightly/trigger', 404],
  ['POST', '/dags/nightly/backfill', 404],
  ['POST', '/dags/nightly/runs/rk/tasks/t/decision', 404],
];

describe('web API with an auth token (real HTTP, real scheduler)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(JOBS, AUTH_WEB);
  });
  afterAll(async () => {
    await h.stop();
  });

  it('logs the bound address', () => {
    expect(h.logs).toContain(`INFO web: started listening on ${h.base}`);
  });

  it('answers 401 without a token and with a wrong one, on every route', async () => {
    for (const [method, path] of ROUTES) {
      for (const init of [
        {},
        { token: 'nope' },
        { token: ` ${TOKEN}` },
        { headers: { authorization: TOKEN } },
      ]) {
        const res = await (method === 'GET' ? h.get(path, init) : h.post(path, init));
        expect(res.status, `${method} ${path} ${JSON.stringify(init)}`).toBe(401);
        expect(await res.json()).toEqual({ error: '401: Unauthorized' });
        expect(res.headers.get('x-meridian-platform')).toBeNull();
      }
    }
  });

  it('answers with the right token, on every route', async () => {
    for (const [method, path, status] of ROUTES) {
      const res = await (method === 'GET' ? h.get(path, { token: TOKEN }) : h.post(path, { token: TOKEN }));
      expect(res.status, `${method} ${path}`).toBe(status);
      if (status >= 400)
        expect(((await res.json()) as { error: unknown }).error, `${method} ${path}`).toEqual(
          expect.any(String),
        );
      else await res.arrayBuffer();
    }
    // The scheme is case-insensitive.
    expect((await h.get('/version', { headers: { authorization: `bEaReR ${TOKEN}` } })).status).toBe(200);
  });

  it('serves the public paths without a token: / (ui) and /metrics (public)', async () => {
    expect((await h.get('/')).status).toBe(200);
    expect((await h.get('/metrics')).status).toBe(200);
    // exact path match only
    expect((await h.get('/metrics/')).status).toBe(401);
    expect((await h.get('/?x=1')).status).toBe(200);
  });

  it('accepts ?token= on .ics paths only, and a bearer header always wins', async () => {
    expect((await h.get(`/calendar.ics?token=${TOKEN}`)).status).toBe(200);
    expect((await h.get(`/jobs/quick/calendar.ics?token=${TOKEN}`)).status).toBe(200);
    expect((await h.get('/calendar.ics?token=wrong')).status).toBe(401);
    expect((await h.get(`/calendar.ics?token=${TOKEN}`, { token: 'wrong' })).status).toBe(401);
    expect(
      (await h.get(`/calendar.ics?token=${TOKEN}`, { headers: { authorization: 'Basic abc' } })).status,
    ).toBe(200);
    expect((await h.get(`/status?token=${TOKEN}`)).status).toBe(401);
    expect((await h.get(`/jobs?token=${TOKEN}`)).status).toBe(401);
  });

  it('puts web.headers on 200s and start/cancel 409s, never on 401/404', async () => {
    const ok = await h.get('/status', { token: TOKEN });
    expect(ok.headers.get('x-meridian-platform')).toBe('grand-tour');
    const conflict = await h.post('/jobs/off/start', { token: TOKEN });
    expect(conflict.status).toBe(409);
    expect(conflict.headers.get('x-meridian-platform')).toBe('grand-tour');
    const notFound = await h.get('/jobs/ghost/runs', { token: TOKEN });
    expect(notFound.headers.get('x-meridian-platform')).toBeNull();
    const unknownPath = await h.get('/nope', { token: TOKEN });
    expect(unknownPath.status).toBe(404);
    expect(unknownPath.headers.get('x-meridian-platform')).toBeNull();
    const metrics = await h.get('/metrics');
    expect(metrics.headers.get('x-meridian-platform')).toBe('grand-tour');
    const ics = await h.get('/calendar.ics', { token: TOKEN });
    expect(ics.headers.get('x-meridian-platform')).toBe('grand-tour');
    expect(ics.headers.get('content-disposition')).toBe('inline; filename="cronstable.ics"');
    const bad = await h.get('/schedule/preview', { token: TOKEN });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('x-meridian-platform')).toBe('grand-tour');
  });

  it('answers start with 200 and a JSON acknowledgement (spec 10 §4.1), and runs the job now', async () => {
    const res = await h.post('/jobs/quick/start', { token: TOKEN });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ started: 'quick' });
    await waitUntil(() => (h.scheduler.history('quick')?.recentRuns().length ?? 0) > 0);
    expect(h.scheduler.history('quick')!.lastRun()!.trigger).toBe('manual');
  });

  it('gives the spec messages on start/cancel errors', async () => {
    expect(await (await h.post('/jobs/ghost/start', { token: TOKEN })).json()).toEqual({
      error: "job 'ghost' not found",
    });
    expect(await (await h.post('/jobs/off/start', { token: TOKEN })).json()).toEqual({
      error: "job 'off' is disabled",
    });
    expect(await (await h.post('/jobs/quick/cancel', { token: TOKEN })).json()).toEqual({
      error: "job 'quick' is not running",
    });
  });
});

describe('web API without auth', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(
      JOBS,
      `${LOOPBACK}
  allowedOrigins:
    - https://ops.example.com
  headers:
    X-Frame-Options: SAMEORIGIN
    Content-Disposition: attachment`,
    );
  });
  afterAll(async () => {
    await h.stop();
  });

  it('opens every route when no token is configured', async () => {
    for (const path of ['/status', '/jobs', '/cluster', '/job-set-id', '/metrics', '/calendar.ics']) {
      const res = await h.get(path);
      expect(res.status, path).toBe(200);
      await res.arrayBuffer();
    }
  });

  it('starts and cancels: 200, then 409 once nothing runs', async () => {
    expect((await h.post('/jobs/slow/cancel')).status).toBe(409);
    expect((await h.post('/jobs/slow/start')).status).toBe(200);
    await waitUntil(() => h.scheduler.running('slow').length === 1);
    const jobs = (await (await h.get('/jobs')).json()) as {
      name: string;
      running: boolean;
      pids: number[];
    }[];
    const slow = jobs.find((j) => j.name === 'slow')!;
    expect(slow.running).toBe(true);
    expect(slow.pids).toHaveLength(1);
    const status = await (await h.get('/status')).text();
    expect(status).toContain(`slow: running (pid: ${slow.pids[0]})`);
    const cancel = await h.post('/jobs/slow/cancel');
    expect(cancel.status).toBe(200);
    expect(await cancel.json()).toEqual({ cancelled: 'slow', instances: 1 });
    await waitUntil(() => h.scheduler.history('slow')?.lastRun()?.outcome === 'cancelled');
    expect((await h.post('/jobs/slow/cancel')).status).toBe(409);
    const runs = (await (await h.get('/jobs/slow/runs')).json()) as {
      runs: { outcome: string }[];
      stats: { cancelled: number };
    };
    expect(runs.runs.at(-1)!.outcome).toBe('cancelled');
    expect(runs.stats.cancelled).toBe(1);
  });

  it('refuses cross-site POSTs (403) but not same-origin, allow-listed or Origin-less ones', async () => {
    const host = new URL(h.base).host;
    const foreign = await h.post('/jobs/quick/start', { headers: { origin: 'http://evil.example' } });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toEqual({ error: ORIGIN_REFUSED });
    expect((await h.post('/jobs/quick/start', { headers: { origin: 'null' } })).status).toBe(403);
    expect((await h.post('/dags/x/trigger', { headers: { origin: 'http://evil.example' } })).status).toBe(
      403,
    );
    expect((await h.post('/jobs/quick/start', { headers: { origin: `http://${host}` } })).status).toBe(200);
    // the scheme is not compared, the default port is the Origin's
    expect((await h.post('/jobs/quick/start', { headers: { origin: `https://${host}` } })).status).toBe(200);
    expect(
      (await h.post('/jobs/quick/start', { headers: { origin: 'https://ops.example.com' } })).status,
    ).toBe(200);
    expect((await h.post('/jobs/quick/start')).status).toBe(200);
    // safe methods are never gated
    expect((await h.get('/status', { headers: { origin: 'http://evil.example' } })).status).toBe(200);
  });

  it('lets the operator override dashboard headers and keeps the .ics disposition', async () => {
    const page = await h.get('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    const ics = await h.get('/calendar.ics');
    expect(ics.headers.get('content-disposition')).toBe('inline; filename="cronstable.ics"');
    expect((await h.get('/version')).headers.get('content-disposition')).toBe('attachment');
  });

  it('answers 405 with Allow for a known path and the wrong method, HEAD on GET routes', async () => {
    const res = await h.get('/jobs/quick/start');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(await res.json()).toEqual({ error: '405: Method Not Allowed' });
    expect((await h.post('/status')).status).toBe(405);
    const head = await fetch(`${h.base}/status`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('serves /status as text by default and JSON when Accept lists application/json', async () => {
    await waitUntil(() => h.scheduler.running('quick').length === 0);
    // /status serves a snapshot that may show an ended run as running for up to a second.
    let text = await (await h.get('/status')).text();
    for (let i = 0; i < 100 && text.includes('quick: running'); i++) {
      await new Promise((r) => setTimeout(r, 50));
      text = await (await h.get('/status')).text();
    }
    const lines = text.split('\n');
    expect(lines.find((l) => l.startsWith('off:'))).toBe('off: disabled');
    expect(lines.find((l) => l.startsWith('boot:'))).toBe('boot: scheduled (@reboot)');
    expect(lines.find((l) => l.startsWith('dead:'))).toBe(
      'dead: never fires (schedule has no future occurrence)',
    );
    expect(lines.find((l) => l.startsWith('quick:'))).toMatch(/^quick: scheduled \(in \d+ days\)$/);
    expect(text.endsWith('\n')).toBe(false);
    // Spec 10 §4.8: any media range naming application/json picks JSON; wildcards and q=0 keep text.
    const typeFor = async (accept: string) =>
      (await h.get('/status', { headers: { accept } })).headers.get('content-type');
    expect(await typeFor('application/json, text/plain')).toBe('application/json; charset=utf-8');
    expect(await typeFor('text/html, Application/JSON;q=0.9')).toBe('application/json; charset=utf-8');
    expect(await typeFor('*/*')).toBe('text/plain; charset=utf-8');
    expect(await typeFor('application/*')).toBe('text/plain; charset=utf-8');
    expect(await typeFor('application/json;q=0, text/plain')).toBe('text/plain; charset=utf-8');
    const json = (await (
      await h.get('/status', { headers: { accept: 'application/json' } })
    ).json()) as Record<string, unknown>[];
    expect(json.map((e) => e.job)).toEqual(h.cfg.jobs.map((j) => j.name));
    expect(json.find((e) => e.job === 'off')).toEqual({ job: 'off', status: 'disabled' });
    expect(json.find((e) => e.job === 'boot')).toEqual({
      job: 'boot',
      status: 'scheduled',
      scheduled_in: '@reboot',
    });
    expect(json.find((e) => e.job === 'dead')).toEqual({
      job: 'dead',
      status: 'scheduled',
      scheduled_in: null,
      never_fires: true,
    });
    expect(json.find((e) => e.job === 'quick')!.scheduled_in).toEqual(expect.any(Number));
  });

  it('compresses /status for clients that accept gzip', async () => {
    // fetch asks for gzip by default
    const plain = await h.get('/status', { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.headers.get('vary')).toBe('accept-encoding');
    const gz = await h.get('/status', { headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(await gz.text()).toBe(await plain.text());
  });

  it('serves /jobs in config order with the spec fields', async () => {
    const jobs = (await (await h.get('/jobs')).json()) as Record<string, unknown>[];
    expect(jobs.map((j) => j.name)).toEqual(h.cfg.jobs.map((j) => j.name));
    const close = jobs.find((j) => j.name === 'monthly-close-prep')!;
    expect(close).toMatchObject({
      enabled: true,
      schedule: '30 1 LW * *',
      command: 'true',
      timezone: 'Europe/London',
      utc: true,
      running: false,
      pids: [],
      never_fires: false,
      schedule_findings: [],
      last_run: null,
      history: [],
    });
    expect(close.scheduled_in).toEqual(expect.any(Number));
    expect(jobs.find((j) => j.name === 'dead')).toMatchObject({ never_fires: true, scheduled_in: null });
    expect(jobs.find((j) => j.name === 'dead')!.schedule_findings).toEqual([
      expect.objectContaining({ code: 'never-fires', level: 'warning' }),
    ]);
    expect(jobs.find((j) => j.name === 'off')).toMatchObject({ enabled: false, scheduled_in: null });
    expect(jobs.find((j) => j.name === 'boot')).toMatchObject({ scheduled_in: null, never_fires: false });
    expect(jobs.find((j) => j.name === 'hashed')!.schedule_resolved).toMatch(/^\d+ 3 \* \* \*$/);
    expect('schedule_resolved' in jobs.find((j) => j.name === 'quick')!).toBe(false);
    const quick = jobs.find((j) => j.name === 'quick') as {
      last_run: Record<string, unknown>;
      history: unknown[];
    };
    expect(quick.last_run).toMatchObject({
      outcome: 'success',
      exit_code: 0,
      fail_reason: null,
      resources: null,
    });
    expect(quick.last_run.finished_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?\+00:00$/);
    expect(quick.history[0]).toEqual({ outcome: 'success', duration: expect.any(Number) });
  });

  it('streams a job log: buffered lines, then live lines, then end', async () => {
    expect((await h.post('/jobs/talker/start')).status).toBe(200);
    await waitUntil(() => h.scheduler.running('talker')[0]?.lines.length === 1);
    const res = await h.get('/jobs/talker/logs');
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    const events = await readSse(res);
    expect(events).toEqual([
      { event: 'line', data: { stream: 'stdout', line: 'line-one' } },
      { event: 'line', data: { stream: 'stdout', line: 'line-two' } },
      { event: 'end', data: {} },
    ]);
    // After the run: the last finished run's lines are replayed.
    const again = await readSse(await h.get('/jobs/talker/logs'));
    expect(again.map((e) => e.event)).toEqual(['line', 'line', 'end']);
    // Never ran: no-output.
    expect(await readSse(await h.get('/jobs/monthly-close-prep/logs'))).toEqual([
      { event: 'end', data: { reason: 'no-output' } },
    ]);
    expect((await h.get('/jobs/ghost/logs')).status).toBe(404);
  });

  it('unsubscribes a log stream when the client goes away', async () => {
    expect((await h.post('/jobs/slow/start')).status).toBe(200);
    await waitUntil(() => h.scheduler.running('slow').length === 1);
    const before = h.scheduler.subscriberCount;
    const ctl = new AbortController();
    const res = await h.get('/jobs/slow/logs', { signal: ctl.signal });
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('slow-start');
    expect(h.scheduler.subscriberCount).toBe(before + 1);
    ctl.abort();
    await reader.cancel().catch(() => {});
    await waitUntil(() => h.scheduler.subscriberCount === before);
    await h.post('/jobs/slow/cancel');
    await waitUntil(() => h.scheduler.running('slow').length === 0);
  });

  it('serves job-set-id as text, or JSON for an exact Accept', async () => {
    const id = await (await h.get('/job-set-id')).text();
    expect(id).toMatch(/^v1:[0-9a-f]{64}$/);
    expect(await (await h.get('/job-set-id', { headers: { accept: 'application/json' } })).json()).toEqual({
      job_set_id: id,
      jobs: h.cfg.jobs.length,
    });
  });

  it('serves the single-node cluster, fleet, node, version and DAG placeholders', async () => {
    expect(await (await h.get('/cluster')).json()).toEqual({ enabled: false, peers: [] });
    expect(await (await h.get('/fleet')).json()).toEqual({ enabled: false, nodes: [] });
    expect(await (await h.get('/version')).text()).toBe('9.9.9-test');
    const node = (await (await h.get('/node')).json()) as {
      node_name: string;
      resources: Record<string, number>;
    };
    expect(node.node_name).toBe('test-host');
    expect(node.resources.cpu_count).toBeGreaterThan(0);
    expect(node.resources.mem_total_bytes).toBeGreaterThan(0);
    // The sampler takes a point every 5 s from the start: a loaded machine may reach this line
    // after the first one (a clean-clone run did), so the points are checked, not counted.
    const history = (await (await h.get('/node/history')).json()) as { points: unknown[] };
    expect(history).toMatchObject({ enabled: true, interval: 5 });
    for (const p of history.points) {
      expect(Array.isArray(p)).toBe(true);
      expect((p as number[])[0]).toBeGreaterThan(Date.now() / 1000 - 60);
    }
    expect(await (await h.get('/dags')).json()).toEqual([]);
    const dag = await h.get('/dags/nightly-close/runs');
    expect(dag.status).toBe(404);
    expect(await dag.json()).toEqual({
      error: 'no `state:` store is configured; DAG run documents only exist in a durable store',
    });
    expect(await (await h.get('/state')).json()).toEqual({ enabled: false });
    expect(await (await h.get('/state/records?stream=runs/x')).json()).toEqual({
      error: 'state store is not configured',
    });
  });

  it('serves trends and resources for a job', async () => {
    const t = (await (await h.get('/jobs/quick/trends')).json()) as {
      source: string;
      windows: Record<string, { total: number }>;
    };
    expect(t.source).toBe('memory');
    expect(Object.keys(t.windows)).toEqual(['1h', '24h', '7d', '30d', 'all']);
    expect(t.windows.all!.total).toBeGreaterThan(0);
    expect(await (await h.get('/jobs/quick/resources')).json()).toEqual({
      name: 'quick',
      monitored: false,
      interval: 1,
      live: [],
      runs: [],
    });
  });
});

describe('schedule analysis routes (fixed clock)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(
      [
        job('hourly-a', 'true', '0 * * * *'),
        job('hourly-b', 'true', '0 * * * *'),
        job('hourly-c', 'true', '0 */1 * * *'),
        job('nightly', 'true', '0 2 * * *', ['timezone: America/New_York']),
        job('pulse', 'true', '*/10 * * * * * *'),
        job('off', 'true', '0 * * * *', ['enabled: false']),
        job('boot', 'true', '@reboot'),
      ].join('\n'),
      LOOPBACK,
      { clock: new FakeClock(Date.parse('2026-03-07T12:00:00Z')) },
    );
  });
  afterAll(async () => {
    await h.stop();
  });

  it('previews a DST spring-forward edge with our engine', async () => {
    const q = new URLSearchParams({ expr: '30 2 * * *', tz: 'America/New_York', count: '3' });
    const body = (await (await h.get(`/schedule/preview?${q}`)).json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      expression: '30 2 * * *',
      timezone: 'America/New_York',
      valid: true,
      reboot: false,
      normalized: '30 2 * * *',
      never_fires: false,
    });
    expect(body.fires).toEqual([
      '2026-03-08T03:30:00-04:00',
      '2026-03-09T02:30:00-04:00',
      '2026-03-10T02:30:00-04:00',
    ]);
    expect(body.description).toEqual(expect.any(String));
    expect(body.lint).toEqual(
      expect.arrayContaining([expect.objectContaining({ code: 'dst-skipped-time' })]),
    );
  });

  it('previews a fall-back edge (the repeated hour fires once) and honours n=', async () => {
    const { fires } = (await (
      await h.get(
        `/schedule/preview?${new URLSearchParams({ expr: '*/30 1 1 11 *', tz: 'America/New_York', n: '4' })}`,
      )
    ).json()) as { fires: string[] };
    expect(fires).toEqual([
      '2026-11-01T01:00:00-04:00',
      '2026-11-01T01:30:00-04:00',
      '2027-11-01T01:00:00-04:00',
      '2027-11-01T01:30:00-04:00',
    ]);
  });

  it('answers 400 JSON for a missing or bad expression and an unknown zone', async () => {
    const missing = await h.get('/schedule/preview?expr=+');
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({ error: 'missing ?expr= query parameter' });
    const bad = await h.get(`/schedule/preview?${new URLSearchParams({ expr: '61 * * * *' })}`);
    expect(bad.status).toBe(400);
    const badBody = (await bad.json()) as Record<string, unknown>;
    expect(badBody).toMatchObject({ expression: '61 * * * *', valid: false });
    expect(badBody.error).toEqual(expect.any(String));
    const zone = await h.get('/schedule/preview?expr=*+*+*+*+*&tz=Mars/Olympus');
    expect(zone.status).toBe(400);
    expect(await zone.json()).toEqual({ error: 'unknown timezone: Mars/Olympus' });
    const reboot = (await (await h.get('/schedule/preview?expr=@reboot')).json()) as Record<string, unknown>;
    expect(reboot).toMatchObject({ valid: true, reboot: true, fires: [] });
    const seeded = (await (
      await h.get(`/schedule/preview?${new URLSearchParams({ expr: 'H * * * *', seed: 'backup' })}`)
    ).json()) as Record<string, unknown>;
    expect(seeded.resolved).toMatch(/^\d+ \* \* \* \*$/);
  });

  it('counts fires per minute across jobs (pressure) and groups duplicates', async () => {
    const p = (await (await h.get('/schedule/pressure?hours=2')).json()) as Parsed;
    expect(p.hours).toBe(2);
    expect(p.jobs).toBe(5);
    expect(p.excluded).toEqual({ disabled: 1, reboot: 1 });
    // 3 hourly jobs x 2 fires + pulse 6 per minute x 120 minutes
    expect(p.total_fires).toBe(6 + 720);
    expect(p.by_minute_fires[0]).toBe(6 + 12);
    expect(p.by_minute_jobs[0]).toBe(4);
    expect(p.grid[13][0]).toBe(3 + 6);
    expect(p.busiest_minute).toEqual({ minute: 0, jobs: 4, fires: 18 });
    expect(p.top_cells[0].jobs).toEqual(['hourly-a', 'hourly-b', 'hourly-c', 'pulse']);
    expect(p.empty_minutes).toEqual([]);
    const clamped = (await (await h.get('/schedule/pressure?hours=999')).json()) as { hours: number };
    expect(clamped.hours).toBe(168);
    expect((await h.get('/schedule/pressure?tz=Nowhere/Land')).status).toBe(400);
    const d = (await (await h.get('/schedule/duplicates')).json()) as Parsed;
    expect(d.groups).toEqual([
      {
        expression: '0 * * * *',
        description: expect.any(String),
        timezone: 'UTC',
        count: 3,
        jobs: ['hourly-a', 'hourly-b', 'hourly-c'],
      },
    ]);
  });

  it('suggests a quiet slot and explains why a job fires or not', async () => {
    const s = (await (await h.get('/schedule/suggest?period=hourly')).json()) as Parsed;
    expect(s.minute).not.toBe(0);
    expect(s.expression).toBe(`${s.minute} * * * *`);
    expect(s.alternatives).toHaveLength(2);
    expect((await h.get('/schedule/suggest?period=weekly')).status).toBe(400);
    const w = (await (await h.get('/schedule/why?job=nightly&at=2026-03-09T05:00:00Z')).json()) as Parsed;
    expect(w).toMatchObject({
      job: 'nightly',
      timezone: 'America/New_York',
      matches: false,
      failed: ['hour'],
    });
    expect(w.at_in_zone).toBe('2026-03-09T01:00:00-04:00');
    expect(w.next_fire).toBe('2026-03-09T02:00:00-04:00');
    expect(w.previous_fire).toBe('2026-03-08T03:00:00-04:00');
    const hit = (await (await h.get('/schedule/why?job=nightly&at=2026-03-10T06:00:00Z')).json()) as Parsed;
    expect(hit.matches).toBe(true);
    expect((await h.get('/schedule/why?job=nightly')).status).toBe(400);
    expect((await h.get('/schedule/why?job=nightly&at=yesterday')).status).toBe(400);
    expect((await h.get('/schedule/why?job=ghost&at=2026-03-10T06:00:00Z')).status).toBe(404);
  });
});

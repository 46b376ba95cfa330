// Spec 10 §4 on one real daemon (Setup P of §8 plus `web.headers`): /summary, /activity, `limit`
// everywhere, Accept negotiation, the §4.9 error texts, conditional GET with ETag and gzip, and the
// refusal of POST /shutdown without a token. Vectors 20, 33 (first case), 45, 46, 47, 48. Bodies are
// read raw (node:http), so a gzipped answer is seen as the bytes that crossed the wire.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/fleet/ports.ts';
import { stopChild } from '../helpers/child.ts';
import { type E2eDaemon, startE2eDaemon } from '../helpers/e2e-daemon.ts';
import { until } from '../helpers/until.ts';

// biome-ignore lint/suspicious/noExplicitAny: the test reads the daemon's JSON bodies loosely
type Body = any;

let dir: string;
let port: number;
let child: ChildProcess;
let daemon: E2eDaemon;

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
  /** The body decoded (gunzipped when it was sent gzipped) and parsed as JSON when it is JSON. */
  json: Body;
}

function raw(method: string, path: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        const text = (res.headers['content-encoding'] === 'gzip' ? gunzipSync(bytes) : bytes).toString();
        let json: Body = null;
        if (/json/.test(res.headers['content-type'] ?? '')) json = JSON.parse(text);
        resolve({ status: res.statusCode!, headers: res.headers, bytes, json });
      });
    });
    req.on('error', reject);
    req.end();
  });
}
const get = (path: string, headers?: Record<string, string>) => raw('GET', path, headers);
const post = (path: string) => raw('POST', path);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cronstable-routes-'));
  port = await freePort();
  writeFileSync(
    join(dir, 'c.yaml'),
    `web:
  listen:
    - http://127.0.0.1:${port}
  headers:
    X-Operator: routes-test
    Content-Type: text/x-ignored
jobs:
  - name: tick
    command: echo hi
    schedule: '* * * * *'
  - name: slow
    command: sleep 30
    schedule: '0 0 1 1 *'
  - name: off
    command: echo off
    schedule: '* * * * *'
    enabled: false
`,
  );
  daemon = await startE2eDaemon(dir, {
    base: `http://127.0.0.1:${port}`,
    config: join(dir, 'c.yaml'),
    ready: async () => (await get('/version')).status === 200,
  });
  child = daemon.child;
}, 30_000);

afterAll(async () => {
  await stopChild(child);
  rmSync(dir, { recursive: true, force: true });
});

/** Waits until the wall clock is at least `margin` seconds away from the next minute boundary. */
async function clearOfMinuteBoundary(margin = 5): Promise<void> {
  const s = new Date().getUTCSeconds();
  if (s > 60 - margin) await new Promise((r) => setTimeout(r, (61 - s) * 1000));
}

describe('spec 10 §4 routes on a real daemon', () => {
  it('v20: /summary counts a paused job and never names it as the next fire', async () => {
    expect((await post('/jobs/tick/pause')).status).toBe(200);
    const s = await get('/summary');
    expect(s.status).toBe(200);
    expect(s.json.jobs).toEqual({
      total: 3,
      enabled: 2,
      disabled: 1,
      running: 0,
      paused: 1,
      failing: 0,
      never_fires: 0,
    });
    expect(s.json.next_fire.job).not.toBe('tick');
    expect(s.json.next_fire.job).toBe('slow');
    // Vector 20: a held fire is ignored, not replaced by the first one after the pause.
    expect(Date.parse(s.json.next_fire.at)).toBeGreaterThan(Date.now());
    expect(s.json.next_fire.in).toBeGreaterThan(0);
    expect(s.json.cluster).toEqual({ enabled: false });
    expect(s.json).not.toHaveProperty('dags');
    expect(s.json.version).toMatch(/\d/);
    expect(typeof s.json.node_name).toBe('string');
    expect(s.headers['x-operator']).toBe('routes-test');
    // §4.9: a Content-Type among web.headers is ignored.
    expect(s.headers['content-type']).toBe('application/json; charset=utf-8');
    expect((await post('/jobs/tick/resume')).status).toBe(200);
    const after = await get('/summary');
    expect(after.json.jobs.paused).toBe(0);
    expect(after.json.next_fire.job).toBe('tick');
  });

  it('v33 (P): POST /shutdown without any token configured is refused, with web.headers', async () => {
    const r = await post('/shutdown');
    expect(r.status).toBe(403);
    expect(r.json.error).toMatch(/^POST \/shutdown requires bearer-token authentication/);
    expect(r.json.error).toBe(
      'POST /shutdown requires bearer-token authentication: configure web.authToken (or a web.authTokens entry whose scopes include `control`) and present it on this request',
    );
    expect(r.headers['x-operator']).toBe('routes-test');
    expect((await get('/version')).status).toBe(200);
  });

  it('v47: limit first, the legacy name only when limit is absent, unparsable means the default', async () => {
    const fires = async (q: string) =>
      (await get(`/schedule/preview?expr=${encodeURIComponent('*/7 * * * *')}${q}`)).json.fires.length;
    expect(await fires('&count=2')).toBe(2);
    expect(await fires('&limit=3&count=2')).toBe(3);
    expect(await fires('&limit=abc&count=2')).toBe(12);
    expect(await fires('&limit=500')).toBe(60);
    expect(await fires('&limit=0')).toBe(1);
  });

  it('v48: /jobs/{name}, named 404s, /activity?limit=1 and Accept lists on /status', async () => {
    // Two manual runs of tick give /activity and /runs something to cut.
    for (let i = 0; i < 2; i++) {
      expect((await post('/jobs/tick/start')).json).toEqual({ started: 'tick' });
      await until('tick to finish', 10_000, async () =>
        (await get('/jobs/tick')).json.running ? null : true,
      );
    }
    await until('two runs of tick', 10_000, async () =>
      (await get('/jobs/tick/runs')).json.runs.length >= 2 ? true : null,
    );
    const row = (await get('/jobs/tick')).json;
    const listed = (await get('/jobs')).json.find((j: Body) => j.name === 'tick');
    expect({ ...row, scheduled_in: 0 }).toEqual({ ...listed, scheduled_in: 0 });

    expect(await get('/jobs/ghost')).toMatchObject({ status: 404, json: { error: "job 'ghost' not found" } });
    expect(await get('/schedule/why?job=ghost&at=2026-01-01T00:00:00Z')).toMatchObject({
      status: 404,
      json: { error: "no job or DAG schedule named 'ghost'" },
    });
    const act = (await get('/activity?limit=1')).json;
    expect(Object.keys(act.jobs)).toEqual(['tick', 'slow', 'off']);
    for (const runs of Object.values(act.jobs) as Body[][]) expect(runs.length).toBeLessThanOrEqual(1);
    expect(act.jobs.off).toEqual([]);
    expect(act.jobs.tick[0]).toEqual({
      started_at: expect.stringMatching(/\+00:00$/),
      finished_at: expect.stringMatching(/\+00:00$/),
      outcome: 'success',
    });
    const status = await get('/status', { accept: 'text/html, application/json;q=0.9' });
    expect(status.headers['content-type']).toMatch(/^application\/json/);
    expect(Array.isArray(status.json)).toBe(true);
  });

  it('§4.4/§4.5: /activity keeps every retained run by default; /runs?limit= keeps the newest, stats over all', async () => {
    const all = (await get('/activity')).json.jobs.tick;
    expect(all.length).toBeGreaterThanOrEqual(2);
    expect(Date.parse(all[0].finished_at)).toBeLessThanOrEqual(Date.parse(all[1].finished_at));
    // Clamped, never a 400; unparsable is the default.
    expect((await get('/activity?limit=0')).json.jobs.tick).toHaveLength(1);
    expect((await get('/activity?limit=abc')).json.jobs.tick).toEqual(all);
    const runs = (await get('/jobs/tick/runs?limit=1')).json;
    expect(runs.runs).toHaveLength(1);
    expect(runs.stats.total).toBe(all.length);
    expect(runs.runs[0].finished_at).toBe(all.at(-1).finished_at);
    expect((await get('/jobs/tick/resources?limit=1&runs=5')).status).toBe(200);
    expect(await get('/jobs/ghost/runs?limit=1')).toMatchObject({
      status: 404,
      json: { error: "job 'ghost' not found" },
    });
  });

  it('§4.9: router 404 and 405, calendar and DAG 404s name what is missing', async () => {
    expect(await get('/nope')).toMatchObject({ status: 404, json: { error: '404: Not Found' } });
    const wrong = await raw('DELETE', '/summary');
    expect(wrong).toMatchObject({ status: 405, json: { error: '405: Method Not Allowed' } });
    expect(wrong.headers.allow).toContain('GET');
    expect(await raw('PUT', '/shutdown')).toMatchObject({ status: 405 });
    expect(await get('/jobs/ghost/calendar.ics')).toMatchObject({
      status: 404,
      json: { error: "no job or DAG schedule named 'ghost'" },
    });
    const noStore = 'no `state:` store is configured; DAG run documents only exist in a durable store';
    expect(await get('/dags/etl/runs')).toMatchObject({ status: 404, json: { error: noStore } });
    expect(await get('/dags/etl/runs/k')).toMatchObject({ status: 404, json: { error: noStore } });
    expect(await get('/dags/etl/runs/k/xcom')).toMatchObject({ status: 404, json: { error: noStore } });
    expect(await post('/dags/etl/trigger')).toMatchObject({
      status: 404,
      json: { error: "dag 'etl' not found" },
    });
    // Error bodies are JSON whatever web.headers says.
    expect((await get('/nope')).headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('v45: /jobs answers 200 with an ETag, 304 on a matching If-None-Match (list, W/), gzip only when accepted', async () => {
    await clearOfMinuteBoundary();
    const first = await get('/jobs');
    expect(first.status).toBe(200);
    const tag = first.headers.etag as string;
    expect(tag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(first.headers.vary).toBe('accept-encoding');
    expect(first.bytes.length).toBeGreaterThanOrEqual(1024);
    for (const inm of [tag, `W/${tag}, "x"`, `"x", ${tag}`, '*']) {
      const r = await get('/jobs', { 'if-none-match': inm });
      expect(r.status, inm).toBe(304);
      expect(r.bytes.length).toBe(0);
      expect(r.headers.etag).toBe(tag);
      expect(r.headers.vary).toBe('accept-encoding');
      // A 304 keeps web.headers.
      expect(r.headers['x-operator']).toBe('routes-test');
    }
    expect((await get('/jobs', { 'if-none-match': '"x"' })).status).toBe(200);
    const zipped = await get('/jobs', { 'accept-encoding': 'gzip' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.bytes.length).toBeLessThan(first.bytes.length);
    expect(zipped.json.map((j: Body) => j.name)).toEqual(['tick', 'slow', 'off']);
    const refused = await get('/jobs', { 'accept-encoding': 'gzip;q=0' });
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(refused.json).toHaveLength(3);
    // The countdowns move, the tag does not (it hashes absolute next fires), past the shared second.
    await new Promise((r) => setTimeout(r, 1200));
    const later = await get('/jobs');
    expect(later.json.find((j: Body) => j.name === 'slow').scheduled_in).not.toBe(
      first.json.find((j: Body) => j.name === 'slow').scheduled_in,
    );
    expect(later.headers.etag).toBe(tag);
  });

  it('v45: a local change rebuilds /jobs and /activity at once (a new tag, no stale second)', async () => {
    const jobsTag = (await get('/jobs')).headers.etag;
    const activityTag = (await get('/activity')).headers.etag as string;
    expect(activityTag).toMatch(/^"[0-9a-f]{32}"$/);
    expect((await get('/activity', { 'if-none-match': activityTag })).status).toBe(304);
    expect((await post('/jobs/slow/pause')).status).toBe(200);
    expect((await get('/jobs')).headers.etag).not.toBe(jobsTag);
    expect((await post('/jobs/slow/resume')).status).toBe(200);
    expect((await post('/jobs/tick/start')).status).toBe(200);
    await until('the run to show on /activity', 10_000, async () =>
      (await get('/activity', { 'if-none-match': activityTag })).status === 200 ? true : null,
    );
  });

  it('v46: /metrics gzipped with Vary: Accept, Accept-Encoding and no ETag; /cluster untagged; / revalidates', async () => {
    const m = await get('/metrics', { 'accept-encoding': 'gzip' });
    expect(m.status).toBe(200);
    expect(m.headers['content-encoding']).toBe('gzip');
    expect(m.headers.vary).toBe('accept, accept-encoding');
    expect(m.headers.etag).toBeUndefined();
    expect(m.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(gunzipSync(m.bytes).toString()).toContain('cronstable_job_enabled{job_name="tick"} 1');
    const plain = await get('/metrics');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.bytes.toString()).toContain('cronstable_job_enabled{job_name="off"} 0');
    const om = await get('/metrics', { accept: 'application/openmetrics-text', 'accept-encoding': 'gzip' });
    expect(om.headers['content-type']).toMatch(/^application\/openmetrics-text/);
    expect(gunzipSync(om.bytes).toString().endsWith('# EOF\n')).toBe(true);

    const c = await get('/cluster', { 'accept-encoding': 'gzip' });
    expect(c.status).toBe(200);
    expect(c.headers.etag).toBeUndefined();
    expect(c.json).toMatchObject({ enabled: false });

    const page = await get('/', { 'accept-encoding': 'gzip' });
    expect(page.status).toBe(200);
    expect(page.headers['content-encoding']).toBe('gzip');
    expect(page.headers['cache-control']).toBe('no-cache');
    const tag = page.headers.etag as string;
    expect(tag).toMatch(/^"[0-9a-f]{32}"$/);
    const again = await get('/', { 'if-none-match': tag });
    expect(again.status).toBe(304);
    expect(again.headers['cache-control']).toBe('no-cache');
    expect(again.headers['content-security-policy']).toContain("default-src 'self'");
    expect(again.bytes.length).toBe(0);
    // The list matcher serves the page too (spec 10 §4.10 Do better).
    expect((await get('/', { 'if-none-match': `W/${tag}, "x"` })).status).toBe(304);
  });

  it('§4.10: /fleet and /dags carry tags; small bodies go out unzipped', async () => {
    const fleet = await get('/fleet', { 'accept-encoding': 'gzip' });
    expect(fleet.headers.etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(fleet.headers['content-encoding']).toBeUndefined();
    expect((await get('/fleet', { 'if-none-match': fleet.headers.etag as string })).status).toBe(304);
    const dags = await get('/dags');
    expect(dags.json).toEqual([]);
    expect((await get('/dags', { 'if-none-match': dags.headers.etag as string })).status).toBe(304);
  });
});

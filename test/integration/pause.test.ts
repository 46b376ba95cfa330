// Runtime pause and resume on real daemon processes (spec 10 §1, vectors 1-15 and 17): the routes, their
// validation order and texts, the record on /jobs and /jobs/{name}, a paused slot recorded as a
// skip (never run, never unaccounted), the gauges, manual start/cancel untouched, and the pause
// surviving a restart through the store. The fleet vector (18) is test/cluster/pause-fleet.test.ts's.
// Issue 32: a paused per-second job's skipped slots are rows of the durable ledger, so `/runs`, the
// slot fates and `/activity` still show them after a restart and on a second node of the store.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/fleet/ports.ts';
import { DAEMON, type E2eDaemon, startE2eDaemon } from '../helpers/e2e-daemon.ts';
import { until } from '../helpers/until.ts';

const require = createRequire(import.meta.url);
type RawDb = { prepare(sql: string): { all(...p: unknown[]): unknown[] }; close(): void };
const Better = require('better-sqlite3') as new (file: string, o?: { readonly?: boolean }) => RawDb;

/**
 * `tick`'s one fire a day, at the second-of-day `FIRST_FIRE_MS` after the config is written: v1 has
 * paused it by then (it is the file's first test), and v10 waits seconds for its paused slot instead
 * of up to a minute for an every-minute job's.
 */
const FIRST_FIRE_MS = 15_000;
function dailyAt(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCSeconds()} ${d.getUTCMinutes()} ${d.getUTCHours()} * * * *`;
}

// biome-ignore lint/suspicious/noExplicitAny: the test reads the daemon's JSON bodies loosely
type Body = any;

let dir: string;
let base: string;
let child: ChildProcess;
let daemon: E2eDaemon;

function config(port: number): string {
  return `web:
  listen:
    - http://127.0.0.1:${port}
state:
  path: ${join(dir, 'state')}
jobs:
  - name: tick
    command: echo hi > ${join(dir, 'tick-ran')}
    schedule: '${dailyAt(Date.now() + FIRST_FIRE_MS)}'
  - name: slow
    command: sleep 30
    schedule: '0 0 1 1 *'
  - name: off
    command: echo off
    schedule: '* * * * *'
    enabled: false
  - name: sec
    command: 'true'
    schedule: '* * * * * * *'
`;
}

async function startDaemon(): Promise<void> {
  daemon = await startE2eDaemon(dir, { base, config: join(dir, 'c.yaml'), env: { HOSTNAME: 'node-a' } });
  child = daemon.child;
}

async function stopDaemon(): Promise<void> {
  if (child.exitCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await gone;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cronstable-pause-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  writeFileSync(join(dir, 'c.yaml'), config(port));
  await startDaemon();
}, 30_000);
afterAll(async () => {
  await stopDaemon();
  rmSync(dir, { recursive: true, force: true });
});

async function post(path: string, body?: string): Promise<{ status: number; json: Body }> {
  const r = await fetch(base + path, {
    method: 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body,
  });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : null };
}
const pause = (job: string, body?: unknown) =>
  post(
    `/jobs/${job}/pause`,
    body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  );
const get = async (path: string): Promise<Body> => (await fetch(base + path)).json();

describe('pause and resume (spec 10 §1)', () => {
  it('v1: a pause with no body holds the job for an hour, by api on the api channel', async () => {
    const r = await pause('tick');
    expect(r.status).toBe(200);
    const p = r.json.paused;
    expect(Date.parse(p.until) - Date.parse(p.since)).toBe(3_600_000);
    expect(p).toMatchObject({ by: 'api', note: '', channel: 'api' });
    expect(p.since).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
  });

  it('v2: GET /jobs/{name} shows the returned record, and /jobs has `paused` after `history`', async () => {
    const r = await pause('tick', { durationSeconds: 60, note: 'maint', by: 'me' });
    expect(r.status).toBe(200);
    expect((await get('/jobs/tick')).paused).toEqual(r.json.paused);
    const row = (await get('/jobs')).find((j: Body) => j.name === 'tick');
    const keys = Object.keys(row);
    expect(keys.indexOf('paused')).toBe(keys.indexOf('history') + 1);
    expect(row.paused).toEqual(r.json.paused);
    expect((await get('/jobs')).find((j: Body) => j.name === 'slow').paused).toBeNull();
  });

  it('v3-v8: the 400s and their texts', async () => {
    const cases: [unknown, string][] = [
      [{ durationSeconds: 0 }, 'durationSeconds must be between 1 and 2592000'],
      [{ durationSeconds: 2592001 }, 'durationSeconds must be between 1 and 2592000'],
      [{ durationSeconds: true }, 'durationSeconds must be an integer'],
      [{ durationSeconds: '5' }, 'durationSeconds must be an integer'],
      [{ durationSeconds: 5.5 }, 'durationSeconds must be an integer'],
      [{ durationSeconds: 10, until: '2030-01-01T00:00:00Z' }, 'give durationSeconds or until, not both'],
      [{ until: '2020-01-01T00:00:00Z' }, 'until is in the past'],
      [
        { until: new Date(Date.now() + 31 * 86_400_000).toISOString() },
        'until is more than 2592000 seconds away',
      ],
      [{ until: 'garbage' }, 'until is not a valid ISO-8601 timestamp'],
      [{ until: 5 }, 'until must be an ISO-8601 timestamp string'],
      [[1], 'request body must be a JSON object'],
      ['nope', 'request body is not valid JSON'],
      [{ note: 'x'.repeat(501) }, 'note is longer than 500 characters'],
      [{ by: 'x'.repeat(101) }, 'by is longer than 100 characters'],
      [{ note: 3 }, 'note must be a string'],
    ];
    for (const [body, error] of cases) {
      const r = await pause('slow', body);
      expect([r.status, r.json], JSON.stringify(body)).toEqual([400, { error }]);
    }
  });

  it('v7: an until without an offset is UTC wall time', async () => {
    const at = new Date(Date.now() + 2 * 3_600_000);
    at.setUTCMilliseconds(0);
    const wall = at.toISOString().slice(0, 19);
    const r = await pause('slow', { until: wall });
    expect(r.status).toBe(200);
    expect(Date.parse(r.json.paused.until)).toBe(at.getTime());
    await post('/jobs/slow/resume');
  });

  it('v9: an unknown job is 404 before any body check (Do better)', async () => {
    expect(await pause('ghost')).toEqual({ status: 404, json: { error: "job 'ghost' not found" } });
    expect(await pause('ghost', { durationSeconds: true })).toEqual({
      status: 404,
      json: { error: "job 'ghost' not found" },
    });
    expect(await post('/jobs/ghost/resume')).toEqual({
      status: 404,
      json: { error: "job 'ghost' not found" },
    });
  });

  it('v12-v13: manual start and cancel are unaffected; a disabled job may be paused', async () => {
    expect((await pause('slow')).status).toBe(200);
    expect(await post('/jobs/slow/start')).toEqual({ status: 200, json: { started: 'slow' } });
    expect(await post('/jobs/slow/cancel')).toEqual({
      status: 200,
      json: { cancelled: 'slow', instances: 1 },
    });
    await until('slow to stop', 10_000, async () =>
      (await get('/jobs/slow')).running === false ? true : null,
    );
    expect(await post('/jobs/slow/cancel')).toEqual({
      status: 409,
      json: { error: "job 'slow' is not running" },
    });
    expect((await pause('off')).status).toBe(200);
    expect(await post('/jobs/off/start')).toEqual({ status: 409, json: { error: "job 'off' is disabled" } });
    await post('/jobs/slow/resume');
    await post('/jobs/off/resume');
  });

  it('v14: resume answers paused null, paused or not; a non-string by is 400', async () => {
    await pause('slow');
    expect(await post('/jobs/slow/resume', '{"by":"ops"}')).toEqual({ status: 200, json: { paused: null } });
    expect(await post('/jobs/slow/resume', '{"by":"ops"}')).toEqual({ status: 200, json: { paused: null } });
    expect(await post('/jobs/slow/resume', '{"by":3}')).toEqual({
      status: 400,
      json: { error: 'by must be a string' },
    });
    expect(daemon.logs()).toContain('Job slow resumed by ops (api)');
  });

  it('v10-v11: a paused slot is not run, is recorded paused in the ledger, and counts as skipped', async () => {
    await pause('tick', { durationSeconds: 3600 });
    const since = Date.now();
    await until('a paused slot', 75_000, async () =>
      /Job tick skipped: paused until /.test(daemon.logs()) ? true : null,
    );
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/cronstable_job_runs_total\{job_name="tick",status="skipped"\} 1\b/);
    expect(metrics).toContain('cronstable_job_paused{job_name="tick"} 1');
    expect(metrics).toContain('cronstable_job_paused{job_name="slow"} 0');
    const lines = metrics.split('\n').filter((l) => /^cronstable_job_(enabled|paused)\{/.test(l));
    expect(lines[0]).toMatch(/^cronstable_job_enabled/);
    // The ledger holds the slot as `paused`, never unaccounted; no process ran.
    const slots = await get('/jobs/tick/slots');
    const fates = JSON.stringify(slots);
    expect(fates).toContain('"paused"');
    // /runs: the newest row is the synthetic skip; `stats.total` counts it, nothing else does.
    const runs = await get('/jobs/tick/runs');
    const newest = runs.runs[runs.runs.length - 1];
    expect(newest).toMatchObject({
      outcome: 'skipped',
      skip_reason: 'paused',
      started_at: null,
      exit_code: null,
      duration: null,
    });
    expect(newest).not.toHaveProperty('ranAt');
    expect(Date.parse(newest.finished_at)).toBeGreaterThanOrEqual(since);
    expect(runs.stats).toMatchObject({ total: 1, success: 0, failure: 0, unknown: 0, success_rate: null });
    // /jobs: the skip shows in `history`; `last_run` stays on the last real run (none here, §1.7).
    const row = await get('/jobs/tick');
    expect(row.last_run).toBeNull();
    expect(row.history).toEqual([{ outcome: 'skipped', duration: null }]);
    expect(Date.now() - since).toBeLessThan(75_000);
    expect(require('node:fs').existsSync(join(dir, 'tick-ran'))).toBe(false);
  }, 90_000);

  it('v15: /schedule/why notes a paused job, and still matches its slots as if unpaused', async () => {
    const r = await pause('slow', { durationSeconds: 600, note: 'maint' });
    const at = '2031-01-01T00:00:00Z';
    const body = await get(`/schedule/why?job=slow&at=${encodeURIComponent(at)}`);
    const note = body.notes.find((n: Body) => n.code === 'paused');
    expect(note).toEqual({
      code: 'paused',
      level: 'note',
      message: `job is paused until ${r.json.paused.until} (by api): maint`,
    });
    expect(body.matches).toBe(true);
    await post('/jobs/slow/resume');
    const after = await get(`/schedule/why?job=slow&at=${encodeURIComponent(at)}`);
    expect(after.notes.some((n: Body) => n.code === 'paused')).toBe(false);
  });

  it('v17: with a store, a pause survives a restart and its stream records it', async () => {
    const r = await pause('slow', { durationSeconds: 600 });
    const newest = () => {
      const db = new Better(join(dir, 'state', 'cronstable.db'), { readonly: true });
      try {
        const rows = db
          .prepare(`SELECT data FROM records WHERE stream = 'paused/slow' ORDER BY id DESC LIMIT 1`)
          .all() as { data: string }[];
        return rows.length > 0 ? (JSON.parse(rows[0]!.data) as Record<string, unknown>) : null;
      } finally {
        db.close();
      }
    };
    const rec = await until('the pause record in the store', 10_000, async () => {
      const n = newest();
      return n && n.kind === 'paused' && n.until === new Date(Date.parse(r.json.paused.until)).toISOString()
        ? n
        : null;
    });
    expect(rec).toMatchObject({ kind: 'paused', by: 'api', channel: 'api' });
    await stopDaemon();
    await startDaemon();
    expect((await get('/jobs/slow')).paused).toEqual(r.json.paused);
  }, 60_000);

  it('issue 32: paused slots are ledger rows: /runs, slots and /activity keep them across a restart and on a second node', async () => {
    const r = await pause('sec', { durationSeconds: 600 });
    expect(r.status).toBe(200);
    const since = Date.parse(r.json.paused.since);
    type Run = { outcome: string; skip_reason: string | null; finished_at: string };
    const skipsOf = async (at: string) =>
      ((await (await fetch(`${at}/jobs/sec/runs`)).json()) as { runs: Run[] }).runs.filter(
        (x) => x.outcome === 'skipped',
      );
    await until('three skipped slots', 15_000, async () => ((await skipsOf(base)).length >= 3 ? true : null));
    // The ledger holds them as run rows: outcome skipped, skip_reason paused, nothing started.
    const ledger = await until('the skipped rows in the ledger', 10_000, async () => {
      const db = new Better(join(dir, 'state', 'cronstable.db'), { readonly: true });
      try {
        const rows = db.prepare(`SELECT data FROM records WHERE stream = 'runs/sec' ORDER BY id`).all() as {
          data: string;
        }[];
        const skips = rows.map((x) => JSON.parse(x.data)).filter((d) => d.outcome === 'skipped');
        return skips.length >= 3 ? skips : null;
      } finally {
        db.close();
      }
    });
    for (const d of ledger) {
      expect(d).toMatchObject({ skip_reason: 'paused', started_at: null, exit_code: null, duration: null });
      expect(d).not.toHaveProperty('ranAt');
      expect(Date.parse(d.finished_at)).toBeGreaterThanOrEqual(since - 1);
    }
    // Slot fates read the ledger: every slot of the paused window is `paused`, none unaccounted.
    const from = new Date(Math.ceil((since + 1) / 1000) * 1000).toISOString();
    const to = new Date(Date.parse(ledger[2].scheduled_at) + 1).toISOString();
    const slots = await get(`/jobs/sec/slots?from=${from}&to=${to}`);
    expect(slots.source).toBe('ledger');
    expect(slots.unaccounted).toBe(0);
    expect(slots.slots.length).toBeGreaterThanOrEqual(2);
    for (const sl of slots.slots) expect(sl.outcome).toBe('paused');
    // The skips already in the ledger (a newer one may still be on its way there when the daemon stops).
    const before = ledger.map((d) => Date.parse(d.finished_at));
    const ms = (xs: Run[]) => xs.map((x) => Date.parse(x.finished_at));

    await stopDaemon();
    await startDaemon();
    const after = await until('the skips from before the restart in /runs', 10_000, async () => {
      const now = ms(await skipsOf(base));
      return before.every((f) => now.includes(f)) ? now : null;
    });
    expect(after.length).toBeGreaterThanOrEqual(before.length);
    const runs = await get('/jobs/sec/runs');
    // Skips count in `stats.total`, never in the success rate or the durations; last_run stays on a real run.
    expect(runs.stats.total).toBe(runs.runs.length);
    expect(runs.stats.success + runs.stats.failure + runs.stats.cancelled + runs.stats.unknown).toBe(
      runs.runs.filter((x: Run) => x.outcome !== 'skipped').length,
    );
    expect((await get('/jobs/sec')).last_run?.outcome ?? 'none').not.toBe('skipped');
    const activity = (await get('/activity')).jobs.sec as Run[];
    expect(activity.filter((x) => x.outcome === 'skipped').length).toBeGreaterThanOrEqual(before.length);

    // A second node of the same store shows the first node's skips from before it started.
    const portB = await freePort();
    const baseB = `http://127.0.0.1:${portB}`;
    writeFileSync(
      join(dir, 'b.yaml'),
      `web:\n  listen:\n    - ${baseB}\nstate:\n  path: ${join(dir, 'state')}\n` +
        `jobs:\n  - name: sec\n    command: 'true'\n    schedule: '* * * * * * *'\n`,
    );
    const bootB = Date.now();
    const b = spawn(process.execPath, [DAEMON, '-c', join(dir, 'b.yaml')], {
      stdio: 'ignore',
      env: { ...process.env, HOSTNAME: 'node-b' },
    });
    try {
      const seen = await until('node B to list node A’s skips', 20_000, async () => {
        const got = await skipsOf(baseB).catch(() => null);
        return got && before.every((f) => ms(got).includes(f)) ? got : null;
      });
      expect(seen.filter((x) => Date.parse(x.finished_at) < bootB).length).toBeGreaterThanOrEqual(
        before.length,
      );
      const onB = await (await fetch(`${baseB}/jobs/sec/slots?from=${from}&to=${to}`)).json();
      expect(onB.unaccounted).toBe(0);
      for (const sl of onB.slots) expect([sl.outcome, sl.node]).toEqual(['paused', 'node-a']);
    } finally {
      const gone = new Promise((res) => b.once('exit', res));
      b.kill('SIGTERM');
      await gone;
    }
    await post('/jobs/sec/resume');
  }, 90_000);
});

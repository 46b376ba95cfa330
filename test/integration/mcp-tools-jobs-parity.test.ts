// The MCP job, cluster and node tools against a real scheduler, real child processes and the real web
// server: every tool's payload equals its REST route's body (one source of truth), every route's real
// body validates against the zod schema its RouteDoc declares, the controls really start and cancel
// runs behind the confirm gate, and the log tail's cursor survives the 1000-line ring wrapping.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { apiBodies } from '../../src/api/bodies.ts';
import type { ApiDeps } from '../../src/api/deps.ts';
import { JobResourceSampler } from '../../src/api/jobresources.ts';
import { renderedRows } from '../../src/api/jobs.ts';
import { NodeSampler } from '../../src/api/node.ts';
import { StatusView } from '../../src/api/status.ts';
import { docs as coreDocs } from '../../src/api/wire/core.schema.ts';
import { docs as jobDocs } from '../../src/api/wire/jobs.schema.ts';
import type { WebSection } from '../../src/config/file-schema.ts';
import type { McpSettings, ToolContext, ToolDef, ToolResult } from '../../src/mcp/tool.ts';
import { jobTools } from '../../src/mcp/tools/jobs.ts';
import { nodeTools } from '../../src/mcp/tools/node.ts';
import { Logger } from '../../src/util/log.ts';
import { type Harness, job, LOOPBACK, startHarness, waitUntil } from './web-harness.ts';

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies, checked field by field below
type Parsed = Record<string, any>;

const YEARLY = '0 0 1 1 *';
const LINES = (from: number, to: number) =>
  `i=${from}; while [ $i -le ${to} ]; do echo "line $i"; i=$((i+1)); done`;
const JOBS = [
  job('hello', 'echo hello-out', YEARLY, ['captureStdout: true']),
  job('nightly', 'true', '0 3 * * *', ['enabled: false']),
  job('slow', 'echo slow-start; sleep 30', YEARLY, ['captureStdout: true', 'killTimeout: 1']),
  job('solo', 'sleep 30', YEARLY, ['concurrencyPolicy: Forbid', 'killTimeout: 1']),
  job('swap', 'sleep 30', YEARLY, ['concurrencyPolicy: Replace', 'killTimeout: 1']),
  job(
    'chatty',
    `printf 'password=hunter2\\n\\033[31mred\\033[0m\\tTAB\\001\\n'; ${LINES(1, 1200)}; sleep 4; ${LINES(1201, 1500)}; sleep 30`,
    YEARLY,
    ['captureStdout: true', 'killTimeout: 1'],
  ),
].join('\n');

function settings(maxRows: number): McpSettings {
  return {
    enabled: true,
    readOnly: false,
    toolsets: ['observe', 'act'],
    allowedOrigins: [],
    allowUnauthenticated: false,
    resources: true,
    prompts: true,
    instructions: null,
    maxRows,
    maxBodyBytes: 1_048_576,
  };
}

const TOOLS = new Map<string, ToolDef>([...jobTools, ...nodeTools].map((t) => [t.name, t]));

describe('MCP job and node tools (in-process, real scheduler)', () => {
  let h: Harness;
  let deps: ApiDeps;
  const ctxOf = (maxRows: number): ToolContext => ({
    deps,
    settings: settings(maxRows),
    caller: { remoteAddress: '127.0.0.1', userAgent: 'test' },
    rows: (n) => (n === undefined ? maxRows : Math.min(maxRows, Math.max(1, n))),
  });

  /** What the registry does: validate against `input`, then run; a refused argument is an isError. */
  async function call(name: string, args: Record<string, unknown> = {}, maxRows = 200): Promise<ToolResult> {
    const t = TOOLS.get(name)!;
    const parsed = t.input.safeParse(args);
    if (!parsed.success) return { ok: false, text: parsed.error.issues.map((i) => i.message).join('; ') };
    const r = await t.run(parsed.data, ctxOf(maxRows));
    // Every success payload is what the tool advertises.
    if (r.ok) expect(() => (t.output as z.ZodType).parse(r.structured), name).not.toThrow();
    return r;
  }
  const okOf = async (name: string, args: Record<string, unknown> = {}, maxRows = 200) => {
    const r = await call(name, args, maxRows);
    if (!r.ok) throw new Error(`${name}: ${r.text}`);
    // A payload that comes rendered is written as that text: it must be the payload's own JSON.
    if (r.json !== undefined)
      expect(Buffer.concat(r.json).toString('utf8'), name).toBe(JSON.stringify(r.structured));
    return { text: r.text, body: r.structured as Parsed };
  };
  const getJson = async (path: string, accept = 'application/json') =>
    (await (await h.get(path, { headers: { accept } })).json()) as Parsed;

  beforeAll(async () => {
    h = await startHarness(JOBS, LOOPBACK);
    const web = h.cfg.web as WebSection;
    deps = {
      ctx: h.ctx,
      web,
      log: new Logger('cronstable'),
      metrics: h.metrics,
      status: new StatusView(h.ctx),
      node: NodeSampler.fromConfig(web),
      jobResources: new JobResourceSampler(h.ctx.scheduler),
      bodies: apiBodies(h.ctx, () => deps),
    };
  });
  afterAll(async () => {
    deps.status.close();
    deps.bodies.watch.close();
    await h.stop();
  });

  it('get_status and list_jobs page like the spec (vector 18) and filter by state (vector 19)', async () => {
    const status = await okOf('cron_get_status', { limit: 100 }, 1);
    expect(status.body.page).toEqual({ offset: 0, limit: 1, total: 6, returned: 1, nextOffset: 1 });
    expect(status.body.status).toEqual([
      { job: 'hello', status: 'scheduled', scheduled_in: expect.any(Number) },
    ]);
    expect(status.text).toBe('6 job(s); 0 running in this page');
    const jobs = await okOf('cron_list_jobs', { limit: 100 }, 1);
    expect(jobs.body.page).toEqual({ offset: 0, limit: 1, total: 6, returned: 1, nextOffset: 1 });
    const off = await okOf('cron_list_jobs', { state: 'disabled' });
    expect(off.body.jobs.map((j: Parsed) => j.name)).toEqual(['nightly']);
    expect(off.text).toBe('1 matching job(s); 1 returned');
    const filtered = await okOf('cron_list_jobs', { filter: 'SL', offset: -4 });
    expect(filtered.body.jobs.map((j: Parsed) => j.name)).toEqual(['slow']);
    expect(filtered.body.page).toMatchObject({ offset: 0, total: 1, nextOffset: null });
    const past = await okOf('cron_list_jobs', { offset: 50 });
    expect(past.body.jobs).toEqual([]);
    // The tool answers from `/jobs`'s own rendering, with its bytes (okOf checks they are the
    // payload's JSON); any choice of rows cut from that rendering is their JSON.
    const all = await call('cron_list_jobs', {});
    expect(all.ok && Array.isArray(all.json)).toBe(true);
    const shared = deps.bodies.jobs.get();
    const text = (b: Uint8Array[]) => Buffer.concat(b).toString('utf8');
    expect(new TextDecoder().decode(shared.bytes)).toBe(JSON.stringify(shared.rows));
    const n = shared.rows.length;
    expect(n).toBe(6);
    for (const picked of [[], [0], [n - 1], [0, 1, 2], [1, 3, 4], [0, 2, n - 1], [...shared.rows.keys()]])
      expect(text(renderedRows(shared, picked)), JSON.stringify(picked)).toBe(
        JSON.stringify(picked.map((i) => shared.rows[i])),
      );
    expect(await call('cron_list_jobs', { state: 'sleeping' })).toMatchObject({ ok: false });
  });

  it('get_job answers one row and refuses a missing or unknown name (vector 19)', async () => {
    const hello = await okOf('cron_get_job', { name: 'hello' });
    expect(hello.text).toBe("job 'hello'");
    expect(hello.body).toMatchObject({
      name: 'hello',
      enabled: true,
      schedule: YEARLY,
      command: 'echo hello-out',
    });
    expect(await call('cron_get_job', {})).toEqual({
      ok: false,
      text: "missing or empty required string argument: 'name'",
    });
    const ghost = await call('cron_get_job', { name: 'ghost' });
    expect(ghost).toEqual({ ok: false, text: "job not found: 'ghost'. Use cron_list_jobs to enumerate." });
    for (const t of ['cron_list_runs', 'cron_get_job_trends', 'cron_get_job_resources', 'cron_tail_job_logs'])
      expect(await call(t, { name: 'ghost' }), t).toEqual({ ok: false, text: "job not found: 'ghost'" });
  });

  it('runs and cancels for real, only behind confirm=true (vectors 5, 21)', async () => {
    for (const confirm of [undefined, false]) {
      const r = await call('cron_run_job', { name: 'slow', confirm });
      expect(r).toEqual({
        ok: false,
        text: 'running changes state; call again with confirm=true to proceed',
      });
    }
    const typed = await call('cron_run_job', { name: 'slow', confirm: 'true' });
    expect(typed.ok).toBe(false);
    expect(typed.text).toContain('confirm=true');
    // Check order: the confirm refusal comes before the job lookup.
    expect((await call('cron_run_job', { name: 'ghost' })).text).toContain('confirm=true');
    expect(h.scheduler.running('slow')).toHaveLength(0);
    expect(await call('cron_cancel_job', { name: 'slow', confirm: true })).toEqual({
      ok: false,
      text: "job 'slow' is not running",
    });

    const started = await okOf('cron_run_job', { name: 'slow', confirm: true });
    expect(started).toEqual({ text: "started job 'slow'", body: { started: 'slow', outcome: 'launched' } });
    await waitUntil(() => h.scheduler.running('slow').length === 1);
    const cancel = await call('cron_cancel_job', { name: 'slow' });
    expect(cancel.text).toBe('cancelling changes state; call again with confirm=true to proceed');
    expect(h.scheduler.running('slow')).toHaveLength(1);
    const cancelled = await okOf('cron_cancel_job', { name: 'slow', confirm: true });
    expect(cancelled).toEqual({
      text: "cancelled 1 instance(s) of job 'slow'",
      body: { cancelled: 'slow', instances: 1 },
    });
    await waitUntil(() => h.scheduler.history('slow')?.lastRun()?.outcome === 'cancelled');
    expect(await call('cron_run_job', { name: 'ghost', confirm: true })).toEqual({
      ok: false,
      text: "job 'ghost' not found",
    });
    expect(await call('cron_run_job', { name: 'nightly', confirm: true })).toEqual({
      ok: false,
      text: "job 'nightly' is disabled",
    });
    expect(await call('cron_cancel_job', { name: 'ghost', confirm: true })).toEqual({
      ok: false,
      text: "job 'ghost' not found",
    });
  });

  it('says what concurrencyPolicy made of a manual start: skipped-forbid, replaced', async () => {
    expect((await okOf('cron_run_job', { name: 'solo', confirm: true })).body.outcome).toBe('launched');
    await waitUntil(() => h.scheduler.running('solo').length === 1);
    const again = await okOf('cron_run_job', { name: 'solo', confirm: true });
    expect(again.body).toEqual({ started: 'solo', outcome: 'skipped-forbid' });
    expect(again.text).toContain('not started');
    expect(h.scheduler.running('solo')).toHaveLength(1);

    expect((await okOf('cron_run_job', { name: 'swap', confirm: true })).body.outcome).toBe('launched');
    await waitUntil(() => h.scheduler.running('swap').length === 1);
    const first = h.scheduler.running('swap')[0]!.runId;
    const replaced = await okOf('cron_run_job', { name: 'swap', confirm: true });
    expect(replaced.body).toEqual({ started: 'swap', outcome: 'replaced' });
    await waitUntil(() => h.scheduler.running('swap').some((r) => r.runId !== first));
    for (const name of ['solo', 'swap']) await okOf('cron_cancel_job', { name, confirm: true });
    await waitUntil(() => h.scheduler.running('solo').length + h.scheduler.running('swap').length === 0);
  });

  it('tails with a cursor that survives the ring wrapping, redacted and sanitised', async () => {
    await okOf('cron_run_job', { name: 'chatty', confirm: true });
    const live = () => h.scheduler.running('chatty')[0];
    await waitUntil(() => (live()?.published ?? 0) >= 1202, 10_000);
    expect(live()!.published).toBe(1202);
    expect(live()!.lines).toHaveLength(1000);

    const first = await okOf('cron_tail_job_logs', { name: 'chatty', tail: 3 });
    const run = live()!.runId;
    expect(first.body).toMatchObject({
      name: 'chatty',
      running: true,
      run_id: run,
      cursor: `${run}.1202`,
      truncated: true,
    });
    expect(first.body.lines).toEqual([
      { stream: 'stdout', line: 'line 1198' },
      { stream: 'stdout', line: 'line 1199' },
      { stream: 'stdout', line: 'line 1200' },
    ]);
    expect(first.text).toBe(`job 'chatty': 3 line(s) (cursor ${run}.1202)`);

    // An old cursor into the evicted part: the evicted lines are counted, the rest follows.
    const old = await okOf('cron_tail_job_logs', { name: 'chatty', tail: 2, cursor: `${run}.0` });
    expect(old.body.skipped).toBe(202);
    expect(old.body.lines.map((l: Parsed) => l.line)).toEqual(['line 201', 'line 202']);
    expect(old.body.cursor).toBe(`${run}.204`);

    await waitUntil(() => (live()?.published ?? 0) >= 1502, 10_000);
    const next = await okOf('cron_tail_job_logs', { name: 'chatty', cursor: first.body.cursor });
    expect(next.body.lines.map((l: Parsed) => l.line)).toEqual(
      Array.from({ length: 200 }, (_, i) => `line ${1201 + i}`),
    );
    expect(next.body).toMatchObject({ cursor: `${run}.1402`, truncated: true });
    expect(next.body.skipped).toBeUndefined();
    const rest = await okOf('cron_tail_job_logs', { name: 'chatty', cursor: next.body.cursor });
    expect(rest.body.lines).toHaveLength(100);
    expect(rest.body).toMatchObject({ cursor: `${run}.1502`, truncated: false });
    const none = await okOf('cron_tail_job_logs', { name: 'chatty', cursor: rest.body.cursor });
    expect(none.body).toMatchObject({ lines: [], cursor: `${run}.1502`, truncated: false });

    // Once the run is over the same cursor keeps working against the retained output.
    await okOf('cron_cancel_job', { name: 'chatty', confirm: true });
    await waitUntil(() => h.scheduler.history('chatty')?.lastRun()?.outcome === 'cancelled');
    const after = await okOf('cron_tail_job_logs', { name: 'chatty', cursor: rest.body.cursor });
    expect(after.body).toMatchObject({ lines: [], running: false, run_id: run, cursor: `${run}.1502` });
    const again = await okOf('cron_tail_job_logs', { name: 'chatty', cursor: `${run}.1499` });
    expect(again.body.lines.map((l: Parsed) => l.line)).toEqual(['line 1498', 'line 1499', 'line 1500']);
    expect(await call('cron_tail_job_logs', { name: 'chatty', cursor: 'garbage' })).toMatchObject({
      ok: false,
    });
    const nothing = await okOf('cron_tail_job_logs', { name: 'nightly' });
    expect(nothing.body).toMatchObject({ lines: [], running: false, run_id: null, truncated: false });
  });

  it('redacts secrets and drops escapes and controls from tail lines', async () => {
    const h2 = await startHarness(
      job(
        'leaky',
        "printf 'password=hunter2\\n\\033[31mred\\033[0m\\tTAB\\001!\\nBearer abcdefghijkl\\n'",
        YEARLY,
        ['captureStdout: true'],
      ),
      LOOPBACK,
    );
    const d2: ApiDeps = { ...deps, ctx: h2.ctx };
    try {
      await h2.ctx.scheduler.startJob('leaky');
      await waitUntil(() => h2.ctx.scheduler.history('leaky')?.lastRun() !== undefined);
      const t = TOOLS.get('cron_tail_job_logs')!;
      const r = await t.run({ name: 'leaky' }, { ...ctxOf(200), deps: d2 });
      expect(r.ok).toBe(true);
      expect((r as { structured: Parsed }).structured.lines).toEqual([
        { stream: 'stdout', line: 'password=***REDACTED***' },
        { stream: 'stdout', line: 'red\tTAB!' },
        { stream: 'stdout', line: 'Bearer ***REDACTED***' },
      ]);
    } finally {
      await h2.stop();
    }
  });

  it('answers every tool with its REST route body (parity)', async () => {
    // Strip the values that move with the clock between the two reads.
    const still = (v: unknown): unknown =>
      JSON.parse(JSON.stringify(v, (k, x) => (k === 'scheduled_in' || k === 'generated_at' ? '~' : x)));

    const status = await okOf('cron_get_status');
    expect(still(status.body.status)).toEqual(still(await getJson('/status')));
    const jobs = await okOf('cron_list_jobs');
    expect(still(jobs.body.jobs)).toEqual(still(await getJson('/jobs')));
    expect(still((await okOf('cron_get_job', { name: 'slow' })).body)).toEqual(
      still((await getJson('/jobs')).find((j: Parsed) => j.name === 'slow')),
    );
    const runs = await okOf('cron_list_runs', { name: 'slow' });
    const { totalRuns, returnedRuns, ...runsBody } = runs.body;
    expect(runsBody).toEqual(await getJson('/jobs/slow/runs'));
    expect([totalRuns, returnedRuns]).toEqual([1, 1]);
    expect(runs.text).toBe("job 'slow': 1 run(s) retained, 1 returned");
    const one = await okOf('cron_list_runs', { name: 'swap', limit: 1 });
    expect(one.body.totalRuns).toBe(2);
    expect(one.body.runs).toEqual((await getJson('/jobs/swap/runs')).runs.slice(-1));
    expect(still((await okOf('cron_get_job_trends', { name: 'slow' })).body)).toEqual(
      still(await getJson('/jobs/slow/trends')),
    );
    const res = await okOf('cron_get_job_resources', { name: 'slow', runs: 20 });
    const { total, returned, ...resBody } = res.body;
    expect(resBody).toEqual(await getJson('/jobs/slow/resources'));
    expect([total, returned]).toEqual([0, 0]);
    expect(res.text).toBe("resource series for job 'slow'");

    const cluster = await okOf('cron_get_cluster');
    expect(cluster).toEqual({ text: 'cluster enabled=false', body: await getJson('/cluster') });
    const fleet = await okOf('cron_get_fleet');
    expect(fleet).toEqual({ text: 'fleet enabled=false', body: await getJson('/fleet') });
    const node = await okOf('cron_get_node', { history: true });
    const route = await getJson('/node');
    expect(node.text).toBe(`node ${route.node_name}`);
    expect(Object.keys(node.body)).toEqual([...Object.keys(route), 'history']);
    expect(node.body.overload).toEqual(route.overload);
    expect(Object.keys(node.body.resources)).toEqual(Object.keys(route.resources));
    const { node_name: _n, ...history } = await getJson('/node/history');
    // This suite's deps hold their own (unstarted) sampler: the points are the server's alone.
    expect({ ...node.body.history, points: [] }).toEqual({ ...history, points: [] });
    expect(node.body.history.points).toEqual(deps.node.points);
    expect((await okOf('cron_get_node')).body.history).toBeUndefined();

    const version = await okOf('cron_get_version');
    expect(version.body).toEqual({
      version: await (await h.get('/version')).text(),
      ...(await getJson('/job-set-id')),
    });
    expect(version.text).toBe('cronstable 9.9.9-test - 6 job(s)');
  });

  it('queries the Prometheus samples in-process', async () => {
    const all = await okOf('cron_query_metrics', {}, 5);
    expect(all.body.returned).toBe(5);
    expect(all.body.match).toBe(null);
    const text = await (await h.get('/metrics')).text();
    const sampleLines = text.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
    expect(all.body.totalMatched).toBe(sampleLines.length);
    const runs = await okOf('cron_query_metrics', { match: 'RUNS_TOTAL' });
    expect(runs.body.samples.length).toBeGreaterThan(0);
    for (const s of runs.body.samples) expect(s.name.toLowerCase()).toContain('runs_total');
    const slow = runs.body.samples.find(
      (s: Parsed) =>
        s.name === 'cronstable_job_runs_total' &&
        s.labels.includes('job_name="slow"') &&
        s.labels.includes('status="cancelled"'),
    );
    expect(slow?.value).toBe('1');
    expect(runs.text).toBe(
      `${runs.body.totalMatched} metric sample(s) matched, ${runs.body.returned} returned`,
    );
    // With /metrics off the tool still renders the daemon's registry.
    const off = await TOOLS.get('cron_query_metrics')!.run(
      { match: 'cronstable_info' },
      { ...ctxOf(200), deps: { ...deps, metrics: null } },
    );
    const info = [{ name: 'cronstable_info', labels: '{version="9.9.9-test"}', value: '1' }];
    expect(off.ok && off.structured.samples).toEqual(info);
    // Without any registry (no daemon-owned one either) a private one renders the live gauges.
    const bare = await TOOLS.get('cron_query_metrics')!.run(
      { match: 'cronstable_info' },
      { ...ctxOf(200), deps: { ...deps, metrics: null, ctx: { ...h.ctx, metrics: undefined } } },
    );
    expect(bare.ok && bare.structured.samples).toEqual(info);
  });

  it('reports the incident view from the /jobs rows', async () => {
    const v = await okOf('cron_get_incident', { name: 'slow' });
    expect(v.body.verdict).toBe('none');
    expect(v.body.summary).toMatchObject({ total: 6, disabled: 1 });
    expect(v.body.timeline.map((e: Parsed) => e.name)).toContain('slow');
    expect(v.body.focus).toMatchObject({ name: 'slow', status: 'cancelled', failing: false });
    expect(await call('cron_get_incident', { name: 'ghost' })).toEqual({
      ok: false,
      text: "job not found: 'ghost'",
    });
    expect((await call('cron_get_incident', { hours: 0 })).ok).toBe(false);
  });

  it("validates every route's real body against its RouteDoc schema", async () => {
    const paths: Record<string, string> = { name: 'slow' };
    for (const doc of [...coreDocs, ...jobDocs]) {
      if (doc.method !== 'get' || !doc.response || doc.contentType === 'text/event-stream') continue;
      const path = doc.path.replace(/\{(\w+)\}/g, (_, k: string) => paths[k]!);
      const res = await h.get(path, { headers: { accept: 'application/json' } });
      expect(res.status, path).toBe(200);
      const body = doc.contentType === 'text/plain' ? await res.text() : await res.json();
      const parsed = doc.response.safeParse(body);
      expect(parsed.success ? null : parsed.error.issues, path).toBe(null);
    }
  });
});

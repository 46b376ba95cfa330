// The MCP job, cluster and node tools over HTTP on the built daemon (POST /mcp): every tool called
// with its content asserted, the structured payloads equal to the REST routes' bodies, the confirm
// gate (spec 07 §9 vectors 5, 21), paging and filters (vectors 18, 19), hidden act tools (vector 6),
// and run/cancel really starting and cancelling a run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, type McpDaemon, readWriteMcp, SETUP_A_JOBS, startMcpDaemon } from '../helpers/mcp.ts';
import { until } from '../helpers/until.ts';

const TOKEN = 's3cret';
const JOBS_B = [
  SETUP_A_JOBS,
  '  - name: slow',
  '    command: "echo slow-start; echo password=hunter2; printf \'\\\\033[1mbold\\\\033[0m\\\\n\'; sleep 30"',
  '    schedule: "0 0 1 1 *"',
  '    killTimeout: 1',
  '    captureStdout: true',
  '  - name: whisper',
  '    command: echo "the word is $(cronstable secret get tok)"; sleep 30',
  '    schedule: "0 0 1 1 *"',
  '    killTimeout: 1',
  '    captureStdout: true',
  '    secrets:',
  '      - name: tok',
  '        value: zq81-plain-value',
].join('\n');
const STATE = ['state:', '  path: state.db', '  topology: single-node', '  deploymentId: mcp-test'].join(
  '\n',
);

/** The text of a tool result, asserting it is (or is not) an isError. */
function textOf(result: Json, isError: boolean): string {
  expect(result.isError === true, JSON.stringify(result)).toBe(isError);
  expect(result.content).toHaveLength(1);
  expect(result.content[0].type).toBe('text');
  if (isError) expect(result.structuredContent).toBeUndefined();
  return result.content[0].text as string;
}

describe('MCP job and node tools, Setup A (read-only observe, maxRows 1)', () => {
  let a: McpDaemon;
  beforeAll(async () => {
    a = await startMcpDaemon({ mcp: ['enabled: true', 'maxRows: 1'] });
  }, 60_000);
  afterAll(async () => {
    await a?.stop();
  });

  it('lists the observe tools and hides the act ones (vector 6)', async () => {
    const list = await a.rpc('tools/list');
    const names = list.result.tools.map((t: Json) => t.name);
    for (const n of [
      'cron_get_status',
      'cron_list_jobs',
      'cron_tail_job_logs',
      'cron_get_version',
      'cron_get_incident',
    ])
      expect(names).toContain(n);
    expect(names).not.toContain('cron_run_job');
    expect(names).not.toContain('cron_cancel_job');
    const reply = await a.rpc('tools/call', {
      name: 'cron_run_job',
      arguments: { name: 'hello', confirm: true },
    });
    expect(reply.error).toEqual({ code: -32602, message: 'unknown tool: cron_run_job' });
  });

  it('pages list_jobs at maxRows (vector 18) and filters by state (vector 19)', async () => {
    const r = await a.call('cron_list_jobs', { limit: 100 });
    expect(textOf(r, false)).toBe('2 matching job(s); 1 returned');
    expect(r.structuredContent.page).toEqual({ offset: 0, limit: 1, total: 2, returned: 1, nextOffset: 1 });
    expect(r.structuredContent.jobs.map((j: Json) => j.name)).toEqual(['hello']);
    const off = await a.call('cron_list_jobs', { state: 'disabled' });
    expect(off.structuredContent.jobs.map((j: Json) => j.name)).toEqual(['nightly']);
    expect(textOf(await a.call('cron_get_job', {}), true)).toBe(
      "missing or empty required string argument: 'name'",
    );
    expect(textOf(await a.call('cron_get_job', { name: 'ghost' }), true)).toContain('not found');
    expect(textOf(await a.call('cron_list_jobs', { state: 'asleep' }), true)).toContain("'state'");
  });
});

describe('MCP job and node tools, Setup B (token, act enabled)', () => {
  let b: McpDaemon;
  const rest = async (path: string) => {
    const res = await fetch(`${b.base}${path}`, {
      headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/json' },
    });
    expect(res.status, path).toBe(200);
    return (await res.json()) as Json;
  };
  const still = (v: unknown): unknown =>
    JSON.parse(JSON.stringify(v, (k, x) => (k === 'scheduled_in' || k === 'generated_at' ? '~' : x)));

  beforeAll(async () => {
    b = await startMcpDaemon({
      token: TOKEN,
      jobs: JOBS_B,
      extra: STATE,
      mcp: readWriteMcp(['observe', 'act']),
    });
  }, 60_000);
  afterAll(async () => {
    await b?.stop();
  });

  it('refuses to act without confirm=true (vectors 5, 21) and runs and cancels for real', async () => {
    for (const args of [{ name: 'slow' }, { name: 'slow', confirm: 'true' }, { name: 'slow', confirm: 1 }]) {
      const text = textOf(await b.call('cron_run_job', args), true);
      expect(text).toContain('confirm=true');
    }
    expect((await rest('/jobs/slow/runs')).runs).toEqual([]);
    expect(textOf(await b.call('cron_cancel_job', { name: 'hello', confirm: true }), true)).toBe(
      "job 'hello' is not running",
    );

    const run = await b.call('cron_run_job', { name: 'slow', confirm: true });
    expect(textOf(run, false)).toBe("started job 'slow'");
    expect(run.structuredContent).toEqual({ started: 'slow', outcome: 'launched' });
    const running = await until('slow running', 10_000, async () => {
      const row = (await rest('/jobs')).find((j: Json) => j.name === 'slow');
      return row.running ? row : null;
    });
    expect(running.pids).toHaveLength(1);

    // The tail of the running instance: secrets redacted, escapes gone, newline stripped.
    const tail = await until('three lines', 10_000, async () => {
      const t = await b.call('cron_tail_job_logs', { name: 'slow' });
      return t.structuredContent.lines.length >= 3 ? t : null;
    });
    expect(tail.structuredContent).toMatchObject({ name: 'slow', running: true, truncated: false });
    expect(tail.structuredContent.lines).toEqual([
      { stream: 'stdout', line: 'slow-start' },
      { stream: 'stdout', line: 'password=***REDACTED***' },
      { stream: 'stdout', line: 'bold' },
    ]);
    const cursor = tail.structuredContent.cursor as string;
    expect(cursor).toBe(`${tail.structuredContent.run_id}.3`);
    expect(textOf(tail, false)).toBe(`job 'slow': 3 line(s) (cursor ${cursor})`);
    const more = await b.call('cron_tail_job_logs', { name: 'slow', cursor });
    expect(more.structuredContent).toMatchObject({ lines: [], cursor, truncated: false });

    const cancel = await b.call('cron_cancel_job', { name: 'slow', confirm: true });
    expect(textOf(cancel, false)).toBe("cancelled 1 instance(s) of job 'slow'");
    expect(cancel.structuredContent).toEqual({ cancelled: 'slow', instances: 1 });
    const runs = await until('the cancelled run', 10_000, async () => {
      const r = await rest('/jobs/slow/runs');
      return r.runs.length === 1 ? r : null;
    });
    expect(runs.runs[0].outcome).toBe('cancelled');
    expect(textOf(await b.call('cron_cancel_job', { name: 'slow', confirm: true }), true)).toBe(
      "job 'slow' is not running",
    );
  });

  it("redacts the run's staged secret values from the tail, running and finished", async () => {
    await b.call('cron_run_job', { name: 'whisper', confirm: true });
    const wanted = [{ stream: 'stdout', line: 'the word is ***REDACTED***' }];
    const live = await until('the whisper line', 10_000, async () => {
      const t = await b.call('cron_tail_job_logs', { name: 'whisper' });
      return t.structuredContent.lines.length > 0 ? t : null;
    });
    expect(live.structuredContent).toMatchObject({ running: true, lines: wanted });
    await b.call('cron_cancel_job', { name: 'whisper', confirm: true });
    const done = await until('the finished run', 10_000, async () => {
      const t = await b.call('cron_tail_job_logs', { name: 'whisper' });
      return t.structuredContent.running ? null : t;
    });
    expect(done.structuredContent).toMatchObject({ running: false, lines: wanted });
    expect(JSON.stringify(done)).not.toContain('zq81');
  });

  it('answers every read tool with its REST body (parity over HTTP)', async () => {
    const status = await b.call('cron_get_status', {});
    expect(textOf(status, false)).toBe('4 job(s); 0 running in this page');
    expect(still(status.structuredContent.status)).toEqual(still(await rest('/status')));
    const jobs = await b.call('cron_list_jobs', {});
    expect(still(jobs.structuredContent.jobs)).toEqual(still(await rest('/jobs')));
    const one = await b.call('cron_get_job', { name: 'slow' });
    expect(textOf(one, false)).toBe("job 'slow'");
    expect(still(one.structuredContent)).toEqual(still((await rest('/jobs'))[2]));

    const runs = await b.call('cron_list_runs', { name: 'slow' });
    expect(textOf(runs, false)).toBe("job 'slow': 1 run(s) retained, 1 returned");
    const { totalRuns, returnedRuns, ...runsBody } = runs.structuredContent;
    expect([totalRuns, returnedRuns]).toEqual([1, 1]);
    expect(runsBody).toEqual(await rest('/jobs/slow/runs'));
    const trends = await b.call('cron_get_job_trends', { name: 'slow' });
    expect(textOf(trends, false)).toBe("trends for job 'slow'");
    expect(still(trends.structuredContent)).toEqual(still(await rest('/jobs/slow/trends')));
    expect(trends.structuredContent.windows.all.cancelled).toBe(1);
    const res = await b.call('cron_get_job_resources', { name: 'slow', runs: 20 });
    expect(textOf(res, false)).toBe("resource series for job 'slow'");
    const { total, returned, ...resBody } = res.structuredContent;
    expect(resBody).toEqual(await rest('/jobs/slow/resources'));
    expect([total, returned]).toEqual([0, 0]);

    const cluster = await b.call('cron_get_cluster', {});
    expect(textOf(cluster, false)).toBe('cluster enabled=false');
    expect(cluster.structuredContent).toEqual(await rest('/cluster'));
    const fleet = await b.call('cron_get_fleet', {});
    expect(textOf(fleet, false)).toBe('fleet enabled=false');
    expect(fleet.structuredContent).toEqual(await rest('/fleet'));
    const node = await b.call('cron_get_node', { history: true });
    const nodeRoute = await rest('/node');
    expect(textOf(node, false)).toBe(`node ${nodeRoute.node_name}`);
    expect(node.structuredContent.overload).toEqual(nodeRoute.overload);
    expect(Object.keys(node.structuredContent.resources)).toEqual(Object.keys(nodeRoute.resources));
    const { node_name: _n, ...history } = await rest('/node/history');
    expect(Object.keys(node.structuredContent.history)).toEqual(Object.keys(history));
    expect(node.structuredContent.history.enabled).toBe(history.enabled);

    const version = await b.call('cron_get_version', {});
    const v = (
      await (await fetch(`${b.base}/version`, { headers: { authorization: `Bearer ${TOKEN}` } })).text()
    ).trim();
    expect(version.structuredContent).toEqual({ version: v, ...(await rest('/job-set-id')) });
    expect(textOf(version, false)).toBe(`cronstable ${v} - 4 job(s)`);
  });

  it('queries metrics in-process and reports the incident view', async () => {
    const m = await b.call('cron_query_metrics', { match: 'job_runs_total', limit: 50 });
    const s = m.structuredContent;
    expect(textOf(m, false)).toBe(`${s.totalMatched} metric sample(s) matched, ${s.returned} returned`);
    expect(s.match).toBe('job_runs_total');
    const slow = s.samples.find(
      (x: Json) => x.labels.includes('job_name="slow"') && x.labels.includes('status="cancelled"'),
    );
    expect(slow).toMatchObject({ name: 'cronstable_job_runs_total', value: '1' });

    const inc = await b.call('cron_get_incident', { name: 'slow', hours: 24 });
    expect(textOf(inc, false)).toMatch(/^no failing jobs; \d+ finish\(es\) in the timeline$/);
    expect(inc.structuredContent).toMatchObject({
      verdict: 'none',
      headline: null,
      hours: 24,
      focus: { name: 'slow', status: 'cancelled', failing: false, group: null },
    });
    expect(inc.structuredContent.timeline.find((e: Json) => e.name === 'slow')).toMatchObject({
      outcome: 'cancelled',
    });
  });
});

// The MCP schedule, slot, DAG and state tools over HTTP against a real daemon (dist bundle) with a
// state store, a scheduled DAG `etl`, an approval DAG and a chatty task: every tool is called and its
// content asserted, spec 07 §9 vectors 10, 11, 12 and 20, the confirm gate of the mutating tools, a
// real approval gate decided through cron_decide_gate, the task log tail across the ring wrap, and
// each tool's payload against its REST route's body (one source of truth). Every success payload
// is checked against the tool's output schema, and the routes' real bodies against their RouteDocs.
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { docs as dagDocs } from '../../src/api/wire/dags.schema.ts';
import type { RouteDoc } from '../../src/api/wire/route-doc.ts';
import { docs as scheduleDocs } from '../../src/api/wire/schedule.schema.ts';
import { docs as slotDocs } from '../../src/api/wire/slots.schema.ts';
import { docs as stateDocs } from '../../src/api/wire/state.schema.ts';
import type { ToolDef } from '../../src/mcp/tool.ts';
import { dagTools } from '../../src/mcp/tools/dags.ts';
import { scheduleTools } from '../../src/mcp/tools/schedule.ts';
import { stateTools } from '../../src/mcp/tools/state.ts';
import { ALL_TOOLSETS, type Json, type McpDaemon, readWriteMcp, startMcpDaemon } from '../helpers/mcp.ts';
import { writeTree } from '../helpers/tmp.ts';
import { until } from '../helpers/until.ts';

const TOKEN = 's3cret';
const MAX_ROWS = 5;

const JOBS = [
  '  - name: hello',
  '    command: "echo hello"',
  '    schedule: "* * * * *"',
  '  - name: hello-too',
  '    command: "echo hello"',
  '    schedule: "* * * * *"',
  '  - name: nightly',
  '    command: "echo nightly"',
  '    schedule: "0 3 * * *"',
  '    enabled: false',
  // Fires every 2 s, so the slot tools have a ledger to read within seconds of the start.
  '  - name: ticker',
  '    command: "true"',
  '    schedule: "*/2 * * * * * *"',
  '  - name: weekdays',
  '    command: "true"',
  '    schedule: "0 9 * * 1,5"',
  '  - name: seed',
  `    command: cronstable state set token '{"secret":"hunter2"}' --json && cronstable cursor advance pos 42`,
  '    schedule: "@reboot"',
].join('\n');

// The chatty task wraps the 1000-line ring, then prints a secret and a line full of terminal controls.
const CHATTY =
  'i=1; while [ $i -le 1200 ]; do echo "line $i"; i=$((i+1)); done; echo "password=hunter2"; ' +
  "printf '\\033[31mred\\033[0m\\tTAB\\001\\n'; sleep 60";

function extra(stateDir: string): string {
  return `state:
  path: ${stateDir}
  topology: single-node
  deploymentId: mcpsched
dags:
  - name: etl
    schedule: "0 */6 * * *"
    tasks:
      - id: extract
        command: echo extracted
  - name: release
    tasks:
      - id: build
        command: echo "v1.2.3" | cronstable xcom push --key tag
      - id: approve
        type: approval
        dependsOn:
          - build
      - id: deploy
        dependsOn:
          - approve
        command: echo deployed
  - name: streamer
    tasks:
      - id: talk
        killTimeout: 1
        captureStdout: true
        command: ${JSON.stringify(CHATTY)}
`;
}

const TOOLS = new Map<string, ToolDef>(
  [...scheduleTools, ...dagTools, ...stateTools].map((t) => [t.name, t]),
);
const DOCS: RouteDoc[] = [...scheduleDocs, ...slotDocs, ...dagDocs, ...stateDocs];

describe('MCP schedule, DAG and state tools (real daemon over HTTP)', () => {
  let d: McpDaemon;
  const called = new Set<string>();

  beforeAll(async () => {
    d = await startMcpDaemon({
      token: TOKEN,
      jobs: JOBS,
      mcp: readWriteMcp(ALL_TOOLSETS, `maxRows: ${MAX_ROWS}`),
      extra: extra(writeTree({ 'keep.txt': '' }, true)),
    });
  }, 60_000);

  afterAll(async () => {
    await d?.stop();
  });

  /** tools/call over HTTP: the result (isError or content + structuredContent). */
  async function call(name: string, args: Record<string, unknown> = {}): Promise<Json> {
    called.add(name);
    const r = await d.call(name, args);
    expect(r.content[0].type).toBe('text');
    if (!r.isError) {
      const tool = TOOLS.get(name);
      if (tool) expect(() => (tool.output as z.ZodType).parse(r.structuredContent), name).not.toThrow();
    }
    return r;
  }
  /** A call that must succeed: its summary text and structured payload. */
  async function okCall(
    name: string,
    args: Record<string, unknown> = {},
  ): Promise<{ text: string; body: Json }> {
    const r = await call(name, args);
    if (r.isError) throw new Error(`${name}: ${r.content[0].text}`);
    return { text: r.content[0].text, body: r.structuredContent };
  }
  /** A call that must be refused: its isError text. */
  async function refused(name: string, args: Record<string, unknown> = {}): Promise<string> {
    const r = await call(name, args);
    expect(r.isError, `${name} ${JSON.stringify(args)} should be refused`).toBe(true);
    expect(r.structuredContent).toBeUndefined();
    return r.content[0].text;
  }
  /** A REST route's body (and, where a RouteDoc declares one, its check against the schema). */
  async function route(method: 'GET' | 'POST', path: string, docPath?: string): Promise<Json> {
    const res = await fetch(`${d.base}${path}`, { method, headers: { authorization: `Bearer ${TOKEN}` } });
    const body = await res.json();
    expect(res.status, `${method} ${path}: ${JSON.stringify(body)}`).toBe(200);
    const doc = DOCS.find(
      (x) => x.method === method.toLowerCase() && x.path === (docPath ?? path.split('?')[0]),
    );
    expect(doc, `RouteDoc for ${method} ${docPath ?? path}`).toBeDefined();
    expect(() => doc!.response!.parse(body), `${path} against its RouteDoc`).not.toThrow();
    return body;
  }

  it('lists every tool of the four toolsets, cron_job_slots among them', async () => {
    const r = await d.rpc('tools/list');
    const names: string[] = r.result.tools.map((t: Json) => t.name);
    for (const name of TOOLS.keys()) expect(names).toContain(name);
    const backfill = r.result.tools.find((t: Json) => t.name === 'cron_backfill_dag');
    expect(backfill.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
    });
    expect(backfill.inputSchema.required).toEqual(['dag', 'from', 'to']);
  });

  describe('schedule tools', () => {
    it('vector 10: an invalid expression is a result, not an error', async () => {
      const { text, body } = await okCall('cron_validate_schedule', { expression: '0 9 * * mon-fry' });
      expect(body.valid).toBe(false);
      expect(body.error).toContain('day-of-week');
      expect(text.startsWith('INVALID')).toBe(true);
    });

    it('vector 11: a valid expression with one fire and its lint', async () => {
      const { text, body } = await okCall('cron_validate_schedule', { expression: '*/7 * * * *' });
      expect(body.valid).toBe(true);
      expect(body.fires).toHaveLength(1);
      expect(body.lint.map((l: Json) => l.code)).toEqual(['uneven-step']);
      expect(text).toMatch(
        /^valid: every hour at minutes 0, 7, 14, 21, 28, 35, 42, 49 and 56; 1 lint warning\(s\), 0 note\(s\); first fire /,
      );
    });

    it('vector 12: explain lists 5 fires by default, at most 60, and refuses an unknown zone', async () => {
      expect((await okCall('cron_explain_schedule', { expression: '* * * * *' })).body.fires).toHaveLength(5);
      expect(
        (await okCall('cron_explain_schedule', { expression: '* * * * *', count: 999 })).body.fires,
      ).toHaveLength(60);
      expect(await refused('cron_explain_schedule', { expression: '* * * * *', tz: 'Nope/Zone' })).toContain(
        'unknown timezone',
      );
    });

    it('explain takes a DST policy and echoes it, with the zone offset on each fire', async () => {
      const { body } = await okCall('cron_explain_schedule', {
        expression: '30 1 * * *',
        tz: 'America/New_York',
        dst_repeated: 'both',
        dst_skipped: 'skip',
        count: 2,
      });
      expect(body.dst).toEqual({ repeated: 'both', skipped: 'skip' });
      expect(body.timezone).toBe('America/New_York');
      for (const f of body.fires) expect(f).toMatch(/T01:30:00-0[45]:00$/);
      expect(
        await refused('cron_explain_schedule', { expression: '* * * * *', dst_repeated: 'never' }),
      ).toContain('dst_repeated');
    });

    it('H needs a seed; @reboot is valid with no fires', async () => {
      const noSeed = await okCall('cron_validate_schedule', { expression: 'H * * * *' });
      expect(noSeed.body.valid).toBe(false);
      expect(noSeed.body.error).toContain('hash key');
      const seeded = await okCall('cron_validate_schedule', { expression: 'H * * * *', seed: 'backup' });
      expect(seeded.body.valid).toBe(true);
      expect(seeded.body.resolved).toMatch(/^\d+ \* \* \* \*$/);
      expect(seeded.body.lint.map((l: Json) => l.code)).toContain('hashed-slot');
      const reboot = await okCall('cron_validate_schedule', { expression: '@reboot' });
      expect(reboot.body).toMatchObject({ valid: true, reboot: true, fires: [] });
      expect(reboot.text).toMatch(/^valid: .*once/);
    });

    it('validate and explain equal /schedule/preview', async () => {
      const args = { expression: '0 0 1 1 *', tz: 'Europe/Berlin', dst_repeated: 'last' };
      const q = 'expr=0%200%201%201%20*&tz=Europe/Berlin&dst_repeated=last';
      expect((await okCall('cron_validate_schedule', args)).body).toEqual(
        await route('GET', `/schedule/preview?${q}&count=1`),
      );
      expect((await okCall('cron_explain_schedule', { ...args, count: 3 })).body).toEqual(
        await route('GET', `/schedule/preview?${q}&count=3`),
      );
    });

    it('pressure: the route payload, the busiest minute, the zone refusal', async () => {
      const { text, body } = await okCall('cron_schedule_pressure', { hours: 48 });
      expect(body).toEqual(await route('GET', '/schedule/pressure?hours=48'));
      expect(body.hours).toBe(48);
      // hello, hello-too, ticker, weekdays and dag:etl (seed is @reboot, nightly disabled)
      expect(body.jobs).toBe(5);
      expect(text).toContain('busiest minute');
      expect((await okCall('cron_schedule_pressure', { hours: 1000 })).body.hours).toBe(168);
      expect(await refused('cron_schedule_pressure', { tz: 'Nope/Zone' })).toBe(
        'unknown timezone: Nope/Zone',
      );
    });

    it('duplicates: hello and hello-too share a schedule', async () => {
      const { text, body } = await okCall('cron_schedule_duplicates');
      expect(body).toEqual(await route('GET', '/schedule/duplicates'));
      expect(body.groups[0]).toMatchObject({ count: 2, jobs: ['hello', 'hello-too'] });
      expect(text).toBe(
        `1 duplicate group(s) across ${body.jobs} scheduled job(s); biggest: 2 job(s) sharing '* * * * *'`,
      );
    });

    it('suggest: the least-loaded slot, as /schedule/suggest', async () => {
      const daily = await okCall('cron_suggest_slot', { period: 'daily', tz: 'UTC' });
      expect(daily.body).toEqual(await route('GET', '/schedule/suggest?period=daily&tz=UTC'));
      expect(daily.text).toMatch(
        /^least-loaded daily slot: '\d+ \d+ \* \* \*' \(\d+ fire\(s\) already there in 24h\)$/,
      );
      const hourly = await okCall('cron_suggest_slot');
      expect(hourly.body.period).toBe('hourly');
      expect((await okCall('cron_suggest_slot', { period: '' })).body.period).toBe('hourly');
      expect(await refused('cron_suggest_slot', { period: 'weekly' })).toContain('period');
    });

    it('why_no_run: NO field by field, YES with a pointer to the runs, and the refusals', async () => {
      // 2026-12-01 is a Tuesday.
      const no = await okCall('cron_why_no_run', { name: 'weekdays', at: '2026-12-01T09:00:00' });
      expect(no.body).toEqual(await route('GET', '/schedule/why?job=weekdays&at=2026-12-01T09:00:00Z'));
      expect(no.body.matches).toBe(false);
      expect(no.text).toMatch(/^NO/);
      expect(no.text).toContain('day-of-week Tuesday is not in Monday and Friday');
      const yes = await okCall('cron_why_no_run', { name: 'hello', at: '2026-12-01T09:00:00Z' });
      expect(yes.text).toMatch(/^YES/);
      expect(yes.text).toContain('cron_list_runs');
      const off = await okCall('cron_why_no_run', { name: 'nightly', at: '2026-12-01T03:00:00Z' });
      expect(off.text).toContain('disabled');
      const dag = await okCall('cron_why_no_run', { name: 'dag:etl', at: '2026-12-01T06:00:00Z' });
      expect(dag.body).toMatchObject({ job: 'dag:etl', matches: true });
      expect(await okCall('cron_why_no_run', { name: 'seed', at: '2026-12-01T06:00:00Z' })).toMatchObject({
        body: { reboot: true },
      });
      expect(await refused('cron_why_no_run', { name: 'ghost', at: '2026-12-01T09:00:00Z' })).toBe(
        "no job or DAG schedule named 'ghost'. Use cron_list_jobs or cron_list_dags to enumerate.",
      );
      expect(await refused('cron_why_no_run', { name: 'hello', at: 'tuesday' })).toContain('ISO 8601');
      expect(await refused('cron_why_no_run', { name: 'hello' })).toContain("'at'");
    });

    it('job_slots: the slot fates of /jobs/{name}/slots', async () => {
      // The ledger knows the job from its first run on: wait for one (ticker fires every 2 s).
      await until('a ticker run in the ledger', 30_000, async () => {
        const r = await okCall('cron_inspect_state', { stream: 'runs/ticker' });
        return r.body.records.length > 0 ? r : null;
      });
      const to = new Date(Date.now() + 1000).toISOString();
      const from = new Date(Date.now() - 3_600_000).toISOString();
      const { text, body } = await okCall('cron_job_slots', { name: 'ticker', from, to });
      const rest = await route(
        'GET',
        `/jobs/ticker/slots?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`,
        '/jobs/{name}/slots',
      );
      expect(body).toEqual(rest);
      expect(body.slots.length).toBeGreaterThan(0);
      expect(typeof body.unaccounted).toBe('number');
      expect(text).toContain(`job 'ticker': ${body.slots.length} slot(s)`);
      expect(await refused('cron_job_slots', { name: 'ghost' })).toContain("job not found: 'ghost'");
      expect(await refused('cron_job_slots', { name: 'ticker', from: 'soon' })).toContain("invalid 'from'");
      await route('GET', '/slots/unaccounted');
    }, 90_000);
  });

  describe('DAG tools', () => {
    let releaseKey = '';

    it('list_dags equals GET /dags', async () => {
      const { text, body } = await okCall('cron_list_dags');
      expect(body).toEqual({ dags: await route('GET', '/dags') });
      expect(body.dags.map((x: Json) => x.name)).toEqual(['etl', 'release', 'streamer']);
      expect(text).toBe('3 DAG(s)');
    });

    it('trigger: the confirm gate first, then a real manual run', async () => {
      expect(await refused('cron_trigger_dag', { dag: 'release' })).toBe(
        'triggering changes state; call again with confirm=true to proceed',
      );
      expect(await refused('cron_trigger_dag', { dag: 'release', confirm: 'true' })).toContain(
        'confirm=true',
      );
      // An unknown DAG without confirm still gets the confirm message (check order).
      expect(await refused('cron_trigger_dag', { dag: 'ghost' })).toContain('confirm=true');
      expect(await refused('cron_trigger_dag', { dag: 'ghost', confirm: true })).toBe(
        "dag not found: 'ghost'",
      );
      const runs = await okCall('cron_list_dag_runs', { dag: 'release' });
      expect(runs.body.runs).toEqual([]);
      const { text, body } = await okCall('cron_trigger_dag', { dag: 'release', confirm: true });
      expect(body.dag).toBe('release');
      expect(body.runKey).toMatch(/^manual-[0-9a-f]{12}$/);
      expect(text).toBe(`triggered dag 'release' (run ${body.runKey})`);
      releaseKey = body.runKey;
    });

    it('list_dag_runs and get_dag_run equal their routes', async () => {
      // The run is moving (its tasks start and finish): the two answers agree when read between steps.
      const runs = await until('cron_list_dag_runs and its route to agree', 15_000, async () => {
        const tool = await okCall('cron_list_dag_runs', { dag: 'release', limit: 100 });
        const rest = await route('GET', `/dags/release/runs?limit=${MAX_ROWS}`, '/dags/{name}/runs');
        return isDeepStrictEqual(tool.body, { ...rest, total: 1, returned: 1 }) ? tool : null;
      });
      expect(runs.text).toBe("dag 'release': 1 run(s)");
      expect(await refused('cron_list_dag_runs', { dag: 'ghost' })).toBe("dag not found: 'ghost'");
      const run = await okCall('cron_get_dag_run', { dag: 'release', run_key: releaseKey });
      const rest = await route('GET', `/dags/release/runs/${releaseKey}`, '/dags/{name}/runs/{runKey}');
      expect(run.body.runKey).toBe(rest.runKey);
      expect(run.body.tasks.build).toBeDefined();
      expect(run.text).toBe(`dag 'release' run '${releaseKey}'`);
      expect(await refused('cron_get_dag_run', { dag: 'release', run_key: 'nope' })).toBe(
        "dag run not found: 'release'/'nope'",
      );
      expect(await refused('cron_get_dag_run', { dag: 'ghost', run_key: 'nope' })).toBe(
        "dag not found: 'ghost'",
      );
    });

    it('decide_gate: refusals, then a real approval that lets the run finish', async () => {
      await until('the gate to wait for approval', 40_000, async () => {
        const r = await okCall('cron_get_dag_run', { dag: 'release', run_key: releaseKey });
        return r.body.tasks.approve?.awaitingApproval === true ? r : null;
      });
      const gate = { dag: 'release', run_key: releaseKey, taskkey: 'approve' };
      expect(await refused('cron_decide_gate', { ...gate, decision: 'approve' })).toBe(
        'deciding an approval gate changes state; call again with confirm=true to proceed',
      );
      expect(await refused('cron_decide_gate', { ...gate, decision: 'maybe', confirm: true })).toContain(
        'decision',
      );
      expect(
        await refused('cron_decide_gate', { ...gate, taskkey: 'nope', decision: 'approve', confirm: true }),
      ).toBe('no such task');
      const { text, body } = await okCall('cron_decide_gate', {
        ...gate,
        decision: 'approve',
        confirm: true,
      });
      expect(body).toEqual({ ok: true, state: 'success' });
      expect(text).toBe("approved gate 'approve' on dag 'release'");
      expect(await refused('cron_decide_gate', { ...gate, decision: 'reject', confirm: true })).toBe(
        'task is not awaiting approval',
      );
      const done = await until('the release run to finish', 40_000, async () => {
        const r = await okCall('cron_get_dag_run', { dag: 'release', run_key: releaseKey });
        return r.body.state === 'running' ? null : r.body;
      });
      expect(done.state).toBe('success');
      expect(done.tasks.approve.approval).toMatchObject({ decision: 'approved', by: 'mcp' });
      expect(done.tasks.deploy.state).toBe('success');
      // The whole document now that it no longer changes.
      expect(done).toEqual(
        await route('GET', `/dags/release/runs/${releaseKey}`, '/dags/{name}/runs/{runKey}'),
      );
    }, 90_000);

    it('get_dag_xcom equals the xcom route', async () => {
      const { text, body } = await okCall('cron_get_dag_xcom', { dag: 'release', run_key: releaseKey });
      expect(body).toEqual(
        await route('GET', `/dags/release/runs/${releaseKey}/xcom`, '/dags/{name}/runs/{runKey}/xcom'),
      );
      expect(body.entries).toEqual([
        expect.objectContaining({ taskkey: 'build', key: 'tag', value: 'v1.2.3\n' }),
      ]);
      expect(text).toBe(`xcom for dag 'release' run '${releaseKey}'`);
      expect(await refused('cron_get_dag_xcom', { dag: 'release', run_key: 'nope' })).toBe(
        "dag run not found: 'release'/'nope'",
      );
    });

    it('vector 20: backfill is a dry run by default that walks the real instants', async () => {
      const window = { dag: 'etl', from: '2026-01-01T00:00:00Z', to: '2026-01-01T12:00:00Z' };
      const dry = await okCall('cron_backfill_dag', window);
      expect(dry.body).toEqual({
        dag: 'etl',
        from: window.from,
        to: window.to,
        dryRun: true,
        wouldExecute: false,
        wouldCreate: 3,
        firstInstant: '2026-01-01T00:00:00+00:00',
        lastInstant: '2026-01-01T12:00:00+00:00',
      });
      expect(dry.text.startsWith('DRY RUN')).toBe(true);
      expect(dry.text).toContain('dry_run=false');
      expect(await refused('cron_backfill_dag', { ...window, dag: 'ghost' })).toBe("dag not found: 'ghost'");
      expect(await refused('cron_backfill_dag', { ...window, dry_run: false })).toContain('confirm=true');
      expect(await refused('cron_backfill_dag', { ...window, from: window.to, to: window.from })).toBe(
        'bad date range',
      );
      expect(await refused('cron_backfill_dag', { ...window, dag: 'release' })).toBe('no such scheduled dag');
      // Nothing was created by any of that.
      const before = (await okCall('cron_list_dag_runs', { dag: 'etl' })).body.runs;
      expect(before.filter((r: Json) => r.kind === 'backfill')).toEqual([]);
      const real = await okCall('cron_backfill_dag', { ...window, dry_run: false, confirm: true });
      expect(real.body).toEqual({ ok: true, created: 3 });
      expect(real.text).toBe(`backfilled dag 'etl' from ${window.from} to ${window.to}: 3 run(s)`);
      const after = (await okCall('cron_list_dag_runs', { dag: 'etl' })).body;
      expect(after.total).toBeGreaterThanOrEqual(3);
      expect(after.returned).toBeLessThanOrEqual(MAX_ROWS);
    });

    it('tail_dag_task_logs: sanitised, redacted lines and a cursor that survives the ring wrap', async () => {
      const { body: trig } = await okCall('cron_trigger_dag', { dag: 'streamer', confirm: true });
      const key = trig.runKey;
      const args = { dag: 'streamer', run_key: key, taskkey: 'talk' };
      const page = await until('the chatty task to print its last line', 30_000, async () => {
        const r = await okCall('cron_tail_dag_task_logs', args);
        return r.body.lines.at(-1)?.line === 'red\tTAB' ? r : null;
      });
      expect(page.body.lines).toHaveLength(MAX_ROWS);
      expect(page.body.lines.map((l: Json) => l.line).slice(-3)).toEqual([
        'line 1200',
        'password=***REDACTED***',
        'red\tTAB',
      ]);
      expect(JSON.stringify(page.body)).not.toContain('hunter2');
      expect(page.body.truncated).toBe(true);
      expect(page.body).toMatchObject({ dag: 'streamer', run_key: key, taskkey: 'talk' });
      expect(page.text).toBe(`dag 'streamer' task 'talk': ${MAX_ROWS} line(s)`);
      const [run, seq] = page.body.cursor.split('.');
      expect(Number(seq)).toBe(1202);
      // Nothing new after the cursor.
      const idle = await okCall('cron_tail_dag_task_logs', { ...args, cursor: page.body.cursor });
      expect(idle.body).toMatchObject({ lines: [], cursor: page.body.cursor, truncated: false });
      // From the first line: the 202 lines the 1000-line ring evicted are reported, the rest follows.
      const start = await okCall('cron_tail_dag_task_logs', { ...args, cursor: `${run}.0` });
      expect(start.body.skipped).toBe(202);
      expect(start.body.lines.map((l: Json) => l.line)).toEqual([
        'line 203',
        'line 204',
        'line 205',
        'line 206',
        'line 207',
      ]);
      expect(start.body.cursor).toBe(`${run}.207`);
      // Unknown run or task: empty, not an error; unknown DAG and a foreign cursor: refused.
      expect((await okCall('cron_tail_dag_task_logs', { ...args, run_key: 'nope' })).body).toMatchObject({
        lines: [],
        cursor: 'none.0',
      });
      expect(await refused('cron_tail_dag_task_logs', { ...args, dag: 'ghost' })).toBe(
        "dag not found: 'ghost'",
      );
      expect(await refused('cron_tail_dag_task_logs', { ...args, cursor: '17' })).toContain('cursor');
    });
  });

  describe('state tool', () => {
    it('the overview is GET /state', async () => {
      const { text, body } = await okCall('cron_inspect_state');
      const rest = await route('GET', '/state');
      expect(text).toBe('state store enabled=true');
      // Operation counters and inventories move between two reads; the rest is the same document.
      for (const k of ['enabled', 'view', 'backend', 'namespace', 'topology', 'enumerable', 'node'])
        expect(body[k], k).toEqual(rest[k]);
      expect(Object.keys(body).sort()).toEqual(Object.keys(rest).sort());
    });

    it('a KV namespace shows type and size only; a cursor namespace the document', async () => {
      const kv = await until('the seed job to write its KV entry', 20_000, async () => {
        const r = await call('cron_inspect_state', { ns: 'kv/seed' });
        return !r.isError && r.structuredContent.documents.length > 0 ? r.structuredContent : null;
      });
      expect(kv).toEqual({
        namespace: 'kv/seed',
        documents: [{ key: 'token', updatedAt: expect.any(Number), valueType: 'dict', valueSize: 20 }],
        total: 1,
        returned: 1,
      });
      expect(JSON.stringify(kv)).not.toContain('hunter2');
      await route('GET', '/state/documents?ns=kv/seed');
      const cursor = await until('the seed job to advance its cursor', 20_000, async () => {
        const r = await okCall('cron_inspect_state', { ns: 'cursor/seed' });
        return r.body.documents.length > 0 ? r.body : null;
      });
      expect(cursor.documents[0]).toMatchObject({ key: 'pos', body: expect.objectContaining({ value: 42 }) });
      expect((await okCall('cron_inspect_state', { ns: 'cursor/seed' })).text).toBe(
        "state documents in 'cursor/seed'",
      );
    });

    it('a stream: newest records first with total and returned, as /state/records', async () => {
      await until('a ticker run in the ledger', 30_000, async () => {
        const r = await okCall('cron_inspect_state', { stream: 'runs/ticker' });
        return r.body.records.length > 0 ? r : null;
      });
      // The ticker keeps running: a record can land between the tool's read and the route's, so the
      // two are read until they agree at one instant.
      const { text, body } = await until('cron_inspect_state and its route to agree', 15_000, async () => {
        const tool = await okCall('cron_inspect_state', { stream: 'runs/ticker', limit: 2 });
        const rest = await route('GET', '/state/records?stream=runs/ticker&limit=2');
        return isDeepStrictEqual({ stream: tool.body.stream, records: tool.body.records }, rest)
          ? tool
          : null;
      });
      expect(body.returned).toBe(body.records.length);
      expect(body.total).toBeGreaterThanOrEqual(body.returned);
      expect(text).toBe("state records in 'runs/ticker'");
    }, 90_000);

    it('refuses what the inspector never shows', async () => {
      expect(await refused('cron_inspect_state', { ns: 'kv/seed', stream: 'runs/hello' })).toBe(
        'pass at most one of `ns` or `stream`',
      );
      expect(await refused('cron_inspect_state', { ns: 'secrets/x' })).toBe(
        'ns must be a kv/, cursor/ or idem/ namespace',
      );
      expect(await refused('cron_inspect_state', { stream: '' })).toBe('a stream is required');
      for (const stream of ['logs', 'logs/hello'])
        expect(await refused('cron_inspect_state', { stream })).toBe(
          'log streams carry raw output and are not inspectable',
        );
    });
  });

  it('the routes answer bodies their RouteDocs describe once runs, rollups and documents exist', async () => {
    const dags = await route('GET', '/dags');
    expect(dags.find((x: Json) => x.name === 'release').latestRun).toBeDefined();
    for (const ns of ['cursor/seed', 'kv/seed']) await route('GET', `/state/documents?ns=${ns}`);
    const runs = await route('GET', '/dags/etl/runs', '/dags/{name}/runs');
    expect(runs.runs.length).toBeGreaterThan(0);
    await route('GET', '/state/artifacts?scope=global');
    await route('GET', '/schedule/why?job=seed&at=2026-12-01T06:00:00Z');
    await route('GET', '/schedule/suggest');
  });

  it('called every tool of this module', () => {
    expect([...TOOLS.keys()].filter((n) => !called.has(n))).toEqual([]);
  });
});

// Tools, resources and prompts through the whole stack on real daemons, with the job tools of the
// catalogue: the SDK client (which checks every structuredContent against its outputSchema),
// vectors 5, 6, 18, 19, 21, 22 and 23, the audit line in the daemon's log and the Prometheus counter.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOGUE } from '../../src/mcp/tools/index.ts';
import { offMinuteRuns, SETUP_A_JOBS, SETUP_B_MCP, suiteMcpDaemon } from '../helpers/mcp.ts';
import { writeTree } from '../helpers/tmp.ts';
import { until } from '../helpers/until.ts';

const isReference = (name: string) => (CATALOGUE as readonly string[]).includes(name);

/** Setup B's state store and scheduled DAG `etl` (spec 07 §9). */
const stateAndDag = (dir: string) => `state:
  path: ${dir}
  topology: single-node
dags:
  - name: etl
    schedule: "0 2 * * *"
    tasks:
      - id: extract
        command: echo extracted
`;

describe('Setup A: defaults', () => {
  const a = suiteMcpDaemon();
  it('serves an SDK client: listTools in catalogue order, read-only hints, outputSchema on every tool (vector 1)', async () => {
    const client = await a.client();
    expect(client.getServerVersion()?.name).toBe('cronstable');
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names[0]).toBe('cron_get_status');
    const reference = names.filter((n) => (CATALOGUE as readonly string[]).includes(n));
    expect(reference).toEqual(CATALOGUE.filter((n) => reference.includes(n)));
    // Ours (beyond the reference) come after the catalogue's.
    const firstExtra = names.findIndex((n) => !(CATALOGUE as readonly string[]).includes(n));
    if (firstExtra >= 0)
      expect(names.slice(firstExtra).every((n) => !(CATALOGUE as readonly string[]).includes(n))).toBe(true);
    for (const t of tools) {
      expect(t.annotations, t.name).toMatchObject({
        readOnlyHint: true,
        openWorldHint: false,
        destructiveHint: false,
      });
      expect(t.outputSchema?.type, t.name).toBe('object');
      expect(t.inputSchema.additionalProperties, t.name).toBe(false);
    }
    expect(names).not.toContain('cron_run_job');
  });

  it('calls tools through the SDK client, structuredContent valid against outputSchema (vector 19)', async () => {
    const client = await a.client();
    const disabled = await client.callTool({ name: 'cron_list_jobs', arguments: { state: 'disabled' } });
    expect(disabled.isError).toBeFalsy();
    const jobs = (disabled.structuredContent as { jobs: { name: string }[] }).jobs;
    expect(jobs.map((j) => j.name)).toEqual(['nightly']);
    for (const name of [
      'cron_get_status',
      'cron_get_cluster',
      'cron_get_version',
      'cron_query_metrics',
      'cron_get_node',
    ])
      expect((await client.callTool({ name, arguments: {} })).isError, name).toBeFalsy();
    const missing = await client.callTool({ name: 'cron_get_job', arguments: {} });
    expect(missing.isError).toBe(true);
    expect(missing.content).toEqual([
      { type: 'text', text: "missing or empty required string argument: 'name'" },
    ]);
    const ghost = await client.callTool({ name: 'cron_get_job', arguments: { name: 'ghost' } });
    expect(ghost.isError).toBe(true);
    expect((ghost.content as { text: string }[])[0]!.text).toContain('not found');
    const bad = await a.call('cron_list_jobs', { limit: true });
    expect(bad.isError).toBe(true);
    expect(bad.content[0].text).toContain("'limit'");
  });

  it('reads resources (vector 22), percent-decoding names', async () => {
    const list = await a.rpc('resources/list');
    expect(list.result.resources.map((r: { uri: string }) => r.uri)).toEqual([
      'cronstable://status',
      'cronstable://cluster',
      'cronstable://fleet',
      'cronstable://version',
    ]);
    for (const r of list.result.resources) expect(r.mimeType).toBe('application/json');
    const templates = await a.rpc('resources/templates/list');
    expect(templates.result.resourceTemplates.map((t: { name: string }) => t.name)).toEqual([
      'job',
      'job-runs',
    ]);
    const version = await a.rpc('resources/read', { uri: 'cronstable://version' });
    const content = version.result.contents[0];
    expect(content.uri).toBe('cronstable://version');
    expect(content.mimeType).toBe('application/json');
    expect(JSON.parse(content.text)).toEqual({
      version: expect.any(String),
      job_set_id: expect.any(String),
      jobs: 2,
    });
    const status = JSON.parse(
      (await a.rpc('resources/read', { uri: 'cronstable://status' })).result.contents[0].text,
    );
    expect(Object.keys(status)).toEqual(['status']);
    expect(status.status).toHaveLength(2);
    const job = JSON.parse(
      (await a.rpc('resources/read', { uri: 'cronstable://jobs/hello' })).result.contents[0].text,
    );
    expect(job.name).toBe('hello');
    const runs = JSON.parse(
      (await a.rpc('resources/read', { uri: 'cronstable://jobs/h%65llo/runs' })).result.contents[0].text,
    );
    expect(Object.keys(runs).sort()).toEqual(['name', 'runs', 'stats']);
    expect(runs.name).toBe('hello');
    for (const uri of [
      'cronstable://jobs/ghost',
      'cronstable://dags/x',
      'cronstable://state/kv/x',
      'cronstable://nope',
    ])
      expect((await a.rpc('resources/read', { uri })).error, uri).toEqual({
        code: -32002,
        message: `resource not found: ${uri}`,
      });
    expect((await a.rpc('resources/read', {})).error).toEqual({
      code: -32602,
      message: "resources/read requires a 'uri'",
    });
  });

  it('lists and renders prompts (vector 23)', async () => {
    const list = await a.rpc('prompts/list');
    expect(list.result.prompts.map((p: { name: string }) => p.name)).toEqual([
      'triage_job_failure',
      'blast_radius',
      'fleet_health_summary',
    ]);
    expect(list.result.prompts[0].arguments).toEqual([
      { name: 'job', description: expect.any(String), required: true },
    ]);
    expect((await a.rpc('prompts/get', { name: 'nope' })).error).toEqual({
      code: -32602,
      message: 'unknown prompt: nope',
    });
    expect((await a.rpc('prompts/get', { name: 'why_did_dag_run_fail' })).error.code).toBe(-32602);
    expect((await a.rpc('prompts/get', { name: 'triage_job_failure' })).error.code).toBe(-32602);
    const triage = await a.rpc('prompts/get', { name: 'triage_job_failure', arguments: { job: 'hello' } });
    const message = triage.result.messages[0];
    expect(message.role).toBe('user');
    expect(message.content.type).toBe('text');
    expect(message.content.text).toContain("'hello'");
    expect(message.content.text).toContain('cron_get_job');
    expect(message.content.text).toContain('cron_tail_job_logs');
    // Steps naming hidden tools are dropped (dags and state are off by default).
    const blast = await a.rpc('prompts/get', { name: 'blast_radius', arguments: { target: 42 } });
    const text: string = blast.result.messages[0].content.text;
    expect(text).toContain("'42'");
    expect(text).not.toContain('cron_list_dags');
    expect(text).not.toContain('cron_inspect_state');
  });
});

describe('Setup B: read-write, all four toolsets, maxRows 1, a state store and a DAG', () => {
  const b = suiteMcpDaemon({
    token: 's3cret',
    mcp: SETUP_B_MCP,
    extra: stateAndDag(join(writeTree({ 'keep.txt': '' }, true), 'state')),
  });

  it('lists the 31 reference tools (spec 10 §1.6 adds the pause pair), ours after them (vector 2)', async () => {
    const names: string[] = (await b.rpc('tools/list')).result.tools.map((t: { name: string }) => t.name);
    expect(CATALOGUE).toHaveLength(31);
    expect(names.slice(0, 31)).toEqual([...CATALOGUE]);
    expect(names.slice(31).some(isReference)).toBe(false);
  });

  it('serves the DAG and state resources and all five prompts', async () => {
    const templates = (await b.rpc('resources/templates/list')).result.resourceTemplates;
    expect(templates.map((t: { name: string }) => t.name)).toEqual([
      'job',
      'job-runs',
      'dag',
      'dag-run',
      'state-ns',
    ]);
    const dag = JSON.parse(
      (await b.rpc('resources/read', { uri: 'cronstable://dags/etl' })).result.contents[0].text,
    );
    expect(dag.name).toBe('etl');
    expect((await b.rpc('resources/read', { uri: 'cronstable://dags/etl/runs/nope' })).error.code).toBe(
      -32002,
    );
    // A state-layer refusal is -32002 with its own message.
    const logs = await b.rpc('resources/read', { uri: 'cronstable://state/logs' });
    expect(logs.error.code).toBe(-32002);
    expect(logs.error.message).not.toBe('resource not found: cronstable://state/logs');
    const prompts = (await b.rpc('prompts/list')).result.prompts.map((p: { name: string }) => p.name);
    expect(prompts).toEqual([
      'triage_job_failure',
      'blast_radius',
      'fleet_health_summary',
      'why_did_dag_run_fail',
      'backfill_plan',
    ]);
    const blast = await b.rpc('prompts/get', { name: 'blast_radius', arguments: { target: 'hello' } });
    expect(blast.result.messages[0].content.text).toContain('cron_list_dags');
    expect(blast.result.messages[0].content.text).toContain('cron_inspect_state');
  });
  it('pages cron_list_jobs at maxRows (vector 18); resources stay unpaged', async () => {
    const r = await b.call('cron_list_jobs', { limit: 100 });
    expect(r.structuredContent.page).toEqual({ offset: 0, limit: 1, total: 2, returned: 1, nextOffset: 1 });
    const status = JSON.parse(
      (await b.rpc('resources/read', { uri: 'cronstable://status' })).result.contents[0].text,
    );
    expect(status.status).toHaveLength(2);
  });

  it('refuses run without confirm: true, audits and counts it (vector 5)', async () => {
    for (const args of [{ name: 'hello' }, { name: 'hello', confirm: 'true' }]) {
      const r = await b.call('cron_run_job', args);
      expect(r.isError, JSON.stringify(args)).toBe(true);
      expect(r.content[0].text).toContain('confirm=true');
    }
    const runs = await fetch(`${b.base}/jobs/hello/runs`, { headers: { authorization: 'Bearer s3cret' } });
    expect(offMinuteRuns(((await runs.json()) as { runs: { started_at: string | null }[] }).runs)).toEqual(
      [],
    );
    const logs = b.daemon.logs();
    const audit = logs
      .split('\n')
      .filter((l) => l.includes('mcp audit: '))
      .map((l) => JSON.parse(l.slice(l.indexOf('mcp audit: ') + 11)));
    expect(audit).toHaveLength(2);
    expect(audit[0]).toEqual({
      tool: 'cron_run_job',
      arguments: { name: 'hello' },
      outcome: 'refused',
      remoteAddress: expect.stringMatching(/127\.0\.0\.1/),
      userAgent: expect.any(String),
    });
  });

  it('cancels only a running job (vector 21) and runs with confirm: true', async () => {
    const idle = await b.call('cron_cancel_job', { name: 'hello', confirm: true });
    expect(idle.isError).toBe(true);
    expect(idle.content[0].text).toBe("job 'hello' is not running");
    const started = await b.call('cron_run_job', { name: 'hello', confirm: true });
    expect(started.isError).toBeUndefined();
    await until('the manual run of hello to be recorded', 10_000, async () => {
      const res = await fetch(`${b.base}/jobs/hello/runs`, { headers: { authorization: 'Bearer s3cret' } });
      return ((await res.json()) as { runs: unknown[] }).runs.length > 0 ? true : null;
    });
    const audit = b.daemon
      .logs()
      .split('\n')
      .filter((l) => l.includes('mcp audit: '));
    expect(audit.at(-1)).toContain('"outcome":"ok"');
    expect(audit.some((l) => l.includes('"tool":"cron_cancel_job"') && l.includes('"outcome":"error"'))).toBe(
      true,
    );
  });

  it('counts tool calls per tool and outcome in Prometheus', async () => {
    await b.call('cron_get_version', {});
    const res = await fetch(`${b.base}/metrics`, { headers: { authorization: 'Bearer s3cret' } });
    const text = await res.text();
    expect(text).toContain('# TYPE cronstable_mcp_tool_calls_total counter');
    expect(text).toMatch(/cronstable_mcp_tool_calls_total\{tool="cron_run_job",outcome="refused"\} 2/);
    expect(text).toMatch(/cronstable_mcp_tool_calls_total\{tool="cron_get_version",outcome="ok"\} 1/);
  });
});

describe('reload and disabled (spec 07 §1.4)', () => {
  const d = suiteMcpDaemon({ token: 's3cret' });
  it('rebuilds the tool list when the mcp block changes, and answers 404 (401 first) once disabled', async () => {
    const count = async () =>
      ((await d.rpc('tools/list')).result?.tools ?? []).filter((t: { name: string }) => isReference(t.name))
        .length;
    expect(await count()).toBe(18);
    const file = join(d.dir, 'cronstable.yaml');
    const config = readFileSync(file, 'utf8');
    writeFileSync(
      file,
      config.replace(
        'mcp:\n  enabled: true',
        'mcp:\n  enabled: true\n  readOnly: false\n  toolsets:\n    - observe\n    - act',
      ),
    );
    d.daemon.child.kill('SIGHUP');
    await until(
      'the reloaded web server to list 22 tools (the act pair of spec 10 §1.6 included)',
      15_000,
      async () => ((await count().catch(() => 0)) === 22 ? true : null),
    );
    writeFileSync(file, config.replace('mcp:\n  enabled: true', 'mcp:\n  enabled: false'));
    d.daemon.child.kill('SIGHUP');
    await until('the reloaded web server to drop /mcp', 15_000, async () => {
      const r = await d.post({ jsonrpc: '2.0', id: 1, method: 'ping' }).catch(() => null);
      return r?.status === 404 ? true : null;
    });
    expect((await d.post({ jsonrpc: '2.0', id: 1, method: 'ping' }, undefined, { token: null })).status).toBe(
      401,
    );
  });
});

describe('act listed while readOnly (vector 6)', () => {
  const d = suiteMcpDaemon({
    jobs: `${SETUP_A_JOBS}\n  - name: nightly run\n    command: "true"\n    schedule: "0 4 * * *"`,
    mcp: ['enabled: true', 'toolsets:', '  - observe', '  - act'],
  });
  it('hides the mutating tools from listing and calling', async () => {
    const r = await d.rpc('tools/call', {
      name: 'cron_run_job',
      arguments: { name: 'hello', confirm: true },
    });
    expect(r.error).toEqual({ code: -32602, message: 'unknown tool: cron_run_job' });
    const names = (await d.rpc('tools/list')).result.tools.map((t: { name: string }) => t.name);
    expect(names).not.toContain('cron_run_job');
    expect(names).not.toContain('cron_cancel_job');
    expect(d.daemon.logs()).toContain("toolset 'act' has no effect while readOnly is true");
  });

  it('percent-decodes a resource name with a space (§5 Do better)', async () => {
    const r = await d.rpc('resources/read', { uri: 'cronstable://jobs/nightly%20run' });
    expect(JSON.parse(r.result.contents[0].text).name).toBe('nightly run');
    expect(r.result.contents[0].uri).toBe('cronstable://jobs/nightly%20run');
  });
});

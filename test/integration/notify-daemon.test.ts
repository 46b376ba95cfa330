// The top-level `notify:` block on one real daemon (spec 09 §5, vectors 28 and 29): a DAG run
// that fails and an approval gate that waits each POST once to a real webhook listener, with the
// event defaults; a shell reporter sees the event's variables; a reload that narrows `events`
// applies at once and a filtered event sends nothing.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpHit, httpSink, waitFor } from '../helpers/sinks.ts';
import { writeTree } from '../helpers/tmp.ts';
import { api, type Daemon, startDaemon, stopDaemon, trigger, waitRun, writeConfig } from './dag-helpers.ts';

const DAGS = `  - name: orders
    tasks:
      - id: load
        command: exit 1
      - id: report
        command: exit 2
  - name: release
    tasks:
      - id: build
        command: "true"
      - id: gate
        type: approval
        dependsOn:
          - build
`;

let dir: string;
let d: Daemon;
let sink: Awaited<ReturnType<typeof httpSink>>;

function notifyBlock(events: string[] | null): string {
  const list = events ? `  events:\n${events.map((e) => `    - ${e}\n`).join('')}` : '';
  return `notify:
${list}  report:
    webhook:
      url:
        value: http://127.0.0.1:${sink.port}/hook
    shell:
      command: env > ${join(dir, 'env')}/$CRONSTABLE_EVENT-$$.env
`;
}

const posts = (event: string): HttpHit[] =>
  sink.hits.filter((h) => (JSON.parse(h.body) as { text: string }).text.startsWith(`cronstable ${event}:`));

beforeAll(async () => {
  sink = await httpSink();
  dir = writeTree({ 'env/.keep': '' }, true);
  writeConfig(dir, DAGS, notifyBlock(null));
  d = await startDaemon(dir);
}, 30_000);

afterAll(async () => {
  if (d) await stopDaemon(d);
  await sink?.close();
});

describe('notify: on a daemon', () => {
  it('POSTs one dag_failure per failed run with the default text (vector 28)', async () => {
    const key = await trigger(d, 'orders');
    await waitRun(d, 'orders', key, (r) => r.state === 'failed');
    await waitFor(() => posts('dag_failure').length >= 1, 10_000, 'the dag_failure POST');
    const [hit] = posts('dag_failure');
    expect(hit!.method).toBe('POST');
    expect(hit!.url).toBe('/hook');
    expect(hit!.body).toBe(
      `{"text": "cronstable dag_failure: DAG \\u0027orders\\u0027 run ${key} failed\\n2 task(s) failed: load, report\\n"}`,
    );
    expect(d.err).toContain(`Reporting dag_failure event: DAG 'orders' run ${key} failed`);
    // The shell reporter of the same block: the event's variables, run-shaped ones empty.
    await waitFor(
      () => readdirSync(join(dir, 'env')).some((f) => f.startsWith('dag_failure-')),
      10_000,
      'the shell report',
    );
    const file = readdirSync(join(dir, 'env')).find((f) => f.startsWith('dag_failure-'))!;
    const env = readFileSync(join(dir, 'env', file), 'utf8');
    const run = (await api(d, 'GET', `/dags/orders/runs/${encodeURIComponent(key)}`)).json as {
      runId: string;
    };
    expect(env).toContain('CRONSTABLE_EVENT=dag_failure\n');
    expect(env).toContain(`CRONSTABLE_EVENT_SUBJECT=DAG 'orders' run ${key} failed\n`);
    expect(env).toContain('CRONSTABLE_JOB_NAME=orders\n');
    expect(env).toContain('CRONSTABLE_FAILED=1\n');
    expect(env).toContain('CRONSTABLE_FAIL_REASON=2 task(s) failed: load, report\n');
    expect(env).toContain('CRONSTABLE_JOB_COMMAND=\n');
    expect(env).toContain('CRONSTABLE_JOB_SCHEDULE=\n');
    expect(env).toContain('CRONSTABLE_RETCODE=\n');
    expect(env).toContain(`CRONSTABLE_RUN_ID=${run.runId}\n`);
  });

  it('POSTs approval_waiting once for a waiting gate', async () => {
    const key = await trigger(d, 'release');
    await waitRun(d, 'release', key, (r) => r.tasks.gate?.awaitingApproval === true);
    await waitFor(() => posts('approval_waiting').length >= 1, 10_000, 'the approval_waiting POST');
    expect(JSON.parse(posts('approval_waiting')[0]!.body)).toEqual({
      text: `cronstable approval_waiting: DAG 'release' run ${key} awaiting approval: gate\nTask gate is an approval gate awaiting a decision; approve or reject it to let the run continue.\n`,
    });
    // Later passes of the same run (a reject decision advances it) raise nothing more for the gate.
    const r = await api(d, 'POST', `/dags/release/runs/${encodeURIComponent(key)}/tasks/gate/decision`, {
      decision: 'reject',
    });
    expect(r.status).toBe(200);
    await waitRun(d, 'release', key, (run) => run.state === 'failed');
    await waitFor(() => posts('dag_failure').length >= 2, 10_000, 'the rejected run reported failed');
    expect(posts('approval_waiting')).toHaveLength(1);
    // The second dag_failure is this run's: the first run was reported once, not again.
    expect(JSON.parse(posts('dag_failure')[1]!.body).text).toBe(
      `cronstable dag_failure: DAG 'release' run ${key} failed\n1 task(s) failed: gate\n`,
    );
  });

  it('applies a reload at once: a filtered event sends nothing (vector 29)', async () => {
    const before = sink.hits.length;
    writeConfig(dir, DAGS, notifyBlock(['approval_waiting']));
    const reloads = d.err.split('Reloading configuration').length;
    d.child.kill('SIGHUP');
    await waitFor(() => d.err.split('Reloading configuration').length > reloads, 10_000, 'the reload');
    const key = await trigger(d, 'orders');
    await waitRun(d, 'orders', key, (r) => r.state === 'failed');
    const gateKey = await trigger(d, 'release');
    await waitFor(() => posts('approval_waiting').length >= 2, 10_000, 'the allowed event');
    // The failed run finished before the gate's run was even triggered: its event would be here.
    expect(sink.hits.slice(before).map((h) => JSON.parse(h.body).text.split('\n')[0])).toEqual([
      `cronstable approval_waiting: DAG 'release' run ${gateKey} awaiting approval: gate`,
    ]);
    expect(d.err).not.toContain(`Reporting dag_failure event: DAG 'orders' run ${key}`);
  });
});

describe('notify: load errors on the daemon command line', () => {
  it('refuses notify in two directory files (vector 29)', async () => {
    const { spawnSync } = await import('node:child_process');
    const { BUNDLE } = await import('./dag-helpers.ts');
    const conf = writeTree({});
    const block = 'notify:\n  events:\n    - quorum_loss\n';
    writeFileSync(join(conf, 'a.yaml'), block);
    writeFileSync(join(conf, 'b.yaml'), block);
    const r = spawnSync(process.execPath, [BUNDLE, '-c', conf, '-v'], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      `Multiple 'notify' configurations found: first in ${join(conf, 'a.yaml')}, now in ${join(conf, 'b.yaml')}`,
    );
  });
});

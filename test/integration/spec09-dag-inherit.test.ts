// Spec 09 §4 and §6 on one real daemon (dist/): DAG tasks inherit `defaults:` (vector 25), task
// `onFailure` reports once per attempt with `name` = `<dag>.<task>` (26), a `defaults.onSuccess` report
// fires once per DAG run for its task and for nothing else (27), and a failing job's report carries the
// run context: CRONSTABLE_HOST, the job's own CRONSTABLE_RUN_ID, CRONSTABLE_STARTED_AT and the rendered
// object schedule, in the shell environment and in templates alike (30). Cancelling an attempt at
// shutdown reports nothing (26).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpHit, httpSink } from '../helpers/sinks.ts';
import { writeTree } from '../helpers/tmp.ts';
import { until } from '../helpers/until.ts';
import {
  api,
  type Daemon,
  type RunDoc,
  startDaemon,
  stopDaemon,
  trigger,
  waitRun,
  writeConfig,
} from './dag-helpers.ts';

const HOST = 'spec09-node-a';
let dir: string;
let d: Daemon;
let sink: Awaited<ReturnType<typeof httpSink>>;

const lines = (file: string): string[] =>
  existsSync(join(dir, file)) ? readFileSync(join(dir, file), 'utf8').split('\n').filter(Boolean) : [];
const envOf = (file: string): Record<string, string> =>
  Object.fromEntries(
    readFileSync(join(dir, file), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('CRONSTABLE_'))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
const hitsTo = (path: string): HttpHit[] => sink.hits.filter((h) => h.url === path);

beforeAll(async () => {
  sink = await httpSink();
  dir = writeTree({}, true);
  const T = dir;
  const hook = (pad: string, path: string, body: string) =>
    [
      `${pad}webhook:`,
      `${pad}  url:`,
      `${pad}    value: http://127.0.0.1:${sink.port}${path}`,
      `${pad}  body: "${body}"`,
    ].join('\n');
  const defaults = [
    'defaults:',
    '  shell: /bin/bash',
    '  environment:',
    '    - key: A',
    '      value: d',
    '    - key: B',
    '      value: b',
    '  onSuccess:',
    '    report:',
    '      shell:',
    `        command: echo "$CRONSTABLE_JOB_NAME $CRONSTABLE_RUN_ID [$CRONSTABLE_JOB_SCHEDULE]" >> ${T}/success.log`,
    'jobs:',
    '  - name: J',
    `    command: echo "$CRONSTABLE_RUN_ID" > ${T}/j.runid; exit 1`,
    '    schedule:',
    '      minute: "0"',
    '      hour: "4"',
    '    onFailure:',
    '      report:',
    '        shell:',
    `          command: env > ${T}/j.env`,
    hook('        ', '/v30', '{{ host }}|{{ schedule }}|{{ run_id }}|{{ started_at }}'),
  ].join('\n');
  const failReport = (extra = '') =>
    [
      '        onFailure:',
      '          report:',
      '            shell:',
      `              command: echo "$CRONSTABLE_JOB_NAME $CRONSTABLE_RUN_ID $CRONSTABLE_FAIL_REASON" >> ${T}/fail.log`,
      extra,
    ].join('\n');
  const dags = [
    '  - name: d',
    '    tasks:',
    '      - id: t',
    '        environment:',
    '          - key: A',
    '            value: task',
    `        command: echo "\${BASH_VERSION:+bash}|$A|$B" > ${T}/v25.out`,
    '  - name: d26',
    '    tasks:',
    '      - id: t',
    '        command: exit 1',
    '        retries: 2',
    failReport(hook('            ', '/v26', '{{ name }} {{ run_id }}')),
    '      - id: slow',
    '        command: sleep 60',
    failReport(),
    '  - name: dsensor',
    '    tasks:',
    '      - id: wait',
    '        type: sensor',
    '        command: exit 1',
    '        pokeIntervalSeconds: 0.2',
    '        pokeTimeoutSeconds: 1',
    failReport(),
    '  - name: d27',
    '    schedule:',
    '      second: "*/4"',
    '    tasks:',
    '      - id: ok',
    '        command: "true"',
    '',
  ].join('\n');
  writeConfig(dir, dags, defaults);
  d = await startDaemon(dir, { HOSTNAME: HOST });
});

afterAll(async () => {
  if (d) await stopDaemon(d);
  await sink?.close();
});

describe('DAG tasks inherit defaults (spec 09 §4)', () => {
  it('vector 25: the task runs under the defaults shell with A=task, B=b', async () => {
    const key = await trigger(d, 'd');
    await waitRun(d, 'd', key, (r) => r.state === 'success');
    expect(readFileSync(join(dir, 'v25.out'), 'utf8').trim()).toBe('bash|task|b');
    // Its defaults onSuccess report came once, with a manual DAG's empty schedule (§4.4 item 1).
    const run = await waitRun(d, 'd', key, () => true);
    await until('the d.t success report', 15_000, async () =>
      lines('success.log').some((l) => l.startsWith('d.t ')) ? true : null,
    );
    expect(lines('success.log').filter((l) => l.startsWith('d.t '))).toEqual([`d.t ${run.runId} []`]);
  });

  it('vector 26: one onFailure report per failed attempt, named d26.t, run_id the DAG run id', async () => {
    const key = await trigger(d, 'd26');
    const run: RunDoc = await waitRun(d, 'd26', key, (r) => r.tasks.t?.state === 'failed');
    await until('three d26.t failure reports', 15_000, async () =>
      lines('fail.log').filter((l) => l.startsWith('d26.t ')).length >= 3 && hitsTo('/v26').length >= 3
        ? true
        : null,
    );
    const mine = lines('fail.log').filter((l) => l.startsWith('d26.t '));
    expect(mine).toHaveLength(3);
    for (const l of mine) expect(l).toBe(`d26.t ${run.runId} failsWhen=nonzeroReturn and retcode=1`);
    expect(hitsTo('/v26').map((h) => h.body)).toEqual(Array(3).fill(`d26.t ${run.runId}`));
    expect(d.err).toMatch(/Cron job d26\.t: reporting failure/);
    // The failures reported; no success report for them.
    expect(lines('success.log').some((l) => l.startsWith('d26.t '))).toBe(false);
  });

  it('vector 27: a defaults onSuccess report once per DAG run, for its task only', async () => {
    // Two runs of the every-4-seconds DAG reach success, each with its report.
    const done = await until('two reported d27 runs', 40_000, async () => {
      const r = await api(d, 'GET', '/dags/d27/runs');
      const runs = (r.json as { runs?: { runId: string; state: string }[] } | null)?.runs ?? [];
      const ok = runs.filter((x) => x.state === 'success');
      const reported = new Set(lines('success.log').map((l) => l.split(' ')[1]));
      const both = ok.filter((x) => reported.has(x.runId));
      return both.length >= 2 ? both : null;
    });
    const d27 = lines('success.log').filter((l) => !l.startsWith('d.t ') && !l.startsWith('d26'));
    for (const run of done) expect(d27.filter((l) => l.split(' ')[1] === run.runId)).toHaveLength(1);
    // Every report is the task's, under the DAG's schedule; none is for the schedule trigger itself.
    for (const l of d27) expect(l).toMatch(/^d27\.ok [0-9a-f]{32} \[\*\/4 \* \* \* \* \* \*\]$/);
    expect(d.err).not.toMatch(/Cron job dag:d27/);
  });
});

describe('a sensor reports its timeout, not each poke (spec 09 §4.4 item 2)', () => {
  it('many not-ready pokes, one onFailure report when the poke timeout fails the sensor', async () => {
    const key = await trigger(d, 'dsensor');
    const run = await waitRun(d, 'dsensor', key, (r) => r.tasks.wait?.state === 'failed');
    expect(run.tasks.wait!.pokeCount).toBeGreaterThan(1);
    await until('the sensor failure report', 15_000, async () =>
      lines('fail.log').some((l) => l.startsWith('dsensor.wait ')) ? true : null,
    );
    expect(lines('fail.log').filter((l) => l.startsWith('dsensor.wait '))).toEqual([
      `dsensor.wait ${run.runId} sensor timed out`,
    ]);
  });
});

describe('the run context in reports (spec 09 §6)', () => {
  it('vector 30: CRONSTABLE_HOST, the job’s own run id, the start instant and the rendered schedule', async () => {
    const started = Date.now();
    const r = await api(d, 'POST', '/jobs/J/start');
    expect(r.status).toBeLessThan(300);
    await until('the J failure reports', 15_000, async () =>
      existsSync(join(dir, 'j.env')) && hitsTo('/v30').length > 0 ? true : null,
    );
    await until('the full env dump', 5_000, async () => (envOf('j.env').CRONSTABLE_RUN_ID ? true : null));
    const env = envOf('j.env');
    const runId = readFileSync(join(dir, 'j.runid'), 'utf8').trim();
    expect(runId).toMatch(/^[0-9a-f]{32}$/);
    expect(env.CRONSTABLE_HOST).toBe(HOST);
    expect(env.CRONSTABLE_RUN_ID).toBe(runId);
    expect(env.CRONSTABLE_JOB_SCHEDULE).toBe('0 4 * * *');
    expect(env.CRONSTABLE_STARTED_AT).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?\+00:00$/);
    const at = Date.parse(env.CRONSTABLE_STARTED_AT!);
    expect(at).toBeGreaterThanOrEqual(started - 1000);
    expect(at).toBeLessThanOrEqual(Date.now());
    // The templates render the same values.
    expect(hitsTo('/v30')[0]!.body).toBe(`${HOST}|0 4 * * *|${runId}|${env.CRONSTABLE_STARTED_AT}`);
  });
});

describe('no report for a cancelled attempt (spec 09 §4.3)', () => {
  it('vector 26: an attempt cancelled at shutdown adds no line', async () => {
    const key = await trigger(d, 'd26');
    await waitRun(d, 'd26', key, (r) => r.tasks.slow?.state === 'running' && r.tasks.slow.pid !== null);
    const before = lines('fail.log').filter((l) => l.startsWith('d26.slow')).length;
    // The first signal drains (the task keeps running), the second cancels it.
    d.child.kill('SIGTERM');
    await until('the drain', 10_000, async () => (/waiting up to/.test(d.err) ? true : null));
    d.child.kill('SIGTERM');
    await d.exit;
    expect(lines('fail.log').filter((l) => l.startsWith('d26.slow'))).toHaveLength(before);
    expect(before).toBe(0);
  });
});

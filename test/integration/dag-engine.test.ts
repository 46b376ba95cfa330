// Spec 04 §12 on one real daemon: fan-out over XCom with a retry (S1), the failing diamond (S3), the
// approval gates with their 409s (S4, S5), a sensor timeout, backfill idempotency, and the rows a
// person reads in SQL. Everything is observed through the HTTP API and the store.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTree } from '../helpers/tmp.ts';
import {
  api,
  type Daemon,
  getRun,
  query,
  type RunDoc,
  startDaemon,
  stopDaemon,
  trigger,
  waitRun,
  writeConfig,
} from './dag-helpers.ts';
import { readSse } from './web-harness.ts';

const terminal = (r: RunDoc) => r.state !== 'running';

const DAGS = (dir: string) => `
  - name: orders-etl
    schedule: "*/3 * * * *"
    retainRuns: 20
    onMissed: run-all
    startingDeadlineSeconds: 1800
    catchupJitterSeconds: 20
    tasks:
      - id: discover
        command: echo '["eu", "us", "apac"]' | cronstable xcom push --key shards
      - id: load
        dependsOn:
          - discover
        expand:
          fromTask: discover
          key: shards
        retries: 2
        retryDelaySeconds: 1
        command: >-
          echo "$CRONSTABLE_DAG_TASKKEY attempt=$CRONSTABLE_ATTEMPT item=$CRONSTABLE_DAG_MAP_ITEM index=$CRONSTABLE_DAG_MAP_INDEX" >> ${dir}/load.log;
          if [ "$CRONSTABLE_DAG_MAP_ITEM" = '"us"' ] && [ ! -f ${dir}/us-failed-$CRONSTABLE_DAG_RUN_ID ]; then touch ${dir}/us-failed-$CRONSTABLE_DAG_RUN_ID; exit 3; fi
      - id: verify
        dependsOn:
          - load
        command: >-
          cronstable xcom pull --task discover --key shards > ${dir}/verify-$CRONSTABLE_DAG_RUN_ID.out;
          cronstable xcom list > ${dir}/list-$CRONSTABLE_DAG_RUN_ID.out;
          cronstable xcom pull --task discover --key nope 2>/dev/null; echo "missing=$?" >> ${dir}/list-$CRONSTABLE_DAG_RUN_ID.out;
          echo "$CRONSTABLE_DAG_NAME $CRONSTABLE_DAG_RUN_KEY $CRONSTABLE_DAG_TASK $CRONSTABLE_DAG_TASKKEY [$CRONSTABLE_DAG_MAP_INDEX] [$CRONSTABLE_DAG_MAP_ITEM] $CRONSTABLE_JOB_NAME $CRONSTABLE_DAG_XCOM_SCOPE" >> ${dir}/list-$CRONSTABLE_DAG_RUN_ID.out
  - name: data-quality-gate
    tasks:
      - id: snapshot
        command: echo snap
      - id: check-nulls
        dependsOn:
          - snapshot
        command: echo ok
      - id: check-freshness
        dependsOn:
          - snapshot
        command: echo ok
      - id: check-volume
        dependsOn:
          - snapshot
        command: echo "volume too low" >&2; exit 1
      - id: certify
        dependsOn:
          - check-nulls
          - check-freshness
          - check-volume
        command: echo certified
  - name: release-train
    tasks:
      - id: build
        command: echo "v1.2.3" | cronstable xcom push --key tag
      - id: approve
        type: approval
        dependsOn:
          - build
        onReject: skip
      - id: canary
        type: sensor
        dependsOn:
          - approve
        pokeIntervalSeconds: 1
        pokeTimeoutSeconds: 300
        pokeJitterSeconds: 0.5
        command: test -f ${dir}/healthy
      - id: publish
        dependsOn:
          - approve
          - canary
        triggerRule: all_done
        command: echo "publishing $(cronstable xcom pull --task build --key tag)" > ${dir}/publish-$CRONSTABLE_DAG_RUN_ID.out
  - name: hotfix-release
    tasks:
      - id: build-hotfix
        command: echo built
      - id: approve
        type: approval
        dependsOn:
          - build-hotfix
      - id: deploy
        dependsOn:
          - approve
        command: echo deployed
  - name: secretive
    tasks:
      - id: use
        secrets:
          - name: token
            fromEnvVar: DAG_TEST_TOKEN
        command: echo "s=$(cronstable secret get token)" > ${dir}/secret.out
  - name: chatty
    tasks:
      - id: talk
        captureStdout: true
        command: echo hello; sleep 1.5; echo bye
  - name: wait-forever
    tasks:
      - id: never
        type: sensor
        pokeIntervalSeconds: 1
        pokeTimeoutSeconds: 2
        command: "false"
      - id: after
        dependsOn:
          - never
        triggerRule: all_done
        command: echo after
`;

describe('DAGs on one daemon (spec 04 §12)', () => {
  let dir: string;
  let d: Daemon;

  beforeAll(async () => {
    dir = writeTree({}, true);
    writeConfig(dir, DAGS(dir));
    d = await startDaemon(dir, { DAG_TEST_TOKEN: 'tok-Zq81' });
  }, 30_000);

  afterAll(async () => {
    if (d) expect(await stopDaemon(d)).toBe(0);
  }, 30_000);

  it('S1: fans out over the pushed list, retries one instance, fans in, and keeps XCom', async () => {
    const key = await trigger(d, 'orders-etl');
    expect(key).toMatch(/^manual-[0-9a-f]{12}$/);
    const run = await waitRun(d, 'orders-etl', key, terminal);
    expect(run.state).toBe('success');
    expect(run.kind).toBe('manual');
    expect(run.logicalDate).toBeNull();
    expect(run.mapped.load!.items).toEqual(['eu', 'us', 'apac']);
    expect(run.tasks.load!.state).toBe('expanded');
    expect(run.tasks['load#1']!.mapItem).toBe('us');
    expect(run.tasks['load#0']!.attempt).toBe(0);
    expect(run.tasks['load#1']!.attempt).toBe(1); // failed once, then succeeded
    for (const k of ['discover', 'load#0', 'load#1', 'load#2', 'verify'])
      expect(run.tasks[k]!.state).toBe('success');
    const disc = run.tasks.discover!;
    const loads = [0, 1, 2].map((i) => run.tasks[`load#${i}`]!);
    for (const l of loads) expect(l.startedAt!).toBeGreaterThanOrEqual(disc.finishedAt!);
    expect(run.tasks.verify!.startedAt!).toBeGreaterThanOrEqual(Math.max(...loads.map((l) => l.finishedAt!)));
    // The task environment (§6.3): the item is JSON, the index decimal.
    const log = readFileSync(join(dir, 'load.log'), 'utf8');
    expect(log).toContain('load#0 attempt=0 item="eu" index=0');
    expect(log).toContain('load#1 attempt=1 item="us" index=1');
    expect(readFileSync(join(dir, `verify-${run.runId}.out`), 'utf8')).toBe('["eu", "us", "apac"]\n');
    // xcom list, a missing pull (exit 4), and the plain task's §6.3 environment.
    expect(readFileSync(join(dir, `list-${run.runId}.out`), 'utf8')).toBe(
      `discover/shards\nmissing=4\norders-etl ${key} verify verify [] [] orders-etl.verify dagxcom/orders-etl/${run.runId}\n`,
    );
    const summary = await api(d, 'GET', '/dags/orders-etl/runs');
    const mine = (
      summary.json as { runs: { runKey: string; taskStates: Record<string, number> }[] }
    ).runs.find((r) => r.runKey === key);
    expect(mine!.taskStates).toEqual({ success: 5, expanded: 1 });
    const xcom = await api(d, 'GET', `/dags/orders-etl/runs/${key}/xcom`);
    expect(xcom.status).toBe(200);
    const entries = (xcom.json as { entries: { taskkey: string; key: string; value?: string }[] }).entries;
    expect(entries).toContainEqual(
      expect.objectContaining({ taskkey: 'discover', key: 'shards', value: '["eu", "us", "apac"]\n' }),
    );
    // The same facts as rows a person can query.
    const rows = query<{ task_key: string; state: string; attempt: number }>(
      dir,
      'SELECT task_key, state, attempt FROM dag_tasks WHERE dag = ? AND run_key = ? ORDER BY task_key',
      'orders-etl',
      key,
    );
    expect(rows.map((r) => `${r.task_key}:${r.state}:${r.attempt}`)).toEqual([
      'discover:success:0',
      'load:expanded:0',
      'load#0:success:0',
      'load#1:success:1',
      'load#2:success:0',
      'verify:success:0',
    ]);
    const x = query<{ task_key: string; key: string }>(
      dir,
      'SELECT task_key, key FROM xcom WHERE run_key = ?',
      key,
    );
    expect(x).toEqual([{ task_key: 'discover', key: 'shards' }]);
  }, 60_000);

  it('S3: a failing check leaves certify upstream_failed and the run failed', async () => {
    const key = await trigger(d, 'data-quality-gate');
    const run = await waitRun(d, 'data-quality-gate', key, terminal);
    expect(run.state).toBe('failed');
    const vol = run.tasks['check-volume']!;
    expect(vol.state).toBe('failed');
    expect(vol.failReason).toBe('failsWhen=nonzeroReturn and retcode=1');
    expect(vol.exitCode).toBe(1);
    expect(vol.attempt).toBe(1);
    expect(run.tasks['check-nulls']!.state).toBe('success');
    expect(run.tasks['check-freshness']!.state).toBe('success');
    expect(run.tasks.certify!.state).toBe('upstream_failed');
    expect(run.tasks.certify!.startedAt).toBeNull();
    // The README's question, in SQL: which tasks of that run failed, and why.
    const failed = query<{ task_key: string; state: string; fail_reason: string | null }>(
      dir,
      `SELECT t.task_key, t.state, t.fail_reason FROM dag_runs r JOIN dag_tasks t USING (ns, dag, run_key)
       WHERE r.dag = ? AND r.run_key = ? AND t.state IN ('failed', 'upstream_failed') ORDER BY t.task_key`,
      'data-quality-gate',
      key,
    );
    expect(failed).toEqual([
      { task_key: 'certify', state: 'upstream_failed', fail_reason: null },
      { task_key: 'check-volume', state: 'failed', fail_reason: 'failsWhen=nonzeroReturn and retcode=1' },
    ]);
    // The README's DAG section asks the same question of the last day's runs.
    const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
    const section = readme.slice(
      readme.indexOf('## DAGs'),
      readme.indexOf('\n## ', readme.indexOf('## DAGs')),
    );
    const sql = /```sql\n([\s\S]*?)```/.exec(section)![1]!;
    const answer = query<{ dag: string; run_key: string; task_key: string; fail_reason: string | null }>(
      dir,
      sql,
    );
    expect(answer.filter((r) => r.run_key === key).map((r) => [r.task_key, r.fail_reason])).toEqual([
      ['certify', null],
      ['check-volume', 'failsWhen=nonzeroReturn and retcode=1'],
    ]);
  }, 60_000);

  it('S4: approve over HTTP, the sensor pokes until healthy, publish pulls the tag; 409s', async () => {
    const key = await trigger(d, 'release-train');
    let run = await waitRun(d, 'release-train', key, (r) => r.tasks.approve!.awaitingApproval === true);
    expect(run.tasks.build!.state).toBe('success');
    expect(run.tasks.approve!.state).toBe('running');
    expect(run.tasks.approve!.approval).toBeNull();
    expect(run.tasks.canary!.state).toBe('pending');
    const early = await api(d, 'POST', `/dags/release-train/runs/${key}/tasks/canary/decision`, {
      decision: 'approve',
    });
    expect(early.status).toBe(409);
    expect(early.text).toContain('task is not awaiting approval');
    const bad = await api(d, 'POST', `/dags/release-train/runs/${key}/tasks/approve/decision`, {
      decision: 'maybe',
    });
    expect(bad.status).toBe(400);
    expect(
      (await api(d, 'POST', `/dags/nope/runs/${key}/tasks/approve/decision`, { decision: 'approve' })).status,
    ).toBe(409);
    expect(
      (await api(d, 'POST', `/dags/release-train/runs/nope/tasks/approve/decision`, { decision: 'approve' }))
        .status,
    ).toBe(409);
    const ok = await api(d, 'POST', `/dags/release-train/runs/${key}/tasks/approve/decision`, {
      decision: 'approve',
      by: 'me',
    });
    expect(ok.status).toBe(200);
    expect(ok.json).toEqual({ ok: true, state: 'success' });
    const again = await api(d, 'POST', `/dags/release-train/runs/${key}/tasks/approve/decision`, {
      decision: 'reject',
    });
    expect(again.status).toBe(409);
    run = await waitRun(d, 'release-train', key, (r) => (r.tasks.canary!.pokeCount ?? 0) >= 2);
    expect(run.tasks.canary!.state).toBe('running');
    writeFileSync(join(dir, 'healthy'), '');
    run = await waitRun(d, 'release-train', key, terminal);
    expect(run.state).toBe('success');
    expect(run.tasks.approve!.approval).toMatchObject({ decision: 'approved', by: 'me' });
    expect(run.tasks.canary!.state).toBe('success');
    expect(run.tasks.publish!.state).toBe('success');
    expect(readFileSync(join(dir, `publish-${run.runId}.out`), 'utf8')).toBe('publishing v1.2.3\n');
  }, 60_000);

  it('S4 reject: the gate and the sensor are skipped, publish (all_done) still runs, run success', async () => {
    const key = await trigger(d, 'release-train');
    await waitRun(d, 'release-train', key, (r) => r.tasks.approve!.awaitingApproval === true);
    const res = await api(d, 'POST', `/dags/release-train/runs/${key}/tasks/approve/decision`, {
      decision: 'reject',
    });
    expect(res.json).toEqual({ ok: true, state: 'skipped' });
    const run = await waitRun(d, 'release-train', key, terminal);
    expect(run.tasks.approve!.state).toBe('skipped');
    expect(run.tasks.approve!.approval).toMatchObject({ decision: 'rejected', by: 'api' });
    expect(run.tasks.canary!.state).toBe('skipped');
    expect(run.tasks.publish!.state).toBe('success');
    expect(run.state).toBe('success');
  }, 60_000);

  it('S5: reject with onReject fail fails the gate, deploy is upstream_failed; approve succeeds', async () => {
    const rejected = await trigger(d, 'hotfix-release');
    const approved = await trigger(d, 'hotfix-release');
    for (const k of [rejected, approved])
      await waitRun(d, 'hotfix-release', k, (r) => r.tasks.approve!.awaitingApproval === true);
    const no = await api(d, 'POST', `/dags/hotfix-release/runs/${rejected}/tasks/approve/decision`, {
      decision: 'reject',
    });
    expect(no.json).toEqual({ ok: true, state: 'failed' });
    const yes = await api(d, 'POST', `/dags/hotfix-release/runs/${approved}/tasks/approve/decision`, {
      decision: 'approve',
    });
    expect(yes.json).toEqual({ ok: true, state: 'success' });
    const r1 = await waitRun(d, 'hotfix-release', rejected, terminal);
    expect(r1.state).toBe('failed');
    expect(r1.tasks.approve!.approval!.decision).toBe('rejected');
    expect(r1.tasks.deploy!.state).toBe('upstream_failed');
    const r2 = await waitRun(d, 'hotfix-release', approved, terminal);
    expect(r2.state).toBe('success');
    expect(r2.tasks.deploy!.state).toBe('success');
  }, 60_000);

  it('a sensor that never succeeds times out; its all_done downstream still runs; run failed', async () => {
    const key = await trigger(d, 'wait-forever');
    const run = await waitRun(d, 'wait-forever', key, terminal);
    expect(run.tasks.never!.state).toBe('failed');
    expect(run.tasks.never!.failReason).toBe('sensor timed out');
    expect(run.tasks.never!.pokeCount!).toBeGreaterThanOrEqual(2);
    expect(run.tasks.after!.state).toBe('success');
    expect(run.state).toBe('failed');
  }, 60_000);

  it('backfill creates one run per instant, and a repeat creates none', async () => {
    const body = { from: '2026-07-05T09:00:00Z', to: '2026-07-05T09:30:00Z' };
    const first = await api(d, 'POST', '/dags/orders-etl/backfill', body);
    expect(first.status).toBe(200);
    expect(first.json).toEqual({ ok: true, created: 11 });
    const count = () =>
      query<{ n: number }>(
        dir,
        "SELECT count(*) AS n FROM dag_runs WHERE dag = 'orders-etl' AND kind = 'backfill'",
      )[0]!.n;
    expect(count()).toBe(11);
    const again = await api(d, 'POST', '/dags/orders-etl/backfill', {
      from: '2026-07-05T11:00:00+02:00',
      to: '2026-07-05T11:30:00+02:00',
    });
    expect(again.json).toEqual({ ok: true, created: 11 });
    expect(count()).toBe(11);
    const r = await getRun(d, 'orders-etl', '2026-07-05T09:03:00_00:00');
    expect(r.kind).toBe('backfill');
    expect(r.logicalDate).toBe('2026-07-05T09:03:00+00:00');
    expect((await api(d, 'POST', '/dags/release-train/backfill', body)).status).toBe(400);
    expect((await api(d, 'POST', '/dags/orders-etl/backfill', { from: 1 })).status).toBe(400);
    // Let the backfilled runs finish so shutdown is quick.
    await waitRun(d, 'orders-etl', '2026-07-05T09:30:00_00:00', terminal, 60_000);
  }, 90_000);

  it('a task gets its run-scoped secrets over the job API', async () => {
    const key = await trigger(d, 'secretive');
    const run = await waitRun(d, 'secretive', key, terminal);
    expect(run.state).toBe('success');
    expect(readFileSync(join(dir, 'secret.out'), 'utf8')).toBe('s=tok-Zq81\n');
  }, 30_000);

  it('streams the live output of a running task over SSE; a task not running here answers end/no-output', async () => {
    const key = await trigger(d, 'chatty');
    await waitRun(d, 'chatty', key, (r) => r.tasks.talk!.state === 'running' && r.tasks.talk!.pid !== null);
    const events = await readSse(await fetch(`${d.base}/dags/chatty/runs/${key}/tasks/talk/logs`));
    expect(events.filter((e) => e.event === 'line').map((e) => (e.data as { line: string }).line)).toEqual([
      'hello',
      'bye',
    ]);
    expect(events.at(-1)!.event).toBe('end');
    await waitRun(d, 'chatty', key, terminal);
    expect(await readSse(await fetch(`${d.base}/dags/chatty/runs/${key}/tasks/talk/logs`))).toEqual([
      { event: 'end', data: { reason: 'no-output' } },
    ]);
    expect((await fetch(`${d.base}/dags/nope/runs/${key}/tasks/talk/logs`)).status).toBe(404);
  }, 30_000);

  it('unknown DAGs and runs answer 404 on reads and trigger', async () => {
    expect((await api(d, 'GET', '/dags/nope/runs')).status).toBe(404);
    expect((await api(d, 'GET', '/dags/orders-etl/runs/nope')).status).toBe(404);
    expect((await api(d, 'POST', '/dags/nope/trigger')).status).toBe(404);
    const list = (await api(d, 'GET', '/dags')).json as { name: string; totalRuns?: number }[];
    expect(list.map((x) => x.name)).toContain('release-train');
    expect(list.find((x) => x.name === 'release-train')!.totalRuns).toBeGreaterThanOrEqual(2);
    expect(existsSync(join(dir, 'state', 'cronstable.db'))).toBe(true);
  });
});

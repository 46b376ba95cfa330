// Spec 04 §12 S6/S7 on three real daemons sharing one store, leader elected by the filesystem
// backend: only the leader creates scheduled runs (one document per instant), one node executes a
// run, any node reads the same runs and decides a gate; kill -9 of the advancing leader mid-run:
// a survivor adopts the run, the interrupted instances are retried once, none launched twice.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/sinks.ts';
import { writeTree } from '../helpers/tmp.ts';
import {
  api,
  type Daemon,
  query,
  type RunDoc,
  startDaemon,
  stopDaemon,
  trigger,
  waitRun,
} from './dag-helpers.ts';

const NODES = ['node-a', 'node-b', 'node-c'];

const nodeYaml = (root: string, name: string) => `state:
  path: ${root}/state
  topology: shared
  deploymentId: dagfleet
web:
  listen:
    - http://127.0.0.1:0
cluster:
  backend: filesystem
  nodeName: ${name}
  filesystem:
    path: ${root}/state
    ttl: 3
    deploymentId: dagfleet
    topology: shared
dags:
  - name: shard-etl
    schedule: "*/6 * * * * * *"
    retainRuns: 500
    tasks:
      - id: discover
        command: echo "$CRONSTABLE_DAG_RUN_KEY $CRONSTABLE_DAG_TASKKEY $CRONSTABLE_ATTEMPT $CRONSTABLE_HOST" >> ${root}/starts.log; echo '["orders", "users", "events"]' | cronstable xcom push --key tables
      - id: load
        dependsOn:
          - discover
        expand:
          fromTask: discover
          key: tables
        retries: 1
        command: echo "$CRONSTABLE_DAG_RUN_KEY $CRONSTABLE_DAG_TASKKEY $CRONSTABLE_ATTEMPT $CRONSTABLE_HOST" >> ${root}/starts.log; sleep 2
      - id: verify
        dependsOn:
          - load
        command: echo "$CRONSTABLE_DAG_RUN_KEY $CRONSTABLE_DAG_TASKKEY $CRONSTABLE_ATTEMPT $CRONSTABLE_HOST" >> ${root}/starts.log
  - name: release
    tasks:
      - id: build
        command: echo "build-$(date +%s)" | cronstable xcom push --key artifact
      - id: gate
        type: approval
        dependsOn:
          - build
        onReject: skip
      - id: publish
        dependsOn:
          - gate
        command: echo "publishing $(cronstable xcom pull --task build --key artifact)" > ${root}/publish-$CRONSTABLE_DAG_RUN_ID.out
`;

interface RunRow {
  run_key: string;
  kind: string;
  state: string;
}

describe.sequential('DAGs on a three-node fleet (filesystem election)', () => {
  let root: string;
  const nodes = new Map<string, Daemon>();

  const start = async (name: string) => {
    // Ten-second advance leases (the daemon's test hook, renewal and adoption scale with it): S6's
    // survivor adopts the killed leader's run in 10-20 s rather than the spec's 30-60 s.
    const d = await startDaemon(join(root, name), {
      HOSTNAME: name,
      CRONSTABLE_TEST_DAG_LEASE_SECONDS: '10',
    });
    nodes.set(name, d);
    return d;
  };
  const leader = async (): Promise<string | null> => {
    const views = await Promise.all(
      [...nodes.entries()]
        .filter(([, d]) => d.child.exitCode === null && d.child.signalCode === null)
        .map(
          async ([name, d]) =>
            [name, (await api(d, 'GET', '/cluster')).json as { is_leader?: boolean }] as const,
        ),
    );
    const leaders = views.filter(([, v]) => v.is_leader).map(([n]) => n);
    return leaders.length === 1 ? leaders[0]! : null;
  };
  const waitLeader = async (timeoutMs: number, not?: string): Promise<string> => {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      const l = await leader().catch(() => null);
      if (l && l !== not) return l;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error('no single leader');
  };
  const runs = () =>
    query<RunRow>(root, "SELECT run_key, kind, state FROM dag_runs WHERE dag = 'shard-etl' ORDER BY run_key");
  const starts = () =>
    readFileSync(join(root, 'starts.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(' '));

  beforeAll(async () => {
    root = writeTree({}, true);
    for (const n of NODES) {
      mkdirSync(join(root, n));
      writeFileSync(join(root, n, 'cronstable.yaml'), nodeYaml(root, n));
    }
    for (const n of NODES) await start(n);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([...nodes.values()].map((d) => stopDaemon(d)));
  }, 60_000);

  it('S6: one scheduled run per instant, created and executed by the leader; same list on every node', async () => {
    const lead = await waitLeader(20_000);
    const until = Date.now() + 40_000;
    while (runs().filter((r) => r.state === 'success').length < 2 && Date.now() < until)
      await new Promise((r) => setTimeout(r, 300));
    const done = runs().filter((r) => r.state === 'success');
    expect(done.length).toBeGreaterThanOrEqual(2);
    for (const r of runs()) expect(r.kind).toBe('scheduled');
    const d = nodes.get(lead)!;
    const run = (await (await fetch(`${d.base}/dags/shard-etl/runs/${done[0]!.run_key}`)).json()) as RunDoc;
    expect(run.mapped.load!.items).toEqual(['orders', 'users', 'events']);
    expect([0, 1, 2].map((i) => run.tasks[`load#${i}`]!.mapItem)).toEqual(['orders', 'users', 'events']);
    const hosts = new Set(Object.values(run.tasks).flatMap((t) => (t.host ? [t.host] : [])));
    expect(hosts).toEqual(new Set([lead]));
    const lists = await Promise.all(
      NODES.map(async (n) => {
        const body = (await api(nodes.get(n)!, 'GET', '/dags/shard-etl/runs?limit=500')).json as {
          runs: { runKey: string }[];
        };
        return body.runs.map((r) => r.runKey).filter((k) => k <= done[done.length - 1]!.run_key);
      }),
    );
    expect(lists[1]).toEqual(lists[0]);
    expect(lists[2]).toEqual(lists[0]);
  }, 90_000);

  it('S7: triggered on one node; two nodes decide at once, exactly one wins (the other 409); published', async () => {
    const [a, b] = [nodes.get('node-a')!, nodes.get('node-b')!];
    const key = await trigger(a, 'release');
    const waiting = await waitRun(b, 'release', key, (r) => r.tasks.gate!.awaitingApproval === true);
    expect(waiting.tasks.gate!.approval).toBeNull();
    // Two decisions at once from two nodes: a compare-and-set each, exactly one wins.
    const c = nodes.get('node-c')!;
    const [onB, onC] = await Promise.all([
      api(b, 'POST', `/dags/release/runs/${key}/tasks/gate/decision`, { decision: 'approve', by: 'b' }),
      api(c, 'POST', `/dags/release/runs/${key}/tasks/gate/decision`, { decision: 'approve', by: 'c' }),
    ]);
    expect([onB.status, onC.status].sort()).toEqual([200, 409]);
    const winner = onB.status === 200 ? onB : onC;
    expect(winner.json).toEqual({ ok: true, state: 'success' });
    expect((onB.status === 200 ? onC : onB).text).toContain('task is not awaiting approval');
    const run = await waitRun(a, 'release', key, (r) => r.state !== 'running', 20_000);
    expect(run.state).toBe('success');
    expect(run.tasks.publish!.host).toBe('node-a');
    expect(run.tasks.gate!.approval!.by).toBe(onB.status === 200 ? 'b' : 'c');
    expect(readFileSync(join(root, `publish-${run.runId}.out`), 'utf8')).toMatch(/^publishing build-\d+\n$/);
  }, 60_000);

  it('S6: kill -9 of the advancing leader mid-run: a survivor adopts it; nothing launched twice', async () => {
    const lead = await waitLeader(20_000);
    const d = nodes.get(lead)!;
    // A run of the leader whose loads are running now.
    let victim: string | null = null;
    const until = Date.now() + 30_000;
    while (!victim && Date.now() < until) {
      for (const r of runs().filter((x) => x.state === 'running')) {
        const doc = (await api(d, 'GET', `/dags/shard-etl/runs/${r.run_key}`)).json as RunDoc;
        if (
          [0, 1, 2].every((i) => doc.tasks[`load#${i}`]?.state === 'running' && doc.tasks[`load#${i}`]?.pid)
        ) {
          victim = r.run_key;
          break;
        }
      }
      if (!victim) await new Promise((r) => setTimeout(r, 100));
    }
    expect(victim).not.toBeNull();
    d.child.kill('SIGKILL');
    await d.exit;
    nodes.delete(lead);
    const next = await waitLeader(20_000, lead);
    const survivor = nodes.get(next)!;
    const run = await waitRun(survivor, 'shard-etl', victim!, (r) => r.state !== 'running', 110_000);
    expect(run.state).toBe('success');
    for (const i of [0, 1, 2]) {
      const t = run.tasks[`load#${i}`]!;
      expect(t.attempt).toBe(1);
      expect(t.host).not.toBe(lead);
    }
    // Once per (run, instance, attempt), and every attempt the store counts was started.
    // The store first, then the log: the fleet keeps firing every 6 s, and a task that starts and
    // succeeds between the two reads must already be in the log we compare against.
    const rows = query<{ run_key: string; task_key: string; attempt: number; state: string }>(
      root,
      "SELECT run_key, task_key, attempt, state FROM dag_tasks WHERE dag = 'shard-etl' AND mapped = 0 AND state = 'success'",
    );
    const seen = starts().map(([k, t, a]) => `${k} ${t} ${a}`);
    expect(new Set(seen).size).toBe(seen.length);
    for (const r of rows)
      for (let a = 0; a <= r.attempt; a++) expect(seen).toContain(`${r.run_key} ${r.task_key} ${a}`);
    // The new leader creates the later runs once it has seeded the DAG and the next instant comes
    // (the adoption above may finish before that); one document per instant throughout.
    await waitFor(() => runs().some((r) => r.run_key > victim!), 40_000, 'a run created after the kill');
    const keys = runs().map((r) => r.run_key);
    expect(new Set(keys).size).toBe(keys.length);
  }, 180_000);
});

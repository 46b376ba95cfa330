// example/dag-cluster on three real daemons (scripts/fleet, filesystem election on one shared
// state directory, the cluster tests' short timings): the example's DAGs load with the real
// loader, a triggered shard-etl run succeeds with every task instance run once by one node,
// and the release gate is approved from a node other than the one advancing the run.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { BUNDLE, waitUntil } from '../../scripts/fleet/fleet.ts';
import { useFleet } from '../cluster/harness.ts';

const EXAMPLE = join(import.meta.dirname, '..', '..', 'example', 'dag-cluster', 'dags.yaml');

interface TaskRow {
  task_key: string;
  task_id: string;
  mapped: number;
  map_item: string | null;
  state: string;
  attempt: number;
  host: string | null;
  started_at: number | null;
  decision: string | null;
  decided_by: string | null;
}

describe.sequential('example/dag-cluster on three nodes', () => {
  const t = useFleet({
    nodes: 3,
    backend: 'filesystem',
    jobsYaml: readFileSync(EXAMPLE, 'utf8'),
  });

  const sql = <T>(query: string, ...params: unknown[]): T[] => {
    const db = new Database(join(t.fleet.stateDir, 'cronstable.db'), { readonly: true, fileMustExist: true });
    try {
      db.pragma('busy_timeout = 5000');
      return db.prepare(query).all(...params) as T[];
    } finally {
      db.close();
    }
  };
  const runState = (dag: string, runKey: string) =>
    sql<{ state: string }>(
      'SELECT state FROM dag_runs WHERE ns = ? AND dag = ? AND run_key = ?',
      t.fleet.shape.deploymentId,
      dag,
      runKey,
    )[0]?.state;
  const tasks = (dag: string, runKey: string) =>
    sql<TaskRow>(
      `SELECT task_key, task_id, mapped, map_item, state, attempt, host, started_at, decision, decided_by
       FROM dag_tasks WHERE ns = ? AND dag = ? AND run_key = ? ORDER BY task_key`,
      t.fleet.shape.deploymentId,
      dag,
      runKey,
    );
  const post = async (nodeId: string, path: string, body?: unknown) => {
    const res = await fetch(`${t.node(nodeId).url}${path}`, {
      method: 'POST',
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      signal: AbortSignal.timeout(5000),
    });
    return { status: res.status, text: await res.text() };
  };
  /** `dag task ... started (<runKey>/<taskKey>, attempt N)` lines in every node's log, by node. */
  const launches = (runKey: string, taskKey: string): Record<string, number> => {
    const out: Record<string, number> = {};
    const line = ` started (${runKey}/${taskKey}, attempt `;
    for (const n of t.fleet.nodes) {
      const count = n
        .log()
        .split('\n')
        .filter((l) => l.includes(line)).length;
      if (count > 0) out[n.id] = count;
    }
    return out;
  };
  const triggerOn = async (nodeId: string, dag: string): Promise<string> => {
    const r = await post(nodeId, `/dags/${dag}/trigger`);
    expect(r.status, r.text).toBe(200);
    return (JSON.parse(r.text) as { runKey: string }).runKey;
  };

  it('every node config (example DAGs + generated node section) passes `cronstable -v`', () => {
    for (const n of t.fleet.nodes) {
      const r = spawnSync(process.execPath, [BUNDLE, '-c', n.dir, '-v'], { encoding: 'utf8' });
      expect(r.status, `${n.id}: ${r.stderr}`).toBe(0);
      expect(r.stderr).toContain('Configuration is valid.');
    }
  });

  it('shard-etl triggered on one node: the run succeeds, each instance ran once, all on one node', async () => {
    await t.fleet.waitConverged(20_000);
    const runKey = await triggerOn('node-b', 'shard-etl');
    expect(runKey).toMatch(/^manual-/);
    await waitUntil(() => runState('shard-etl', runKey) === 'success', {
      timeoutMs: 30_000,
      label: `shard-etl ${runKey} to succeed (state ${runState('shard-etl', runKey)})`,
    });
    const rows = tasks('shard-etl', runKey);
    const instances = rows.filter((r) => r.mapped === 0);
    expect(instances.map((r) => r.task_key).sort()).toEqual(
      ['discover', 'load#0', 'load#1', 'load#2', 'load#3', 'verify'].sort(),
    );
    expect(
      instances.filter((r) => r.task_id === 'load').map((r) => JSON.parse(r.map_item!) as string),
    ).toEqual(['shard-1', 'shard-2', 'shard-3', 'shard-4']);
    for (const r of instances) {
      expect(r.state, r.task_key).toBe('success');
      expect(r.attempt, `${r.task_key}: attempts beyond the first`).toBe(0);
      expect(r.started_at, r.task_key).not.toBeNull();
    }
    // The run was advanced by the node that created it (the one the trigger reached), and the
    // nodes' own logs count one process launch per instance, all there.
    expect(new Set(instances.map((r) => r.host))).toEqual(new Set(['node-b']));
    for (const r of instances) expect(launches(runKey, r.task_key), r.task_key).toEqual({ 'node-b': 1 });
    // The example's own output: verify pulled discover's list through XCom.
    expect(t.node('node-b').log()).toContain(
      '[shard-etl.verify stdout] verify ["shard-1", "shard-2", "shard-3", "shard-4"] on node-b',
    );
  }, 45_000);

  it('release: the gate is approved from another node; the advancing node publishes', async () => {
    const runKey = await triggerOn('node-a', 'release');
    await waitUntil(
      () => tasks('release', runKey).find((r) => r.task_key === 'gate' && r.state === 'running'),
      { timeoutMs: 15_000, label: 'the release gate to wait for a decision' },
    );
    const advancing = tasks('release', runKey).find((r) => r.task_key === 'build')!.host!;
    const other = t.fleet.nodes.map((n) => n.id).find((id) => id !== advancing)!;
    const path = `/dags/release/runs/${runKey}/tasks/gate/decision`;
    const decided = await post(other, path, { decision: 'approve', by: other });
    expect(decided.status, decided.text).toBe(200);
    expect(JSON.parse(decided.text)).toEqual({ ok: true, state: 'success' });
    const again = await post(advancing, path, { decision: 'reject', by: advancing });
    // API errors are JSON bodies with a 4xx status (the project's rule for every route).
    expect(again.status).toBe(409);
    expect(JSON.parse(again.text)).toEqual({ error: 'task is not awaiting approval' });
    await waitUntil(() => runState('release', runKey) === 'success', {
      timeoutMs: 20_000,
      label: `release ${runKey} to succeed (state ${runState('release', runKey)})`,
    });
    const rows = Object.fromEntries(tasks('release', runKey).map((r) => [r.task_key, r]));
    expect(advancing).toBe('node-a');
    expect(rows.gate).toMatchObject({ state: 'success', decision: 'approved', decided_by: other });
    expect(launches(runKey, 'gate'), 'an approval gate runs no process').toEqual({});
    expect(t.node('node-a').log()).toMatch(/\[release\.publish stdout\] publishing release-\d{14} on node-a/);
    for (const k of ['build', 'publish']) expect(launches(runKey, k), k).toEqual({ 'node-a': 1 });
    for (const k of ['build', 'publish'])
      expect(rows[k]).toMatchObject({ state: 'success', attempt: 0, host: 'node-a' });
  }, 45_000);
});

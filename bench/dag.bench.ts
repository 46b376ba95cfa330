// DAG planner benchmarks (DESIGN.md §12: plan+claim of a 10k-task run <= 10 ms): `dag.plan_10k` is the
// planning alone, `dag.claim_pass_10k_memory` adds applying the claims to a new in-memory document; the
// store-side claim (one SQLite write of the changed entries) is measured in dag-store.bench.ts.
import type { DagConfig } from '../src/config/types.ts';
import { claimPass, graphOf, newRun, plan, type RunState } from '../src/dag/index.ts';
import { makeDag, type TaskSpec } from '../test/helpers/dag-config.ts';
import { bestOf, type Metric } from './metric.ts';

const NOW = Date.parse('2026-07-05T09:03:00Z') / 1000;

/**
 * 10,000 static tasks in 100 layers of 100, each depending on 3 tasks of the layer above; mid-run: the top
 * half succeeded, half of layer 50 is running, so every pending task is judged and 32 launches claimed.
 */
export function layered(): { dag: DagConfig; run: RunState } {
  const W = 100;
  const tasks: TaskSpec[] = [];
  for (let l = 0; l < 100; l++)
    for (let i = 0; i < W; i++)
      tasks.push({
        id: `l${l}_${i}`,
        dependsOn: l === 0 ? [] : [0, 37, 71].map((k) => `l${l - 1}_${(i + k) % W}`),
        triggerRule: i % 10 === 0 ? 'all_done' : 'all_success',
        retries: i % 3,
      });
  const dag = makeDag('layered', tasks);
  const run = newRun(dag, {
    runKey: 'k',
    runId: '0'.repeat(32),
    logicalDate: null,
    kind: 'manual',
    now: NOW,
  });
  for (let l = 0; l <= 50; l++)
    for (let i = 0; i < W; i++) {
      const key = `l${l}_${i}`;
      const e = run.tasks[key]!;
      if (l < 50) run.tasks[key] = { ...e, state: 'success', startedAt: NOW, finishedAt: NOW };
      else if (i < 50) run.tasks[key] = { ...e, state: 'running', proc: 'p', host: 'h', startedAt: NOW };
    }
  return { dag, run };
}

/** discover -> 10 mapped tasks of 1000 items each (the cap) -> verify; half of the 10k instances done. */
function fanout(): { dag: DagConfig; run: RunState } {
  const mapped = Array.from({ length: 10 }, (_, m) => ({
    id: `map${m}`,
    dependsOn: ['discover'],
    expand: { fromTask: 'discover', key: `k${m}` },
    retries: 1,
  }));
  const dag = makeDag('fanout', [
    { id: 'discover' },
    ...mapped,
    { id: 'verify', dependsOn: mapped.map((m) => m.id) },
  ]);
  let run = newRun(dag, { runKey: 'k', runId: '0'.repeat(32), logicalDate: null, kind: 'manual', now: NOW });
  run.tasks.discover = { ...run.tasks.discover!, state: 'success', finishedAt: NOW };
  const items = Array.from({ length: 1000 }, (_, i) => `item-${i}`);
  run = claimPass(run, dag, {
    now: NOW,
    proc: 'p',
    host: 'h',
    expansions: new Map(mapped.map((m) => [m.id, items])),
    maxLaunches: 0,
  }).run;
  for (const m of mapped)
    for (let i = 0; i < 500; i++) {
      const key = `${m.id}#${i}`;
      run.tasks[key] = { ...run.tasks[key]!, state: 'success', finishedAt: NOW };
    }
  return { dag, run };
}

const round = (ms: number) => Number(ms.toFixed(3));

export async function run(): Promise<Metric[]> {
  const a = layered();
  const b = fanout();
  // graphOf caches per config object (built once per config load): a fresh copy measures a build.
  const graphBuild = await bestOf(10, () => graphOf({ ...a.dag }));
  for (let i = 0; i < 20; i++) {
    plan(a.run, a.dag, NOW);
    plan(b.run, b.dag, NOW);
  }
  const planLayered = await bestOf(50, () => plan(a.run, a.dag, NOW));
  const planFanout = await bestOf(50, () => plan(b.run, b.dag, NOW));
  const passLayered = await bestOf(50, () => claimPass(a.run, a.dag, { now: NOW, proc: 'q', host: 'h' }));
  const check = plan(a.run, a.dag, NOW);
  if (check.actions.filter((x) => x.type === 'launch').length !== 32 || !check.deferred)
    throw new Error('dag bench: the layered run should claim a full burst of 32');
  return [
    { metric: 'dag.plan_10k', value: round(planLayered * 1000), unit: 'ms', budget: 10 },
    { metric: 'dag.plan_fanout_10k', value: round(planFanout * 1000), unit: 'ms', budget: 10 },
    { metric: 'dag.claim_pass_10k_memory', value: round(passLayered * 1000), unit: 'ms' },
    { metric: 'dag.graph_build_10k', value: round(graphBuild * 1000), unit: 'ms' },
  ];
}

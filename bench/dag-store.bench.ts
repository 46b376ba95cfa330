// DAG advance passes against a real SQLite store (DESIGN.md §12, issue 11 acceptance), the way the
// run's owner does them (src/dag/engine/run-store.ts): the claim CAS of a 10k-task run, and a
// thousand mapped completions recorded durably in one CAS (the engine batches a run's completions).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyCompletions } from '../src/dag/engine/completions.ts';
import { RunStore } from '../src/dag/engine/run-store.ts';
import { claimPass, newRun, type RunState } from '../src/dag/index.ts';
import { openStore } from '../src/store/index.ts';
import { makeDag } from '../test/helpers/dag-config.ts';
import { layered } from './dag.bench.ts';
import type { Metric } from './metric.ts';

const NOW = Date.parse('2026-07-05T09:03:00Z') / 1000;
const round = (ms: number) => Number(ms.toFixed(3));

async function timeIt(fn: () => Promise<unknown>): Promise<number> {
  const t0 = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

export async function run(): Promise<Metric[]> {
  const dir = mkdtempSync(join(tmpdir(), 'cronstable-dag-bench-'));
  const store = await openStore({ path: dir, namespace: 'bench', topology: 'single-node', inline: true });
  try {
    const runs = new RunStore(store);
    const prime = (k: string) => runs.mutate('x', k, (r) => ({ run: r, changed: false, touched: [] }));
    // Plan + claim CAS of a 10k-task run mid-flight (32 launches claimed and written).
    const a = layered();
    let planClaim = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 5; i++) {
      const key = `claim-${i}`;
      await runs.create({ ...a.run, dag: 'x', runKey: key });
      await prime(key);
      const ms = await timeIt(async () => {
        const pass = await runs.mutate('x', key, (r) =>
          claimPass(r, a.dag, { now: NOW, proc: 'q', host: 'h' }),
        );
        if (pass?.launches.length !== 32) throw new Error('dag-store bench: expected a burst of 32 claims');
      });
      planClaim = Math.min(planClaim, ms);
    }
    // 1000 mapped instances, all running: their completions land in one CAS.
    const fan = makeDag('x', [
      { id: 'discover' },
      { id: 'load', dependsOn: ['discover'], expand: { fromTask: 'discover', key: 'items' } },
      { id: 'verify', dependsOn: ['load'] },
    ]);
    const items = Array.from({ length: 1000 }, (_, i) => `item-${i}`);
    let fanin = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 5; i++) {
      const key = `fanin-${i}`;
      let r: RunState = newRun(fan, {
        runKey: key,
        runId: '0'.repeat(32),
        logicalDate: null,
        kind: 'manual',
        now: NOW,
      });
      r.tasks.discover = { ...r.tasks.discover!, state: 'success', finishedAt: NOW };
      r = claimPass(r, fan, {
        now: NOW,
        proc: 'p',
        host: 'h',
        expansions: new Map([['load', items]]),
        maxLaunches: 1000,
      }).run;
      await runs.create(r);
      await prime(key);
      const ms = await timeIt(async () => {
        await runs.mutate('x', key, (cur) =>
          applyCompletions(
            cur,
            fan,
            Array.from({ length: 1000 }, (_, j) => ({
              type: 'complete' as const,
              taskKey: `load#${j}`,
              proc: 'p',
              attempt: 0,
              ok: true,
              exitCode: 0,
              failReason: null,
              now: NOW + 1,
            })),
          ),
        );
      });
      const check = (await runs.get('x', key))!.run;
      if (check.tasks['load#999']!.state !== 'success')
        throw new Error('dag-store bench: completions not recorded');
      fanin = Math.min(fanin, ms);
    }
    return [
      { metric: 'dag.plan_claim_10k', value: round(planClaim), unit: 'ms', budget: 10 },
      { metric: 'dag.finish_fanin_1k', value: round(fanin), unit: 'ms', budget: 50 },
    ];
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// state.append_1k: 1,000 run-ledger appends (pruned to 1,000) on local disk through the default
// store (worker lanes), issued fire-and-forget as the scheduler does; budget 0.1 s.
// state.append_1k_serial: the same, each append awaited before the next (latency-bound; info).
// state.append_1k_node[_serial]: the same through the store a single-node daemon opens on a local
// disk (placement 'auto': on the main thread, group-committed per turn of the event loop).
// state.lock_cycle_9proc[_shared]: acquire+release cycles per second of 9 processes contending
// on one lease (real processes, default store), single-node (WAL) and shared (rollback journal).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../src/store/index.ts';
import type { Json, Topology } from '../src/store/types.ts';
import { runContenders } from '../test/integration/fixtures/store-spawn.ts';
import { bestOf, type Metric } from './metric.ts';

const RUN: Json = {
  outcome: 'success',
  exit_code: 0,
  started_at: '2024-05-01T02:00:00.000Z',
  finished_at: '2024-05-01T02:00:01.250Z',
  duration: 1.25,
  fail_reason: null,
  resources: null,
};

async function appendBench(dir: string, placement: 'lanes' | 'auto', prefix: string): Promise<Metric[]> {
  const store = await openStore({
    path: join(dir, `append-${placement}`),
    namespace: 'default',
    topology: 'auto',
    placement,
  });
  try {
    // Steady state: the ledger already holds 1,000 runs, so every append also prunes one.
    await Promise.all(Array.from({ length: 1000 }, () => store.append('runs/bench', RUN, { keep: 1000 })));
    const burst = await bestOf(5, () =>
      Promise.all(Array.from({ length: 1000 }, () => store.append('runs/bench', RUN, { keep: 1000 }))),
    );
    const serial = await bestOf(3, async () => {
      for (let i = 0; i < 1000; i++) await store.append('runs/bench', RUN, { keep: 1000 });
    });
    const kept = (await store.list('runs/bench')).length;
    if (kept !== 1000) throw new Error(`expected 1000 retained runs, found ${kept}`);
    return [
      { metric: prefix, value: Number(burst.toFixed(4)), unit: 's', budget: 0.1 },
      { metric: `${prefix}_serial`, value: Number(serial.toFixed(4)), unit: 's' },
    ];
  } finally {
    await store.close();
  }
}

async function lockCycleBench(dir: string, topology: Topology, metric: string): Promise<Metric> {
  const durationMs = 3000;
  const cfgs = Array.from({ length: 9 }, () => ({
    mode: 'lockcycle' as const,
    path: join(dir, metric),
    topology,
    inline: false,
    durationMs,
    go: join(dir, `${metric}.go`),
  }));
  const all = await runContenders(cfgs);
  const cycles = all.reduce((n, c) => n + Number(c.lines.find((l) => 'cycles' in l)?.cycles ?? 0), 0);
  return { metric, value: Math.round(cycles / (durationMs / 1000)), unit: 'ops/s' };
}

export async function run(): Promise<Metric[]> {
  const dir = mkdtempSync(join(tmpdir(), 'cronstable-bench-state-'));
  try {
    return [
      ...(await appendBench(dir, 'lanes', 'state.append_1k')),
      ...(await appendBench(dir, 'auto', 'state.append_1k_node')),
      await lockCycleBench(dir, 'single-node', 'state.lock_cycle_9proc'),
      await lockCycleBench(dir, 'shared', 'state.lock_cycle_9proc_shared'),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

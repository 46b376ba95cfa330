// cli.version_ratio: wall time of `node dist/cronstable.mjs --version` over a bare `node -e 0`
// (median of many runs; budget 1.6).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { Metric } from './metric.ts';

const BUNDLE = join(import.meta.dirname, '..', 'dist', 'cronstable.mjs');

function median(cmd: string[], runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    spawnSync(cmd[0]!, cmd.slice(1), { stdio: 'ignore' });
    times.push(Number(process.hrtime.bigint() - t0) / 1e9);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(runs / 2)]!;
}

export async function run(): Promise<Metric[]> {
  const bare = median([process.execPath, '-e', '0'], 25);
  const version = median([process.execPath, BUNDLE, '--version'], 25);
  return [
    { metric: 'cli.version_seconds', value: Number(version.toFixed(4)), unit: 's', budget: 0.08 },
    { metric: 'cli.version_ratio', value: Number((version / bare).toFixed(3)), unit: 'ratio', budget: 1.6 },
  ];
}

// A 256-wide mapped fan-out drained end to end (issue 11 acceptance) on a real daemon
// (dist/cronstable.mjs, one node, its own store): trigger over HTTP, then wall time until the run is
// terminal, with every instance checked to have run once. Launches go out in bursts of 32 per pass.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Metric } from './metric.ts';

const BUNDLE = join(import.meta.dirname, '..', 'dist', 'cronstable.mjs');

const config = (dir: string) => `state:
  path: ${join(dir, 'state')}
  topology: single-node
web:
  listen:
    - http://127.0.0.1:0
dags:
  - name: wide
    tasks:
      - id: list
        command: seq 0 255 | tr '\\n' ',' | sed 's/,$//; s/^/[/; s/$/]/' | cronstable xcom push --key ids
      - id: work
        dependsOn:
          - list
        expand:
          fromTask: list
          key: ids
        command: echo "$CRONSTABLE_DAG_MAP_ITEM"
      - id: sum
        dependsOn:
          - work
        command: echo done
`;

interface RunDoc {
  state: string;
  tasks: Record<string, { id: string; state: string; attempt: number }>;
}

export async function run(): Promise<Metric[]> {
  const dir = mkdtempSync(join(tmpdir(), 'cronstable-bench-drain-'));
  writeFileSync(join(dir, 'cronstable.yaml'), config(dir));
  const child = spawn(process.execPath, [BUNDLE, '-c', join(dir, 'cronstable.yaml')], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  try {
    let base = '';
    for (let i = 0; i < 300 && !base; i++) {
      base = /web: started listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(err)?.[1] ?? '';
      if (!base) await sleep(50);
    }
    if (!base) throw new Error(`dag drain bench: the daemon did not start:\n${err}`);
    const t0 = process.hrtime.bigint();
    const trig = (await (await fetch(`${base}/dags/wide/trigger`, { method: 'POST' })).json()) as {
      runKey: string;
    };
    let doc: RunDoc | null = null;
    for (let i = 0; i < 6000; i++) {
      doc = (await (await fetch(`${base}/dags/wide/runs/${trig.runKey}`)).json()) as RunDoc;
      if (doc.state !== 'running') break;
      await sleep(20);
    }
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const work = Object.values(doc?.tasks ?? {}).filter((t) => t.id === 'work' && t.state !== 'expanded');
    if (
      doc?.state !== 'success' ||
      work.length !== 256 ||
      work.some((t) => t.state !== 'success' || t.attempt !== 0)
    )
      throw new Error(
        `dag drain bench: the fan-out did not drain cleanly: ${JSON.stringify(doc).slice(0, 500)}`,
      );
    return [{ metric: 'dag.fanout_256_drain_s', value: Number(seconds.toFixed(2)), unit: 's' }];
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

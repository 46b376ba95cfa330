// serve.herd_*: the 500-job herd against the machine's floor, in one run (issue 23, "Herds").
// The floor is xargs starting the same 500 `sh -c` commands the herd's jobs run, 4 at a time;
// each command reports when it started, as the daemon's jobs do. Floor rounds run half a period
// after each herd, while the daemon waits for the next one, so both see the same machine load.
// BENCH_HERD_RUNTIME=bun runs the daemon on Bun (the bundle under node_modules/.bin/bun).
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { herdCommand, herdLateness, measureHerd, median, readStarts, round } from './herd.bench-part.ts';
import { type Metric, p99 } from './metric.ts';

const ROOT = join(import.meta.dirname, '..');
const JOBS = 500;
const PERIOD = 20;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** Start-lateness p99 of xargs -P4 running the herd's commands from `instant` (epoch seconds). */
async function floorRound(dir: string, instant: number): Promise<number> {
  const starts = join(dir, `floor-${instant}`);
  const list = join(dir, `floor-${instant}.commands`);
  writeFileSync(list, `${Array.from({ length: JOBS }, (_, i) => herdCommand(i, starts)).join('\n')}\n`);
  const input = openSync(list, 'r');
  try {
    await sleep(instant * 1000 - Date.now());
    const xargs = spawn('xargs', ['-P4', '-n1', '-d', '\\n', '/bin/sh', '-c'], {
      stdio: [input, 'ignore', 'inherit'],
    });
    const code = await new Promise<number | null>((resolve, reject) => {
      xargs.once('error', reject);
      xargs.once('exit', resolve);
    });
    if (code !== 0) throw new Error(`herd floor: xargs exited with ${code}`);
  } finally {
    closeSync(input);
  }
  // Every start lies within half a period of the instant, which is a multiple of it.
  const round = herdLateness(readStarts(starts, PERIOD / 2), instant, JOBS);
  if (round.duplicates > 0) throw new Error('herd floor: a command ran twice');
  return p99(round.values);
}

function daemonCommand(): string[] | undefined {
  const runtime = process.env.BENCH_HERD_RUNTIME ?? 'node';
  if (runtime === 'node') return undefined;
  if (runtime === 'bun')
    return [join(ROOT, 'node_modules', '.bin', 'bun'), join(ROOT, 'dist', 'cronstable.mjs')];
  throw new Error(`BENCH_HERD_RUNTIME: expected node or bun, got '${runtime}'`);
}

export async function run(): Promise<Metric[]> {
  const herds = Number(process.env.BENCH_HERDS ?? 3);
  const dir = mkdtempSync(join(tmpdir(), 'cronstable-herd-floor-'));
  const floors: Promise<number>[] = [];
  try {
    const herd = await measureHerd({
      jobs: JOBS,
      herds,
      period: PERIOD,
      command: daemonCommand(),
      onFirstHerd: (first) => {
        for (let h = 0; h < herds; h++) floors.push(floorRound(dir, first + h * PERIOD + PERIOD / 2));
      },
    });
    const floor = await Promise.all(floors);
    if (herd.duplicates > 0) throw new Error(`herd: ${herd.duplicates} job(s) started twice in one herd`);
    const herdP99 = median(herd.p99s);
    const floorP99 = median(floor);
    const [load1] = loadavg();
    process.stderr.write(
      `herd p99 per herd (s): ${herd.p99s.map((x) => round(x, 3)).join(', ')}; ` +
        `floor (xargs -P4) p99 per round: ${floor.map((x) => round(x, 3)).join(', ')}; ` +
        `CPU s per herd: daemon ${round(herd.cpuSplit.daemon, 2)}, spawners ${round(herd.cpuSplit.helpers, 2)}, ` +
        `jobs ${round(herd.cpuSplit.jobs, 2)}; load ${round(load1 ?? 0, 2)}\n`,
    );
    return [
      { metric: 'serve.herd_p99_s', value: round(herdP99, 3), unit: 's' },
      { metric: 'serve.herd_floor_p99_s', value: round(floorP99, 3), unit: 's' },
      { metric: 'serve.herd_ratio', value: round(herdP99 / floorP99, 2), unit: 'x', budget: 0.8 },
    ];
  } finally {
    await Promise.allSettled(floors);
    rmSync(dir, { recursive: true, force: true });
  }
}

// Issue 23: what one node costs to keep and to ask. The grand-tour example (example/grand-tour,
// assembled by its node-entrypoint.sh through scripts/tour, with the local sinks) runs on one
// node (no cluster section: the node runs the whole job set) from the Node bundle, and, when
// `npm run build:binary` has produced a current dist/cronstable, from the Bun binary:
//   serve.rss_steady_mb: VmRSS of the daemon, median of one sample a second over STEADY_S
//     seconds after WARM_S seconds of running (jobs firing, the store in its lanes);
//   serve.rss_peak_mb: the daemon's peak RSS (VmHWM, reset just before) over ROUNDS rounds of
//     /status, /jobs, /metrics, /calendar.ics, one request at a time;
//   serve.<endpoint>_cost_s: an endpoint's own cost, its median latency in those rounds less the
//     median of /version asked in the same rounds (what any request costs: HTTP, routing, loop).
// The Bun figures carry a `.bun` infix (serve.bun.rss_steady_mb ...), and serve.bun.*_over_node_mb
// is the binary's figure less the bundle's, same run. The binary is (re)built first when it is
// missing or older than the bundle (`npm run bench` rebuilds the bundle; BENCH_SERVE_BINARY=0 skips
// it). SERVE_PAIRS=N measures N bundle/binary pairs interleaved and reports each figure's median
// (a shared machine's noise). The herd's ratio to the xargs floor is bench/herd-floor.ts's.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTour } from '../scripts/tour/tour.ts';
import { type Metric, percentile } from './metric.ts';
import { rssMb } from './proc.ts';

const ROOT = join(import.meta.dirname, '..');
const BUNDLE = join(ROOT, 'dist', 'cronstable.mjs');
const BINARY = join(ROOT, 'dist', 'cronstable');
const WARM_S = Number(process.env.SERVE_WARM_SECONDS ?? 30);
const STEADY_S = Number(process.env.SERVE_STEADY_SECONDS ?? 30);
const ROUNDS = 25;
const PAIRS = Math.max(1, Math.floor(Number(process.env.SERVE_PAIRS ?? 1)));
const ENDPOINTS = ['status', 'jobs', 'metrics', 'calendar'] as const;
const PATHS: Record<(typeof ENDPOINTS)[number] | 'version', string> = {
  version: '/version',
  status: '/status',
  jobs: '/jobs',
  metrics: '/metrics',
  calendar: '/calendar.ics',
};
/** DESIGN.md §12 and issue 23. */
const BUDGET = {
  rss_steady_mb: 80,
  rss_peak_mb: 100,
  status: 0.003,
  jobs: 0.003,
  metrics: 0.004,
  calendar: 0.05,
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (v: number, d: number) => Number(v.toFixed(d));

/** Resets the process's VmHWM to its current RSS (Linux: clear_refs 5); false when not allowed. */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

async function timedGet(url: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(url);
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return (performance.now() - t0) / 1000;
}

export interface ServeFigures {
  rssSteadyMb: number;
  rssPeakMb: number;
  /** Median latency (s) of each endpoint in the rounds, /version included. */
  medians: Record<keyof typeof PATHS, number>;
}

/** One node of the grand tour under `command`, measured as the header says. */
export async function measureServe(command: string[], say: (l: string) => void): Promise<ServeFigures> {
  const tour = await startTour({ nodes: 1, logLevel: 'WARNING', command });
  try {
    const node = tour.nodes[0]!;
    const pid = node.child!.pid!;
    say(`${command.join(' ')}: up (pid ${pid}); ${WARM_S} s warm-up, ${STEADY_S} s steady`);
    await sleep(WARM_S * 1000);
    const samples: number[] = [];
    for (let i = 0; i < STEADY_S; i++) {
      samples.push(rssMb(pid));
      await sleep(1000);
    }
    const rssSteadyMb = percentile(samples, 0.5);
    const canReset = resetPeak(pid);
    let sampledPeak = rssMb(pid);
    const lat: Record<string, number[]> = {};
    for (const k of Object.keys(PATHS)) lat[k] = [];
    for (let r = 0; r < ROUNDS; r++)
      for (const k of ['version', ...ENDPOINTS] as const) {
        lat[k]!.push(await timedGet(`${node.url}${PATHS[k]}`));
        sampledPeak = Math.max(sampledPeak, rssMb(pid));
      }
    await sleep(500);
    const rssPeakMb = canReset ? Math.max(rssMb(pid, 'VmHWM'), sampledPeak) : sampledPeak;
    const medians = Object.fromEntries(
      Object.entries(lat).map(([k, v]) => [k, percentile(v, 0.5)]),
    ) as ServeFigures['medians'];
    say(`steady ${rssSteadyMb.toFixed(1)} MB, peak ${rssPeakMb.toFixed(1)} MB after the rounds`);
    return { rssSteadyMb, rssPeakMb, medians };
  } finally {
    await tour.stop();
  }
}

export function serveMetrics(prefix: string, f: ServeFigures): Metric[] {
  const out: Metric[] = [
    {
      metric: `${prefix}.rss_steady_mb`,
      value: round(f.rssSteadyMb, 1),
      unit: 'MB',
      budget: BUDGET.rss_steady_mb,
    },
    { metric: `${prefix}.rss_peak_mb`, value: round(f.rssPeakMb, 1), unit: 'MB', budget: BUDGET.rss_peak_mb },
    { metric: `${prefix}.version_median_s`, value: round(f.medians.version, 5), unit: 's' },
  ];
  for (const k of ENDPOINTS)
    out.push({
      metric: `${prefix}.${k}_cost_s`,
      value: round(Math.max(0, f.medians[k] - f.medians.version), 5),
      unit: 's',
      budget: BUDGET[k],
    });
  return out;
}

/** The Bun binary, when present and built from the current bundle (else null, with why). */
function currentBinary(): { path: string } | { why: string } {
  if (!existsSync(BINARY)) return { why: 'no dist/cronstable (npm run build:binary)' };
  if (statSync(BINARY).mtimeMs < statSync(BUNDLE).mtimeMs)
    return { why: 'dist/cronstable is older than dist/cronstable.mjs: run npm run build:binary' };
  // A compiled Bun binary answers --version without Node.
  if (
    !readFileSync(BINARY)
      .subarray(0, 4)
      .equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]))
  )
    return { why: 'dist/cronstable is not an executable' };
  return { path: BINARY };
}

/** The binary, built first when missing or stale (unless BENCH_SERVE_BINARY=0). */
function binaryToMeasure(say: (l: string) => void): { path: string } | { why: string } {
  const bin = currentBinary();
  if ('path' in bin || process.env.BENCH_SERVE_BINARY === '0') return bin;
  say(`${bin.why}; building it (scripts/build-binary.mjs)`);
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-binary.mjs'), BINARY], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (r.status !== 0) return { why: `scripts/build-binary.mjs failed: ${r.stderr.trim().slice(-400)}` };
  return currentBinary();
}

/** Each figure's median over the runs (one run: itself). */
export function medianFigures(runs: ServeFigures[]): ServeFigures {
  const med = (pick: (f: ServeFigures) => number) => percentile(runs.map(pick), 0.5);
  const medians = Object.fromEntries(
    Object.keys(PATHS).map((k) => [k, med((f) => f.medians[k as keyof typeof PATHS])]),
  ) as ServeFigures['medians'];
  return { rssSteadyMb: med((f) => f.rssSteadyMb), rssPeakMb: med((f) => f.rssPeakMb), medians };
}

export async function run(): Promise<Metric[]> {
  const say = (l: string) => process.stderr.write(`serve bench: ${l}\n`);
  const bin = binaryToMeasure(say);
  if (!('path' in bin)) say(`Bun binary skipped: ${bin.why}`);
  const node: ServeFigures[] = [];
  const bun: ServeFigures[] = [];
  for (let i = 0; i < PAIRS; i++) {
    node.push(await measureServe([process.execPath, BUNDLE], say));
    if ('path' in bin) bun.push(await measureServe([bin.path], say));
  }
  const nodeFig = medianFigures(node);
  const metrics = serveMetrics('serve', nodeFig);
  if (bun.length > 0) {
    const bunFig = medianFigures(bun);
    metrics.push(...serveMetrics('serve.bun', bunFig));
    metrics.push(
      {
        metric: 'serve.bun.rss_steady_over_node_mb',
        value: round(bunFig.rssSteadyMb - nodeFig.rssSteadyMb, 1),
        unit: 'MB',
        budget: 0,
      },
      {
        metric: 'serve.bun.rss_peak_over_node_mb',
        value: round(bunFig.rssPeakMb - nodeFig.rssPeakMb, 1),
        unit: 'MB',
        budget: 0,
      },
    );
  }
  if (PAIRS > 1)
    for (const [name, runs] of [
      ['bundle', node],
      ['binary', bun],
    ] as const)
      if (runs.length > 0)
        say(
          `${name}: steady ${runs.map((f) => f.rssSteadyMb.toFixed(1)).join(', ')} MB; peak ${runs.map((f) => f.rssPeakMb.toFixed(1)).join(', ')} MB`,
        );
  // The herd's start p99 against the xargs floor, same run (also alone: `--only herd`).
  if (process.env.BENCH_SERVE_HERD !== '0') metrics.push(...(await (await import('./herd-floor.ts')).run()));
  return metrics;
}

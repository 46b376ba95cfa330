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
// The Bun figures carry a `.bun` infix (serve.bun.rss_steady_mb ...). The herd's ratio to the
// xargs floor is bench/herd-floor.ts's.
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

export async function run(): Promise<Metric[]> {
  const say = (l: string) => process.stderr.write(`serve bench: ${l}\n`);
  const metrics = serveMetrics('serve', await measureServe([process.execPath, BUNDLE], say));
  const bin = currentBinary();
  if ('path' in bin) metrics.push(...serveMetrics('serve.bun', await measureServe([bin.path], say)));
  else say(`Bun binary skipped: ${bin.why}`);
  return metrics;
}

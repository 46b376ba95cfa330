// What each scrape endpoint adds to the daemon's peak memory (issue 34 item 4), for working on
// one endpoint between runs of the `serve` bench group: one grand-tour node (the bundle, or the
// Bun binary with `binary`), WARM seconds of running, then per endpoint: a pause for the
// collector, VmRSS as the baseline, VmHWM reset, ROUNDS requests one at a time, and VmHWM less
// the baseline as that endpoint's own peak; its median latency beside it. The endpoints take
// turns across PASSES passes so none always follows another.
// `npx tsx bench/endpoint-peak-probe.ts [bundle|binary|PATH] ...` (build the bundle, and the
// binary with `npm run build:binary`, first; PATH: another build's .mjs bundle or binary); several
// arguments run one after another.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTour } from '../scripts/tour/tour.ts';
import { percentile } from './metric.ts';
import { rssMb } from './proc.ts';

const ROOT = join(import.meta.dirname, '..');
const ROUNDS = Number(process.env.PEAK_PROBE_ROUNDS ?? 25);
const PASSES = Number(process.env.PEAK_PROBE_PASSES ?? 2);
const WARM_S = Number(process.env.PEAK_PROBE_WARMUP ?? 30);
const ENDPOINTS = ['/status', '/jobs', '/metrics', '/calendar.ics'] as const;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `bundle`, `binary`, or the path of another build's bundle (`.mjs`) or binary. */
function command(which: string): string[] {
  if (which === 'bundle') return [process.execPath, join(ROOT, 'dist', 'cronstable.mjs')];
  if (which === 'binary') return [join(ROOT, 'dist', 'cronstable')];
  if (which.includes('/')) return which.endsWith('.mjs') ? [process.execPath, which] : [which];
  throw new Error(`unknown build ${which} (bundle, binary or a path)`);
}

async function probe(which: string): Promise<void> {
  const tour = await startTour({ nodes: 1, logLevel: 'WARNING', command: command(which) });
  try {
    const node = tour.nodes[0]!;
    const pid = node.child!.pid!;
    await sleep(WARM_S * 1000);
    const peaks = new Map<string, number[]>(ENDPOINTS.map((p) => [p, []]));
    const times = new Map<string, number[]>(ENDPOINTS.map((p) => [p, []]));
    let bytes = 0;
    for (let pass = 0; pass < PASSES; pass++)
      for (let k = 0; k < ENDPOINTS.length; k++) {
        const path = ENDPOINTS[(pass + k) % ENDPOINTS.length]!;
        await sleep(3000);
        const base = rssMb(pid);
        writeFileSync(`/proc/${pid}/clear_refs`, '5');
        for (let r = 0; r < ROUNDS; r++) {
          const t0 = performance.now();
          const res = await fetch(node.url + path);
          const body = await res.arrayBuffer();
          times.get(path)!.push(performance.now() - t0);
          if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
          if (path === '/calendar.ics') bytes = body.byteLength;
        }
        await sleep(300);
        peaks.get(path)!.push(rssMb(pid, 'VmHWM') - base);
      }
    const load = execFileSync('uptime', { encoding: 'utf8' })
      .trim()
      .replace(/.*load/, 'load');
    for (const path of ENDPOINTS)
      process.stdout.write(
        `${JSON.stringify({
          build: which,
          path,
          peak_over_base_mb: peaks.get(path)!.map((v) => +v.toFixed(1)),
          median_ms: +percentile(times.get(path)!, 0.5).toFixed(1),
          ...(path === '/calendar.ics' ? { bytes } : {}),
        })}\n`,
      );
    process.stdout.write(`${JSON.stringify({ build: which, rss_after_mb: +rssMb(pid).toFixed(1), load })}\n`);
  } finally {
    await tour.stop();
  }
}

async function main(): Promise<void> {
  const builds = process.argv.slice(2);
  for (const which of builds.length > 0 ? builds : ['bundle', 'binary']) await probe(which);
}

main().catch((e: unknown) => {
  process.stderr.write(`endpoint-peak-probe: ${(e as Error).stack ?? e}\n`);
  process.exit(1);
});

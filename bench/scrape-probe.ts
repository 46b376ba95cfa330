// A quick probe of the scrape endpoints' own cost on the grand-tour node (issue 23), for working on
// them between runs of the `serve` bench group: one tour node (the bundle, every job of the tour
// running on it), then ROUNDS rounds of GET /version, /metrics, /jobs, /status and /calendar.ics over
// one keep-alive connection each; an endpoint's own cost is its median less /version's median.
// `npx tsx bench/scrape-probe.ts` (build the bundle first); SCRAPE_PROBE_PROFILE=FILE preloads FILE (--import) in the daemon, e.g. to start the
// inspector profiler (--cpu-prof is refused in NODE_OPTIONS).
import { execFileSync } from 'node:child_process';
import { startTour } from '../scripts/tour/tour.ts';

const ROUNDS = Number(process.env.SCRAPE_PROBE_ROUNDS ?? 40);
const WARMUP_S = Number(process.env.SCRAPE_PROBE_WARMUP ?? 15);
const PATHS = ['/version', '/metrics', '/jobs', '/status', '/calendar.ics'] as const;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

async function main(): Promise<void> {
  const profile = process.env.SCRAPE_PROBE_PROFILE;
  const tour = await startTour({
    nodes: 1,
    logLevel: 'WARNING',
    env: profile ? { NODE_OPTIONS: `--import ${profile}` } : {},
  });
  try {
    const base = tour.nodes[0]!.url;
    await new Promise((r) => setTimeout(r, WARMUP_S * 1000));
    const times = new Map<string, number[]>(PATHS.map((p) => [p, []]));
    const bytes = new Map<string, number>();
    for (let round = 0; round < ROUNDS + 3; round++) {
      // Each round starts at a different endpoint, so none always follows the big feed.
      for (let k = 0; k < PATHS.length; k++) {
        const path = PATHS[(round + k) % PATHS.length]!;
        const t0 = performance.now();
        const res = await fetch(base + path, { headers: { 'accept-encoding': 'identity' } });
        const body = await res.arrayBuffer();
        const ms = performance.now() - t0;
        if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
        bytes.set(path, body.byteLength);
        if (round >= 3) times.get(path)!.push(ms);
      }
    }
    const version = median(times.get('/version')!);
    const load = execFileSync('uptime', { encoding: 'utf8' }).trim();
    for (const path of PATHS) {
      const m = median(times.get(path)!);
      const own = path === '/version' ? m : m - version;
      process.stdout.write(
        `${JSON.stringify({ path, median_ms: +m.toFixed(2), own_ms: +own.toFixed(2), bytes: bytes.get(path) })}\n`,
      );
    }
    process.stdout.write(`${JSON.stringify({ load })}\n`);
  } finally {
    await tour.stop();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`scrape-probe: ${(e as Error).stack ?? e}\n`);
  process.exit(1);
});

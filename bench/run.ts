// Benchmark runner: `npm run bench -- --only GROUP[,GROUP]`.
// Each group module exports `run(): Promise<Metric[]>`; every metric is printed as one JSON line.
import type { Metric } from './metric.ts';

const groups: Record<string, () => Promise<{ run: () => Promise<Metric[]> }>> = {
  schedule: () => import('./schedule.bench.ts'),
  config: () => import('./config.bench.ts'),
  cli: () => import('./cli.bench.ts'),
  daemon: () => import('./daemon.bench.ts'),
  state: () => import('./state.bench.ts'),
  jobapi: () => import('./jobapi.bench.ts'),
  // /status under load, the calendar, /status beside an overloaded launcher; then conditional GET and gzip.
  web: async () => {
    const [web, conditional] = await Promise.all([
      import('./web.bench.ts'),
      import('./conditional.bench.ts'),
    ]);
    return { run: async () => [...(await web.run()), ...(await conditional.run())] };
  },
  // A 304 on /jobs against /version, /metrics of 3k jobs plain and gzipped (issue 32), alone.
  conditional: () => import('./conditional.bench.ts'),
  // The pure planner, the same passes against a real store, then a 256-wide fan-out on a daemon.
  dag: async () => {
    const [pure, store, drain] = await Promise.all([
      import('./dag.bench.ts'),
      import('./dag-store.bench.ts'),
      import('./dag-drain.bench.ts'),
    ]);
    return { run: async () => [...(await pure.run()), ...(await store.run()), ...(await drain.run())] };
  },
  cluster: () => import('./cluster.bench.ts'),
  slots: () => import('./slots.bench.ts'),
  sla: () => import('./sla.bench.ts'),
  // The nine-node grand-tour soak (15 min; TOUR_SOAK_SECONDS shortens it for a try run).
  tour: () => import('./tour.bench.ts'),
  webui: () => import('./webui.bench.ts'),
  // tools/call cron_list_jobs vs GET /jobs on 3k jobs; idle RSS and start-up with and without mcp:.
  mcp: () => import('./mcp.bench.ts'),
  // The terminal dashboard: repaint of a 500-job board, a log append, first paint and RSS of `cronstable tui`.
  tui: () => import('./tui.bench.ts'),
  // One grand-tour node: RSS steady and after a sweep of the read endpoints, each endpoint's own cost (issue 23).
  serve: () => import('./serve.bench.ts'),
  // 500 jobs due in one second against xargs -P4 starting the same commands, same run (issue 23).
  herd: () => import('./herd-floor.ts'),
};

function parseOnly(argv: string[]): string[] {
  const i = argv.indexOf('--only');
  if (i < 0) return Object.keys(groups);
  const value = argv[i + 1];
  if (!value) throw new Error('--only needs a comma-separated list of groups');
  return value.split(',').map((g) => g.trim());
}

const selected = parseOnly(process.argv.slice(2));
for (const name of selected) {
  const load = groups[name];
  if (!load) {
    process.stderr.write(`unknown bench group '${name}'; known: ${Object.keys(groups).join(', ')}\n`);
    process.exit(2);
  }
}
for (const name of selected) {
  const mod = await groups[name]!();
  for (const metric of await mod.run()) process.stdout.write(`${JSON.stringify(metric)}\n`);
}

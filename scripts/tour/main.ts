// `npm run grand-tour [-- --nodes N]`: the Meridian grand tour on this machine, no Docker (issue
// 12): nine nodes on loopback, the local mail, webhook and statsd sinks, until Ctrl-C. The
// environment switches match the compose file: BACKEND, DISTRIBUTION, WEB_TOKEN.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BUNDLE } from '../fleet/fleet.ts';
import { openTable } from './open-table.ts';
import { MAX_NODES, startTour, TOUR_TIMINGS, type TourBackend, type TourDistribution } from './tour.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const USAGE = `usage: [BACKEND=gossip|filesystem] [DISTRIBUTION=spread|single-leader] [WEB_TOKEN=...]
       npm run grand-tour -- [options]

  --nodes N        how many of meridian-a..i to start (default ${MAX_NODES})
  --dir DIR        where configs, certs, logs and the shared state go (default: temp)
  --keep           keep that directory after Ctrl-C
  --log-level L    the daemons' log level (default INFO)
`;

function fail(message: string, usage = true): never {
  process.stderr.write(`grand-tour: ${message}\n${usage ? `\n${USAGE}` : ''}`);
  process.exit(2);
}

const say = (line: string) => process.stdout.write(`${line}\n`);

/** Newest mtime under `dir` (ms). */
function newest(dir: string): number {
  let best = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    best = Math.max(best, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return best;
}

/** Builds dist/ when it is missing or older than src/ (a fresh clone, or edited sources). */
function buildIfNeeded(): void {
  if (existsSync(BUNDLE) && statSync(BUNDLE).mtimeMs >= newest(join(ROOT, 'src'))) return;
  say(`grand-tour: ${existsSync(BUNDLE) ? 'src/ changed' : 'no dist/ yet'}: running npm run build`);
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      nodes: { type: 'string', default: String(MAX_NODES) },
      dir: { type: 'string' },
      keep: { type: 'boolean', default: false },
      'log-level': { type: 'string', default: 'INFO' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  const nodes = Number(values.nodes);
  if (!Number.isInteger(nodes) || nodes < 1 || nodes > MAX_NODES)
    fail(`--nodes must be an integer from 1 to ${MAX_NODES}, got '${values.nodes}'`);
  const backend = (process.env.BACKEND || 'gossip') as TourBackend;
  if (backend !== 'gossip' && backend !== 'filesystem')
    fail(`BACKEND must be gossip or filesystem, got '${backend}'`);
  const distribution = (process.env.DISTRIBUTION ||
    (backend === 'gossip' ? 'spread' : 'single-leader')) as TourDistribution;
  if (distribution !== 'spread' && distribution !== 'single-leader')
    fail(`DISTRIBUTION must be spread or single-leader, got '${distribution}'`);
  if (backend === 'filesystem' && distribution === 'spread')
    fail(
      'BACKEND=filesystem elects a single leader over the lease file: DISTRIBUTION=spread needs BACKEND=gossip',
    );
  const webToken = process.env.WEB_TOKEN || null;

  buildIfNeeded();
  say(
    `grand-tour: starting ${nodes} node(s): BACKEND=${backend} DISTRIBUTION=${distribution}` +
      `${webToken ? ' WEB_TOKEN=(set: web.authToken on)' : ''}`,
  );
  const tour = await startTour({
    nodes,
    backend,
    distribution,
    webToken,
    dir: values.dir,
    keep: values.keep,
    timings: TOUR_TIMINGS,
    ports: 'fixed',
    logLevel: values['log-level'],
    note: (l) => say(`grand-tour: ${l}`),
    sinkLog: (t) => process.stdout.write(t.endsWith('\n') ? t : `${t}\n`),
  }).catch((e: Error) => fail(e.message, false));

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    say(`\ngrand-tour: ${signal}: stopping ${tour.nodes.length} node(s) and the sinks`);
    await tour.stop();
    say(values.keep ? `grand-tour: stopped; kept ${tour.dir}` : 'grand-tour: stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  for (const n of tour.nodes)
    n.child?.once('exit', (code, signal) => {
      if (!stopping) say(`grand-tour: ${n.id} exited (${signal ?? code}); last lines:\n${n.logTail(5)}`);
    });

  say(`\nThe grand tour is up (pid ${process.pid}). Open:\n${openTable(tour)}\n`);
  say(`grand-tour: the nodes agree within ~${3 * tour.timings.interval} s; Ctrl-C stops everything.`);
}

await main();

// `npm run fleet -- --nodes 9 --backend gossip|filesystem|etcd [--distribution spread|single-leader]
// [--interval N]`: a local fleet on loopback until Ctrl-C (DESIGN.md §10).
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { FleetBackend, FleetDistribution } from './config.ts';
import { BUNDLE, Fleet } from './fleet.ts';

const USAGE = `usage: npm run fleet -- [options]

  --nodes N                 how many nodes (default 3)
  --backend B               gossip (default), filesystem, etcd or none
  --distribution D          spread (default) or single-leader (gossip only)
  --interval S              gossip rounds every S seconds (default 2)
  --drift-after N           rounds before a mismatching peer reads drifted (default 2)
  --ttl S                   filesystem/etcd lease ttl (default 6)
  --jobs FILE               the job set every node loads (default: the built-in demo)
  --web-port P              first dashboard port; node i serves on P+i (default 8080)
  --peer-port P             /peer port on each node's loopback alias 127.0.0.1x (default 8443)
  --etcd-endpoints URLS     comma-separated; default: start a local etcd on free ports
  --dir DIR                 where configs, certs, logs and the shared state go (default: temp)
  --keep                    keep that directory after Ctrl-C
  --log-level L             the daemons' log level (default INFO)
`;

function fail(message: string): never {
  process.stderr.write(`fleet: ${message}\n\n${USAGE}`);
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '3' },
    backend: { type: 'string', default: 'gossip' },
    distribution: { type: 'string', default: 'spread' },
    interval: { type: 'string', default: '2' },
    'drift-after': { type: 'string', default: '2' },
    ttl: { type: 'string', default: '6' },
    jobs: { type: 'string' },
    'web-port': { type: 'string', default: '8080' },
    'peer-port': { type: 'string', default: '8443' },
    'etcd-endpoints': { type: 'string' },
    dir: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'log-level': { type: 'string', default: 'INFO' },
    help: { type: 'boolean', short: 'h', default: false },
  },
  strict: true,
});

if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}

const int = (name: string, v: string, min: number): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) fail(`--${name} must be an integer >= ${min}`);
  return n;
};
const nodes = int('nodes', values.nodes, 1);
const backend = values.backend as FleetBackend;
if (!['gossip', 'filesystem', 'etcd', 'none'].includes(backend)) fail(`unknown --backend ${backend}`);
const distribution = values.distribution as FleetDistribution;
if (!['spread', 'single-leader'].includes(distribution)) fail(`unknown --distribution ${distribution}`);
if (!existsSync(BUNDLE)) fail(`${BUNDLE} is missing: run \`npm run build\` first`);
let jobsYaml: string | undefined;
if (values.jobs) {
  jobsYaml = readFileSync(values.jobs, 'utf8');
  if (/^(state|web|cluster):/m.test(jobsYaml))
    fail(
      `${values.jobs}: the job set may hold jobs, defaults and dags only (the fleet writes state, web, cluster)`,
    );
}

const say = (line: string) => process.stdout.write(`${line}\n`);
say(`fleet: starting ${nodes} node(s), backend ${backend}${backend === 'gossip' ? `, ${distribution}` : ''}`);
const fleet = await Fleet.create({
  nodes,
  backend,
  distribution,
  jobsYaml,
  timings: {
    interval: int('interval', values.interval, 1),
    driftAfter: int('drift-after', values['drift-after'], 1),
    ttl: int('ttl', values.ttl, 3),
  },
  webPortBase: int('web-port', values['web-port'], 1),
  peerPort: int('peer-port', values['peer-port'], 1),
  etcdEndpoints: values['etcd-endpoints']?.split(',').map((s) => s.trim()),
  root: values.dir,
  keep: values.keep,
  logLevel: values['log-level'],
}).catch((e: Error) => fail(e.message));

if (fleet.etcd) say(`etcd: ${fleet.etcd.endpoint} (data in ${fleet.etcd.dataDir})`);
say(`shared state: ${fleet.stateDir}/cronstable.db (sqlite3 it: see the README's SQL section)`);
for (const n of fleet.nodes) {
  const peer =
    backend === 'etcd' || backend === 'none' ? '' : `  peer https://${n.spec.ip}:${n.spec.peerPort}`;
  say(`${n.id}  dashboard ${n.url}/${peer}  log ${n.logFile}`);
}
say(`fleet: running (pid ${process.pid}); Ctrl-C stops every node`);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  say(`\nfleet: ${signal}: stopping ${fleet.nodes.length} node(s)`);
  await fleet.close();
  say(values.keep ? `fleet: stopped; kept ${fleet.root}` : 'fleet: stopped');
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

// A node that dies on its own is reported (and left down: this is a place to watch failover).
for (const n of fleet.nodes)
  n.child?.once('exit', (code, signal) => {
    if (!stopping) say(`fleet: ${n.id} exited (${signal ?? code}); last lines:\n${n.logTail(5)}`);
  });

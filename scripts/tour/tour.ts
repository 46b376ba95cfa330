// The grand tour without Docker (issue 12): the nine Meridian nodes as local processes on
// loopback through scripts/fleet, each node's config directory assembled by the example's own
// node-entrypoint.sh (the same script the Docker nodes run), plus the local sinks. `npm run
// grand-tour` drives it with the tour's timings on fixed ports; test/tour and the tour bench
// drive it with short timings on free ports.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Fleet, type FleetNode, type FleetTimings, SHORT_TIMINGS } from '../fleet/fleet.ts';
import { startSinks, type TourSinks } from './sinks/index.ts';

const ROOT = join(import.meta.dirname, '..', '..');
/** The example the tour runs (platform.yaml, its companions and node-entrypoint.sh). */
export const EXAMPLE_DIR = join(ROOT, 'example', 'grand-tour');
export const MAX_NODES = 9;
/** `state.deploymentId` of platform.yaml: the ledger namespace of every tour run. */
export const DEPLOYMENT_ID = 'meridian-prod';
/** The password the mail reporter logs in with (SMTP_PASSWORD) and the sink accepts. */
export const SMTP_USER = 'cronstable';
export const SMTP_PASSWORD = 'meridian-smtp';
/** The run-scoped secret `build-daily-report` reads (REPORT_API_TOKEN). */
export const REPORT_API_TOKEN = 'meridian-report-token';

export type TourBackend = 'gossip' | 'filesystem';
export type TourDistribution = 'spread' | 'single-leader';

/** Spec 05 §13: the tour's own timings (interval 10, driftAfter 2, filesystem ttl 15). */
export const TOUR_TIMINGS: FleetTimings = { interval: 10, driftAfter: 2, connectTimeout: 1, ttl: 15 };

export interface TourOptions {
  /** 1..9 (default 9): meridian-a, meridian-b, ... */
  nodes?: number;
  /** Default `gossip`. */
  backend?: TourBackend;
  /** Default `spread` on gossip; the filesystem backend is single-leader only. */
  distribution?: TourDistribution;
  /** Turns on `web.authToken` (the nodes read it from WEB_TOKEN); null/'' leaves auth off. */
  webToken?: string | null;
  /** Where configs, certs, logs and the shared state go (default: a new temp dir). */
  dir?: string;
  /** Leave `dir` on disk after `stop()`. */
  keep?: boolean;
  /** Default SHORT_TIMINGS; the CLI passes TOUR_TIMINGS. */
  timings?: Partial<FleetTimings>;
  /**
   * 'free' (default): OS-chosen ports for everything. 'fixed': dashboards on 8080+i, /peer on
   * 8443 of each loopback alias, sinks on their SINK_PORTS; a taken port falls back to a free one
   * and `note` says so.
   */
  ports?: 'free' | 'fixed';
  /** Start the SMTP, webhook and statsd sinks (default true). */
  sinks?: boolean;
  /** Extra environment of every node's entrypoint and daemon (e.g. TOUR_MINUTE). */
  env?: Record<string, string>;
  /** The example directory (default example/grand-tour). */
  source?: string;
  /** Start the nodes (default true); false leaves them to `tour.fleet.startAll()`. */
  start?: boolean;
  logLevel?: string;
  /** The daemon's program and leading arguments (default: this Node on dist/cronstable.mjs). */
  command?: string[];
  /** Daemon `--shutdown-timeout` seconds (default 5). */
  shutdownTimeout?: number;
  /** Told about port fallbacks and other things a person should know. */
  note?: (line: string) => void;
  /** Where the sinks log what they receive (default: nowhere; the CLI passes stdout). */
  sinkLog?: (text: string) => void;
}

export interface Tour {
  readonly fleet: Fleet;
  readonly nodes: FleetNode[];
  node(id: string): FleetNode;
  /** Null when started with `sinks: false`. */
  readonly sinks: TourSinks | null;
  readonly backend: TourBackend;
  readonly distribution: TourDistribution;
  readonly webToken: string | null;
  readonly timings: FleetTimings;
  /** The fleet's root directory. */
  readonly dir: string;
  /** The shared state directory every node's `state.path` names. */
  readonly stateDir: string;
  /** `<stateDir>/cronstable.db`: the shared store (ledger namespace DEPLOYMENT_ID). */
  readonly stateDb: string;
  readonly deploymentId: string;
  /**
   * Per-node environment overrides, merged last into that node's entrypoint and daemon
   * environment at its next (re)start: `tour.nodeEnv['meridian-c'] = { DISTRIBUTION: 'single-leader' }`.
   */
  readonly nodeEnv: Record<string, Record<string, string>>;
  /** The assembled config directory of a node (what `cronstable -c` gets). */
  configDir(id: string): string;
  /** Waits until every running node agrees (gossip) or names one leader (filesystem). */
  waitConverged(timeoutMs?: number): Promise<void>;
  /** Stops every node, then the sinks; removes `dir` unless `keep`. Safe to call twice. */
  stop(): Promise<void>;
}

export async function startTour(opts: TourOptions = {}): Promise<Tour> {
  const count = opts.nodes ?? MAX_NODES;
  if (!Number.isInteger(count) || count < 1 || count > MAX_NODES)
    throw new Error(`the tour has 1 to ${MAX_NODES} nodes (meridian-a..i), not ${count}`);
  const backend = opts.backend ?? 'gossip';
  if (backend !== 'gossip' && backend !== 'filesystem')
    throw new Error(`BACKEND must be gossip or filesystem, got '${backend}'`);
  const distribution = opts.distribution ?? (backend === 'gossip' ? 'spread' : 'single-leader');
  if (distribution !== 'spread' && distribution !== 'single-leader')
    throw new Error(`DISTRIBUTION must be spread or single-leader, got '${distribution}'`);
  if (backend === 'filesystem' && distribution === 'spread')
    throw new Error(
      'BACKEND=filesystem elects a single leader over the lease file; DISTRIBUTION=spread needs BACKEND=gossip',
    );
  if (backend === 'gossip' && count === 2)
    throw new Error('a two-node gossip fleet cannot elect a leader (quorum 2 of 2): use 1 or 3 to 9 nodes');
  // One node has no one to elect with: it runs as a plain node (no cluster section), which is what
  // `--nodes 1` on a small laptop wants.
  const nodeBackend = count === 1 ? 'none' : backend;
  if (count === 1) opts.note?.('one node: no cluster section (BACKEND=none), every job runs here');
  const webToken = opts.webToken ? opts.webToken : null;
  const timings: FleetTimings = { ...SHORT_TIMINGS, ...opts.timings };
  const fixed = opts.ports === 'fixed';
  const source = opts.source ?? EXAMPLE_DIR;
  const entrypoint = join(source, 'node-entrypoint.sh');

  const sinks =
    opts.sinks === false
      ? null
      : await startSinks({
          ports: fixed ? 'fixed' : 'free',
          smtpUsers: { [SMTP_USER]: SMTP_PASSWORD },
          log: opts.sinkLog,
          note: opts.note,
        });

  const nodeEnv: Record<string, Record<string, string>> = {};
  const sinkEnv: Record<string, string> = sinks
    ? {
        SMTP_HOST: sinks.smtp.host,
        SMTP_PORT: String(sinks.smtp.smtpPort),
        WEBHOOK_URL: sinks.webhook.url,
        STATSD_HOST: sinks.statsd.host,
        STATSD_PORT: String(sinks.statsd.udpPort),
      }
    : // No sinks: point the reporters at closed loopback ports, so they fail fast and locally.
      {
        SMTP_HOST: '127.0.0.1',
        SMTP_PORT: '9',
        WEBHOOK_URL: 'http://127.0.0.1:9',
        STATSD_HOST: '127.0.0.1',
        STATSD_PORT: '9',
      };

  let fleet: Fleet;
  // What one node runs with: the entrypoint's contract (example/grand-tour/README.md) plus the
  // reporter secrets the daemon reads at run time.
  const envOf = (node: FleetNode): Record<string, string> => {
    const all = fleet.nodes.map((n) => `${n.id}=${n.spec.ip}:${n.spec.peerPort}`).join(' ');
    return {
      NODE_NAME: node.spec.nodeName,
      BACKEND: nodeBackend,
      DISTRIBUTION: distribution,
      WEB_TOKEN: webToken ?? '',
      CONFIG_SRC: source,
      CONFIG_DIR: join(node.dir, 'config'),
      STATE_DIR: fleet.stateDir,
      WEB_LISTEN: `http://127.0.0.1:${node.spec.webPort}`,
      CRONSTABLE_URL: node.url,
      PEER_LISTEN: `${node.spec.ip}:${node.spec.peerPort}`,
      PEERS: all,
      CERT_DIR: join(fleet.root, 'certs'),
      GOSSIP_INTERVAL: String(timings.interval),
      DRIFT_AFTER: String(timings.driftAfter),
      LEASE_TTL: String(timings.ttl),
      ...sinkEnv,
      SMTP_PASSWORD,
      REPORT_API_TOKEN,
      // Each node its own /tmp, as each container has.
      TMPDIR: join(node.dir, 'tmp'),
      ...opts.env,
      ...nodeEnv[node.id],
    };
  };

  try {
    fleet = await Fleet.create({
      nodes: count,
      backend: nodeBackend,
      distribution,
      namePrefix: 'meridian',
      timings,
      root: opts.dir,
      keep: opts.keep,
      // Fixed: dashboards on 8080+i and /peer on 8443, each falling back to a free port if taken.
      webPortBase: fixed ? 8080 : 'free',
      peerPort: fixed ? 8443 : 'free',
      portFallback: (line) => opts.note?.(line),
      deploymentId: DEPLOYMENT_ID,
      authToken: webToken ?? undefined,
      logLevel: opts.logLevel,
      command: opts.command,
      shutdownTimeout: opts.shutdownTimeout,
      start: false,
      assemble: (node) => {
        const env = envOf(node);
        mkdirSync(env.TMPDIR!, { recursive: true });
        try {
          execFileSync('sh', [entrypoint], {
            env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env, ASSEMBLE_ONLY: '1' },
            stdio: ['ignore', 'pipe', 'pipe'],
          });
        } catch (e) {
          const err = e as { stderr?: Buffer; message: string };
          throw new Error(`${entrypoint} for ${node.id}: ${err.stderr?.toString().trim() || err.message}`);
        }
        return env.CONFIG_DIR!;
      },
      nodeEnv: (spec) => {
        const node = fleet.node(spec.id);
        const env = envOf(node);
        const out: Record<string, string> = {};
        // The daemon's own environment: what the jobs and reporters read, not the assembly inputs.
        for (const k of [
          'NODE_NAME',
          'CRONSTABLE_URL',
          'WEB_TOKEN',
          'SMTP_PASSWORD',
          'REPORT_API_TOKEN',
          'TMPDIR',
        ])
          if (env[k]) out[k] = env[k]!;
        for (const [k, v] of Object.entries({ ...opts.env, ...nodeEnv[node.id] })) out[k] = v;
        return out;
      },
    });
  } catch (e) {
    await sinks?.stop();
    throw e;
  }
  for (const n of fleet.nodes) nodeEnv[n.id] = {};

  let stopped: Promise<void> | null = null;
  const tour: Tour = {
    fleet,
    nodes: fleet.nodes,
    node: (id) => fleet.node(id),
    sinks,
    backend,
    distribution,
    webToken,
    timings,
    dir: fleet.root,
    stateDir: fleet.stateDir,
    stateDb: join(fleet.stateDir, 'cronstable.db'),
    deploymentId: DEPLOYMENT_ID,
    nodeEnv,
    configDir: (id) => fleet.node(id).configDir,
    waitConverged: (timeoutMs = 60_000) => fleet.waitConverged(timeoutMs),
    stop: () => {
      stopped ??= (async () => {
        await fleet.close();
        await sinks?.stop();
      })();
      return stopped;
    },
  };
  if (opts.start !== false) {
    try {
      await fleet.startAll();
    } catch (e) {
      await tour.stop();
      throw e;
    }
  }
  return tour;
}

// The local fleet (DESIGN.md §10): N cronstable daemons as processes on loopback, one shared
// state directory, generated certs and cluster sections. `npm run fleet` drives it from the
// command line; the cluster tests and the failover bench drive it with short timings.
import { type ChildProcess, spawn } from 'node:child_process';
import {
  closeSync,
  fstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateClusterCerts } from './certs.ts';
import {
  type FleetBackend,
  type FleetDistribution,
  type FleetShape,
  type FleetTimings,
  type NodeSpec,
  nodeId,
  nodeIp,
  nodeYaml,
} from './config.ts';
import { type LocalEtcd, startEtcd } from './etcd.ts';
import { canBind, freePort } from './ports.ts';

export type { FleetBackend, FleetDistribution, FleetTimings, NodeSpec } from './config.ts';

const ROOT = join(import.meta.dirname, '..', '..');
export const BUNDLE = join(ROOT, 'dist', 'cronstable.mjs');
export const DEMO_JOBS = join(import.meta.dirname, 'demo-jobs.yaml');

export interface FleetOptions {
  nodes: number;
  backend: FleetBackend;
  /** Gossip only (default `spread`). */
  distribution?: FleetDistribution;
  /** Gossip only (default true). */
  electLeader?: boolean;
  timings?: Partial<FleetTimings>;
  /** The job set every node loads (jobs, defaults, dags); default: the built-in demo. */
  jobsYaml?: string;
  /** Where config dirs, certs, logs and the shared state go; default a new temp dir. */
  root?: string;
  /** Leave `root` on disk after `close()`. */
  keep?: boolean;
  /** First web port (node i listens on base + i), or 'free' for OS-chosen ports. Default 8080. */
  webPortBase?: number | 'free';
  /** The `/peer` port on every node's loopback alias, or 'free'. Default 8443. */
  peerPort?: number | 'free';
  /** Use these etcd endpoints instead of starting a local etcd. */
  etcdEndpoints?: string[];
  /** How node `from` addresses node `to` in its peer list (a test puts a proxy here). */
  peerHost?: (from: NodeSpec, to: NodeSpec) => string | Promise<string>;
  /** Extra environment of every node (after HOSTNAME). */
  env?: Record<string, string>;
  logLevel?: string;
  /** The daemons' `--shutdown-timeout` (s). Default 5. */
  shutdownTimeout?: number;
  /** SIGTERM -> SIGKILL grace when stopping a node (ms). Default 10 s. */
  stopGraceMs?: number;
  stateExtra?: Record<string, unknown>;
  deploymentId?: string;
  bundle?: string;
  /** The daemon's program and leading arguments (default: this Node on `bundle`), e.g. the Bun binary. */
  command?: string[];
  /** Node ids are `<prefix>-a`, `<prefix>-b`, ... (default `node`; the grand tour uses `meridian`). */
  namePrefix?: string;
  /**
   * Writes a node's whole config directory itself (instead of `jobs.yaml` + the generated
   * `node.yaml`), at every (re)start, and returns it: the daemon gets `-c <it>` and runs there.
   * The grand tour assembles a directory of files (include:, a crontab, env_file, secrets) so.
   */
  assemble?: (node: FleetNode) => string;
  /**
   * With fixed ports (`webPortBase`, `peerPort` numbers): a port that is taken falls back to a free
   * one, told through this callback, instead of failing the start (the grand tour on a busy laptop).
   */
  portFallback?: (line: string) => void;
  /** Sent as `Authorization: Bearer` by the fleet's own requests (nodes running with `web.authToken`). */
  authToken?: string;
  /** Extra environment of one node (after `env`). */
  nodeEnv?: (node: NodeSpec) => Record<string, string>;
}

export const DEFAULT_TIMINGS: FleetTimings = { interval: 2, driftAfter: 2, connectTimeout: 1, ttl: 6 };
/** Short timings for tests and benches (spec 05 §14 "short timings for CI"). */
export const SHORT_TIMINGS: FleetTimings = { interval: 1, driftAfter: 2, connectTimeout: 1, ttl: 3 };

/** Thrown by a probe to stop `waitUntil` at once (the awaited thing can no longer happen). */
export class GiveUp extends Error {}

/** Polls `probe` until it returns something truthy; throws `label` (and the last error) on timeout. */
export async function waitUntil<T>(
  probe: () => T | Promise<T>,
  opts: { timeoutMs: number; label: string; everyMs?: number },
): Promise<NonNullable<T>> {
  const deadline = Date.now() + opts.timeoutMs;
  let last: unknown = null;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v as NonNullable<T>;
      last = v;
    } catch (e) {
      if (e instanceof GiveUp) throw e;
      last = e;
    }
    if (Date.now() > deadline) {
      const why = last instanceof Error ? last.message : JSON.stringify(last);
      throw new Error(`timed out after ${opts.timeoutMs} ms waiting for ${opts.label} (last: ${why})`);
    }
    await new Promise((r) => setTimeout(r, opts.everyMs ?? 200));
  }
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;
function track(child: ChildProcess): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // A crashed runner must not leave daemons behind.
    process.on('exit', () => {
      for (const c of live) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    });
  }
  live.add(child);
  child.once('exit', () => live.delete(child));
}

/** A fixed port if it can be bound; else a free one when the caller allows a fallback, else an error. */
async function fixedPort(
  host: string,
  port: number,
  what: string,
  flag: string,
  opts: Pick<FleetOptions, 'portFallback'>,
): Promise<number> {
  if (await canBind(host, port)) return port;
  if (!opts.portFallback) throw new Error(`port ${host}:${port} is in use (pick another ${flag})`);
  opts.portFallback(`${what}: ${host}:${port} is in use, using a free port instead`);
  return freePort(host);
}

export type NodeState = 'stopped' | 'running' | 'paused';

export class FleetNode {
  child: ChildProcess | null = null;
  /** Epoch ms of the last spawn. */
  startedAt = 0;
  constructor(
    readonly fleet: Fleet,
    readonly spec: NodeSpec,
  ) {}

  get id(): string {
    return this.spec.id;
  }
  get dir(): string {
    return join(this.fleet.root, 'nodes', this.spec.id);
  }
  get logFile(): string {
    return join(this.dir, 'daemon.log');
  }
  get url(): string {
    return `http://127.0.0.1:${this.spec.webPort}`;
  }
  get state(): NodeState {
    if (!this.child || this.child.exitCode !== null || this.child.signalCode !== null) return 'stopped';
    return this.paused ? 'paused' : 'running';
  }
  private paused = false;
  /** Byte offset in the log where the running process's lines begin (a restart appends). */
  private logStart = 0;

  /** The directory the daemon loads (`-c`) and runs in: the node dir unless `assemble` says otherwise. */
  configDir = '';

  writeConfig(): void {
    mkdirSync(this.dir, { recursive: true });
    const assemble = this.fleet.opts.assemble;
    if (assemble) {
      this.configDir = assemble(this);
      return;
    }
    this.configDir = this.dir;
    writeFileSync(join(this.dir, 'jobs.yaml'), this.spec.jobsYaml);
    writeFileSync(join(this.dir, 'node.yaml'), nodeYaml(this.fleet.shape, this.spec));
  }

  /** Spawns the daemon (config regenerated from `spec`); waits for its web API unless told not to. */
  async start(opts: { wait?: boolean } = {}): Promise<void> {
    if (this.state !== 'stopped') throw new Error(`${this.id} is already ${this.state}`);
    this.writeConfig();
    const o = this.fleet.opts;
    const fd = openSync(this.logFile, 'a');
    this.logStart = fstatSync(fd).size;
    const [program, ...lead] = o.command ?? [process.execPath, o.bundle ?? BUNDLE];
    const args = [
      ...lead,
      '-c',
      this.configDir,
      '--shutdown-timeout',
      String(o.shutdownTimeout ?? 5),
      '-l',
      o.logLevel ?? 'INFO',
    ];
    const child = spawn(program!, args, {
      // The config directory, as a container's workdir: relative `env_file`s resolve there.
      cwd: this.configDir,
      env: { ...process.env, HOSTNAME: this.spec.nodeName, ...o.env, ...o.nodeEnv?.(this.spec) },
      stdio: ['ignore', fd, fd],
      // Its own process group: Ctrl-C reaches the fleet runner, which stops nodes in order.
      detached: true,
    });
    closeSync(fd);
    track(child);
    this.child = child;
    this.paused = false;
    this.startedAt = Date.now();
    if (opts.wait !== false) await this.ready();
  }

  /** Resolves once `/version` answers; throws if the process exits first. */
  async ready(timeoutMs = 30_000): Promise<void> {
    await waitUntil(
      async () => {
        if (this.state === 'stopped') throw new GiveUp(`${this.id} exited: ${this.logTail()}`);
        // Whatever answers then is another process on that port, not this node.
        if (this.log(this.logStart).includes('no listen address could be bound'))
          throw new GiveUp(`${this.id} could not bind ${this.url}: ${this.logTail()}`);
        const res = await fetch(`${this.url}/version`, {
          headers: this.authHeaders(),
          signal: AbortSignal.timeout(1000),
        });
        return res.ok;
      },
      { timeoutMs, label: `${this.id} to serve ${this.url}`, everyMs: 100 },
    ).catch((e: unknown) => {
      if (e instanceof GiveUp) throw e;
      throw new Error(`${(e as Error).message}\n${this.id} log:\n${this.logTail()}`);
    });
  }

  private exited(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((r) => child.once('exit', () => r()));
  }

  /** Graceful stop: SIGTERM (a lease backend releases its lease), SIGKILL after the grace. */
  async stop(graceMs = this.fleet.opts.stopGraceMs ?? 10_000): Promise<void> {
    const child = this.child;
    if (!child || this.state === 'stopped') return;
    child.kill('SIGTERM');
    if (this.paused) this.resume();
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await this.exited();
    clearTimeout(timer);
  }

  /** Crash: SIGKILL, no release of anything. */
  async kill(): Promise<void> {
    if (!this.child || this.state === 'stopped') return;
    this.child.kill('SIGKILL');
    await this.exited();
  }

  /** The daemon's process id while it runs (or is paused). */
  get pid(): number | undefined {
    return this.state === 'stopped' ? undefined : this.child?.pid;
  }

  pause(): void {
    if (this.state !== 'running') throw new Error(`${this.id} is ${this.state}`);
    this.child!.kill('SIGSTOP');
    this.paused = true;
  }

  resume(): void {
    if (!this.child) return;
    this.child.kill('SIGCONT');
    this.paused = false;
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** The bearer header of the fleet's `authToken`, if any. */
  authHeaders(): Record<string, string> {
    const token = this.fleet.opts.authToken;
    return token ? { authorization: `Bearer ${token}` } : {};
  }

  async get<T = unknown>(path: string): Promise<T> {
    const res = await fetch(`${this.url}${path}`, {
      headers: { accept: 'application/json', ...this.authHeaders() },
      signal: AbortSignal.timeout(3000),
    }).catch((e: unknown) => {
      // fetch's own message is "fetch failed" whatever happened; the cause says what did.
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new Error(`${this.id} GET ${path}: ${cause?.code ?? cause?.message ?? (e as Error).message}`);
    });
    if (!res.ok) throw new Error(`${this.id} GET ${path}: HTTP ${res.status}`);
    return (await res.json()) as T;
  }

  cluster(): Promise<ClusterView> {
    return this.get<ClusterView>('/cluster');
  }

  /** `/jobs` as a name -> job map. */
  async jobs(): Promise<Record<string, JobView>> {
    const body = await this.get<JobView[] | { jobs: JobView[] }>('/jobs');
    const list = Array.isArray(body) ? body : body.jobs;
    return Object.fromEntries(list.map((j) => [j.name, j]));
  }

  /** This node's `/cluster` entry for peer `id` (by the address its peer list gives `id`). */
  async peer(id: string): Promise<ClusterView['peers'][number] | undefined> {
    const host = this.spec.peers[this.spec.peerIds.indexOf(id)];
    return (await this.cluster()).peers.find((p) => p.host === host);
  }

  /** The log from byte `from` on (`logStart`: the running process's own lines). */
  log(from = 0): string {
    try {
      return readFileSync(this.logFile).subarray(from).toString('utf8');
    } catch {
      return '';
    }
  }

  logTail(lines = 15): string {
    return this.log().trimEnd().split('\n').slice(-lines).join('\n');
  }
}

/** The parts of `GET /cluster` the fleet reads (spec 05 §12.1). */
export interface ClusterView {
  enabled: boolean;
  backend?: string;
  node_name?: string;
  job_set_id?: string;
  cluster_size?: number;
  quorum?: number;
  quorate?: boolean;
  leader?: string | null;
  is_leader?: boolean;
  distribution?: string;
  conflict?: boolean;
  conflict_names?: string[];
  size_conflict?: boolean;
  conflicting_sizes?: number[];
  policy_conflict?: boolean;
  conflicting_policies?: string[];
  peers: {
    host: string;
    status: string;
    node_name: string | null;
    job_set_id: string | null;
    last_error: string | null;
  }[];
  lease?: Record<string, unknown>;
}

export interface JobView {
  name: string;
  clusterPolicy?: string;
  clusterOwner?: string | null;
}

export class Fleet {
  readonly nodes: FleetNode[] = [];
  etcd: LocalEtcd | null = null;
  private constructor(
    readonly opts: FleetOptions,
    readonly root: string,
    readonly shape: FleetShape,
  ) {}

  get stateDir(): string {
    return this.shape.stateDir;
  }

  /** Plans, writes and (unless `start: false`) starts every node. */
  static async create(opts: FleetOptions & { start?: boolean }): Promise<Fleet> {
    if (!(opts.nodes >= 1)) throw new Error('a fleet needs at least one node');
    const root = opts.root ?? mkdtempSync(join(tmpdir(), 'cronstable-fleet-'));
    mkdirSync(root, { recursive: true });
    const stateDir = join(root, 'state');
    mkdirSync(stateDir, { recursive: true });
    const shape: FleetShape = {
      backend: opts.backend,
      distribution: opts.distribution ?? 'spread',
      electLeader: opts.electLeader ?? true,
      timings: { ...DEFAULT_TIMINGS, ...opts.timings },
      stateDir,
      deploymentId: opts.deploymentId ?? 'fleet',
      etcdEndpoints: opts.etcdEndpoints ?? [],
      stateExtra: opts.stateExtra ?? {},
    };
    const fleet = new Fleet(opts, root, shape);
    try {
      if (opts.backend === 'etcd' && shape.etcdEndpoints.length === 0) {
        fleet.etcd = await startEtcd({ dir: join(root, 'etcd') });
        shape.etcdEndpoints = [fleet.etcd.endpoint];
      }
      const jobsYaml = opts.jobsYaml ?? readFileSync(DEMO_JOBS, 'utf8');
      const specs: NodeSpec[] = [];
      for (let i = 0; i < opts.nodes; i++) {
        const ip = nodeIp(i);
        const id = nodeId(i, opts.namePrefix);
        const webPort =
          opts.webPortBase === 'free'
            ? await freePort()
            : await fixedPort(
                '127.0.0.1',
                (opts.webPortBase ?? 8080) + i,
                `${id} dashboard`,
                '--web-port',
                opts,
              );
        const peerPort =
          opts.peerPort === 'free'
            ? await freePort(ip)
            : opts.backend === 'etcd'
              ? (opts.peerPort ?? 8443) // etcd fleets never listen on /peer
              : await fixedPort(ip, opts.peerPort ?? 8443, `${id} /peer`, '--peer-port', opts);
        specs.push({
          id,
          nodeName: id,
          index: i,
          ip,
          peerPort,
          webPort,
          peers: [],
          peerIds: [],
          tls: null,
          jobsYaml,
          clusterOverrides: {},
        });
      }
      if (opts.backend === 'gossip' || opts.backend === 'filesystem') {
        const certs = generateClusterCerts(
          join(root, 'certs'),
          specs.map((s) => ({ name: s.id, sans: [`IP:${s.ip}`] })),
        );
        for (const s of specs) s.tls = { ca: certs.ca, ...certs.nodes[s.id]! };
        for (const from of specs)
          for (const to of specs)
            if (to !== from) {
              from.peers.push(opts.peerHost ? await opts.peerHost(from, to) : `${to.ip}:${to.peerPort}`);
              from.peerIds.push(to.id);
            }
      }
      for (const s of specs) fleet.nodes.push(new FleetNode(fleet, s));
      if (opts.start !== false) await fleet.startAll();
    } catch (e) {
      await fleet.close();
      throw e;
    }
    return fleet;
  }

  node(id: string): FleetNode {
    const n = this.nodes.find((x) => x.id === id);
    if (!n) throw new Error(`no node ${id}`);
    return n;
  }

  /** Nodes whose process is running (not stopped, not paused). */
  running(): FleetNode[] {
    return this.nodes.filter((n) => n.state === 'running');
  }

  async startAll(): Promise<void> {
    await Promise.all(this.nodes.filter((n) => n.state === 'stopped').map((n) => n.start({ wait: false })));
    await Promise.all(this.nodes.map((n) => n.ready()));
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.stop()));
  }

  /** Stops every node and etcd; removes the root dir unless `keep`. */
  async close(): Promise<void> {
    await this.stopAll();
    await this.etcd?.close();
    if (!this.opts.keep) rmSync(this.root, { recursive: true, force: true });
  }

  /** Every running node's `/cluster`, by node id. */
  async views(nodes = this.running()): Promise<Record<string, ClusterView>> {
    const out: Record<string, ClusterView> = {};
    await Promise.all(
      nodes.map(async (n) => {
        out[n.id] = await n.cluster();
      }),
    );
    return out;
  }

  /**
   * Gossip: every running node sees every other running node `agreed` and all report the same
   * job-set id (spec 05 §13 "converged"). Lease backends: every running node is quorate and
   * names the same leader.
   */
  async converged(nodes = this.running()): Promise<boolean> {
    const views = await this.views(nodes);
    const vs = Object.values(views);
    if (vs.some((v) => !v.enabled)) return false;
    if (new Set(vs.map((v) => v.job_set_id)).size !== 1) return false;
    if (this.shape.backend === 'gossip') {
      // Agreed is one-sided; a majority of live nodes is also quorate once agreement is mutual.
      return vs.every(
        (v) =>
          v.peers.filter((p) => p.status === 'agreed').length === nodes.length - 1 &&
          v.quorate === nodes.length * 2 > (v.cluster_size ?? 0),
      );
    }
    const leaders = new Set(vs.map((v) => v.leader));
    return vs.every((v) => v.quorate) && leaders.size === 1 && !leaders.has(null) && !leaders.has(undefined);
  }

  async waitConverged(timeoutMs = 30_000, nodes?: FleetNode[]): Promise<void> {
    await waitUntil(() => this.converged(nodes), { timeoutMs, label: 'the fleet to converge' }).catch(
      async (e: unknown) => {
        throw new Error(`${(e as Error).message}\n${await this.describe(nodes ?? this.running())}`);
      },
    );
  }

  /** Each node's view in a line, or why it has none, and its log's last lines: for a timeout's message. */
  async describe(nodes: FleetNode[]): Promise<string> {
    const lines = await Promise.all(
      nodes.map(async (n) => {
        const view = await n.cluster().then(
          (v) => {
            const peers = (v.peers ?? []).map((p) => `${p.host}:${p.status}`).join(' ');
            return `leader ${v.leader ?? '-'}, quorate ${v.quorate}, job set ${v.job_set_id ?? '-'}, peers ${peers || '-'}`;
          },
          (e: unknown) => (e as Error).message,
        );
        return `${n.id} (pid ${n.pid ?? '-'}, ${n.state}, ${n.url}): ${view}\n  ${n.logTail(4).replaceAll('\n', '\n  ')}`;
      }),
    );
    return lines.join('\n');
  }
}

// The daemon: load the config, run the scheduler, reload on SIGHUP or when a config file
// changes, and stop gracefully on SIGTERM/SIGINT (immediately on a second signal).
import { hostname } from 'node:os';
import type { ClusterView, WebContext } from '../api/context.ts';
import { dagGateName, decideFire } from '../cluster/gate.ts';
import { jobSetId } from '../cluster/jobset.ts';
import { ConfigError } from '../config/errors.ts';
import { loadConfigIsolated } from '../config/isolated.ts';
import { applyLoggingSection } from '../config/logconfig.ts';
import type { JobConfig, LoadedConfig } from '../config/types.ts';
import { DagApi } from '../dag/engine/api.ts';
import { DagEngine } from '../dag/engine/engine.ts';
import { expectLaunches, launch } from '../exec/index.ts';
import { dispatchReports } from '../report/index.ts';
import type { Notifier } from '../report/notify.ts';
import type { ReportHook } from '../report/types.ts';
import { Scheduler } from '../scheduler/scheduler.ts';
import { type Clock, RealClock, ShiftedClock } from '../util/clock.ts';
import { errorText } from '../util/errors.ts';
import { tuneHeap } from '../util/heap.ts';
import { startIdleCollections } from '../util/idle-collections.ts';
import { getLogger, LEVELS, type Logger } from '../util/log.ts';
import { type DaemonCluster, daemonCluster, isClusterAdvisory } from './cluster.ts';
import { type GcSchedule, scheduleStateGc } from './gc.ts';
import { installMemoryReport } from './memory-report.ts';
import { daemonNotifier, dagRunNotices } from './notify.ts';
import { type PauseService, startPauses } from './pauses.ts';
import { DaemonPush } from './push.ts';
import { installCliShim } from './shim.ts';
import { filesSignature } from './signature.ts';
import { startSlaMonitor } from './sla.ts';
import { type StateServices, startStateServices } from './state.ts';
import { statsdSubscriber } from './statsd.ts';
import { WebLife } from './web-life.ts';

export interface DaemonOptions {
  configPath: string;
  /** The CLI entry script; when set (on Node), configs are parsed in a worker thread. */
  workerEntry?: string;
  /** How often config files are checked for changes, ms. */
  reloadPollMs?: number;
  /** Automatic store GC timing (default: first pass after 10 min, then daily). */
  gc?: { firstDelayMs?: number; intervalMs?: number; command?: string[] };
  /** How long running jobs may take to finish on SIGTERM before they are killed, ms. */
  shutdownGraceMs?: number;
  clock?: Clock;
  /** The DAG advance lease's TTL, s (default 30, spec 04 §7.6); see `DAG_LEASE_ENV`. */
  dagLeaseSeconds?: number;
  /** How often pauses expire and converge with the store, ms (default 10 s). */
  pauseRefreshMs?: number;
  /** How often a web API that could not come up (TLS files, no address bound) retries, ms (default 60 s). */
  webRetryMs?: number;
  /** One mail report's budget, ms (default 60 s, spec 09 §8.4); see `MAIL_BUDGET_ENV`. */
  mailBudgetMs?: number;
}

function reportBlockFor(job: JobConfig, hook: ReportHook) {
  if (hook === 'failure') return job.onFailure.report;
  if (hook === 'permanentFailure') return job.onPermanentFailure.report;
  return job.onSuccess.report;
}

export class Daemon {
  readonly log: Logger = getLogger('cronstable');
  /** Built by start(), once the store is open: the durable features are given at construction. */
  private sched: Scheduler | null = null;
  private config: LoadedConfig;
  private signature: string;
  private pollTimer: NodeJS.Timeout | null = null;
  private stopping: Promise<void> | null = null;
  private appliedLogging: string | null = null;
  private jobSet = '';
  private reloading = false;
  private readonly clock: Clock;
  state: StateServices | null = null;
  /** The cluster manager, gate and fire claims (built at start, after the store opens). */
  private cluster: DaemonCluster | null = null;
  private shim: { remove(): void } | null = null;
  private gc: GcSchedule | null = null;
  private readonly web: WebLife;
  /** What `POST /shutdown` does (spec 10 §4.7): set by whoever owns the process, as its SIGTERM. */
  onShutdownRequest: (() => void) | null = null;
  private metrics: import('../metrics/index.ts').Metrics | null = null;
  private lastReload: { successful: boolean; atMs: number | null } | null = null;
  /** The DAG engine (spec 04), when the store is open. */
  dags: DagEngine | null = null;
  private pauses: PauseService | null = null;
  private stopIdleCollections: () => void = () => {};
  /** The top-level `notify:` block's sender (spec 09 §5). */
  private readonly notifier: Notifier;
  /** SLA monitoring (spec 09 §2), started with the scheduler. */
  private sla: import('../scheduler/sla/monitor.ts').SlaMonitor | null = null;
  /** Phone alerts (spec 10 §6): the channel of the applied `push:` section. */
  private readonly push: DaemonPush;

  constructor(
    config: LoadedConfig,
    private readonly opts: DaemonOptions,
  ) {
    this.config = config;
    this.signature = filesSignature(config.files);
    this.clock = opts.clock ?? new RealClock();
    this.web = new WebLife({
      log: this.log,
      context: () => this.webContext(),
      metrics: () => this.webMetrics(),
      retryMs: opts.webRetryMs,
    });
    this.push = new DaemonPush(this.log, this.clock, () => this.state?.store ?? null);
    const push = () => this.push.current();
    this.notifier = daemonNotifier(this.log, () => this.state?.store ?? null, {
      push,
      mailBudgetMs: opts.mailBudgetMs,
    });
  }

  get scheduler(): Scheduler {
    if (!this.sched) throw new Error('the daemon is not started');
    return this.sched;
  }

  /** The scheduler over the open state services (if any), with its event subscribers. */
  private buildScheduler(state: StateServices | null): Scheduler {
    const log = this.log;
    const scheduler = new Scheduler({
      clock: this.clock,
      log,
      launch,
      expectLaunches,
      report: (hook, job, ctx) =>
        dispatchReports(hook, reportBlockFor(job, hook), ctx, {
          logger: log,
          mailBudgetMs: this.opts.mailBudgetMs,
          push: () => this.push.current(),
        }),
      durable: state?.durable ?? null,
      gate: this.cluster?.gate,
      claims: this.cluster?.claims,
    });
    if (state) scheduler.subscribe(state.durable.onEvent);
    scheduler.subscribe(statsdSubscriber(log));
    return scheduler;
  }

  /**
   * Installs config-wide settings (logging) and logs the load's warnings; returns the cluster
   * advisories among them, which the cluster manager logs once per (re)build instead.
   */
  private applyConfig(cfg: LoadedConfig): string[] {
    const key = JSON.stringify(cfg.logging);
    if (key !== this.appliedLogging) {
      const error = applyLoggingSection(cfg.logging, (m) => this.log.warning(m));
      if (error)
        this.log.error(`${error} (the logging section is applied like Python's logging.config.dictConfig)`);
      else this.appliedLogging = key;
    }
    const advisories: string[] = [];
    for (const w of cfg.warnings) {
      if (isClusterAdvisory(w)) advisories.push(w.message);
      else getLogger(w.logger).log(w.level === 'warning' ? LEVELS.WARNING : LEVELS.INFO, w.message);
    }
    const id = jobSetId(cfg.jobs);
    if (id !== this.jobSet) {
      this.jobSet = id;
      this.log.info(`Job set id: ${id} (${cfg.jobs.length} jobs)`);
    }
    return advisories;
  }

  async start(): Promise<void> {
    process.env.HOSTNAME ??= hostname();
    const advisories = this.applyConfig(this.config);
    this.shim = installCliShim();
    if (this.config.state) {
      try {
        this.state = await startStateServices(this.config.state, {
          clock: this.clock,
          log: this.log,
          // The ledger's `node` is the cluster's node name when one is set.
          host: this.config.cluster?.nodeName || (process.env.HOSTNAME ?? hostname()),
          workerEntry: this.opts.workerEntry,
        });
        if ((this.config.state.gcGraceSeconds ?? 604_800) > 0)
          this.gc = scheduleStateGc(this.opts.configPath, this.log, this.opts.gc);
      } catch (e) {
        this.log.error(
          `state: could not open the store at ${this.config.state.path}: ${errorText(e)}; running without durable state`,
        );
      }
    }
    this.cluster = daemonCluster({
      clock: this.clock,
      cluster: this.config.cluster,
      state: this.config.state,
      store: () => this.state?.store ?? null,
      jobSetId: () => this.jobSet,
      scheduler: () => this.sched,
      notifier: this.notifier,
    });
    this.notifier.configure(this.config.notify);
    this.push.apply(this.config.push);
    // Gossip polls its peers once before the first scheduling pass (spec 05 §5.1).
    await this.cluster.manager.apply(this.config.cluster, advisories);
    const scheduler = this.buildScheduler(this.state);
    this.sched = scheduler;
    scheduler.load(this.config.jobs);
    this.buildDags();
    this.stopIdleCollections = startIdleCollections();
    this.pauses = await startPauses(scheduler, this.state?.store ?? null, {
      clock: this.clock,
      log: this.log,
      host: this.config.cluster?.nodeName || (process.env.HOSTNAME ?? hostname()),
      everyMs: this.opts.pauseRefreshMs,
    });
    // The web API listens before the first slot fires: a job that probes its own node's API
    // (the grand tour's pulse-liveness) must not meet a refused connection at boot.
    await this.applyWeb();
    scheduler.start();
    this.sla = startSlaMonitor({
      clock: this.clock,
      log: this.log,
      scheduler,
      cluster: this.cluster.manager,
      hasStore: this.state !== null,
      ledger: this.state
        ? { store: this.state.store, maxRunsPerJob: this.config.state?.maxRunsPerJob ?? 1000 }
        : null,
      push: () => this.push.current(),
    });
    this.sla.configure(this.config.jobs);
    this.sla.start();
    if (this.state) void this.state.durable.start(scheduler, this.config.jobs);
    this.dags?.start();
    installMemoryReport(
      () => ({ retained: this.retained() }),
      (m) => this.log.info(m),
    );
    this.log.info(`cronstable started with ${this.config.jobs.length} jobs`);
    const every = this.opts.reloadPollMs ?? 10_000;
    this.pollTimer = setInterval(() => {
      if (filesSignature(this.config.files) !== this.signature)
        void this.reload('a configuration file changed');
      // Token and certificate files rotate without a config change (spec 10 §2.6, §3.4); a stat
      // per file is all it costs.
      else {
        this.web.refresh();
        this.state?.jobApi?.refreshTls();
      }
    }, every);
    this.pollTimer.unref();
  }

  /** What the scheduler keeps per job in memory (debug memory report): runs, slots, output text. */
  private retained(): Record<string, number> {
    let runs = 0;
    let slots = 0;
    let outputChars = 0;
    let lines = 0;
    const names = this.sched?.jobNames() ?? [];
    for (const name of names) {
      const h = this.sched?.history(name);
      if (!h) continue;
      slots += h.recentSlots().length;
      for (const r of h.recentRuns()) {
        runs++;
        lines += r.lines.length;
        outputChars += (r.stdout?.length ?? 0) + (r.stderr?.length ?? 0);
        for (const l of r.lines) outputChars += l.line.length;
      }
    }
    return { jobs: names.length, runs, slots, lines, outputChars };
  }

  /** The DAG engine over the open store (DAGs need `state:` and its job API, spec 04 §2.4); started by the caller. */
  private buildDags(): void {
    const state = this.state;
    if (!state) return;

    const cluster = this.cluster;
    this.dags = new DagEngine({
      store: state.store,
      clock: this.clock,
      log: getLogger('cronstable.dag'),
      host: process.env.HOSTNAME ?? hostname(),
      launch,
      registry: state.jobApi,
      gate: (dag) =>
        cluster ? decideFire(cluster.manager, dagGateName(dag.name), dag.clusterPolicy).run : true,
      gcGraceSeconds: this.config.state?.gcGraceSeconds ?? 604_800,
      leaseSeconds: this.opts.dagLeaseSeconds,
      runWatch: dagRunNotices(this.notifier),
      push: () => this.push.current(),
    });
    this.dags.load(this.config.dags);
  }

  /** Re-reads the configuration; on error keeps running the previous one. */
  async reload(why: string): Promise<void> {
    if (this.stopping || this.reloading) return;
    this.reloading = true;
    let next: LoadedConfig;
    try {
      next = await loadConfigIsolated(this.opts.configPath, {}, this.opts.workerEntry);
    } catch (e) {
      this.reloading = false;
      if (!(e instanceof ConfigError)) throw e;
      // Remember the broken files' signature so the same error is not logged every poll.
      this.signature = filesSignature(this.config.files);
      this.log.error(`Error in configuration file(s), so not updating any of the config.:\n${e.message}`);
      this.lastReload = { successful: false, atMs: this.clock.now() };
      return;
    }
    this.reloading = false;
    if (this.stopping) return;
    this.log.info(`Reloading configuration (${why})`);
    if (JSON.stringify(next.state) !== JSON.stringify(this.config.state))
      this.log.warning(
        'state: the state section changed; restart the daemon to apply it (the running store is kept)',
      );
    this.config = next;
    this.signature = filesSignature(next.files);
    const advisories = this.applyConfig(next);
    this.scheduler.load(next.jobs);
    this.notifier.configure(next.notify);
    this.push.apply(next.push);
    this.sla?.configure(next.jobs);
    await this.cluster?.manager.apply(next.cluster, advisories);
    this.dags?.load(next.dags);
    this.lastReload = { successful: true, atMs: this.clock.now() };
    this.state?.jobApi?.refreshTls();
    await this.applyWeb();
  }

  stop(graceMs = this.opts.shutdownGraceMs ?? 60_000): Promise<void> {
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.pauses?.stop();
    this.stopIdleCollections();
    this.stopping ??= (async () => {
      const scheduler = this.sched;
      const n = scheduler?.runningCount() ?? 0;
      this.log.info(
        n > 0 ? `Shutting down: waiting up to ${graceMs / 1000} s for ${n} running job(s)` : 'Shutting down',
      );
      this.gc?.stop();
      await Promise.all([scheduler?.stop(graceMs), this.dags?.stop(graceMs)]);
      // Breach reports under way are drained, not dropped.
      await this.sla?.stop();
      await this.push.stop();
      // Release leadership (a survivor takes over at once) while the store is still open.
      await this.cluster?.manager
        .stop()
        .catch((e) => this.log.warning(`cluster: stopping failed: ${errorText(e)}`));
      await this.web.stop().catch((e) => this.log.warning(`web: stopping failed: ${errorText(e)}`));
      await this.state
        ?.stop()
        .catch((e) => this.log.warning(`state: closing the store failed: ${errorText(e)}`));
      this.shim?.remove();
      this.log.info('Shutdown complete');
    })();
    return this.stopping;
  }

  /** The web API's view of this daemon. */
  private webContext(): WebContext {
    return {
      version: daemonVersion(),
      hostname: process.env.HOSTNAME ?? hostname(),
      clock: this.clock,
      config: () => this.config,
      jobSetId: () => this.jobSet,
      scheduler: this.scheduler,
      store: this.state?.store ?? null,
      cluster: () => this.clusterView(),
      metrics: this.metrics ?? undefined,
      configReload: () => this.lastReload,
      requestShutdown: () => this.onShutdownRequest?.(),
      sla: () => this.sla,
      push: () => this.push.web(),
      ...(this.dags ? { dags: new DagApi(this.dags) } : {}),
    };
  }

  /** What the web API shows of the cluster (spec 05 §12). */
  private clusterView(): ClusterView {
    const manager = this.cluster?.manager;
    if (!manager?.configured()) return { enabled: false, nodeName: process.env.HOSTNAME ?? hostname() };
    const report = manager.report();
    return {
      enabled: report !== null,
      nodeName: manager.nodeName,
      electLeader: manager.electionOn(),
      distribution: manager.distribution(),
      report,
      ownerOf: (name, policy) => manager.ownerOf(name, policy),
      fleet: () => manager.fleet(),
      transitions: { leader: manager.leaderTransitions, quorum: manager.quorumTransitions },
    };
  }

  /** Starts, restarts or refreshes the web API for the current config (daemon/web-life.ts). */
  private applyWeb(): Promise<void> {
    return this.web.apply(this.config.web ?? null, this.config.mcp ?? null);
  }

  /** The process's one metrics registry, made when the web API first starts. */
  private async webMetrics(): Promise<import('../metrics/index.ts').Metrics> {
    if (!this.metrics) {
      const { Metrics } = await import('../metrics/index.ts');
      this.metrics = new Metrics({ version: daemonVersion(), startTimeMs: this.clock.now() });
      this.metrics.attach(this.webContext());
    }
    return this.metrics;
  }

  kill(): Promise<void> {
    return Promise.all([this.sched?.killAll('shutdown'), this.dags?.kill()]).then(() => undefined);
  }
}

declare const __CRONSTABLE_VERSION__: string | undefined;
function daemonVersion(): string {
  return typeof __CRONSTABLE_VERSION__ === 'string' ? __CRONSTABLE_VERSION__ : '0.0.0-dev';
}

/** Test hook: an ISO instant the daemon's wall clock starts at (see ShiftedClock). */
export const TEST_EPOCH_ENV = 'CRONSTABLE_TEST_EPOCH';

/**
 * Test hook: the DAG advance lease's TTL in whole seconds, 3 to 30 (renewal and adoption scale
 * with it). End-to-end crash-resume tests set it so a dead holder's run is adopted in seconds.
 */
export const DAG_LEASE_ENV = 'CRONSTABLE_TEST_DAG_LEASE_SECONDS';

/**
 * Test hook: how often a web API that could not come up retries, in ms (100 to 60000), so a test of
 * the bind retry (spec 10 v42) takes seconds; the product keeps the reference's 60 s pass.
 */
export const WEB_RETRY_ENV = 'CRONSTABLE_TEST_WEB_RETRY_MS';

/**
 * A whole-number test hook from the environment: undefined when unset, null (after logging why)
 * when it is not a whole number in range; a warning says it is in effect.
 */
function numericHook(
  log: Logger,
  name: string,
  [min, max, unit]: [number, number, string],
  effect: (value: string) => string,
): number | undefined | null {
  const raw = process.env[name];
  if (!raw) return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    log.error(`${name}: '${raw}' is not a whole number of ${unit} from ${min} to ${max}`);
    return null;
  }
  log.warning(`test hook ${name}=${raw}: ${effect(raw)}`);
  return value;
}

/** Test hook: one mail report's budget in ms (the product's is 60 s; its log text says 60). */
export const MAIL_BUDGET_ENV = 'CRONSTABLE_TEST_MAIL_BUDGET_MS';

/** `cronstable -c PATH`: runs until a signal stops it; resolves with the exit code. */
export async function runDaemon(opts: DaemonOptions): Promise<number> {
  tuneHeap();
  const log = getLogger('cronstable');
  let config: LoadedConfig;
  try {
    config = await loadConfigIsolated(opts.configPath, {}, opts.workerEntry);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    log.error(`Configuration error: ${e.message}`);
    return 1;
  }
  let clock = opts.clock;
  const epoch = process.env[TEST_EPOCH_ENV];
  if (epoch && !clock) {
    const startMs = Date.parse(epoch);
    if (Number.isNaN(startMs)) {
      log.error(`${TEST_EPOCH_ENV}: '${epoch}' is not an ISO-8601 instant`);
      return 2;
    }
    log.warning(`test hook ${TEST_EPOCH_ENV}=${epoch}: the daemon's wall clock starts there, not now`);
    clock = new ShiftedClock(startMs);
  }
  const lease = numericHook(
    log,
    DAG_LEASE_ENV,
    [3, 30, 'seconds'],
    (v) => `DAG advance leases last ${v} s, not 30`,
  );
  const retry = numericHook(
    log,
    WEB_RETRY_ENV,
    [100, 60_000, 'ms'],
    (v) => `a web API that is not up retries every ${v} ms`,
  );
  const budget = numericHook(
    log,
    MAIL_BUDGET_ENV,
    [100, 60_000, 'ms'],
    (v) => `a mail report gets ${v} ms, not 60 s`,
  );
  if (lease === null || retry === null || budget === null) return 2;
  const dagLeaseSeconds = lease ?? opts.dagLeaseSeconds;
  const webRetryMs = retry ?? opts.webRetryMs;
  const mailBudgetMs = budget ?? opts.mailBudgetMs;
  const daemon = new Daemon(config, { ...opts, clock, dagLeaseSeconds, webRetryMs, mailBudgetMs });
  await daemon.start();
  const code = await new Promise<number>((resolve) => {
    let signals = 0;
    const onStop = (signal: NodeJS.Signals) => {
      signals++;
      if (signals === 1) {
        log.info(`Received ${signal}`);
        void daemon.stop().then(() => resolve(0));
      } else {
        log.warning(`Received ${signal} again: stopping every running job now`);
        void daemon.kill().then(() => resolve(130));
      }
    };
    // POST /shutdown drains exactly as the first SIGTERM does (its route logged who asked).
    daemon.onShutdownRequest = () => {
      if (signals++ === 0) void daemon.stop().then(() => resolve(0));
    };
    process.on('SIGTERM', onStop);
    process.on('SIGINT', onStop);
    process.on('SIGHUP', () => void daemon.reload('SIGHUP'));
  });
  // Nothing of ours is left running; do not wait on stray handles (sockets of reporters).
  setTimeout(() => process.exit(code), 200).unref();
  return code;
}

// Prometheus metrics (spec 06 §6): a prom-client registry owned by the daemon, so counters survive
// web-server restarts and reloads. Accumulators are fed by recorded runs (`attach(ctx)` subscribes
// to the scheduler's `run-finished` events); "live" families are read from the scheduler at scrape time.
import { Counter, Gauge, Histogram, type Metric, Registry } from 'prom-client';
import type { WebSection } from '../config/file-schema.ts';
import type { JobConfig } from '../config/types.ts';
import type { RunRecord, SlotRecord } from '../scheduler/history.ts';
import { fateOf } from '../scheduler/slots.ts';
import type { JobStatus } from '../scheduler/view.ts';
import type { MetricsRegistry, WebContext } from './context.ts';
import {
  byJob,
  byJobStatus,
  clearSeries,
  OPENMETRICS_CONTENT_TYPE,
  sortSeries,
  TEXT_CONTENT_TYPE,
  tidyExposition,
} from './exposition.ts';
import { stateAndClusterFamilies } from './metrics-families.ts';

export { OPENMETRICS_CONTENT_TYPE, TEXT_CONTENT_TYPE, tidyExposition } from './exposition.ts';

export const DEFAULT_DURATION_BUCKETS: readonly number[] = [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600];

const STATUSES = ['success', 'failure', 'cancelled'] as const;
const REPLACED = 'replaced by a newer instance';

/** The `metrics:` setting of a web section: enabled, public, buckets (spec 06 §1.1). */
export function metricsSettings(web: WebSection | null | undefined): {
  enabled: boolean;
  public: boolean;
  durationBuckets: readonly number[];
} {
  const m = web?.metrics;
  if (m === false) return { enabled: false, public: false, durationBuckets: DEFAULT_DURATION_BUCKETS };
  if (m === true || m === undefined || m === null)
    return { enabled: true, public: false, durationBuckets: DEFAULT_DURATION_BUCKETS };
  return {
    enabled: m.enabled ?? true,
    public: m.public ?? false,
    durationBuckets:
      m.durationBuckets && m.durationBuckets.length > 0 ? m.durationBuckets : DEFAULT_DURATION_BUCKETS,
  };
}

/** Static facts of one job, read once per loaded JobConfig (config objects are immutable). */
interface JobFacts {
  name: string;
  enabled: boolean;
  reboot: boolean;
  schedule: string;
  clusterPolicy: string;
}

/** One job at scrape time. */
interface LiveJob extends JobFacts {
  st: JobStatus | undefined;
  last: RunRecord | undefined;
}

interface Snapshot {
  jobs: LiveJob[];
}

const factsCache = new WeakMap<JobConfig, JobFacts>();

function factsOf(job: JobConfig): JobFacts {
  let f = factsCache.get(job);
  if (!f) {
    f = {
      name: job.name,
      enabled: job.enabled,
      reboot: job.reboot,
      schedule: job.scheduleText,
      clusterPolicy: job.clusterPolicy,
    };
    factsCache.set(job, f);
  }
  return f;
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface MetricsOptions {
  version: string;
  /** Process start (epoch ms); default now. */
  startTimeMs?: number;
  durationBuckets?: readonly number[];
}

export class Metrics implements MetricsRegistry {
  private readonly text = new Registry();
  private ctx: WebContext | null = null;
  private detach: (() => void) | null = null;
  private snapshot: Snapshot | null = null;
  private buckets: readonly number[];
  private knownJobs = '';
  private readonly accJobs = new Set<string>();
  private readonly startSeconds: number;

  // Daemon
  private readonly info: Gauge<'version'>;
  private readonly startTime: Gauge;
  private readonly jobSetInfo: Gauge<'job_set_id'>;
  private readonly jobCounts: Gauge<'state'>;
  private readonly reloadOk: Gauge;
  private readonly reloadAt: Gauge;
  // Per job, accumulated
  private readonly runsTotal: Counter<'job_name' | 'status'>;
  private readonly retriesTotal: Counter<'job_name'>;
  private readonly permanentTotal: Counter<'job_name'>;
  private readonly startFailuresTotal: Counter<'job_name'>;
  private readonly missedTotal: Counter<'job_name' | 'reason'>;
  private readonly slotsTotal: Counter<'job_name' | 'outcome'>;
  private readonly overloaded: Gauge;
  private readonly mcpCalls: Counter<'tool' | 'outcome'>;
  private duration: Histogram<'job_name'>;
  private readonly lastSuccess: Gauge<'job_name'>;
  private readonly lastFailure: Gauge<'job_name'>;
  // Per job, live
  private readonly jobInfo: Gauge<'job_name' | 'schedule' | 'cluster_policy'>;
  private readonly jobEnabled: Gauge<'job_name'>;
  private readonly jobRunning: Gauge<'job_name'>;
  private readonly nextRun: Gauge<'job_name'>;
  private readonly lastRunAt: Gauge<'job_name'>;
  private readonly lastRunDuration: Gauge<'job_name'>;
  private readonly lastRunExit: Gauge<'job_name'>;
  private readonly lastRunSuccess: Gauge<'job_name'>;

  private order: Metric<string>[] = [];

  constructor(opts: MetricsOptions) {
    this.buckets = [...(opts.durationBuckets ?? DEFAULT_DURATION_BUCKETS)];
    this.startSeconds = (opts.startTimeMs ?? Date.now()) / 1000;
    const m = this;
    const registers: Registry[] = [];
    this.info = new Gauge({
      name: 'cronstable_info',
      help: 'cronstable build information.',
      labelNames: ['version'],
      registers,
    });
    this.info.set({ version: opts.version }, 1);
    this.startTime = new Gauge({
      name: 'cronstable_start_time_seconds',
      help: 'Start time of the cronstable process, in seconds since the epoch.',
      registers,
    });
    this.startTime.set(this.startSeconds);
    this.jobSetInfo = new Gauge({
      name: 'cronstable_job_set_info',
      help: 'Fingerprint of the loaded job set.',
      labelNames: ['job_set_id'],
      registers,
      collect() {
        this.reset();
        if (m.ctx) this.set({ job_set_id: m.ctx.jobSetId() }, 1);
      },
    });
    this.jobCounts = new Gauge({
      name: 'cronstable_jobs',
      help: 'Configured jobs by state.',
      labelNames: ['state'],
      registers,
      collect() {
        const snap = m.snapshot;
        if (!snap) return;
        let enabled = 0;
        for (const j of snap.jobs) if (j.enabled) enabled++;
        this.set({ state: 'enabled' }, enabled);
        this.set({ state: 'disabled' }, snap.jobs.length - enabled);
      },
    });
    this.reloadOk = new Gauge({
      name: 'cronstable_config_last_reload_successful',
      help: 'Whether the last configuration parse succeeded.',
      registers,
      collect() {
        this.reset();
        const r = m.ctx?.configReload?.();
        if (r) this.set(r.successful ? 1 : 0);
        else clearSeries(this);
      },
    });
    this.reloadAt = new Gauge({
      name: 'cronstable_config_last_reload_success_timestamp_seconds',
      help: 'Time of the last successful configuration parse, in seconds since the epoch.',
      registers,
      collect() {
        this.reset();
        const r = m.ctx?.configReload?.();
        if (r && r.atMs !== null) this.set(r.atMs / 1000);
        else clearSeries(this);
      },
    });
    this.runsTotal = new Counter({
      name: 'cronstable_job_runs_total',
      help: 'Finished runs per job and outcome.',
      labelNames: ['job_name', 'status'],
      registers,
    });
    this.retriesTotal = new Counter({
      name: 'cronstable_job_retries_total',
      help: 'Retry attempts launched per job.',
      labelNames: ['job_name'],
      registers,
    });
    this.permanentTotal = new Counter({
      name: 'cronstable_job_permanent_failures_total',
      help: 'Failures with no retry left, per job.',
      labelNames: ['job_name'],
      registers,
    });
    this.startFailuresTotal = new Counter({
      name: 'cronstable_job_start_failures_total',
      help: 'Runs whose command could not be launched, per job.',
      labelNames: ['job_name'],
      registers,
    });
    this.missedTotal = new Counter({
      name: 'cronstable_job_missed_fires_total',
      help: 'Scheduled fires this node could not start (slot outcome missed-overload), per job.',
      labelNames: ['job_name', 'reason'],
      registers,
    });
    // The label is `job_name` like every other per-job family: a `job` label collides with the
    // scrape target's own `job` label in Prometheus (it would arrive as `exported_job`).
    this.slotsTotal = new Counter({
      name: 'cronstable_job_slots_total',
      help: 'Scheduled slots this node settled, per job and slot outcome (see GET /jobs/{name}/slots).',
      labelNames: ['job_name', 'outcome'],
      registers,
    });
    this.overloaded = new Gauge({
      name: 'cronstable_node_overloaded',
      help: 'Whether this node is dropping fires or falling behind its launches (1) or keeping up (0).',
      registers,
      collect() {
        if (m.ctx) this.set(m.ctx.scheduler.overload().overloaded ? 1 : 0);
      },
    });
    this.mcpCalls = new Counter({
      name: 'cronstable_mcp_tool_calls_total',
      help: 'MCP tools/call requests per tool and outcome (ok, error, refused, internal).',
      labelNames: ['tool', 'outcome'],
      registers,
    });
    this.duration = this.newHistogram();
    this.lastSuccess = new Gauge({
      name: 'cronstable_job_last_success_timestamp_seconds',
      help: 'Time of the last successful run, in seconds since the epoch.',
      labelNames: ['job_name'],
      registers,
    });
    this.lastFailure = new Gauge({
      name: 'cronstable_job_last_failure_timestamp_seconds',
      help: 'Time of the last failed run, in seconds since the epoch.',
      labelNames: ['job_name'],
      registers,
    });
    const perJob = (name: string, help: string, value: (job: LiveJob) => number | null) =>
      new Gauge({
        name,
        help,
        labelNames: ['job_name'],
        registers,
        collect() {
          this.reset();
          const snap = m.snapshot;
          if (!snap || !m.ctx) return;
          for (const job of snap.jobs) {
            const v = value(job);
            if (v !== null) this.set({ job_name: job.name }, v);
          }
        },
      });
    this.jobInfo = new Gauge({
      name: 'cronstable_job_info',
      help: 'Static facts about each configured job.',
      labelNames: ['job_name', 'schedule', 'cluster_policy'],
      registers,
      collect() {
        this.reset();
        for (const job of m.snapshot?.jobs ?? [])
          this.set({ job_name: job.name, schedule: job.schedule, cluster_policy: job.clusterPolicy }, 1);
      },
    });
    this.jobEnabled = perJob('cronstable_job_enabled', 'Whether the job is enabled.', (j) =>
      j.enabled ? 1 : 0,
    );
    this.jobRunning = perJob(
      'cronstable_job_running',
      'Running instances of the job.',
      (j) => j.st?.pids.length ?? 0,
    );
    this.nextRun = perJob(
      'cronstable_job_next_run_timestamp_seconds',
      'Next scheduled fire, in seconds since the epoch.',
      (j) => (j.enabled && !j.reboot && j.st?.nextFire != null ? j.st.nextFire / 1000 : null),
    );
    this.lastRunAt = perJob(
      'cronstable_job_last_run_timestamp_seconds',
      'When the last run finished, in seconds since the epoch.',
      (j) => (j.last ? j.last.finishedAt / 1000 : null),
    );
    this.lastRunDuration = perJob(
      'cronstable_job_last_run_duration_seconds',
      'Duration of the last run.',
      (j) => j.last?.durationSeconds ?? null,
    );
    this.lastRunExit = perJob(
      'cronstable_job_last_run_exit_code',
      'Exit code of the last run.',
      (j) => j.last?.exitCode ?? null,
    );
    this.lastRunSuccess = perJob(
      'cronstable_job_last_run_success',
      'Whether the last run succeeded (1) or not (0).',
      (j) => (j.last ? (j.last.outcome === 'success' ? 1 : 0) : null),
    );
    const tail = stateAndClusterFamilies(() => m.ctx);
    this.order = [
      this.info,
      this.startTime,
      this.jobSetInfo,
      this.jobCounts,
      this.reloadOk,
      this.reloadAt,
      this.overloaded,
      this.runsTotal,
      this.retriesTotal,
      this.permanentTotal,
      this.startFailuresTotal,
      this.missedTotal,
      this.slotsTotal,
      this.duration,
      this.lastSuccess,
      this.lastFailure,
      this.jobInfo,
      this.jobEnabled,
      this.jobRunning,
      this.nextRun,
      this.lastRunAt,
      this.lastRunDuration,
      this.lastRunExit,
      this.lastRunSuccess,
      ...tail,
      this.mcpCalls,
    ] as Metric<string>[];
    this.register();
  }

  private newHistogram(): Histogram<'job_name'> {
    return new Histogram({
      name: 'cronstable_job_duration_seconds',
      help: 'Duration of finished runs.',
      labelNames: ['job_name'],
      buckets: [...this.buckets],
      registers: [],
    });
  }

  private register(): void {
    this.text.clear();
    for (const metric of this.order) this.text.registerMetric(metric);
  }

  get durationBuckets(): readonly number[] {
    return this.buckets;
  }

  /**
   * Applies `web.metrics.durationBuckets`; a different bucket list resets every job's histogram
   * (counters are untouched, spec 06 §1.4).
   */
  configure(web: WebSection | null | undefined): void {
    const next = metricsSettings(web).durationBuckets;
    if (next.length === this.buckets.length && next.every((b, i) => b === this.buckets[i])) return;
    this.buckets = [...next];
    const old = this.duration;
    this.duration = this.newHistogram();
    this.order = this.order.map((m) => (m === old ? this.duration : m));
    for (const name of this.accJobs) this.duration.zero({ job_name: name });
    this.knownJobs = '';
    this.register();
  }

  mcpToolCall(tool: string, outcome: string): void {
    this.mcpCalls.inc({ tool, outcome });
  }

  /** Feeds the accumulators from the daemon's recorded runs; returns the detach. */
  attach(ctx: WebContext): () => void {
    this.detach?.();
    this.ctx = ctx;
    this.configure(ctx.config().web);
    const off = ctx.scheduler.subscribe((e) => {
      if (e.type === 'run-finished') {
        this.observeRun(e.run);
        this.observeRunSlot(e.run);
      } else if (e.type === 'slot') {
        if (e.slot.outcome === 'missed-overload') this.observeMissed(e.slot);
        this.observeSlot(e.slot);
      }
    });
    this.detach = () => {
      off();
      if (this.ctx === ctx) this.ctx = null;
      this.detach = null;
    };
    return this.detach;
  }

  /** One finished run (spec 06 §6.2 accumulators). */
  observeRun(run: RunRecord): void {
    const name = run.job;
    this.ensureJob(name);
    const job = this.ctx?.scheduler.job(name);
    // A retry abandoned before it started (its cluster owner moved) was never launched.
    if (run.trigger === 'retry' && run.startedAt !== null) this.retriesTotal.inc({ job_name: name });
    if (run.outcome === 'unknown') return;
    if (run.outcome === 'cancelled' && run.failReason === REPLACED) return;
    this.runsTotal.inc({ job_name: name, status: run.outcome });
    if (run.durationSeconds !== null) this.duration.observe({ job_name: name }, run.durationSeconds);
    const at = run.finishedAt / 1000;
    if (run.outcome === 'success') this.lastSuccess.set({ job_name: name }, at);
    if (run.outcome === 'failure') {
      this.lastFailure.set({ job_name: name }, at);
      if (isStartFailure(run)) this.startFailuresTotal.inc({ job_name: name });
      if (job && noRetryLeft(job, run)) this.permanentTotal.inc({ job_name: name });
    }
  }

  /**
   * A slot this node settled without a run (Forbid, claimed elsewhere, missed...), counted under its
   * slot outcome; settled-by-run slots are counted from their run (`observeRunSlot`).
   */
  observeSlot(slot: SlotRecord): void {
    if (slot.runId !== null || slot.outcome === 'running' || slot.outcome === 'deferred') return;
    if (slot.outcome === 'succeeded' || slot.outcome === 'failed' || slot.outcome.startsWith('cancelled'))
      return;
    this.ensureJob(slot.job);
    const outcome = fateOf({ outcome: slot.outcome, trigger: 'schedule', failReason: slot.detail });
    this.slotsTotal.inc({ job_name: slot.job, outcome }, slot.count ?? 1);
  }

  /** The run of a slot (its first attempt: retries belong to the same slot and are not counted again). */
  observeRunSlot(run: RunRecord): void {
    if (run.scheduledAt === null || run.attempt > 0) return;
    if (run.trigger !== 'schedule' && run.trigger !== 'catchup') return;
    this.ensureJob(run.job);
    this.slotsTotal.inc({ job_name: run.job, outcome: fateOf(run) });
  }

  /** Slots the node could not start; a folded record counts every slot it covers. */
  observeMissed(slot: SlotRecord): void {
    this.ensureJob(slot.job);
    this.missedTotal.inc({ job_name: slot.job, reason: 'overload' }, slot.count ?? 1);
  }

  /** Zero-filled series for a job seen for the first time (before its first observation). */
  private ensureJob(name: string): void {
    if (this.accJobs.has(name)) return;
    for (const status of STATUSES) this.runsTotal.inc({ job_name: name, status }, 0);
    this.missedTotal.inc({ job_name: name, reason: 'overload' }, 0);
    this.slotsTotal.inc({ job_name: name, outcome: 'ran' }, 0);
    for (const c of [this.retriesTotal, this.permanentTotal, this.startFailuresTotal])
      c.inc({ job_name: name }, 0);
    this.duration.zero({ job_name: name });
    this.accJobs.add(name);
    this.knownJobs = '';
  }

  /** Zero-fills every configured job, prunes removed ones, keeps series sorted by job name. */
  private syncJobs(jobs: readonly LiveJob[]): void {
    const key = jobs.map((j) => j.name).join('\u0000');
    if (key === this.knownJobs) return;
    const names = new Set(jobs.map((j) => j.name));
    for (const name of this.accJobs) {
      if (names.has(name)) continue;
      for (const status of STATUSES) this.runsTotal.remove({ job_name: name, status });
      for (const c of [this.retriesTotal, this.permanentTotal, this.startFailuresTotal])
        c.remove({ job_name: name });
      this.missedTotal.remove({ job_name: name, reason: 'overload' });
      this.duration.remove({ job_name: name });
      this.lastSuccess.remove({ job_name: name });
      this.lastFailure.remove({ job_name: name });
      this.accJobs.delete(name);
    }
    for (const name of names) this.ensureJob(name);
    this.knownJobs = key;
    sortSeries(this.runsTotal, byJobStatus);
    for (const metric of [
      this.retriesTotal,
      this.permanentTotal,
      this.startFailuresTotal,
      this.missedTotal,
      this.duration,
      this.lastSuccess,
      this.lastFailure,
    ] as Metric<string>[])
      sortSeries(metric, byJob);
  }

  /**
   * The exposition for a scrape: OpenMetrics when `Accept` asks for it, else the text format.
   * Families render one at a time with a yield between them, so a scrape of thousands of jobs
   * never holds the event loop (and /status probes) for long; scrapes are serialized.
   */
  exposition(accept: string | undefined): Promise<{ contentType: string; body: string }> {
    const run = this.scrapes.then(() => this.render(accept));
    this.scrapes = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private scrapes: Promise<void> = Promise.resolve();

  private async render(accept: string | undefined): Promise<{ contentType: string; body: string }> {
    const openMetrics = (accept ?? '').includes('application/openmetrics-text');
    const ctx = this.ctx;
    if (ctx) {
      const jobs: LiveJob[] = [];
      const status = new Map<string, JobStatus>();
      for (const st of ctx.scheduler.status()) status.set(st.name, st);
      for (const config of ctx.config().jobs) {
        const st = status.get(config.name);
        if (st) jobs.push({ ...factsOf(config), st, last: ctx.scheduler.history(st.name)?.lastRun() });
      }
      this.snapshot = { jobs };
      this.syncJobs(jobs);
    }
    try {
      const parts: string[] = [];
      for (const metric of this.order) {
        const family = tidyExposition(
          await this.text.getSingleMetricAsString((metric as unknown as { name: string }).name),
          openMetrics,
          false,
        );
        if (family !== '') parts.push(family);
        await yieldToLoop();
      }
      if (openMetrics) parts.push('# EOF\n');
      return {
        contentType: openMetrics ? OPENMETRICS_CONTENT_TYPE : TEXT_CONTENT_TYPE,
        body: parts.join(''),
      };
    } finally {
      this.snapshot = null;
    }
  }
}

/** A command that could not be launched: exit 127 with no process output captured at all. */
function isStartFailure(run: RunRecord): boolean {
  const flagged = (run as RunRecord & { startFailed?: boolean }).startFailed;
  if (flagged !== undefined) return flagged;
  return (
    run.exitCode === 127 && run.stdout === null && run.stderr === null && (run.durationSeconds ?? 0) < 0.05
  );
}

/** A failure after which no retry follows (the onPermanentFailure condition). */
function noRetryLeft(job: JobConfig, run: RunRecord): boolean {
  const max = job.onFailure.retry.maximumRetries;
  if (max === 0) return true;
  if (max < 0) return false;
  return run.attempt >= max;
}

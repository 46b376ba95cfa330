// Prometheus metrics (spec 06 §6): a prom-client registry owned by the daemon, so counters survive
// web-server restarts and reloads. Accumulators are fed by recorded runs (`attach(ctx)` subscribes
// to the scheduler's `run-finished` and `slot` events, metrics-runs.ts); the per-job live families
// are brought to the scheduler's state when a scrape starts, writing only what changed
// (metrics-jobs.ts); the daemon, store and cluster families read their few values at scrape time.
// Series keep their label text between scrapes (metrics-render.ts): a scrape of the tour's 63 jobs
// formats ~2,000 numbers and reuses everything else.
import type { Metric } from 'prom-client';
import type { MetricsRegistry, WebContext } from '../api/context.ts';
import type { WebSection } from '../config/file-schema.ts';
import type { RunRecord } from '../scheduler/history.ts';
import { clearSeries, OPENMETRICS_CONTENT_TYPE, TEXT_CONTENT_TYPE } from './exposition.ts';
import { stateAndClusterFamilies } from './families.ts';
import { JobFamilies, liveJobs } from './jobs.ts';
import { Counter, Gauge, Registry } from './prom.ts';
import { FamilyText } from './render.ts';
import { RunFamilies } from './runs.ts';
import { slaFamilies } from './sla.ts';

export { OPENMETRICS_CONTENT_TYPE, TEXT_CONTENT_TYPE, tidyExposition } from './exposition.ts';

export const DEFAULT_DURATION_BUCKETS: readonly number[] = [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600];

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

/** A long render yields to the event loop after this much work (a job set of thousands). */
const SLICE_MS = 8;
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface MetricsOptions {
  version: string;
  /** Process start (epoch ms); default now. */
  startTimeMs?: number;
  durationBuckets?: readonly number[];
}

export class Metrics implements MetricsRegistry {
  private readonly text = new Registry();
  private readonly render = new FamilyText(this.text);
  private ctx: WebContext | null = null;
  private detach: (() => void) | null = null;
  private readonly runs: RunFamilies;
  private readonly jobs = new JobFamilies();
  private readonly mcpCalls: Counter<'tool' | 'outcome'>;
  private order: Metric<string>[] = [];
  private readonly head: Metric<string>[];
  private readonly tail: Metric<string>[];

  constructor(opts: MetricsOptions) {
    this.runs = new RunFamilies([...(opts.durationBuckets ?? DEFAULT_DURATION_BUCKETS)]);
    const m = this;
    const registers: Registry[] = [];
    const info = new Gauge({
      name: 'cronstable_info',
      help: 'cronstable build information.',
      labelNames: ['version'],
      registers,
    });
    info.set({ version: opts.version }, 1);
    const startTime = new Gauge({
      name: 'cronstable_start_time_seconds',
      help: 'Start time of the cronstable process, in seconds since the epoch.',
      registers,
    });
    startTime.set((opts.startTimeMs ?? Date.now()) / 1000);
    const jobSetInfo = new Gauge({
      name: 'cronstable_job_set_info',
      help: 'Fingerprint of the loaded job set.',
      labelNames: ['job_set_id'],
      registers,
      collect() {
        this.reset();
        if (m.ctx) this.set({ job_set_id: m.ctx.jobSetId() }, 1);
      },
    });
    const reloadOk = new Gauge({
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
    const reloadAt = new Gauge({
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
    const overloaded = new Gauge({
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
    this.head = [
      info,
      startTime,
      jobSetInfo,
      this.jobs.counts,
      reloadOk,
      reloadAt,
      overloaded,
    ] as Metric<string>[];
    this.tail = [
      ...slaFamilies(() => m.ctx),
      ...stateAndClusterFamilies(() => m.ctx),
      this.mcpCalls,
    ] as Metric<string>[];
    this.register();
  }

  /** The families in exposition order, all in the registry (the live ones render through it). */
  private register(): void {
    this.order = [...this.head, ...this.runs.families, ...this.jobs.families, ...this.tail];
    this.text.clear();
    for (const metric of this.order) this.text.registerMetric(metric);
  }

  get durationBuckets(): readonly number[] {
    return this.runs.durationBuckets;
  }

  /**
   * Applies `web.metrics.durationBuckets`; a different bucket list resets every job's histogram
   * (counters are untouched, spec 06 §1.4).
   */
  configure(web: WebSection | null | undefined): void {
    if (this.runs.rebucket(metricsSettings(web).durationBuckets)) this.register();
  }

  mcpToolCall(tool: string, outcome: string): void {
    this.mcpCalls.inc({ tool, outcome });
  }

  /** One finished run's accumulators (its slot is counted by the `run-finished` subscriber). */
  observeRun(run: RunRecord): void {
    this.runs.observeRun(run, this.ctx?.scheduler.job(run.job));
  }

  /** Feeds the accumulators from the daemon's recorded runs; returns the detach. */
  attach(ctx: WebContext): () => void {
    this.detach?.();
    this.ctx = ctx;
    this.configure(ctx.config().web);
    const off = ctx.scheduler.subscribe((e) => {
      if (e.type === 'run-finished') {
        this.observeRun(e.run);
        this.runs.observeRunSlot(e.run);
      } else if (e.type === 'slot') {
        if (e.slot.outcome === 'missed-overload') this.runs.observeMissed(e.slot);
        this.runs.observeSlot(e.slot);
      }
    });
    this.detach = () => {
      off();
      if (this.ctx === ctx) this.ctx = null;
      this.detach = null;
    };
    return this.detach;
  }

  /**
   * The exposition for a scrape: OpenMetrics when `Accept` asks for it, else the text format.
   * Scrapes are serialized; a render that runs long (thousands of jobs) yields to the event loop
   * between families so /status probes stay fast.
   */
  exposition(accept: string | undefined): Promise<{ contentType: string; body: string }> {
    const run = this.scrapes.then(() => this.renderAll(accept));
    this.scrapes = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private scrapes: Promise<void> = Promise.resolve();

  private async renderAll(accept: string | undefined): Promise<{ contentType: string; body: string }> {
    const openMetrics = (accept ?? '').includes('application/openmetrics-text');
    const ctx = this.ctx;
    const jobs = ctx ? liveJobs(ctx) : null;
    if (jobs) this.runs.syncJobs(jobs.map((j) => j.name));
    this.jobs.update(jobs);
    const parts: string[] = [];
    let slice = performance.now();
    for (const metric of this.order) {
      const family = await this.render.render(metric, openMetrics);
      if (family !== '') parts.push(family);
      if (performance.now() - slice > SLICE_MS) {
        await yieldToLoop();
        slice = performance.now();
      }
    }
    if (openMetrics) parts.push('# EOF\n');
    return {
      contentType: openMetrics ? OPENMETRICS_CONTENT_TYPE : TEXT_CONTENT_TYPE,
      body: parts.join(''),
    };
  }
}

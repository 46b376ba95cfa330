// The live per-job families (spec 06 §6.2): job counts, job info, enabled, running, next fire and
// the last run. Their values are read from the scheduler when a scrape starts and written into the
// prom-client gauges only where they changed: a series whose value moved is set in place (its label
// set is kept), and a family is rebuilt, in config order, only when its set of series changes (a job
// added or removed, a value appearing or disappearing). So a scrape shows the state at its own
// instant while costing a comparison per value, not a rebuilt family.
import type { Metric } from 'prom-client';
import type { WebContext } from '../api/context.ts';
import type { JobConfig } from '../config/types.ts';
import type { RunRecord } from '../scheduler/history.ts';
import type { JobStatus } from '../scheduler/view.ts';
import { Gauge } from './prom.ts';

/** Static facts of one job, read once per loaded JobConfig (config objects are immutable). */
interface JobFacts {
  name: string;
  enabled: boolean;
  reboot: boolean;
  schedule: string;
  clusterPolicy: string;
}

/** One job at scrape time. */
export interface LiveJob extends JobFacts {
  st: JobStatus | undefined;
  last: RunRecord | undefined;
  /** A runtime pause is in force (spec 10 §1.5). */
  paused: boolean;
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

/** Every configured job the scheduler knows, in config order, with its status and last run. */
export function liveJobs(ctx: WebContext): LiveJob[] {
  const jobs: LiveJob[] = [];
  const status = new Map<string, JobStatus>();
  for (const st of ctx.scheduler.status()) status.set(st.name, st);
  for (const config of ctx.config().jobs) {
    const st = status.get(config.name);
    if (!st) continue;
    const last = ctx.scheduler.history(st.name)?.lastRun();
    jobs.push({ ...factsOf(config), st, last, paused: ctx.scheduler.pauses.active(st.name) !== null });
  }
  return jobs;
}

/** One `job_name` gauge and the values it holds (null: no series for that job). */
class PerJob {
  readonly gauge: Gauge<'job_name'>;
  private names: string[] = [];
  private values: (number | null)[] = [];

  constructor(
    name: string,
    help: string,
    private readonly value: (job: LiveJob) => number | null,
  ) {
    this.gauge = new Gauge({ name, help, labelNames: ['job_name'], registers: [] });
  }

  update(jobs: readonly LiveJob[], sameJobs: boolean): void {
    const next = jobs.map(this.value);
    const prev = this.values;
    let rebuild = !sameJobs || prev.length !== next.length;
    for (let i = 0; !rebuild && i < next.length; i++) rebuild = (prev[i] === null) !== (next[i] === null);
    if (rebuild) {
      this.gauge.reset();
      for (let i = 0; i < jobs.length; i++) {
        const v = next[i];
        if (v !== null && v !== undefined) this.gauge.set({ job_name: jobs[i]!.name }, v);
      }
      this.names = jobs.map((j) => j.name);
    } else {
      for (let i = 0; i < next.length; i++) {
        const v = next[i];
        if (v !== null && v !== undefined && !Object.is(v, prev[i]))
          this.gauge.set({ job_name: this.names[i]! }, v);
      }
    }
    this.values = next;
  }
}

export class JobFamilies {
  readonly counts = new Gauge({
    name: 'cronstable_jobs',
    help: 'Configured jobs by state.',
    labelNames: ['state'],
    registers: [],
  });
  private readonly info = new Gauge({
    name: 'cronstable_job_info',
    help: 'Static facts about each configured job.',
    labelNames: ['job_name', 'schedule', 'cluster_policy'],
    registers: [],
  });
  private readonly perJob: PerJob[] = [
    new PerJob('cronstable_job_enabled', 'Whether the job is enabled.', (j) => (j.enabled ? 1 : 0)),
    new PerJob('cronstable_job_paused', 'Whether a runtime pause holds the job.', (j) => (j.paused ? 1 : 0)),
    new PerJob('cronstable_job_running', 'Running instances of the job.', (j) => j.st?.pids.length ?? 0),
    new PerJob(
      'cronstable_job_next_run_timestamp_seconds',
      'Next scheduled fire, in seconds since the epoch.',
      (j) => (j.enabled && !j.reboot && j.st?.nextFire != null ? j.st.nextFire / 1000 : null),
    ),
    new PerJob(
      'cronstable_job_last_run_timestamp_seconds',
      'When the last run finished, in seconds since the epoch.',
      (j) => (j.last ? j.last.finishedAt / 1000 : null),
    ),
    new PerJob(
      'cronstable_job_last_run_duration_seconds',
      'Duration of the last run.',
      (j) => j.last?.durationSeconds ?? null,
    ),
    new PerJob(
      'cronstable_job_last_run_exit_code',
      'Exit code of the last run.',
      (j) => j.last?.exitCode ?? null,
    ),
    new PerJob('cronstable_job_last_run_success', 'Whether the last run succeeded (1) or not (0).', (j) =>
      j.last ? (j.last.outcome === 'success' ? 1 : 0) : null,
    ),
  ];
  private enabled = -1;
  private disabled = -1;
  /** The job names and the info labels the families were last built for. */
  private jobsKey: string | null = null;
  private infoKey: string | null = null;

  /** `cronstable_job_info` and the per-job gauges, in exposition order (after the run families). */
  get families(): Metric<string>[] {
    return [this.info, ...this.perJob.map((p) => p.gauge)] as Metric<string>[];
  }

  /** Brings every family to `jobs` (null: no daemon attached, so no per-job series at all). */
  update(jobs: readonly LiveJob[] | null): void {
    if (jobs === null) {
      if (this.jobsKey === '' && this.infoKey === '') return;
      this.info.reset();
      for (const p of this.perJob) p.update([], false);
      this.jobsKey = '';
      this.infoKey = '';
      return;
    }
    let enabled = 0;
    for (const j of jobs) if (j.enabled) enabled++;
    if (enabled !== this.enabled || jobs.length - enabled !== this.disabled) {
      this.counts.set({ state: 'enabled' }, enabled);
      this.counts.set({ state: 'disabled' }, jobs.length - enabled);
      this.enabled = enabled;
      this.disabled = jobs.length - enabled;
    }
    const jobsKey = jobs.map((j) => j.name).join('\u0000');
    const sameJobs = jobsKey === this.jobsKey;
    this.jobsKey = jobsKey;
    const infoKey = sameJobs ? this.infoOf(jobs) : null;
    if (!sameJobs || infoKey !== this.infoKey) {
      this.info.reset();
      for (const job of jobs)
        this.info.set({ job_name: job.name, schedule: job.schedule, cluster_policy: job.clusterPolicy }, 1);
      this.infoKey = infoKey ?? this.infoOf(jobs);
    }
    for (const p of this.perJob) p.update(jobs, sameJobs);
  }

  private infoOf(jobs: readonly LiveJob[]): string {
    return jobs.map((j) => `${j.schedule}\u0000${j.clusterPolicy}`).join('\u0001');
  }
}

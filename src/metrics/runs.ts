// The accumulated per-job families (spec 06 §6.2): runs, retries, permanent and start failures,
// missed fires, settled slots, the duration histogram and the last success/failure times. They are
// written when a run finishes or a slot settles, never at scrape time; every configured job has its
// zero-filled series, sorted by job name once the job set changes.
import type { Metric } from 'prom-client';
import type { JobConfig } from '../config/types.ts';
import type { RunRecord, SlotRecord } from '../scheduler/history.ts';
import { fateOf, settledWithoutRun } from '../util/slot-outcomes.ts';
import { byJob, byJobStatus, sortSeries } from './exposition.ts';
import { Counter, Gauge, Histogram } from './prom.ts';

const STATUSES = ['success', 'failure', 'cancelled', 'skipped'] as const;
const REPLACED = 'replaced by a newer instance';

export class RunFamilies {
  private readonly runsTotal = new Counter({
    name: 'cronstable_job_runs_total',
    help: 'Finished runs per job and outcome.',
    labelNames: ['job_name', 'status'],
    registers: [],
  });
  private readonly retriesTotal = new Counter({
    name: 'cronstable_job_retries_total',
    help: 'Retry attempts launched per job.',
    labelNames: ['job_name'],
    registers: [],
  });
  private readonly permanentTotal = new Counter({
    name: 'cronstable_job_permanent_failures_total',
    help: 'Failures with no retry left, per job.',
    labelNames: ['job_name'],
    registers: [],
  });
  private readonly startFailuresTotal = new Counter({
    name: 'cronstable_job_start_failures_total',
    help: 'Runs whose command could not be launched, per job.',
    labelNames: ['job_name'],
    registers: [],
  });
  private readonly missedTotal = new Counter({
    name: 'cronstable_job_missed_fires_total',
    help: 'Scheduled fires this node could not start (slot outcome missed-overload), per job.',
    labelNames: ['job_name', 'reason'],
    registers: [],
  });
  // The label is `job_name` like every other per-job family: a `job` label collides with the
  // scrape target's own `job` label in Prometheus (it would arrive as `exported_job`).
  private readonly slotsTotal = new Counter({
    name: 'cronstable_job_slots_total',
    help: 'Scheduled slots this node settled, per job and slot outcome (see GET /jobs/{name}/slots).',
    labelNames: ['job_name', 'outcome'],
    registers: [],
  });
  private duration: Histogram<'job_name'>;
  private readonly lastSuccess = new Gauge({
    name: 'cronstable_job_last_success_timestamp_seconds',
    help: 'Time of the last successful run, in seconds since the epoch.',
    labelNames: ['job_name'],
    registers: [],
  });
  private readonly lastFailure = new Gauge({
    name: 'cronstable_job_last_failure_timestamp_seconds',
    help: 'Time of the last failed run, in seconds since the epoch.',
    labelNames: ['job_name'],
    registers: [],
  });
  private readonly accJobs = new Set<string>();
  /** The job names the series were last zero-filled and sorted for ('' after a new job appeared). */
  private knownJobs = '';

  constructor(private buckets: readonly number[]) {
    this.duration = this.newHistogram();
  }

  /** In exposition order. */
  get families(): Metric<string>[] {
    return [
      this.runsTotal,
      this.retriesTotal,
      this.permanentTotal,
      this.startFailuresTotal,
      this.missedTotal,
      this.slotsTotal,
      this.duration,
      this.lastSuccess,
      this.lastFailure,
    ] as Metric<string>[];
  }

  get durationBuckets(): readonly number[] {
    return this.buckets;
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

  /** A different bucket list resets every job's histogram (counters are untouched, spec 06 §1.4). */
  rebucket(next: readonly number[]): boolean {
    if (next.length === this.buckets.length && next.every((b, i) => b === this.buckets[i])) return false;
    this.buckets = [...next];
    this.duration = this.newHistogram();
    for (const name of this.accJobs) this.duration.zero({ job_name: name });
    this.knownJobs = '';
    return true;
  }

  /** One finished run (spec 06 §6.2 accumulators); `job` is its config when still loaded. */
  observeRun(run: RunRecord, job: JobConfig | undefined): void {
    const name = run.job;
    this.ensureJob(name);
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
    if (slot.runId !== null || !settledWithoutRun(slot.outcome)) return;
    this.ensureJob(slot.job);
    const outcome = fateOf({ outcome: slot.outcome, trigger: 'schedule', failReason: slot.detail });
    this.slotsTotal.inc({ job_name: slot.job, outcome }, slot.count ?? 1);
    // A paused slot is a skipped run to `runs_total` (spec 10 §1.5).
    if (outcome === 'paused') this.runsTotal.inc({ job_name: slot.job, status: 'skipped' }, slot.count ?? 1);
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
  syncJobs(names: readonly string[]): void {
    const key = names.join('\u0000');
    if (key === this.knownJobs) return;
    const keep = new Set(names);
    for (const name of this.accJobs) {
      if (keep.has(name)) continue;
      for (const status of STATUSES) this.runsTotal.remove({ job_name: name, status });
      for (const c of [this.retriesTotal, this.permanentTotal, this.startFailuresTotal])
        c.remove({ job_name: name });
      this.missedTotal.remove({ job_name: name, reason: 'overload' });
      this.duration.remove({ job_name: name });
      this.lastSuccess.remove({ job_name: name });
      this.lastFailure.remove({ job_name: name });
      this.accJobs.delete(name);
    }
    for (const name of keep) this.ensureJob(name);
    this.knownJobs = key;
    sortSeries(this.runsTotal as Metric<string>, byJobStatus);
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

// The SLA monitor's edge (spec 09 §2.2-§2.6): it follows the scheduler's events into each job's
// track, runs one pass per wall-clock minute (and one at start) through the pure planner, and turns
// transitions into log lines, metric values and `onLate` reports. Reports go out off the scheduler
// path, one chain per job behind the job's completion reports already under way, drained at shutdown.
// At boot with a store it reads, in the background and one job at a time, the ledger's last success
// of each job with a maxTimeSinceSuccess check that knows none (§2.4 step 2). The monitor keeps everything in memory and dies with
// the daemon: pair it with an outside alert on `cronstable_job_last_success_timestamp_seconds`.
import type { SlaCheck } from '../../config/sla.ts';
import type { JobConfig } from '../../config/types.ts';
import type { Clock, TimerHandle } from '../../util/clock.ts';
import { errorText } from '../../util/errors.ts';
import type { Logger } from '../../util/log.ts';
import type { SchedulerEvent } from '../events.ts';
import type { SchedulerView } from '../view.ts';
import { type JobFacts, observations, passJob, type Transition } from './plan.ts';
import { excusesDue, type JobTrack, markActive, markInactive, newTrack, recordSuccess } from './track.ts';

export const SLA_PASS_MS = 60_000;

/** One breach as the report and the payload carry it. */
export interface SlaBreach {
  check: SlaCheck;
  thresholdSeconds: number;
  observedSeconds: number;
  /** The latch instant (epoch ms). */
  since: number;
  lastSuccessAt: number | null;
}

/** A job's `sla` object (spec 09 §2.8): the latched checks, re-measured at the asking instant. */
export interface SlaState {
  thresholds: Partial<Record<keyof JobConfig['sla'], number>>;
  state: 'ok' | 'late';
  breaches: Omit<SlaBreach, 'lastSuccessAt'>[];
}

/** One (job, check) metric pair: evaluated at least once. */
export interface SlaSeries {
  job: string;
  check: SlaCheck;
  late: 0 | 1;
  breaches: number;
}

export interface SlaMonitorDeps {
  clock: Clock;
  log: Logger;
  scheduler: Pick<SchedulerView, 'subscribe' | 'history' | 'pauses' | 'reportsSettled'>;
  /** Whether this node owns the job now (cluster gate; a single node owns everything). */
  owns(job: JobConfig): boolean;
  /** Sends the job's `onLate` report for one breach; may reject (logged). */
  report(job: JobConfig, breach: SlaBreach): Promise<void>;
  /** A store rehydrates history: with no success in it, its oldest finish is the reference. */
  hasStore: boolean;
  /**
   * With a store: the job's last success from the ledger's newest max(1000, maxRunsPerJob) rows, else
   * the oldest finish among them (`success: false`), else null. Read once per job at boot.
   */
  ledgerReference?: (job: string) => Promise<{ at: number; success: boolean } | null>;
  /** Pass period (default one wall-clock minute, aligned to the minute); a test hook shortens it. */
  passMs?: number;
}

export class SlaMonitor {
  private readonly tracks = new Map<string, JobTrack>();
  /** The jobs in config order, each beside its track (a pass walks this, with no lookups). */
  private entries: { job: JobConfig; track: JobTrack }[] = [];
  private readonly byName = new Map<string, JobConfig>();
  private timer: TimerHandle | null = null;
  private off: (() => void) | null = null;
  private readonly chains = new Map<string, Promise<void>>();
  private stopped = false;

  constructor(private readonly deps: SlaMonitorDeps) {}

  /** Installs the job list (start and every reload): new jobs are first seen now, removed ones forgotten. */
  configure(jobs: readonly JobConfig[]): void {
    const now = this.deps.clock.now();
    this.entries = [];
    this.byName.clear();
    for (const job of jobs) {
      this.byName.set(job.name, job);
      let t = this.tracks.get(job.name);
      if (!t) {
        t = newTrack(now);
        this.tracks.set(job.name, t);
      }
      if (job.enabled) markActive(t, now);
      else markInactive(t, now);
      this.entries.push({ job, track: t });
    }
    for (const name of [...this.tracks.keys()]) if (!this.byName.has(name)) this.tracks.delete(name);
  }

  start(): void {
    this.off = this.deps.scheduler.subscribe((e) => this.onEvent(e));
    this.pass();
    this.arm();
    const read = this.deps.ledgerReference;
    if (read) this.warmUp = this.readLedger(read);
  }

  /** The boot-time ledger read (tests await it); settled at once without a store. */
  warmUp: Promise<void> = Promise.resolve();

  /**
   * §2.4 step 2, off the scheduler path: one bounded read at a time, only for jobs whose check needs a
   * reference and that know no success yet. A success that finishes live meanwhile is newer than any
   * the ledger holds, and `recordSuccess` keeps the newest, so it wins.
   */
  private async readLedger(read: NonNullable<SlaMonitorDeps['ledgerReference']>): Promise<void> {
    for (const { job, track: t } of [...this.entries]) {
      if (this.stopped) return;
      if (job.sla.maxTimeSinceSuccessSeconds == null || t.lastSuccess !== null) continue;
      let ref: { at: number; success: boolean } | null;
      try {
        ref = await read(job.name);
      } catch (e) {
        this.deps.log.warning(
          `state: reading the run ledger of ${job.name} for its SLA failed: ${errorText(e)}`,
        );
        continue;
      }
      if (ref?.success) recordSuccess(t, ref.at);
      else if (ref) t.ledgerOldest = ref.at;
    }
  }

  private arm(): void {
    if (this.stopped) return;
    const every = this.deps.passMs ?? SLA_PASS_MS;
    const now = this.deps.clock.now();
    // The reference's minute housekeeping: aligned to the wall-clock minute.
    const delay = every === SLA_PASS_MS ? SLA_PASS_MS - (now % SLA_PASS_MS) : every;
    this.timer = this.deps.clock.setTimer(() => {
      this.timer = null;
      try {
        this.pass();
      } catch (e) {
        this.deps.log.error(`SLA monitor pass failed: ${errorText(e, { stack: true })}`);
      }
      this.arm();
    }, delay);
  }

  /** Follows the scheduler: due slots, launches, running instances, successes, excused slots. */
  onEvent(e: SchedulerEvent): void {
    switch (e.type) {
      case 'due': {
        const t = this.tracks.get(e.job.name);
        if (t && this.deps.owns(e.job)) t.due = e.scheduledAt;
        return;
      }
      case 'run-started': {
        const t = this.tracks.get(e.job.name);
        if (!t) return;
        t.lastLaunch = Math.max(t.lastLaunch ?? Number.NEGATIVE_INFINITY, this.deps.clock.now());
        t.running.set(e.runId, e.startedAt);
        return;
      }
      case 'run-finished': {
        const t = this.tracks.get(e.job.name);
        if (!t) return;
        t.running.delete(e.run.id);
        if (e.run.outcome === 'success') recordSuccess(t, e.run.finishedAt);
        return;
      }
      case 'slot': {
        const t = this.tracks.get(e.slot.job);
        if (t && t.due === e.slot.scheduledAt && excusesDue(e.slot.outcome, e.slot.detail)) t.due = null;
        return;
      }
      default:
        return;
    }
  }

  /** One facts object reused across a pass's jobs (the pass must not allocate per job). */
  private readonly scratch: JobFacts = {
    sla: { maxTimeSinceSuccessSeconds: null, lateAfterSeconds: null, maxRuntimeSeconds: null },
    enabled: true,
    paused: false,
    owned: true,
    historySuccess: null,
    historyOldest: null,
  };

  private facts(job: JobConfig, t: JobTrack, into: JobFacts = { ...this.scratch }): JobFacts {
    let historySuccess: number | null = null;
    let historyOldest: number | null = null;
    // Only a job that has seen no success reads its history (rehydrated runs arrive after start).
    if (job.sla.maxTimeSinceSuccessSeconds != null && t.lastSuccess === null) {
      const runs = this.deps.scheduler.history(job.name)?.recentRuns() ?? [];
      for (const r of runs) {
        if (r.outcome === 'success' && (historySuccess === null || r.finishedAt > historySuccess))
          historySuccess = r.finishedAt;
        if (historyOldest === null || r.finishedAt < historyOldest) historyOldest = r.finishedAt;
      }
      if (historySuccess !== null) recordSuccess(t, historySuccess);
    }
    into.sla = job.sla;
    into.enabled = job.enabled;
    into.paused = this.deps.scheduler.pauses.active(job.name) !== null;
    into.owned = this.deps.owns(job);
    into.historySuccess = historySuccess;
    // The oldest finish seen, in memory or in the ledger's rows read at boot: later pages, never earlier.
    const ledgerOldest = t.ledgerOldest;
    if (ledgerOldest !== null && (historyOldest === null || ledgerOldest < historyOldest))
      historyOldest = ledgerOldest;
    into.historyOldest = this.deps.hasStore ? historyOldest : null;
    return into;
  }

  /** One pass over every job (§2.2); returns the transitions (the benchmark and tests read them). */
  pass(): Transition[] {
    const now = this.deps.clock.now();
    const all: Transition[] = [];
    for (const { job, track: t } of this.entries) {
      if (
        job.sla.maxTimeSinceSuccessSeconds == null &&
        job.sla.lateAfterSeconds == null &&
        job.sla.maxRuntimeSeconds == null
      ) {
        t.latches.clear();
        continue;
      }
      for (const tr of passJob(t, this.facts(job, t, this.scratch), now)) {
        all.push(tr);
        this.apply(job, tr);
      }
    }
    return all;
  }

  private apply(job: JobConfig, tr: Transition): void {
    const obs = tr.observedSeconds.toFixed(0);
    if (tr.kind === 'recover') {
      this.deps.log.info(
        `Job ${job.name}: SLA check ${tr.check} recovered (observed ${obs}s is back within the threshold of ${tr.thresholdSeconds}s)`,
      );
      return;
    }
    this.deps.log.warning(
      `Job ${job.name}: SLA check ${tr.check} breached: observed ${obs}s exceeds the threshold of ${tr.thresholdSeconds}s`,
    );
    const breach: SlaBreach = {
      check: tr.check,
      thresholdSeconds: tr.thresholdSeconds,
      observedSeconds: tr.observedSeconds,
      since: tr.since,
      lastSuccessAt: tr.lastSuccessAt,
    };
    // Per job, in order: after the job's completion reports already under way (the runs that ended
    // before this breach) and its earlier onLate reports; never holding up the pass or other jobs.
    const completions = this.deps.scheduler.reportsSettled(job.name).catch(() => undefined);
    const prev = this.chains.get(job.name) ?? Promise.resolve();
    const next = Promise.all([prev, completions]).then(async () => {
      this.deps.log.info(`Cron job ${job.name}: reporting SLA breach (${tr.check})`);
      try {
        await this.deps.report(job, breach);
      } catch (e) {
        this.deps.log.error(`Problem reporting job ${job.name} SLA breach: ${errorText(e)}`);
      }
    });
    this.chains.set(job.name, next);
    void next.then(() => {
      if (this.chains.get(job.name) === next) this.chains.delete(job.name);
    });
  }

  /** The job's `sla` object, or null for a job without thresholds (no `sla` key at all). */
  view(name: string): SlaState | null {
    const job = this.byName.get(name);
    const t = this.tracks.get(name);
    if (!job || !t) return null;
    const thresholds: SlaState['thresholds'] = {};
    let any = false;
    for (const [k, v] of Object.entries(job.sla) as [keyof JobConfig['sla'], number | null][]) {
      if (v == null) continue;
      thresholds[k] = v;
      any = true;
    }
    if (!any) return null;
    const breaches: SlaState['breaches'] = [];
    if (t.latches.size > 0) {
      const facts = this.facts(job, t);
      for (const o of observations(t, facts, this.deps.clock.now())) {
        const since = t.latches.get(o.check);
        if (since === undefined) continue;
        breaches.push({
          check: o.check,
          since,
          observedSeconds: o.observedSeconds,
          thresholdSeconds: o.thresholdSeconds,
        });
      }
    }
    return { thresholds, state: breaches.length > 0 ? 'late' : 'ok', breaches };
  }

  /** Every (job, check) pair evaluated at least once, in config order (removed jobs pruned). */
  series(): SlaSeries[] {
    const out: SlaSeries[] = [];
    for (const { job, track: t } of this.entries) {
      for (const [check, n] of t.breaches)
        out.push({ job: job.name, check, late: t.latches.has(check) ? 1 : 0, breaches: n });
    }
    return out;
  }

  /** Stops the passes and waits for the reports already under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) this.deps.clock.clearTimer(this.timer);
    this.timer = null;
    this.off?.();
    this.off = null;
    await Promise.all([...this.chains.values()]);
  }
}

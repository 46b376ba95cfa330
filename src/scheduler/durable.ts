// The scheduler's features backed by the store (spec 03 §8), composed: one module a duty under
// durable/ — the run ledger (run-ledger.ts) and archived output (output-archive.ts), onlyIfLastSucceeded
// from the ledger (last-outcome.ts), @reboot once per OS boot (reboot-once.ts) with a surviving run
// standing in for it (inflight.ts), durable retries
// (retry-records.ts), the missed-run catch-up (catchup-plan.ts, catchup.ts), job-API run identities
// (run-identity.ts) and cluster concurrency slots (cluster-slot.ts), all under onStoreUnavailable
// (context.ts). The scheduler consults it through `DurableControl` (given at construction); it follows
// the scheduler's event stream for the ledger and the retry records (`onEvent`), and drives the
// scheduler through `SchedulerControl` at start (re-armed retries, catch-up).
import { randomBytes } from 'node:crypto';
import { jobDigest } from '../cluster/jobset.ts';
import type { JobConfig } from '../config/types.ts';
import type { RunRegistry } from '../jobapi/registry.ts';
import type { Store } from '../store/types.ts';
import type { Clock } from '../util/clock.ts';
import type { Logger } from '../util/log.ts';
import { settledWithoutRun } from '../util/slot-outcomes.ts';
import type { DurableControl, LaunchContext, RunGrant, SchedulerControl, SlotClaim } from './control.ts';
import { CatchUp } from './durable/catchup.ts';
import { ClusterSlots } from './durable/cluster-slot.ts';
import { type StoreSide, storeFailed } from './durable/context.ts';
import { restoreHistories } from './durable/history-restore.ts';
import { InFlight } from './durable/inflight.ts';
import { lastOutcomeFromLedger } from './durable/last-outcome.ts';
import { linuxBootId, rebootAllowed } from './durable/reboot-once.ts';
import { RetryRecords } from './durable/retry-records.ts';
import { registerRun } from './durable/run-identity.ts';
import { RunLedger } from './durable/run-ledger.ts';
import type { SchedulerEvent } from './events.ts';

export interface DurableOptions {
  store: Store;
  registry: RunRegistry | null;
  clock: Clock;
  log: Logger;
  host: string;
  onStoreUnavailable: 'degrade' | 'fail-closed';
  maxRunsPerJob: number;
  slotTtlSeconds: number;
  /** Linux boot id (null where unknown: @reboot then runs on every daemon start). */
  bootId?: string | null;
}

export class DurableFeatures implements DurableControl {
  private readonly side: StoreSide;
  private readonly bootId: string | null;
  private readonly ledger: RunLedger;
  private readonly retries: RetryRecords;
  private readonly catchUp: CatchUp;
  private readonly slots: ClusterSlots;
  private readonly inflight: InFlight;
  private scheduler: SchedulerControl | null = null;

  constructor(private readonly o: DurableOptions) {
    const { store, clock, log, host, onStoreUnavailable } = o;
    this.side = { store, clock, log, host, onStoreUnavailable };
    this.bootId = o.bootId === undefined ? linuxBootId() : o.bootId;
    this.ledger = new RunLedger(this.side, o.maxRunsPerJob);
    this.retries = new RetryRecords(this.side, this.bootId, new Date(clock.now()).toISOString());
    this.catchUp = new CatchUp(this.side, this.ledger);
    this.inflight = new InFlight(this.side, jobDigest);
    const holder = `${host}#${randomBytes(8).toString('hex')}`;
    this.slots = new ClusterSlots(this.side, o.slotTtlSeconds, holder, () => this.scheduler);
  }

  /** The run's job-API identity and staged secrets; a registry failure never prevents the run. */
  register(job: JobConfig, run: LaunchContext): Promise<RunGrant> {
    return registerRun(this.o.registry, this.o.log, job, run);
  }

  /** The scheduler's events this side persists: the run ledger and the durable retry records. */
  readonly onEvent = (e: SchedulerEvent): void => {
    if (e.type === 'run-started')
      this.inflight.runStarted(e.job, e.runId, e.pid, e.startedAt, e.trigger === 'manual');
    else if (e.type === 'run-finished') {
      this.inflight.runFinished(e.job, e.run.id);
      this.ledger.runFinished(e.job, e.run, e.result);
    } else if (e.type === 'slot' && settledWithoutRun(e.slot.outcome)) this.ledger.slotSettled(e.slot);
    else if (e.type === 'retry-armed') this.retries.armed(e.job, e.attempt, e.notBefore);
    else if (e.type === 'retry-settled') this.retries.settled(e.job, e.reason, e.attempt);
  };

  /** The `slots/<job>` lease for concurrencyScope: cluster (spec 02 §10.2). */
  claimSlot(job: JobConfig): Promise<SlotClaim> {
    return this.slots.claim(job);
  }

  lastOutcome(
    job: JobConfig,
    memory: 'success' | 'failure' | null,
  ): Promise<'success' | 'failure' | null | 'blocked'> {
    return lastOutcomeFromLedger(this.side, job, memory);
  }

  rebootAllowed(job: JobConfig): Promise<boolean> {
    return rebootAllowed(this.side, this.bootId, job);
  }

  /** A previous daemon's @reboot run still running in this boot (spec 09 §9.5): its pid, or null. */
  rebootSurvivor(job: JobConfig): Promise<number | null> {
    return this.inflight.rebootSurvivor(job).catch((e) => {
      storeFailed(this.side, `the in-flight record of ${job.name}`, e);
      return null;
    });
  }

  /** At start: re-arm this host's pending retries, then run the catch-up of every job. */
  async start(scheduler: SchedulerControl, jobs: readonly JobConfig[]): Promise<void> {
    this.scheduler = scheduler;
    const anchor = this.o.clock.now();
    // In the background: runs finishing meanwhile stay on top (JobHistory.restore).
    void restoreHistories(this.side, scheduler);
    for (const job of jobs) {
      if (!job.enabled) continue;
      await this.retries
        .rearm(scheduler, job)
        .catch((e) => storeFailed(this.side, `re-arming the retry of ${job.name}`, e));
    }
    for (const job of jobs) {
      // onMissed: skip still looks back, to record the downtime's slots as `missed`.
      if (job.enabled && job.cron) void this.catchUp.run(scheduler, job, anchor);
    }
  }
}

// The scheduler's bookkeeping (spec 02 §9, spec 03 §8): what each fire leaves in the job's history
// and on the event stream — slot outcomes, run records, slots missed under overload, DST notes and
// abandoned retries. The fire path (scheduler.ts) says when; this module says what is written.
import type { RunResult } from '../exec/types.ts';
import type { Clock } from '../util/clock.ts';
import type { Logger } from '../util/log.ts';
import type { SlotOutcome } from '../util/slot-outcomes.ts';
import { isSlotFire } from './admission.ts';
import type { DstNote } from './dst-notes.ts';
import type { EventStream } from './events.ts';
import type { RunRecord, SlotRecord } from './history.ts';
import type { OverloadTracker } from './overload.ts';
import { type JobRuntime, newRunId, type PendingFire, type RunInstance } from './runtime.ts';

/** The fail reason of a run taken back from the spawner's queue when the daemon stopped. */
export const WITHDRAWN_AT_STOP = 'not started: the daemon stopped while its launch was queued';

export class FireBook {
  constructor(
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly events: EventStream,
    private readonly overloads: OverloadTracker,
  ) {}

  /** Records (or updates) the outcome of a fire's slot; fires without a slot have none. */
  slotOutcome(rt: JobRuntime, fire: PendingFire, outcome: SlotOutcome, detail: string | null): void {
    if (!isSlotFire(fire)) return;
    if (fire.slot) {
      fire.slot.outcome = outcome;
      fire.slot.detail = detail;
    } else {
      fire.slot = { job: rt.config.name, scheduledAt: fire.scheduledAt!, outcome, runId: null, detail };
      rt.history.addSlot(fire.slot);
    }
    this.events.emit({ type: 'slot', slot: { ...fire.slot } });
  }

  /** A run that ended cancelled: its ledger record, then its slot's outcome. */
  recordCancelled(
    rt: JobRuntime,
    inst: RunInstance,
    result: RunResult,
    reason: string,
    slot: SlotOutcome = 'cancelled',
    detail: string | null = null,
  ): void {
    this.recordRun(rt, inst, result, 'cancelled', reason);
    this.settleSlot(inst.slot, slot, detail);
  }

  settleSlot(slot: SlotRecord | null, outcome: SlotOutcome, detail: string | null = null): void {
    if (!slot) return;
    slot.outcome = outcome;
    slot.detail = detail;
    this.events.emit({ type: 'slot', slot: { ...slot } });
  }

  /**
   * A retry whose job's cluster ownership moved (spec 02 §8.4 step 4): recorded as a cancelled
   * run that never started, so the ledger shows why the ladder ended; no permanent-failure report.
   */
  retryAbandoned(rt: JobRuntime, fire: PendingFire): void {
    const now = this.clock.now();
    const reason = 'retry abandoned: cluster ownership moved to another node';
    this.log.info(`Cron job ${rt.config.name}: ${reason}`);
    const run: RunRecord = {
      id: newRunId(),
      job: rt.config.name,
      trigger: 'retry',
      attempt: fire.ladder?.count ?? 0,
      scheduledAt: fire.scheduledAt,
      outcome: 'cancelled',
      exitCode: null,
      startedAt: null,
      finishedAt: now,
      durationSeconds: null,
      failReason: reason,
      startFailed: false,
      stdout: null,
      stderr: null,
      lines: [],
    };
    rt.history.addRun(run);
    const result: RunResult = {
      exitCode: 0,
      startFailed: false,
      stdout: null,
      stderr: null,
      stdoutDiscarded: 0,
      stderrDiscarded: 0,
      failReason: reason,
      cancelReason: null,
      startedAt: now,
      finishedAt: now,
      durationSeconds: 0,
      environment: null,
      ring: [],
      publishedLines: 0,
    };
    this.events.emit({ type: 'run-finished', job: rt.config, run, result });
  }

  /** A retry a gate deferred (a pause): postponed on its ladder, neither consumed nor cancelled (spec 10 §1.3). */
  retryDeferred(rt: JobRuntime, fire: PendingFire, until: number, reason: string): void {
    // Each re-check is a new fire, so the ladder counts the deferrals; only the first logs at INFO.
    const secs = Math.round(Math.max(0, until - this.clock.now()) / 1000);
    const n = fire.ladder?.count ?? 0;
    const line = `Cron job ${rt.config.name} retry (#${n}) deferred: ${reason}; re-checking in ${secs} seconds`;
    if (fire.ladder?.postponed === 0) this.log.info(line);
    else this.log.debug(line);
    fire.ladder?.postpone(until);
  }

  /** A slot a pause held: the synthetic `skipped` row of `/runs` (spec 10 §1.3); no run, no report. */
  pausedRow(rt: JobRuntime, fire: PendingFire): void {
    if (fire.scheduledAt === null) return;
    const skip = { job: rt.config.name, scheduledAt: fire.scheduledAt, finishedAt: this.clock.now() };
    rt.history.addSkip({ ...skip, reason: 'paused' });
  }

  /** Slots that will not run because the node is overloaded (or was stalled): recorded compactly. */
  recordMissed(rt: JobRuntime, instants: number[], atLeast: boolean, why: string): void {
    for (const slot of this.overloads.missed(rt.config.name, instants, atLeast, why)) {
      rt.history.addSlot(slot);
      this.events.emit({ type: 'slot', slot: { ...slot } });
    }
  }

  /**
   * A DST policy note (issue 15): a dropped slot is a slot of its own; a shifted or repeated fire's note
   * goes to the ledger beside the fire's own slot record.
   */
  recordDstNote(rt: JobRuntime, note: DstNote): void {
    const slot: SlotRecord = {
      job: rt.config.name,
      scheduledAt: note.at,
      outcome: note.outcome,
      runId: null,
      detail: note.detail,
    };
    if (note.outcome === 'dst-skipped') rt.history.addSlot(slot);
    this.log.info(
      `Cron job ${rt.config.name}: ${note.outcome} at ${new Date(note.at).toISOString()}: ${note.detail}`,
    );
    this.events.emit({ type: 'slot', slot: { ...slot } });
  }

  /** The run's ledger record, added to the job's history and published. */
  recordRun(
    rt: JobRuntime,
    inst: RunInstance,
    result: RunResult,
    outcome: RunRecord['outcome'],
    failReason: string | null,
  ): RunRecord {
    const run: RunRecord = {
      id: inst.id,
      job: rt.config.name,
      trigger: inst.trigger,
      attempt: inst.attempt,
      scheduledAt: inst.scheduledAt,
      outcome,
      exitCode: result.exitCode,
      startedAt: result.startedAt,
      finishedAt: inst.endedAt ?? this.clock.now(),
      durationSeconds: result.durationSeconds,
      failReason,
      startFailed: result.startFailed,
      stdout: result.stdout,
      stderr: result.stderr,
      lines: result.ring,
      publishedLines: result.publishedLines,
      secrets: inst.secrets,
    };
    rt.history.addRun(run);
    this.events.emit({ type: 'run-finished', job: rt.config, run, result });
    return run;
  }
}

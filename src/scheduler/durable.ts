// Scheduler features backed by the store (spec 03 §8): the run ledger, archived output,
// onlyIfLastSucceeded from the ledger, @reboot once per OS boot, durable retries, missed-run
// catch-up, job-API run identities and cluster concurrency slots, under onStoreUnavailable.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { jobDigest } from '../cluster/jobset.ts';
import type { JobConfig } from '../config/types.ts';
import { redactLines } from '../exec/redact.ts';
import type { RunResult } from '../exec/types.ts';
import type { RunRegistry } from '../jobapi/registry.ts';
import { resolveRunSecrets, type SecretWarning } from '../jobapi/secrets.ts';
import { nextFire } from '../schedule/index.ts';
import type { Json, Lease, Store } from '../store/types.ts';
import type { Clock, TimerHandle } from '../util/clock.ts';
import { errorText } from '../util/errors.ts';
import type { Logger } from '../util/log.ts';
import { settledWithoutRun } from '../util/slot-outcomes.ts';
import type { DurableControl, LaunchContext, RunGrant, SchedulerControl, SlotClaim } from './control.ts';
import type { SchedulerEvent } from './events.ts';
import type { RunRecord, SlotRecord } from './history.ts';
import { compactMissed } from './missed.ts';

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

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const MAX_CATCHUP = 100;
/**
 * Waits before a failed catch-up tries again: a store that timed out while a fleet booted is
 * usually back within seconds, and a restarted fleet's missed slots should not wait 30 s for it.
 */
export const CATCHUP_RETRY_MS = [2000, 5000, 15_000, 30_000] as const;

export function linuxBootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/** crc32 (IEEE), for the deterministic catch-up jitter every node computes alike. */
export function crc32(text: string): number {
  let crc = 0xffffffff;
  for (const byte of new TextEncoder().encode(text)) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/**
 * The catch-up plan of spec 03 §8.2 (pure): the missed instants after the watermark up to
 * `now`, one for run-once (the latest), at most 100 for run-all.
 */
export function missedSlots(
  job: JobConfig,
  watermarkMs: number,
  nowMs: number,
): { slots: number[]; dropped: number } {
  if (!job.cron || job.onMissed === 'skip') return { slots: [], dropped: 0 };
  const all: number[] = [];
  let at = nextFire(job.cron, job.frame, watermarkMs, job.dst);
  while (at !== null && at <= nowMs && all.length <= 100_000) {
    all.push(at);
    at = nextFire(job.cron, job.frame, at, job.dst);
  }
  if (job.onMissed === 'run-once') return { slots: all.slice(-1), dropped: 0 };
  return { slots: all.slice(0, MAX_CATCHUP), dropped: Math.max(0, all.length - MAX_CATCHUP) };
}

/**
 * The slots of a downtime that the catch-up plan does not run (pure): every instant after the
 * watermark up to `now` (at most `cap`; `atLeast` when there were more) minus the planned ones.
 * They go to the ledger as `missed`, so the slot view accounts for them (issue 15).
 */
export function downtimeMissed(
  job: JobConfig,
  watermarkMs: number,
  nowMs: number,
  planned: readonly number[],
  cap = 100_000,
): { instants: number[]; atLeast: boolean } {
  if (!job.cron) return { instants: [], atLeast: false };
  const run = new Set(planned);
  const instants: number[] = [];
  let at = nextFire(job.cron, job.frame, watermarkMs);
  let seen = 0;
  while (at !== null && at <= nowMs) {
    if (++seen > cap) return { instants, atLeast: true };
    if (!run.has(at)) instants.push(at);
    at = nextFire(job.cron, job.frame, at);
  }
  return { instants, atLeast: false };
}

/**
 * The scheduler consults it through `DurableControl` (given at construction); it follows the
 * scheduler's event stream for the ledger and the durable retry records (`onEvent`), and drives
 * the scheduler through `SchedulerControl` at start (re-armed retries, catch-up).
 */
export class DurableFeatures implements DurableControl {
  private readonly proc = randomBytes(8).toString('hex');
  /** Records from before this instant belong to an earlier daemon process. */
  private readonly startedAt: string;
  private readonly bootId: string | null;
  private readonly secretValues = new Map<string, string[]>();
  private scheduler: SchedulerControl | null = null;

  constructor(private readonly o: DurableOptions) {
    this.bootId = o.bootId === undefined ? linuxBootId() : o.bootId;
    this.startedAt = new Date(o.clock.now()).toISOString();
  }

  private get holder(): string {
    return `${this.o.host}#${this.proc}`;
  }

  private storeFailed(what: string, e: unknown): void {
    this.o.log.warning(`state: ${what} failed: ${errorText(e)}`);
  }

  /** Background durable write: never blocks a launch, failures are logged. */
  private write(what: string, fn: () => Promise<unknown>): void {
    fn().catch((e) => this.storeFailed(what, e));
  }

  /** The run's job-API identity and staged secrets; a registry failure never prevents the run. */
  async register(job: JobConfig, run: LaunchContext): Promise<RunGrant> {
    const registry = this.o.registry;
    if (!registry) return {};
    try {
      const warnings: SecretWarning[] = [];
      const secrets = await resolveRunSecrets(job.secrets, process.env, warnings);
      for (const w of warnings)
        this.o.log.warning(`Job ${job.name}: secret '${w.name}' is not staged: ${w.reason}`);
      const reg = registry.register({
        runId: run.id,
        jobName: job.name,
        attempt: run.attempt,
        scheduledAt: iso(run.scheduledAt),
        defaultScope: job.name,
        allowedScopes: job.stateAllowedScopes,
        secrets,
      });
      const secretValues = Object.values(secrets);
      this.secretValues.set(run.id, secretValues);
      return { env: reg.env, secretValues, release: () => registry.unregister(reg.token) };
    } catch (e) {
      this.storeFailed(`registering job ${job.name} with the job API`, e);
      return {};
    }
  }

  /** The scheduler's events this side persists: the run ledger and the durable retry records. */
  readonly onEvent = (e: SchedulerEvent): void => {
    if (e.type === 'run-finished') this.runRecorded(e.job, e.run, e.result);
    else if (e.type === 'slot' && settledWithoutRun(e.slot.outcome)) this.slotWithoutRun(e.slot);
    else if (e.type === 'retry-armed') this.retryArmed(e.job, e.attempt, e.notBefore);
    else if (e.type === 'retry-settled') this.retrySettled(e.job, e.reason, e.attempt);
  };

  /** The `slots/<job>` lease for concurrencyScope: cluster (spec 02 §10.2). */
  async claimSlot(job: JobConfig): Promise<SlotClaim> {
    const name = `slots/${job.name}`;
    const ttl = this.o.slotTtlSeconds;
    const store = this.o.store;
    let lease: Lease | null;
    try {
      lease = await store.leaseAcquire(name, this.holder, ttl);
      if (!lease && job.concurrencyPolicy === 'Replace') lease = await this.takeOverSlot(name);
    } catch (e) {
      if (this.o.onStoreUnavailable === 'fail-closed')
        return {
          skip: `its cluster concurrency slot cannot be claimed (state store unavailable: ${errorText(e)})`,
        };
      this.o.log.warning(`Job ${job.name}: state store unavailable; enforcing concurrency on this node only`);
      return {};
    }
    if (!lease) {
      const holder = (await store.leaseRead(name).catch(() => null))?.holder ?? 'another node';
      return {
        skip: `its cluster concurrency slot is held by ${holder.split('#')[0]} (concurrencyPolicy ${job.concurrencyPolicy})`,
      };
    }
    let current: Lease = lease;
    const clock = this.o.clock;
    let timer: TimerHandle | null = null;
    const renew = () => {
      timer = clock.setTimer(
        async () => {
          try {
            const cancel = await store.newest(name);
            const data = cancel?.data as { kind?: string; fence?: number } | undefined;
            if (data?.kind === 'cancel' && data.fence === current.fence) {
              this.o.log.info(
                `Job ${job.name}: another node replaces it (cluster Replace); cancelling the local run`,
              );
              await this.scheduler?.cancelJob(job.name, 'replaced');
            }
            const next = await store.leaseRenew(current, ttl);
            if (next) current = next;
            else
              this.o.log.warning(
                `Job ${job.name}: lost its cluster concurrency slot; it keeps running (at-least-once)`,
              );
          } catch (e) {
            this.storeFailed(`renewing the concurrency slot of ${job.name}`, e);
          }
          renew();
        },
        Math.max(1000, (ttl * 1000) / 3),
      );
    };
    renew();
    return {
      release: async () => {
        if (timer) clock.clearTimer(timer);
        await store
          .leaseRelease(current)
          .catch((e) => this.storeFailed(`releasing the slot of ${job.name}`, e));
      },
    };
  }

  /** Replace across the fleet: ask the holder to yield, then wait for the slot (bounded). */
  private async takeOverSlot(name: string): Promise<Lease | null> {
    const store = this.o.store;
    const held = await store.leaseRead(name);
    if (!held) return store.leaseAcquire(name, this.holder, this.o.slotTtlSeconds);
    await store.append(
      name,
      { kind: 'cancel', fence: held.fence, by: this.o.host, at: this.o.clock.now() / 1000 },
      { keep: 8 },
    );
    const deadline = this.o.clock.now() + 2 * this.o.slotTtlSeconds * 1000;
    const step = Math.max(1000, (this.o.slotTtlSeconds * 1000) / 6);
    while (this.o.clock.now() < deadline) {
      await new Promise<void>((resolve) => this.o.clock.setTimer(resolve, step));
      const lease = await store.leaseAcquire(name, this.holder, this.o.slotTtlSeconds);
      if (lease) return lease;
    }
    return null;
  }

  async lastOutcome(
    job: JobConfig,
    memory: 'success' | 'failure' | null,
  ): Promise<'success' | 'failure' | null | 'blocked'> {
    try {
      const rows = await this.o.store.list(`runs/${job.name}`, { newestFirst: true, limit: 50 });
      let best: { at: string; outcome: 'success' | 'failure' } | null = null;
      for (const r of rows) {
        const d = r.data as { outcome?: string; finished_at?: string };
        if (
          (d.outcome === 'success' || d.outcome === 'failure') &&
          d.finished_at &&
          (!best || d.finished_at > best.at)
        )
          best = { at: d.finished_at, outcome: d.outcome };
      }
      // The in-memory outcome is newer than anything the ledger can hold for this process.
      return memory ?? best?.outcome ?? null;
    } catch (e) {
      this.storeFailed(`reading the run ledger of ${job.name}`, e);
      return this.o.onStoreUnavailable === 'fail-closed' ? 'blocked' : memory;
    }
  }

  async rebootAllowed(job: JobConfig): Promise<boolean> {
    if (!this.bootId) return true;
    const stream = `reboot/${job.name}`;
    const digest = jobDigest(job);
    try {
      const rows = await this.o.store.list(stream, { newestFirst: true, limit: 32 });
      const seen = rows.some((r) => {
        const d = r.data as { host?: string; bootId?: string; jobDigest?: string };
        return d.host === this.o.host && d.bootId === this.bootId && d.jobDigest === digest;
      });
      if (seen) return false;
      await this.o.store.append(
        stream,
        { host: this.o.host, bootId: this.bootId, jobDigest: digest, at: iso(this.o.clock.now()) },
        { keep: 32 },
      );
      return true;
    } catch (e) {
      this.storeFailed(`the @reboot marker of ${job.name}`, e);
      return this.o.onStoreUnavailable !== 'fail-closed';
    }
  }

  private runRecorded(job: JobConfig, run: RunRecord, result: RunResult): void {
    const record: Json = {
      outcome: run.outcome,
      exit_code: run.exitCode,
      started_at: iso(run.startedAt),
      finished_at: iso(run.finishedAt),
      duration: run.durationSeconds,
      fail_reason: run.failReason,
      resources: null,
      run_id: run.id,
      trigger: run.trigger,
      attempt: run.attempt,
      scheduled_at: iso(run.scheduledAt),
    };
    const keep = this.o.maxRunsPerJob;
    const secrets = this.secretValues.get(run.id) ?? [];
    this.secretValues.delete(run.id);
    this.write(`appending the run of ${job.name} to the ledger`, async () => {
      await this.o.store.append(`runs/${job.name}`, record, { keep });
      if (!job.archiveOutput || job.saveLimit === 0 || run.startedAt === null) return;
      const raw = result.ring.map((l) => l.line.replace(/\n$/, ''));
      const redacted = job.redactArchivedSecrets
        ? redactLines(raw, secrets)
        : { lines: raw, redacted: false };
      await this.o.store.append(
        `logs/${job.name}`,
        {
          finished_at: iso(run.finishedAt),
          outcome: run.outcome,
          exit_code: run.exitCode,
          redacted: redacted.redacted,
          dropped_lines: Math.max(0, result.publishedLines - result.ring.length),
          lines: result.ring.map((l, i) => ({ stream: l.stream, line: redacted.lines[i] ?? '' })),
        },
        { keep },
      );
    });
  }

  /**
   * A slot that ends without a run (skipped by a gate, claimed elsewhere, missed under overload)
   * goes to the run ledger as a row without a run, its outcome the slot's (`skipped:overlap`,
   * `missed-overload`...), so the `slots` view holds every slot's fate; a folded missed record
   * carries how many slots it covers (`missed_count`, up to `missed_until`). Readers that want
   * runs filter on outcome (success / failure / cancelled).
   */
  private slotWithoutRun(slot: SlotRecord): void {
    const record: Json = {
      outcome: slot.outcome,
      exit_code: null,
      started_at: null,
      finished_at: iso(this.o.clock.now()),
      duration: null,
      fail_reason: slot.detail,
      resources: null,
      run_id: null,
      trigger: 'schedule',
      attempt: 0,
      scheduled_at: iso(slot.scheduledAt),
      missed_count: slot.count ?? 1,
      missed_until: iso(slot.lastAt ?? slot.scheduledAt),
    };
    this.write(`recording the ${slot.outcome} slot of ${slot.job} in the ledger`, () =>
      this.o.store.append(`runs/${slot.job}`, record, { keep: this.o.maxRunsPerJob }),
    );
  }

  /** The downtime's slots the catch-up will not run, as `missed` ledger rows (folded past a few). */
  private recordMissed(
    job: JobConfig,
    watermarkMs: number,
    anchor: number,
    planned: readonly number[],
  ): void {
    const { instants, atLeast } = downtimeMissed(job, watermarkMs, anchor, planned);
    if (instants.length === 0) return;
    const why = `no node ran it while it was due (daemon down or not running it); onMissed: ${job.onMissed}`;
    for (const rec of compactMissed(job.name, instants, atLeast, why, 'missed')) this.slotWithoutRun(rec);
  }

  private retryArmed(job: JobConfig, attempt: number, notBefore: number): void {
    this.write(`recording the retry of ${job.name}`, () =>
      this.o.store.append(
        `retries/${job.name}`,
        {
          kind: 'pending',
          attempt,
          notBefore: iso(notBefore),
          jobDigest: jobDigest(job),
          host: this.o.host,
          bootId: this.bootId,
          at: iso(this.o.clock.now()),
        },
        { keep: 8 },
      ),
    );
  }

  private retrySettled(job: JobConfig, reason: string, attempt: number): void {
    this.write(`settling the retry of ${job.name}`, () =>
      this.o.store.append(
        `retries/${job.name}`,
        { kind: 'settled', reason, attempt, host: this.o.host, at: iso(this.o.clock.now()) },
        { keep: 8 },
      ),
    );
  }

  /** At start: re-arm this host's pending retries, then run the catch-up of every job. */
  async start(scheduler: SchedulerControl, jobs: readonly JobConfig[]): Promise<void> {
    this.scheduler = scheduler;
    const anchor = this.o.clock.now();
    for (const job of jobs) {
      if (!job.enabled) continue;
      await this.rearm(scheduler, job).catch((e) =>
        this.storeFailed(`re-arming the retry of ${job.name}`, e),
      );
    }
    for (const job of jobs) {
      // onMissed: skip still looks back, to record the downtime's slots as `missed`.
      if (job.enabled && job.cron) void this.catchUp(scheduler, job, anchor);
    }
  }

  private async rearm(scheduler: SchedulerControl, job: JobConfig): Promise<void> {
    const newest = await this.o.store.newest(`retries/${job.name}`);
    const d = newest?.data as
      | {
          kind?: string;
          attempt?: number;
          notBefore?: string;
          jobDigest?: string;
          host?: string;
          at?: string;
          bootId?: string | null;
        }
      | undefined;
    if (d?.kind !== 'pending' || d.host !== this.o.host || typeof d.attempt !== 'number' || !d.notBefore)
      return;
    // A retry this process armed itself is already live.
    if (!d.at || d.at >= this.startedAt) return;
    const settle = (reason: string) => this.retrySettled(job, reason, d.attempt!);
    if (d.jobDigest !== jobDigest(job)) return settle('config-changed');
    const max = job.onFailure.retry.maximumRetries;
    if (max !== -1 && d.attempt > max) return settle('exhausted');
    const notBefore = Date.parse(d.notBefore);
    const deadline = job.startingDeadlineSeconds;
    if (deadline !== null && this.o.clock.now() - notBefore > deadline * 1000)
      return settle('deadline-passed');
    const lastRun = await this.o.store.maxField(`runs/${job.name}`, 'finished_at');
    if (typeof lastRun === 'string' && d.at && lastRun > d.at) return settle('superseded-by-run');
    // An @reboot job's ladder belongs to the boot that started it.
    if (job.reboot && d.bootId !== this.bootId) return settle('superseded');
    scheduler.rearmRetry(job.name, d.attempt, notBefore);
  }

  private async catchUp(
    scheduler: SchedulerControl,
    job: JobConfig,
    anchor: number,
    attempt = 0,
  ): Promise<void> {
    const store = this.o.store;
    try {
      let watermark = await store.maxField(`runs/${job.name}`, 'finished_at');
      const checkpoint = (await store.newest(`catchup/${job.name}`))?.data as
        | { kind?: string; watermark?: string }
        | undefined;
      if (
        checkpoint?.kind === 'open' &&
        checkpoint.watermark &&
        (typeof watermark !== 'string' || checkpoint.watermark < watermark)
      )
        watermark = checkpoint.watermark;
      if (typeof watermark !== 'string') return;
      const watermarkMs = Date.parse(watermark);
      let from = watermarkMs;
      if (job.startingDeadlineSeconds !== null)
        from = Math.max(from, anchor - job.startingDeadlineSeconds * 1000);
      const { slots, dropped } = missedSlots(job, from, anchor);
      this.recordMissed(job, watermarkMs, anchor, slots);
      if (job.onMissed === 'skip') return;
      if (dropped > 0)
        this.o.log.warning(
          `Job ${job.name}: ${dropped} more missed run(s) than the catch-up cap of ${MAX_CATCHUP} are dropped`,
        );
      if (slots.length === 0) return;
      this.o.log.info(
        `Job ${job.name}: catching up ${slots.length} missed run(s) (onMissed: ${job.onMissed})`,
      );
      await store.append(
        `catchup/${job.name}`,
        { kind: 'open', watermark: iso(from), at: iso(this.o.clock.now()) },
        { keep: 8 },
      );
      const jitter = job.catchupJitterSeconds;
      if (jitter > 0) {
        const offset = crc32(job.name) % (jitter * 1000);
        await new Promise<void>((resolve) => this.o.clock.setTimer(resolve, offset));
      }
      for (const at of slots) {
        if (scheduler.shuttingDown || scheduler.job(job.name) === undefined) return;
        await scheduler.runBackfill(job.name, at);
      }
      await store.append(
        `catchup/${job.name}`,
        { kind: 'close', watermark: iso(anchor), at: iso(this.o.clock.now()) },
        { keep: 8 },
      );
    } catch (e) {
      const wait = CATCHUP_RETRY_MS[Math.min(attempt, CATCHUP_RETRY_MS.length - 1)]!;
      this.o.log.warning(
        `state: the catch-up of ${job.name} failed: ${errorText(e)}; retrying in ${wait / 1000} s`,
      );
      this.o.clock.setTimer(() => {
        if (!scheduler.shuttingDown) void this.catchUp(scheduler, job, anchor, attempt + 1);
      }, wait);
    }
  }
}

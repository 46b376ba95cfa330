// The narrow interfaces between the scheduler and what plugs into it, given at construction:
// the store-backed features it consults (DurableControl), the exactly-once fire claim
// (FireClaims), and what the durable side may ask of the scheduler back (SchedulerControl).
import type { JobConfig } from '../config/types.ts';
import type { RunRecord, RunTrigger, SkipRow } from './history.ts';

/** What a launch may carry: injected variables, and what to release when the run ends. */
export interface RunGrant {
  env?: Record<string, string>;
  /** The run's staged secret values, for redacting its output where it leaves the daemon. */
  secretValues?: string[];
  release?: () => void | Promise<void>;
}

export interface LaunchContext {
  id: string;
  attempt: number;
  scheduledAt: number | null;
  trigger: RunTrigger;
}

/** A held cluster concurrency slot (release it when the run ends), or why none could be had. */
export type SlotClaim = { release?: () => Promise<void> } | { skip: string };

/** The store-backed features the admission pipeline and the launch consult (spec 03 §8). */
export interface DurableControl {
  /** onlyIfLastSucceeded: the latest real outcome (`memory` is this process's), or 'blocked'. */
  lastOutcome(
    job: JobConfig,
    memory: 'success' | 'failure' | null,
  ): Promise<'success' | 'failure' | null | 'blocked'>;
  /** @reboot: whether this boot still owes the job its run. */
  rebootAllowed(job: JobConfig): Promise<boolean>;
  /** @reboot: the pid of a previous daemon's run still running in this boot, or null (spec 09 §9.5). */
  rebootSurvivor?(job: JobConfig): Promise<number | null>;
  /** The `slots/<job>` lease of `concurrencyScope: cluster` (spec 02 §10.2). */
  claimSlot(job: JobConfig): Promise<SlotClaim>;
  /** The run's job-API identity (token, injected env); never prevents the launch. */
  register(job: JobConfig, run: LaunchContext): Promise<RunGrant>;
}

/**
 * A fire claim's answer: true = this node won the slot; false or `{ by }` = another node holds it
 * (`by` names it when known); `{ skip }` = no claim could be made and the fire must not run.
 */
export type ClaimAnswer = boolean | { by: string } | { skip: string };

/**
 * The exactly-once backstop of DESIGN.md §4 step 3: whether this node won the fire
 * `(job, scheduledAt)`. May answer synchronously (the local claim does, so a fire that needs no
 * store never waits a tick).
 */
export interface FireClaims {
  claim(job: JobConfig, scheduledAt: number): ClaimAnswer | Promise<ClaimAnswer>;
}

/** A single node owns every fire. */
export const LOCAL_CLAIMS: FireClaims = { claim: () => true };

/** What the durable side drives at start (re-armed retries, catch-up) and for a cluster Replace. */
export interface SchedulerControl {
  readonly shuttingDown: boolean;
  job(name: string): JobConfig | undefined;
  rearmRetry(name: string, attempt: number, notBefore: number): boolean;
  /**
   * Puts a job's runs and pause skips from before this process (oldest first) under the rows it
   * already has.
   */
  restoreHistory(name: string, runs: readonly RunRecord[], skips?: readonly SkipRow[]): void;
  runBackfill(name: string, scheduledAt: number): Promise<'success' | 'failure' | 'cancelled' | null>;
  cancelJob(
    name: string,
    reason?: 'cancelled' | 'replaced',
  ): Promise<'cancelled' | 'not-running' | 'unknown'>;
}

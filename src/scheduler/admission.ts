// Admission of one fire (DESIGN.md §4, spec 02 §2): an ordered list of gates, each a small
// function that lets the fire pass (null) or ends it with a decision. The scheduler runs the
// pipeline once per fire and launches only on `run`; every other decision becomes the slot's
// outcome. A gate answers synchronously unless it must ask the store, so fires that need no
// store pass the whole pipeline in one tick (same-instant fires keep their order).
import type { JobConfig } from '../config/types.ts';
import { errorText } from '../util/errors.ts';
import type { Logger } from '../util/log.ts';
import type { SlotOutcome } from '../util/slot-outcomes.ts';
import type { ClaimAnswer, DurableControl, FireClaims } from './control.ts';
import type { ClusterGate, GateDecision } from './gate.ts';
import type { RunTrigger } from './history.ts';
import type { RetryLadder } from './ladder.ts';
import { iso, type Pause } from './pauses.ts';

export type Decision =
  | { kind: 'run' }
  | { kind: 'skip'; outcome: SlotOutcome; reason: string | null }
  | { kind: 'defer'; until: number; reason: string };

/** One fire on its way through admission. Gates may fill `ladder` and `releases`. */
export interface Fire {
  job: JobConfig;
  trigger: RunTrigger;
  /** The slot instant (schedule, catch-up) or the slot a retry belongs to; null otherwise. */
  scheduledAt: number | null;
  /** The ladder the run joins: set by the ladder step for schedule/@reboot fires. */
  ladder: RetryLadder | null;
  /** What gates acquired (the cluster slot); released when the run ends or the fire is skipped. */
  releases: (() => void | Promise<void>)[];
}

/** What the gates read and do on the scheduler's side. */
export interface AdmissionEnv {
  log: Logger;
  gate: ClusterGate;
  durable: DurableControl | null;
  claims: FireClaims;
  stopping(): boolean;
  /** Instances of the job running on this node. */
  runningCount(job: string): number;
  /** Cancels every running instance as `replaced` and waits until they are gone. */
  replaceRunning(job: string): Promise<void>;
  /** The job's last real outcome in this process's memory. */
  lastOutcome(job: string): 'success' | 'failure' | null;
  /** Cancels the job's pending ladder (`superseded`) and installs a fresh one (or none). */
  freshLadder(job: JobConfig): RetryLadder | null;
  /** The job's runtime pause in force now (spec 10 §1), read from memory only. */
  paused(job: string): Pause | null;
  now(): number;
}

type Step = Decision | null;
export type Gate = (fire: Fire, env: AdmissionEnv) => Step | Promise<Step>;

const PASS = null;
const RUN: Decision = { kind: 'run' };
const skip = (outcome: SlotOutcome, reason: string | null = null): Decision => ({
  kind: 'skip',
  outcome,
  reason,
});

/** Whether the fire is one slot of the schedule (it has a slot outcome, and a fleet-wide claim). */
export function isSlotFire(fire: Fire): boolean {
  return fire.scheduledAt !== null && (fire.trigger === 'schedule' || fire.trigger === 'catchup');
}

/** 1. `enabled: false` never launches (manual start answers 409). */
export const enabledGate: Gate = (fire) => (fire.job.enabled ? PASS : skip('skipped:disabled'));

/**
 * 2. Cluster ownership (spec 05 §3): scheduled, @reboot and retry fires; not manual or catch-up.
 * A retry refused for good (its ownership moved, spec 02 §8.4 step 4) ends its ladder.
 */
export const clusterGate: Gate = (fire, env) => {
  const kind = fire.trigger;
  if (kind !== 'schedule' && kind !== 'reboot' && kind !== 'retry') return PASS;
  const decide = (d: GateDecision): Step => {
    if (d.run) return PASS;
    if (kind === 'retry') env.log.info(`Cron job ${fire.job.name}: retry not run here (${d.reason})`);
    if ('deferUntil' in d) return { kind: 'defer', until: d.deferUntil, reason: d.reason };
    if (kind === 'retry') fire.ladder?.cancel('owner-moved');
    return skip('noQuorum' in d && d.noQuorum ? 'no-quorum' : 'skipped:gate', d.reason);
  };
  const d = env.gate.decide(fire.job, fire.scheduledAt, kind);
  return d instanceof Promise ? d.then(decide) : decide(d);
};

/**
 * 2b. A runtime pause (spec 10 §1.3), after the ownership gate so only the node that would have run
 * the slot records it. A slot is recorded `paused`; an @reboot run waits for the pause's end; a
 * retry is re-checked every max(delay, 1 s), neither consumed nor cancelled. Manual starts pass.
 */
export const pauseGate: Gate = (fire, env) => {
  const kind = fire.trigger;
  if (kind === 'manual') return PASS;
  const p = env.paused(fire.job.name);
  if (!p) return PASS;
  const until = iso(p.untilMs);
  const owedFromBefore = kind === 'catchup' && fire.scheduledAt !== null && fire.scheduledAt < p.sinceMs;
  // Catch-up of a slot owed from before the pause is postponed to the pause's end, not dropped.
  if (kind === 'reboot' || owedFromBefore)
    return { kind: 'defer', until: p.untilMs, reason: `the job is paused until ${until}` };
  if (kind === 'retry') {
    const step = Math.max(1000, fire.job.onFailure.retry.initialDelay * 1000);
    return { kind: 'defer', until: env.now() + step, reason: `the job is paused until ${until}` };
  }
  env.log.info(`Job ${fire.job.name} skipped: paused until ${until}${p.note ? ` (${p.note})` : ''}`);
  return skip('paused', `paused until ${until}`);
};

/** 3. onlyIfLastSucceeded (scheduled and @reboot fires), from the ledger when a store exists. */
export const onlyIfLastSucceededGate: Gate = (fire, env) => {
  const job = fire.job;
  if (!job.onlyIfLastSucceeded || (fire.trigger !== 'schedule' && fire.trigger !== 'reboot')) return PASS;
  const memory = env.lastOutcome(job.name);
  const decide = (last: 'success' | 'failure' | null | 'blocked'): Step => {
    if (last !== 'failure' && last !== 'blocked') return PASS;
    const why = last === 'failure' ? 'its last run failed' : 'its last outcome cannot be read from the store';
    env.log.info(`Job ${job.name} skipped: onlyIfLastSucceeded is set and ${why}`);
    return skip('skipped:only-if-last-succeeded');
  };
  return env.durable ? env.durable.lastOutcome(job, memory).then(decide) : decide(memory);
};

/**
 * 3b. @reboot runs once per OS boot (spec 03 §8.4). A previous daemon's run still running counts
 * as this boot's run whatever the marker says, and nothing is written (spec 09 §9.5).
 */
export const rebootOnceGate: Gate = (fire, env) => {
  const durable = env.durable;
  // Synchronous unless it is an @reboot fire with a store: every other fire passes in this tick.
  if (fire.trigger !== 'reboot' || !durable) return PASS;
  return rebootDecision(fire, env, durable);
};

async function rebootDecision(fire: Fire, env: AdmissionEnv, durable: DurableControl): Promise<Step> {
  const survivor = durable.rebootSurvivor ? await durable.rebootSurvivor(fire.job) : null;
  if (survivor !== null) {
    env.log.info(
      `Job ${fire.job.name} (@reboot): a previous daemon's run (pid ${survivor}) is still running; it counts as the boot run and the launch is skipped`,
    );
    return skip('skipped:already-ran-this-boot');
  }
  if (await durable.rebootAllowed(fire.job)) return PASS;
  env.log.info(`Job ${fire.job.name}: @reboot already ran during this boot; not running it again`);
  return skip('skipped:already-ran-this-boot');
}

/**
 * 3c. The retry ladder. A scheduled or @reboot fire resets it *before* the concurrency check
 * (reference quirk, spec 02 §2.2 step 2: a fire skipped under Forbid still resets the ladder).
 * A retry settles its durable record as `launched` before it can launch (spec 02 §8.4 step 4).
 */
export const ladderStep: Gate = (fire, env) => {
  if (fire.trigger === 'schedule' || fire.trigger === 'reboot') fire.ladder = env.freshLadder(fire.job);
  else if (fire.trigger === 'retry') fire.ladder?.launched();
  return PASS;
};

/** 4. Node concurrency (spec 02 §10.1): Allow runs alongside, Forbid skips, Replace cancels the old run. */
export const nodeConcurrencyGate: Gate = (fire, env) => {
  const job = fire.job;
  if (env.runningCount(job.name) === 0) return PASS;
  env.log.warning(`Job ${job.name}: still running and concurrencyPolicy is ${job.concurrencyPolicy}`);
  if (job.concurrencyPolicy === 'Forbid') return skip('skipped:overlap');
  if (job.concurrencyPolicy === 'Replace') return env.replaceRunning(job.name).then(() => PASS);
  return PASS;
};

/** 4b. No launch once the daemon is stopping. */
export const shutdownGate: Gate = (_fire, env) =>
  env.stopping() ? skip('skipped:gate', 'daemon is shutting down') : PASS;

/** 5. The cluster slot lease of `concurrencyScope: cluster` (spec 02 §10.2). */
export const clusterSlotGate: Gate = (fire, env) => {
  const job = fire.job;
  if (!env.durable || job.concurrencyScope !== 'cluster' || job.concurrencyPolicy === 'Allow') return PASS;
  return env.durable.claimSlot(job).then((claim) => {
    if ('skip' in claim) {
      env.log.warning(`Job ${job.name} skipped: ${claim.skip}`);
      return skip('skipped:gate', claim.skip);
    }
    if (claim.release) fire.releases.push(claim.release);
    return PASS;
  });
};

/** 6. The fire claim: the one node whose claim of `(job, scheduledAt)` wins runs the slot. */
export const fireClaimGate: Gate = (fire, env) => {
  if (!isSlotFire(fire)) return PASS;
  const decide = (a: ClaimAnswer): Step => {
    if (a === true) return PASS;
    if (a === false) return skip('claimed-elsewhere');
    if ('skip' in a) {
      env.log.warning(`Job ${fire.job.name} skipped: ${a.skip}`);
      return skip('skipped:gate', a.skip);
    }
    env.log.info(`Job ${fire.job.name}: this slot was claimed by ${a.by}; not running it here`);
    return skip('claimed-elsewhere', `claimed by ${a.by}`);
  };
  const answer = env.claims.claim(fire.job, fire.scheduledAt!);
  return answer instanceof Promise ? answer.then(decide) : decide(answer);
};

/** The pipeline, in order (DESIGN.md §4). */
export const GATES: readonly Gate[] = [
  enabledGate,
  clusterGate,
  pauseGate,
  onlyIfLastSucceededGate,
  rebootOnceGate,
  ladderStep,
  nodeConcurrencyGate,
  shutdownGate,
  clusterSlotGate,
  fireClaimGate,
];

function next(
  from: number,
  fire: Fire,
  env: AdmissionEnv,
  gates: readonly Gate[] = GATES,
): Decision | Promise<Decision> {
  for (let i = from; i < gates.length; i++) {
    const step = gates[i]!(fire, env);
    if (step instanceof Promise) return step.then((s) => (s !== null ? s : next(i + 1, fire, env, gates)));
    if (step !== null) return step;
  }
  return RUN;
}

/**
 * Runs `fire` through the gates. Synchronous as long as every gate answers synchronously.
 * What a gate acquired is released again when the decision is not `run`.
 */
export function admit(
  fire: Fire,
  env: AdmissionEnv,
  gates: readonly Gate[] = GATES,
): Decision | Promise<Decision> {
  const decision = next(0, fire, env, gates);
  if (!(decision instanceof Promise)) return releaseUnlessRun(decision, fire, env);
  return decision.then(
    (d) => releaseUnlessRun(d, fire, env),
    async (e: unknown) => {
      await releaseHeld(fire, env);
      throw e;
    },
  );
}

function releaseUnlessRun(d: Decision, fire: Fire, env: AdmissionEnv): Decision | Promise<Decision> {
  if (d.kind === 'run' || fire.releases.length === 0) return d;
  return releaseHeld(fire, env).then(() => d);
}

/** Releases what the gates acquired, newest first. */
export async function releaseHeld(fire: Fire, env: { log: Logger }): Promise<void> {
  for (const release of fire.releases.splice(0).reverse()) {
    try {
      await release();
    } catch (e) {
      env.log.warning(`Job ${fire.job.name}: releasing what its fire held failed: ${errorText(e)}`);
    }
  }
}

// The retry ladder of spec 02 §8: the delay sequence is a pure function of the policy and the
// attempt number; a RetryLadder is one failing sequence of a job and owns its one retry timer
// (arming, re-arming a durable retry after a restart, cancelling).
import type { RetryPolicy } from '../config/types.ts';
import type { Clock, TimerHandle } from '../util/clock.ts';

/** Delay in seconds before retry number `attempt` (1-based): initialDelay × m^(attempt-1), capped after the first. */
export function retryDelaySeconds(policy: RetryPolicy, attempt: number): number {
  let delay = policy.initialDelay;
  for (let i = 1; i < attempt; i++) delay = Math.min(delay * policy.backoffMultiplier, policy.maximumDelay);
  return delay;
}

/** Why a ladder ended (the settle vocabulary of spec 02 §8.5). */
export type SettleReason =
  | 'succeeded'
  | 'superseded'
  | 'cancelled'
  | 'exhausted'
  | 'job-removed'
  | 'shutdown'
  /** The cluster gate saw the job's ownership move to another node (spec 02 §8.4 step 4). */
  | 'owner-moved';

/** What a ladder tells its owner; `armed`/`settled` feed the durable retry records. */
export interface LadderHooks {
  clock: Clock;
  /** The armed retry is due. */
  due(): void;
  armed(attempt: number, notBefore: number, delaySeconds: number): void;
  settled(reason: SettleReason | 'launched', attempt: number): void;
}

export class RetryLadder {
  private attempts = 0;
  private timer: TimerHandle | null = null;
  private armedAt: number | null = null;
  private delay: number | null = null;
  /** Times the armed attempt was postponed by a deferring gate (a pause re-checks it again and again). */
  postponed = 0;
  cancelled = false;
  settled: SettleReason | null = null;

  constructor(
    readonly policy: RetryPolicy,
    private readonly hooks: LadderHooks,
  ) {}

  /** Retries armed so far (the attempt number of the latest one). */
  get count(): number {
    return this.attempts;
  }

  /** Wall-clock instant of the armed retry (null when none is pending), for the API. */
  get nextRetryAt(): number | null {
    return this.timer ? this.armedAt : null;
  }

  get scheduledDelay(): number | null {
    return this.delay;
  }

  /** True when another retry is allowed (maximumRetries -1 = forever). */
  canRetry(): boolean {
    return (
      !this.cancelled && (this.policy.maximumRetries === -1 || this.attempts < this.policy.maximumRetries)
    );
  }

  /** Counts the next retry and arms its timer; returns its delay in seconds. */
  arm(): number {
    this.attempts += 1;
    this.postponed = 0;
    const delay = retryDelaySeconds(this.policy, this.attempts);
    const notBefore = this.hooks.clock.now() + delay * 1000;
    this.delay = delay;
    this.start(notBefore);
    this.hooks.armed(this.attempts, notBefore, delay);
    return delay;
  }

  /** A durable retry found at start (spec 03 §8.6): attempt `attempt` is due at `notBefore`. */
  rearm(attempt: number, notBefore: number): void {
    this.attempts = attempt;
    this.delay = Math.max(0, (notBefore - this.hooks.clock.now()) / 1000);
    this.start(notBefore);
  }

  /** The armed attempt could not run yet (a deferring gate): try it again at `at`. */
  postpone(at: number): void {
    if (this.cancelled) return;
    this.postponed++;
    this.start(at);
  }

  /** The armed retry is being launched: settled before the run so a crash never launches it twice. */
  launched(): void {
    this.hooks.settled('launched', this.attempts);
  }

  /** Stops the pending timer without settling (shutdown keeps durable retries for the next start). */
  clearTimer(): void {
    if (this.timer) this.hooks.clock.clearTimer(this.timer);
    this.timer = null;
  }

  cancel(reason: SettleReason): void {
    this.clearTimer();
    if (this.cancelled) return;
    this.cancelled = true;
    this.settled = reason;
    if (this.attempts > 0) this.hooks.settled(reason, this.attempts);
  }

  private start(at: number): void {
    this.clearTimer();
    const clock = this.hooks.clock;
    this.armedAt = at;
    this.timer = clock.setTimer(
      () => {
        this.timer = null;
        this.hooks.due();
      },
      Math.max(0, at - clock.now()),
    );
  }
}

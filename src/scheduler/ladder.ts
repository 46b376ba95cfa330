// The retry ladder of spec 02 §8.2: a pure function of the policy and the attempt number.
import type { RetryPolicy } from '../config/types.ts';

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
  | 'shutdown';

/** One failing sequence of a job: counts retries and owns at most one pending retry timer. */
export class RetryLadder {
  count = 0;
  cancelled = false;
  settled: SettleReason | null = null;
  /** Wall-clock instant of the armed retry, for the API. */
  nextRetryAt: number | null = null;
  scheduledDelay: number | null = null;
  cancelTimer: (() => void) | null = null;
  /** Told when a ladder that armed at least one retry ends (durable retry records). */
  onSettle: ((reason: SettleReason) => void) | null = null;

  constructor(readonly policy: RetryPolicy) {}

  /** True when another retry is allowed (maximumRetries -1 = forever). */
  canRetry(): boolean {
    return !this.cancelled && (this.policy.maximumRetries === -1 || this.count < this.policy.maximumRetries);
  }

  /** Takes the next delay (seconds) and counts the retry. */
  takeDelay(): number {
    this.count += 1;
    return retryDelaySeconds(this.policy, this.count);
  }

  clearTimer(): void {
    this.cancelTimer?.();
    this.cancelTimer = null;
    this.nextRetryAt = null;
  }

  cancel(reason: SettleReason): void {
    this.clearTimer();
    if (this.cancelled) return;
    this.cancelled = true;
    this.settled = reason;
    if (this.count > 0) this.onSettle?.(reason);
  }
}

// What every store-backed feature of the scheduler shares (spec 03 §8): the store, the clock, the log,
// this host and the onStoreUnavailable policy, and how a store call that failed is told (the policy: spec 03 §8.9).
import type { Store } from '../../store/types.ts';
import type { Clock } from '../../util/clock.ts';
import { errorText } from '../../util/errors.ts';
import type { Logger } from '../../util/log.ts';

export interface StoreSide {
  store: Store;
  clock: Clock;
  log: Logger;
  host: string;
  /** Spec 03 §8.9: degrade decides from memory, fail-closed refuses what the store must confirm. */
  onStoreUnavailable: 'degrade' | 'fail-closed';
}

export const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A store call that failed, as the WARNING every feature logs. */
export function storeFailed(side: Pick<StoreSide, 'log'>, what: string, e: unknown): void {
  side.log.warning(`state: ${what} failed: ${errorText(e)}`);
}

/** A durable write in the background: it never blocks a launch, and a failure is logged. */
export function inBackground(
  side: Pick<StoreSide, 'log'>,
  what: string,
  write: () => Promise<unknown>,
): void {
  write().catch((e) => storeFailed(side, what, e));
}

// Job mutex/semaphore holds (spec 03 §6.5 "Mutex / semaphore", §3.3 `lock/<scope>/<name>#<slot>`):
// polling acquire, per-hold renewer, release by token, by run and at stop.
import { randomBytes } from 'node:crypto';
import type { Lease, Store } from '../store/types.ts';
import { errorText } from '../util/errors.ts';
import type { LockRequest } from './values.ts';

export interface JobApiLogger {
  debug(message: string): void;
  info(message: string): void;
  warning(message: string): void;
}

/** The part of a registered run the lock manager needs. */
export interface LockOwner {
  readonly token: string;
  readonly jobName: string;
  /** Set once the run is unregistered (or the API stops). */
  ended: boolean;
  /** Wakes every blocked acquire of this run. */
  readonly wakers: Set<() => void>;
}

export type AcquireResult =
  | { acquired: true; token: string; slot: number; fence: number; ttl: number }
  | { acquired: false; runEnded?: true };

interface Hold {
  token: string;
  owner: LockOwner;
  store: Store;
  lease: Lease;
  ttl: number;
  scope: string;
  name: string;
  slot: number;
  timer: NodeJS.Timeout;
  renewing: boolean;
  lost: boolean;
}

/** Seconds between acquire passes: min(1 s, max(0.05 s, ttl/10)). */
export function pollInterval(ttlSeconds: number): number {
  return Math.min(1, Math.max(0.05, ttlSeconds / 10));
}

/** Seconds between renewals: max(1 s, ttl/3). */
export function renewInterval(ttlSeconds: number): number {
  return Math.max(1, ttlSeconds / 3);
}

export function lockLeaseBase(scope: string, name: string): string {
  return `lock/${scope}/${name}`;
}

function sleepUnlessWoken(owner: LockOwner, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      owner.wakers.delete(done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    owner.wakers.add(done);
  });
}

export class LockManager {
  private readonly holds = new Map<string, Hold>();

  constructor(
    private readonly host: string,
    private readonly procToken: string,
    private readonly log: JobApiLogger,
  ) {}

  /** Number of live holds (tests, metrics). */
  get size(): number {
    return this.holds.size;
  }

  /**
   * One pass, or (with `wait`) passes until `blockSeconds` elapse. A pass that errors counts
   * as not won; if every pass errored the last error is thrown (→ 503).
   * `abandoned()` reports that nobody can receive the reply any more (client gone).
   */
  async acquire(
    store: Store,
    owner: LockOwner,
    scope: string,
    req: LockRequest,
    abandoned: () => boolean = () => false,
  ): Promise<AcquireResult> {
    const holdToken = randomBytes(16).toString('hex');
    const holder = `${this.host}#${this.procToken}#${holdToken}`;
    const base = lockLeaseBase(scope, req.name);
    const deadline = Date.now() + (req.wait ? req.blockSeconds * 1000 : 0);
    const pauseMs = pollInterval(req.ttl) * 1000;
    let answered = false;
    let lastError: unknown = null;
    for (;;) {
      if (owner.ended) return { acquired: false, runEnded: true };
      let won: { lease: Lease; slot: number } | null = null;
      try {
        won = await store.semaphoreAcquire(base, req.permits, holder, req.ttl);
        answered = true;
      } catch (e) {
        lastError = e;
        this.log.debug(`lock ${base}: acquire pass failed: ${errorText(e)}`);
      }
      if (won) {
        if (owner.ended || abandoned()) {
          await this.releaseLease(store, won.lease, base);
          return owner.ended ? { acquired: false, runEnded: true } : { acquired: false };
        }
        this.record(store, owner, holdToken, won.lease, won.slot, scope, req);
        return { acquired: true, token: holdToken, slot: won.slot, fence: won.lease.fence, ttl: req.ttl };
      }
      const left = deadline - Date.now();
      if (!req.wait || left <= 0 || abandoned()) break;
      await sleepUnlessWoken(owner, Math.min(pauseMs, left));
    }
    if (owner.ended) return { acquired: false, runEnded: true };
    if (!answered && lastError) throw lastError;
    return { acquired: false };
  }

  private record(
    store: Store,
    owner: LockOwner,
    token: string,
    lease: Lease,
    slot: number,
    scope: string,
    req: LockRequest,
  ): void {
    const hold: Hold = {
      token,
      owner,
      store,
      lease,
      ttl: req.ttl,
      scope,
      name: req.name,
      slot,
      renewing: false,
      lost: false,
      timer: setInterval(() => void this.renew(hold), renewInterval(req.ttl) * 1000),
    };
    hold.timer.unref();
    this.holds.set(token, hold);
  }

  private async renew(hold: Hold): Promise<void> {
    if (hold.renewing || hold.lost || !this.holds.has(hold.token)) return;
    hold.renewing = true;
    try {
      const next = await hold.store.leaseRenew(hold.lease, hold.ttl);
      if (!this.holds.has(hold.token)) return;
      if (next) hold.lease = next;
      else {
        hold.lost = true;
        clearInterval(hold.timer);
        this.log.warning(
          `lock '${hold.name}' (scope '${hold.scope}', slot ${hold.slot}, fence ${hold.lease.fence}) ` +
            `held by job '${hold.owner.jobName}' was lost: the lease was taken over or expired; ` +
            'the job keeps running without it',
        );
      }
    } catch (e) {
      // Timeout or store error: the outcome is unknown, try again next period.
      this.log.debug(`lock '${hold.name}': renew failed, retrying next period: ${errorText(e)}`);
    } finally {
      hold.renewing = false;
    }
  }

  private async releaseLease(store: Store, lease: Lease, what: string): Promise<void> {
    try {
      await store.leaseRelease(lease);
    } catch (e) {
      this.log.warning(`lock ${what}: release failed (the lease frees after its TTL): ${errorText(e)}`);
    }
  }

  private drop(hold: Hold): void {
    clearInterval(hold.timer);
    this.holds.delete(hold.token);
  }

  /**
   * Explicit release by hold token: only the owning run may release (false otherwise).
   * A store error propagates (the lease then frees after its TTL).
   */
  async release(owner: LockOwner, token: string): Promise<boolean> {
    const hold = this.holds.get(token);
    if (!hold || hold.owner !== owner) return false;
    this.drop(hold);
    if (!hold.lost) await hold.store.leaseRelease(hold.lease);
    return true;
  }

  /** Releases every hold of one run (run end). Errors are logged, never thrown. */
  async releaseOwner(owner: LockOwner): Promise<void> {
    const mine = [...this.holds.values()].filter((h) => h.owner === owner);
    await this.releaseHolds(mine);
  }

  /** Releases every hold (API stop). */
  async releaseAll(): Promise<void> {
    await this.releaseHolds([...this.holds.values()]);
  }

  private async releaseHolds(holds: Hold[]): Promise<void> {
    for (const h of holds) this.drop(h);
    await Promise.all(
      holds
        .filter((h) => !h.lost)
        .map((h) => this.releaseLease(h.store, h.lease, `${lockLeaseBase(h.scope, h.name)}#${h.slot}`)),
    );
  }
}

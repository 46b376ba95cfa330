// One election round of the filesystem backend (spec 05 §8.3) over the store's lease
// primitives: renew what we hold, else read, follow a live holder, or take over a lease whose
// written expiry is at least 1 s in the past by our clock. Every store call is bounded; a call
// that fails or times out is ambiguous and changes nothing (our deadline lapses on its own).
import type { Lease } from '../../store/types.ts';
import type { Clock, TimerHandle } from '../../util/clock.ts';
import { errorText } from '../../util/errors.ts';
import {
  CHALLENGER_MARGIN_MS,
  type LeaseCadence,
  type LeaseState,
  type ObservedLease,
} from '../lease-state.ts';

/** The store calls a round makes (the `Store` lease methods). */
export interface LeaseStorePort {
  leaseAcquire(name: string, holder: string, ttlSeconds: number): Promise<Lease | null>;
  leaseRenew(lease: Lease, ttlSeconds: number): Promise<Lease | null>;
  leaseRelease(lease: Lease): Promise<void>;
  leaseRead(name: string): Promise<Lease | null>;
}

export type Answer<T> = { ok: true; value: T } | { ok: false; why: string };

/** Races a store call against `ms` on `clock`; a late answer is dropped, never an exception. */
export function bounded<T>(
  clock: Pick<Clock, 'setTimer' | 'clearTimer'>,
  ms: number,
  what: string,
  call: () => Promise<T>,
): Promise<Answer<T>> {
  return new Promise((resolveAnswer) => {
    let done = false;
    let timer: TimerHandle | null = null;
    const finish = (a: Answer<T>) => {
      if (done) return;
      done = true;
      if (timer) clock.clearTimer(timer);
      resolveAnswer(a);
    };
    timer = clock.setTimer(
      () =>
        finish({ ok: false, why: `${what} did not answer within ${Math.round(ms)} ms (outcome unknown)` }),
      ms,
    );
    let pending: Promise<T>;
    try {
      pending = call();
    } catch (e) {
      finish({ ok: false, why: `${what} failed: ${errorText(e)}` });
      return;
    }
    pending.then(
      (value) => finish({ ok: true, value }),
      (e: unknown) => finish({ ok: false, why: `${what} failed: ${errorText(e)}` }),
    );
  });
}

export type RoundStep = 'renewed' | 'acquired' | 'adopted' | 'following' | 'denied' | 'lost' | 'failed';

export interface RoundResult {
  step: RoundStep;
  /** Why the round failed (`failed` only): the WARNING's text. */
  error?: string;
}

export interface ElectionOptions {
  store: LeaseStorePort;
  state: LeaseState;
  clock: Pick<Clock, 'monotonic' | 'setTimer' | 'clearTimer'>;
  /** Wall clock of lease expiry, epoch ms (the skew hook adds to it). */
  wallMs: () => number;
  electionName: string;
  ttlSeconds: number;
  cadence: LeaseCadence;
}

const toLease = (name: string, o: ObservedLease): Lease => ({
  name,
  holder: o.holder,
  fence: Number(o.fence),
  expiresAt: o.expiresAt ?? 0,
});

export class Election {
  constructor(private readonly o: ElectionOptions) {}

  /** One round (spec 05 §8.3 steps 1-5), bounded by the round deadline. */
  async round(): Promise<RoundResult> {
    const { state, store, clock, electionName: name, ttlSeconds: ttl, cadence } = this.o;
    const end = clock.monotonic() + cadence.roundMs;
    const op = <T>(what: string, call: () => Promise<T>): Promise<Answer<T>> => {
      const ms = Math.min(cadence.opMs, end - clock.monotonic());
      if (ms <= 0)
        return Promise.resolve({
          ok: false,
          why: `the round ran out of time (${cadence.roundMs} ms) before ${what}`,
        });
      return bounded(clock, ms, what, call);
    };

    // 1. Renew what we hold.
    const held = state.held();
    if (held) {
      const t0 = state.sampleWriteStart();
      const renewed = await op('renew', () => store.leaseRenew(toLease(name, held), ttl));
      if (!renewed.ok) return { step: 'failed', error: renewed.why };
      if (renewed.value) {
        state.won(t0, renewed.value);
        return { step: 'renewed' };
      }
      state.lost();
    }

    // 2. Read (strict: a failed read is no answer, never "absent").
    const readAt = clock.monotonic();
    const read = await op('read', () => store.leaseRead(name));
    if (!read.ok) return { step: 'failed', error: read.why };
    const lease = read.value;
    if (lease && lease.holder === state.token) {
      state.observed(lease, readAt);
      state.adopt(lease);
      return { step: 'adopted' };
    }

    // 3. A live holder, by our clock with the challenger margin: follow it.
    if (lease && lease.expiresAt * 1000 > this.o.wallMs() - CHALLENGER_MARGIN_MS) {
      state.observed(lease, readAt);
      return { step: held ? 'lost' : 'following' };
    }

    // 4. Free, released, or expired for at least the margin: take it. A failed acquire fails
    // the whole round: a store we can read but not write is not a working store (no freshness).
    const t0 = state.sampleWriteStart();
    const acquired = await op('acquire', () => store.leaseAcquire(name, state.token, ttl));
    if (!acquired.ok) return { step: 'failed', error: acquired.why };
    if (acquired.value) {
      state.won(t0, acquired.value);
      return { step: 'acquired' };
    }

    // 5. Denied: someone won the race. Name them if we can; defer to someone either way.
    state.observedUnknownWinner(t0);
    const confirmAt = clock.monotonic();
    const confirm = await op('confirm-read', () => store.leaseRead(name));
    if (confirm.ok && confirm.value && confirm.value.holder !== state.token)
      state.observed(confirm.value, confirmAt);
    return { step: 'denied' };
  }

  /**
   * Graceful stop: expiry 0 with the fence kept, so a survivor takes over on its next round.
   * Without a lease of our own we still look: an acquire whose answer never came may have
   * written our token, and leaving it would make the survivors wait out the ttl.
   */
  async release(): Promise<Answer<void> | null> {
    const { state, store, clock, electionName: name, cadence } = this.o;
    const held = state.held();
    state.lost();
    let lease = held ? toLease(name, held) : null;
    if (!lease) {
      const read = await bounded(clock, cadence.opMs, 'read', () => store.leaseRead(name));
      if (!read.ok || read.value?.holder !== state.token) return null;
      lease = read.value;
    }
    const mine = lease;
    return bounded(clock, cadence.opMs, 'release', () => store.leaseRelease(mine));
  }
}

// The daemon's side of runtime pauses (spec 10 §1.4): load the store's pauses before the first
// fire, then every 10 s drop expired pauses and converge with the fleet through the store (the
// spec's Do better: a minute is the reference's bound, SQLite makes a newest-record read cheap).
// A pause due to expire before the next round gets a timer of its own, so its expiry is logged
// (and the book's listeners told) when it happens, not up to a round later.
import { PauseSync } from '../scheduler/durable/pause-sync.ts';
import type { PauseBook } from '../scheduler/pauses.ts';
import type { Scheduler } from '../scheduler/scheduler.ts';
import type { Store } from '../store/types.ts';
import type { Clock, TimerHandle } from '../util/clock.ts';
import type { Logger } from '../util/log.ts';

export const PAUSE_REFRESH_MS = 10_000;
/** Past `until` by this much when the expiry timer fires: wall and timer clocks drift by a ms or two. */
const EXPIRY_SLACK_MS = 5;

/**
 * Keeps one timer on the book's earliest expiry when it falls within `horizonMs` (a later one is
 * armed by a later `arm`, once it has come near). Re-arms on every change to the book.
 */
export function expiryTimer(
  book: PauseBook,
  clock: Clock,
  horizonMs: number,
  sweep: () => void,
): { arm(): void; stop(): void } {
  let timer: TimerHandle | null = null;
  let stopped = false;
  const arm = () => {
    if (timer) clock.clearTimer(timer);
    timer = null;
    const next = book.nextExpiryMs();
    if (stopped || next === null) return;
    const delay = Math.max(0, next - clock.now()) + EXPIRY_SLACK_MS;
    if (delay > horizonMs) return;
    timer = clock.setTimer(() => {
      timer = null;
      sweep();
      arm();
    }, delay);
  };
  const off = book.onChange(arm);
  arm();
  return {
    arm,
    stop: () => {
      stopped = true;
      off();
      if (timer) clock.clearTimer(timer);
      timer = null;
    },
  };
}

export interface PauseService {
  sync: PauseSync | null;
  stop(): void;
}

export async function startPauses(
  scheduler: Scheduler,
  store: Store | null,
  o: { clock: Clock; log: Logger; host: string; everyMs?: number },
): Promise<PauseService> {
  const book = scheduler.pauses;
  const sync = store ? new PauseSync(store, book, o.clock, o.log, o.host) : null;
  book.sink = sync;
  if (sync) await sync.refresh(scheduler.jobNames());
  const everyMs = o.everyMs ?? PAUSE_REFRESH_MS;
  const sweep = () => book.sweep(new Set(scheduler.jobNames()));
  const expiries = expiryTimer(book, o.clock, everyMs + EXPIRY_SLACK_MS, sweep);
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    const names = scheduler.jobNames();
    book.sweep(new Set(names));
    // A pause that has come within a round of its end gets its timer now.
    expiries.arm();
    void (sync ? sync.refresh(names) : Promise.resolve()).finally(() => {
      busy = false;
    });
  }, everyMs);
  timer.unref();
  return {
    sync,
    stop: () => {
      clearInterval(timer);
      expiries.stop();
    },
  };
}

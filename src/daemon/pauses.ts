// The daemon's side of runtime pauses (spec 10 §1.4): load the store's pauses before the first
// fire, then every 10 s drop expired pauses and converge with the fleet through the store (the
// spec's Do better: a minute is the reference's bound, SQLite makes a newest-record read cheap).
import { PauseSync } from '../scheduler/durable/pause-sync.ts';
import type { Scheduler } from '../scheduler/scheduler.ts';
import type { Store } from '../store/types.ts';
import type { Clock } from '../util/clock.ts';
import type { Logger } from '../util/log.ts';

export const PAUSE_REFRESH_MS = 10_000;

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
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    const names = scheduler.jobNames();
    book.sweep(new Set(names));
    void (sync ? sync.refresh(names) : Promise.resolve()).finally(() => {
      busy = false;
    });
  }, o.everyMs ?? PAUSE_REFRESH_MS);
  timer.unref();
  return { sync, stop: () => clearInterval(timer) };
}

// Time as a dependency: production uses the real clock, tests a fake one that never sleeps.

export type TimerHandle = { readonly id: number };

export interface Clock {
  /** Wall-clock epoch milliseconds (record timestamps, schedule math). */
  now(): number;
  /** Monotonic milliseconds (deadlines, durations); immune to wall-clock steps. */
  monotonic(): number;
  /**
   * CPU milliseconds this process has used: unlike `monotonic()` it stands still while the
   * process does not run (SIGSTOP, a frozen cgroup, a paused VM). Absent on a fake clock, whose
   * process is taken to run all the time.
   */
  cpu?(): number;
  setTimer(fn: () => void, delayMs: number): TimerHandle;
  clearTimer(handle: TimerHandle): void;
}

/** setTimeout caps at 2^31-1 ms (~24.8 days); longer delays are chained. */
const MAX_DELAY = 2 ** 31 - 1;

export class RealClock implements Clock {
  private next = 1;
  private readonly timers = new Map<number, NodeJS.Timeout>();
  now(): number {
    return Date.now();
  }
  monotonic(): number {
    return performance.now();
  }
  cpu(): number {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  }
  setTimer(fn: () => void, delayMs: number): TimerHandle {
    const id = this.next++;
    const due = performance.now() + Math.max(0, delayMs);
    const arm = (ms: number) => {
      this.timers.set(
        id,
        setTimeout(
          () => {
            const left = due - performance.now();
            if (left > 1) arm(left);
            else {
              this.timers.delete(id);
              fn();
            }
          },
          Math.min(MAX_DELAY, Math.max(0, ms)),
        ),
      );
    };
    arm(delayMs);
    return { id };
  }
  clearTimer(handle: TimerHandle): void {
    const t = this.timers.get(handle.id);
    if (t) clearTimeout(t);
    this.timers.delete(handle.id);
  }
}

/**
 * The real clock shifted to read `startMs` at construction and to run at real speed from there.
 * Only for the daemon's `CRONSTABLE_TEST_EPOCH` hook: an end-to-end test of behaviour tied to a
 * calendar date (a DST night) that no real "now" reaches. Timers stay on the monotonic clock.
 */
export class ShiftedClock extends RealClock {
  private readonly offsetMs: number;
  constructor(startMs: number) {
    super();
    this.offsetMs = startMs - Date.now();
  }
  override now(): number {
    return Date.now() + this.offsetMs;
  }
}

interface FakeTimer {
  id: number;
  due: number;
  seq: number;
  fn: () => void;
}

/** A clock that only moves when told to; timers fire in due order during `advance`. */
export class FakeClock implements Clock {
  private wall: number;
  private mono = 0;
  private next = 1;
  private seq = 0;
  private readonly timers = new Map<number, FakeTimer>();

  constructor(startMs: number) {
    this.wall = startMs;
  }
  now(): number {
    return this.wall;
  }
  monotonic(): number {
    return this.mono;
  }
  setTimer(fn: () => void, delayMs: number): TimerHandle {
    const id = this.next++;
    this.timers.set(id, { id, due: this.mono + Math.max(0, delayMs), seq: this.seq++, fn });
    return { id };
  }
  clearTimer(handle: TimerHandle): void {
    this.timers.delete(handle.id);
  }
  pendingTimers(): number {
    return this.timers.size;
  }
  /** Moves time forward, firing every timer that falls due on the way (and awaiting microtasks). */
  async advance(ms: number): Promise<void> {
    const end = this.mono + ms;
    for (;;) {
      let first: FakeTimer | undefined;
      for (const t of this.timers.values()) {
        if (t.due <= end && (!first || t.due < first.due || (t.due === first.due && t.seq < first.seq)))
          first = t;
      }
      if (!first) break;
      this.wall += first.due - this.mono;
      this.mono = first.due;
      this.timers.delete(first.id);
      first.fn();
      await flushMicrotasks();
    }
    this.wall += end - this.mono;
    this.mono = end;
    await flushMicrotasks();
  }
  /** Steps the wall clock only (an NTP jump or a suspend), without firing timers. */
  jumpWall(ms: number): void {
    this.wall += ms;
  }
}

async function flushMicrotasks(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

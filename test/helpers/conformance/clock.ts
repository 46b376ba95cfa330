// A contender's clock for the conformance suite: the real clock, optionally skewed (wall only;
// the monotonic clock never skews), and freezable. A frozen node's timers are held until it
// thaws, so it makes no store call, as a SIGSTOPped process; its monotonic clock keeps running,
// as the kernel's does, so it reads its own deadline correctly the moment it wakes.
import { type Clock, RealClock, type TimerHandle } from '../../../src/util/clock.ts';

export class ContenderClock implements Clock {
  private readonly real = new RealClock();
  private frozen = false;
  private readonly held = new Map<number, () => void>();

  constructor(readonly skewMs = 0) {}

  now(): number {
    return Date.now() + this.skewMs;
  }

  monotonic(): number {
    return performance.now();
  }

  setTimer(fn: () => void, delayMs: number): TimerHandle {
    const handle: TimerHandle = this.real.setTimer(() => {
      if (this.frozen) this.held.set(handle.id, fn);
      else fn();
    }, delayMs);
    return handle;
  }

  clearTimer(handle: TimerHandle): void {
    this.held.delete(handle.id);
    this.real.clearTimer(handle);
  }

  freeze(): void {
    this.frozen = true;
  }

  thaw(): void {
    this.frozen = false;
    const due = [...this.held.values()];
    this.held.clear();
    for (const fn of due) fn();
  }
}

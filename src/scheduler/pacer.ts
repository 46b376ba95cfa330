// Launch pacing under overload (issue 14 item 9). Starting a process costs main-thread time; when
// more fires fall due than the node can start, launching them all in one go starves the event loop
// (the web API, timers, reaping). The pacer lets launches use at most `share` of the loop's time in
// bursts of at most `burstMs`, then yields on a clock timer so I/O is served in between. A launch
// still waiting when its deadline passes is handed back as dropped (the scheduler records it as a
// `missed-overload` slot) instead of piling up. Under normal load every launch runs inline.
import type { Clock, TimerHandle } from '../util/clock.ts';

export interface PacedLaunch {
  /** Wall-clock instant after which the launch is no longer worth starting (Infinity: never dropped). */
  deadline: number;
  /** When it was submitted (wall clock; set by the pacer). */
  queuedAt?: number;
  /** Starts the launch (synchronous: its cost is measured). */
  start(): void;
}

export interface PacerOptions {
  /** Fraction of the loop's time launches may use while a backlog exists. */
  share: number;
  /** Longest stretch of launching before yielding, in ms. */
  burstMs: number;
}

export const DEFAULT_PACING: PacerOptions = { share: 0.5, burstMs: 20 };

export class LaunchPacer<T extends PacedLaunch = PacedLaunch> {
  private readonly backlog: T[] = [];
  private head = 0;
  /** Launch-time credit in ms: spent by launches, earned back at `share` of elapsed time. */
  private credit: number;
  private creditAt: number;
  private timer: TimerHandle | null = null;
  private closed = false;

  constructor(
    private readonly clock: Clock,
    private readonly dropped: (launches: T[]) => void,
    private readonly opts: PacerOptions = DEFAULT_PACING,
  ) {
    this.credit = opts.burstMs;
    this.creditAt = clock.monotonic();
  }

  /** Launches waiting for their turn. */
  get waiting(): number {
    return this.backlog.length - this.head;
  }

  /** How long the oldest waiting launch has waited (ms), 0 when none waits. */
  lagMs(now: number): number {
    const oldest = this.backlog[this.head];
    return oldest?.queuedAt === undefined ? 0 : Math.max(0, now - oldest.queuedAt);
  }

  /** Runs the launch now when the node has launch time to spare, else queues it. */
  submit(launch: T): void {
    if (this.closed) {
      this.dropped([launch]);
      return;
    }
    if (this.waiting === 0 && this.refill() > 0) {
      this.run(launch);
      return;
    }
    launch.queuedAt = this.clock.now();
    this.backlog.push(launch);
    this.arm();
  }

  /** Drops every waiting launch (shutdown); they are handed to `dropped`. */
  close(): void {
    this.closed = true;
    if (this.timer) this.clock.clearTimer(this.timer);
    this.timer = null;
    const rest = this.backlog.splice(this.head);
    this.head = 0;
    this.backlog.length = 0;
    if (rest.length > 0) this.dropped(rest);
  }

  private refill(): number {
    const now = this.clock.monotonic();
    this.credit = Math.min(this.opts.burstMs, this.credit + (now - this.creditAt) * this.opts.share);
    this.creditAt = now;
    return this.credit;
  }

  private run(launch: T): void {
    const t0 = this.clock.monotonic();
    const cpu0 = this.clock.cpu?.();
    try {
      launch.start();
    } finally {
      this.credit -= this.cost(this.clock.monotonic() - t0, cpu0);
    }
  }

  /**
   * What a launch that held the loop for `wallMs` is charged. Up to a burst, its wall time. Beyond,
   * at most the CPU time the process used meanwhile (but a burst): a process stopped mid-launch
   * (SIGSTOP, a frozen cgroup, a paused VM) did not spend the stop launching, and charging it would
   * hold every launch after the wake-up for twice the stop, past the owner's slots and their
   * late-fire window.
   */
  private cost(wallMs: number, cpu0: number | undefined): number {
    if (wallMs <= this.opts.burstMs || cpu0 === undefined) return wallMs;
    return Math.min(wallMs, Math.max(this.opts.burstMs, this.clock.cpu!() - cpu0));
  }

  private arm(): void {
    if (this.timer || this.closed) return;
    // At least 1 ms: a zero credit earns nothing in a zero-delay turn.
    const wait = this.credit > 0 ? 0 : Math.max(1, Math.ceil(-this.credit / this.opts.share));
    this.timer = this.clock.setTimer(() => this.drain(), wait);
  }

  private drain(): void {
    this.timer = null;
    const expired: T[] = [];
    while (this.waiting > 0 && this.refill() > 0) {
      const launch = this.backlog[this.head++]!;
      if (this.clock.now() > launch.deadline) expired.push(launch);
      else this.run(launch);
    }
    // What cannot start before its deadline is dropped now rather than at its turn.
    const now = this.clock.now();
    const keep: T[] = [];
    for (let i = this.head; i < this.backlog.length; i++) {
      const launch = this.backlog[i]!;
      if (now > launch.deadline) expired.push(launch);
      else keep.push(launch);
    }
    this.backlog.length = 0;
    this.head = 0;
    this.backlog.push(...keep);
    if (expired.length > 0) this.dropped(expired);
    if (this.waiting > 0) this.arm();
  }
}

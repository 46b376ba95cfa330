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
  /** The instant it was due (wall clock), when it has a deadline. */
  dueAt?: number;
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

/** A pause this long (the process stopped, or its loop blocked) is named when it costs launches. */
const STALL_MS = 1000;

/** Why launches were dropped: `stallMs` when a stop or stall of the loop ate their wait. */
export interface DropCause {
  stallMs: number | null;
}

export class LaunchPacer<T extends PacedLaunch = PacedLaunch> {
  private readonly backlog: T[] = [];
  private head = 0;
  /** Launch-time credit in ms: spent by launches, earned back at `share` of elapsed time. */
  private credit: number;
  private creditAt: number;
  private timer: TimerHandle | null = null;
  /** When the armed timer is due (monotonic), to see it fire late. */
  private dueAt = 0;
  /** The latest pause of the process seen while launches waited: when it ended (wall) and its length. */
  private stall: { endedAt: number; ms: number } | null = null;
  private closed = false;

  constructor(
    private readonly clock: Clock,
    private readonly dropped: (launches: T[], cause: DropCause) => void,
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
      this.dropped([launch], { stallMs: null });
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
    if (rest.length > 0) this.dropped(rest, { stallMs: null });
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
      const wallMs = this.clock.monotonic() - t0;
      const charged = this.cost(wallMs, cpu0);
      this.credit -= charged;
      if (wallMs - charged >= STALL_MS) this.sawStall(wallMs - charged);
    }
  }

  private sawStall(ms: number): void {
    this.stall = { endedAt: this.clock.now(), ms };
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
    this.dueAt = this.clock.monotonic() + wait;
    this.timer = this.clock.setTimer(() => this.drain(), wait);
  }

  private drain(): void {
    this.timer = null;
    const late = this.clock.monotonic() - this.dueAt;
    if (late >= STALL_MS) this.sawStall(late);
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
    if (expired.length > 0) this.dropped(expired, { stallMs: this.stallDuring(expired) });
    if (this.waiting > 0) this.arm();
  }

  /**
   * The pause that ate at least half of these launches' time since they fell due, if any: it,
   * not launching, cost them their turn (their fires may even have been submitted after it).
   */
  private stallDuring(launches: T[]): number | null {
    const stall = this.stall;
    if (!stall) return null;
    const now = this.clock.now();
    const from = stall.endedAt - stall.ms;
    const ate = launches.some((l) => {
      if (l.dueAt === undefined) return false;
      const overlap = Math.min(stall.endedAt, now) - Math.max(from, l.dueAt);
      return overlap > 0 && overlap * 2 >= now - l.dueAt;
    });
    return ate ? stall.ms : null;
  }
}

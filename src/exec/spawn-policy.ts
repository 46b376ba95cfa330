// Where a launch spawns: on the main thread while spawning there is cheap in aggregate (one
// fire now and then: no thread hop, the pid known at once), in the worker pool during a burst.
// The decision is a pure function of recent main-thread spawn time.

/** Main-thread milliseconds spent spawning, decaying with a half-life. */
export class SpawnLoad {
  private level = 0;
  private at = 0;

  constructor(
    private readonly halfLifeMs = 100,
    /** Above this decayed level a launch goes to the pool. */
    private readonly limitMs = 10,
  ) {}

  current(now: number): number {
    return this.level * 2 ** (-(now - this.at) / this.halfLifeMs);
  }

  add(now: number, costMs: number): void {
    this.level = this.current(now) + Math.max(0, costMs);
    this.at = now;
  }

  /** True when the next launch should use the pool: a burst is going on, or the pool is still busy with one. */
  prefersPool(now: number, poolBacklog: number): boolean {
    return poolBacklog > 0 || this.current(now) > this.limitMs;
  }
}

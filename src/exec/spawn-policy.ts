// Where a launch spawns: in this thread while launches are few (no hop, the pid known at once),
// off it during a burst. A burst is a count of recent launches, not their measured cost, so the
// choice does not flip with the machine's load: a handful of jobs started together keeps the
// old behaviour exactly. Pure.

/** Recent launches, decaying with a half-life. */
export class SpawnLoad {
  private level = 0;
  private at = 0;

  constructor(
    private readonly halfLifeMs = 250,
    /** Above this decayed count a launch goes off the thread. */
    private readonly limit = 8,
  ) {}

  current(now: number): number {
    return this.level * 2 ** (-(now - this.at) / this.halfLifeMs);
  }

  add(now: number, weight = 1): void {
    this.level = this.current(now) + Math.max(0, weight);
    this.at = now;
  }

  /**
   * `count` launches are due together (one scheduler tick). A batch over the limit counts at once,
   * so it goes off the thread from its first launch; a smaller one changes nothing.
   */
  expect(now: number, count: number): void {
    if (count > this.limit) this.add(now, count);
  }

  /** True when the next launch should go to the spawners: a burst is going on, or they are still busy with one. */
  prefersSpawners(now: number, spawnerBacklog: number): boolean {
    return spawnerBacklog > 0 || this.current(now) > this.limit;
  }
}

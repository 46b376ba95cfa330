// The token bucket over non-lease store ops (spec 03 §1.1 maxOpsPerSecond, §10): burst =
// max(1, rate); an op over the rate waits for its token (FIFO), it never fails.
export class TokenBucket {
  private tokens: number;
  private last: number;
  private readonly burst: number;
  private readonly waiters: (() => void)[] = [];
  private timer: NodeJS.Timeout | null = null;
  throttled = 0;
  waitSeconds = 0;

  constructor(
    private readonly rate: number,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.burst = Math.max(1, rate);
    this.tokens = this.burst;
    this.last = this.clock();
  }

  get waiting(): number {
    return this.waiters.length;
  }

  private refill(): void {
    const now = this.clock();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.rate);
    this.last = now;
  }

  /** null when a token was free right now (no promise, no tick); else resolves when granted. */
  take(): Promise<void> | null {
    if (this.rate <= 0) return null;
    if (this.waiters.length === 0) {
      this.refill();
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return null;
      }
    }
    this.throttled++;
    const started = this.clock();
    return new Promise<void>((resolve) => {
      this.waiters.push(() => {
        this.waitSeconds += (this.clock() - started) / 1000;
        resolve();
      });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.timer || this.waiters.length === 0) return;
    this.refill();
    const ms = this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) / this.rate) * 1000);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.refill();
      while (this.waiters.length > 0 && this.tokens >= 1) {
        this.tokens -= 1;
        this.waiters.shift()!();
      }
      this.schedule();
    }, ms);
  }

  /** Releases every waiter at once (store closing). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const w of this.waiters.splice(0)) w();
  }
}

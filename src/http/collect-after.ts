// Under Bun, a garbage collection soon after large response bodies went out. JavaScriptCore
// collects late: what a big answer leaves (its small objects, the socket's and the body's native
// buffers, freed only when their objects are swept) stays resident for seconds, and the heap's
// capacity grows to hold it, so a few big answers in a row (calendar feeds, /metrics) add their
// garbage up in the peak RSS, where Node's young generation reclaims the same within the request.
// A full collection once a megabyte of bodies has gone out bounds that (bench/RESULTS.md, "Binary
// memory", 2026-12-05 evening: Bun's asynchronous collection did not, it grew the heap instead).
// It blocks the loop for a few milliseconds, so collections take at most a tenth of the time:
// after one that took d ms, the next waits until 10 d ms have passed. Node is left alone.

/** Bytes of bodies after which a collection is asked for. */
export const COLLECT_AFTER_BYTES = 1024 * 1024;
/** A collection that took d ms is followed by at least SHARE * d ms without one. */
export const COLLECT_TIME_SHARE = 10;

export interface CollectorDeps {
  /** A synchronous full collection. */
  gc(): void;
  /** Monotonic milliseconds. */
  now(): number;
  /** Runs `fn` after `ms` (0: once the current callbacks are done), without keeping the process up. */
  later(fn: () => void, ms: number): void;
}

/** Counts body bytes and runs at most one pending collection, paced as the header says. */
export class BodyCollector {
  private pending = 0;
  private scheduled = false;
  private notBefore = 0;
  /** Collections run so far, and the milliseconds they took. */
  runs = 0;
  spentMs = 0;

  constructor(private readonly deps: CollectorDeps) {}

  written(bytes: number): void {
    this.pending += bytes;
    if (this.pending < COLLECT_AFTER_BYTES || this.scheduled) return;
    this.scheduled = true;
    this.deps.later(() => this.collect(), Math.max(0, this.notBefore - this.deps.now()));
  }

  private collect(): void {
    this.scheduled = false;
    this.pending = 0;
    const t0 = this.deps.now();
    this.deps.gc();
    const took = this.deps.now() - t0;
    this.runs++;
    this.spentMs += took;
    this.notBefore = t0 + took * (1 + COLLECT_TIME_SHARE);
  }
}

const bun = (globalThis as { Bun?: { gc(sync: boolean): void } }).Bun;

const collector =
  bun === undefined
    ? null
    : new BodyCollector({
        gc: () => bun.gc(true),
        now: () => performance.now(),
        later: (fn, ms) => {
          if (ms <= 0) setImmediate(fn);
          else setTimeout(fn, ms).unref();
        },
      });

/** Counts `bytes` of a body just written (under Bun; nothing on Node). */
export function bodyWritten(bytes: number): void {
  collector?.written(bytes);
}

/** The collections run so far and the milliseconds they took (null on Node): for the memory report. */
export function bodyCollections(): { runs: number; spentMs: number } | null {
  return collector === null ? null : { runs: collector.runs, spentMs: Math.round(collector.spentMs) };
}

// The pacing of Bun's collections after large bodies (src/http/collect-after.ts, issue 34): one
// collection per megabyte of bodies at most, one pending at a time, and never more than a tenth of
// the time spent in them. A fake clock and collector stand in for performance.now() and Bun.gc.
import { describe, expect, it } from 'vitest';
import { BodyCollector, COLLECT_AFTER_BYTES, COLLECT_TIME_SHARE } from '../../src/http/collect-after.ts';

function harness(gcMs: number) {
  let now = 1000;
  const queue: { at: number; fn: () => void }[] = [];
  const gcs: number[] = [];
  const c = new BodyCollector({
    gc: () => {
      gcs.push(now);
      now += gcMs;
    },
    now: () => now,
    later: (fn, ms) => queue.push({ at: now + ms, fn }),
  });
  /** Moves the clock to `t`, running what was due on the way. */
  const advance = (t: number) => {
    for (;;) {
      queue.sort((a, b) => a.at - b.at);
      const next = queue[0];
      if (next === undefined || next.at > t) break;
      queue.shift();
      now = Math.max(now, next.at);
      next.fn();
    }
    now = Math.max(now, t);
  };
  return { c, gcs, queue, advance, at: () => now };
}

describe('collections after large bodies', () => {
  it('asks for none below the threshold, one once a megabyte went out', () => {
    const h = harness(5);
    h.c.written(COLLECT_AFTER_BYTES / 2);
    h.c.written(COLLECT_AFTER_BYTES / 2 - 1);
    expect(h.queue).toHaveLength(0);
    h.c.written(1);
    expect(h.queue).toHaveLength(1);
    expect(h.queue[0]!.at).toBe(h.at()); // at once: nothing ran before
    h.advance(h.at());
    expect(h.gcs).toEqual([1000]);
    expect(h.c.runs).toBe(1);
    expect(h.c.spentMs).toBe(5);
  });

  it('keeps one collection pending however many bodies go out before it runs', () => {
    const h = harness(5);
    for (let i = 0; i < 10; i++) h.c.written(COLLECT_AFTER_BYTES);
    expect(h.queue).toHaveLength(1);
    h.advance(h.at());
    expect(h.gcs).toHaveLength(1);
    // What went out before the collection does not count toward the next one.
    h.c.written(COLLECT_AFTER_BYTES - 1);
    expect(h.queue).toHaveLength(0);
  });

  it('spends at most a tenth of the time collecting, under a stream of big bodies', () => {
    const h = harness(8);
    // A big body every millisecond for two seconds.
    for (let t = 1000; t < 3000; t++) {
      h.advance(t);
      h.c.written(COLLECT_AFTER_BYTES + 1);
    }
    h.advance(3000);
    expect(h.gcs.length).toBeGreaterThan(10);
    for (let i = 1; i < h.gcs.length; i++)
      expect(h.gcs[i]! - h.gcs[i - 1]!).toBeGreaterThanOrEqual(8 * (1 + COLLECT_TIME_SHARE));
    expect(h.c.spentMs / 2000).toBeLessThanOrEqual(1 / COLLECT_TIME_SHARE);
  });

  it('a cheap collection lets the next one come sooner', () => {
    const h = harness(1);
    h.c.written(COLLECT_AFTER_BYTES);
    h.advance(h.at());
    h.c.written(COLLECT_AFTER_BYTES);
    expect(h.queue[0]!.at).toBe(1000 + 1 * (1 + COLLECT_TIME_SHARE));
  });
});

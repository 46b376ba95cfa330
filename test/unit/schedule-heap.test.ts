// The fire-index heap (src/schedule/heap.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MinHeap } from '../../src/schedule/index.ts';

describe('MinHeap', () => {
  it('pops in key order, ties in insertion order', () => {
    const h = new MinHeap<string>();
    expect(h.pop()).toBeUndefined();
    expect(h.peekKey()).toBeUndefined();
    h.push(5, 'e');
    h.push(1, 'a');
    h.push(3, 'c1');
    h.push(3, 'c2');
    h.push(2, 'b');
    h.push(3, 'c3');
    expect(h.size).toBe(6);
    expect(h.peekKey()).toBe(1);
    expect(h.peek()).toBe('a');
    const out: string[] = [];
    while (h.size > 0) out.push(h.pop()!);
    expect(out).toEqual(['a', 'b', 'c1', 'c2', 'c3', 'e']);
  });

  it('matches a stable sort for random pushes and pops', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.integer({ min: 0, max: 50 }), fc.constant(-1)), { maxLength: 300 }),
        (ops) => {
          const h = new MinHeap<number>();
          const model: { key: number; seq: number }[] = [];
          let seq = 0;
          for (const op of ops) {
            if (op < 0) {
              model.sort((a, b) => a.key - b.key || a.seq - b.seq);
              expect(h.pop()).toBe(model.shift()?.seq);
            } else {
              h.push(op, seq);
              model.push({ key: op, seq });
              seq++;
            }
            expect(h.size).toBe(model.length);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('clear empties it', () => {
    const h = new MinHeap<number>();
    h.push(1, 1);
    h.clear();
    expect(h.size).toBe(0);
    expect(h.pop()).toBeUndefined();
  });
});

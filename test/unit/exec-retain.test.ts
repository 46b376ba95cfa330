// saveLimit retention and the live ring (spec 02 §4.4, §4.6).
import { describe, expect, it } from 'vitest';
import { discardMarker, Retention } from '../../src/exec/retain.ts';
import { BoundedQueue } from '../../src/exec/ring.ts';

function retain(limit: number, count: number): Retention {
  const r = new Retention(limit);
  for (let i = 1; i <= count; i++) r.add(`line ${i}\n`);
  return r;
}

const lines = (...ns: number[]) => ns.map((n) => `line ${n}\n`).join('');

describe('Retention', () => {
  it('saveLimit 8 with 10 lines keeps 1-4, marker N=2, 7-10 (spec example)', () => {
    const r = retain(8, 10);
    expect(r.discarded).toBe(2);
    expect(r.text()).toBe(
      'line 1\nline 2\nline 3\nline 4\n   [.... 2 lines discarded ...]\nline 7\nline 8\nline 9\nline 10\n',
    );
  });

  it('saveLimit 8 with exactly 8 lines keeps everything without a marker', () => {
    const r = retain(8, 8);
    expect(r.discarded).toBe(0);
    expect(r.text()).toBe(lines(1, 2, 3, 4, 5, 6, 7, 8));
  });

  it('saveLimit 1 keeps only the last line', () => {
    const r = retain(1, 5);
    expect(r.discarded).toBe(4);
    expect(r.text()).toBe('   [.... 4 lines discarded ...]\nline 5\n');
    expect(retain(1, 1).text()).toBe('line 1\n');
  });

  it('saveLimit 0 retains nothing and counts every line as discarded', () => {
    const r = retain(0, 7);
    expect(r.discarded).toBe(7);
    expect(r.text()).toBe('');
  });

  it('odd limits give the extra line to the tail', () => {
    const r = retain(3, 6);
    expect(r.discarded).toBe(3);
    expect(r.text()).toBe('line 1\n' + discardMarker(3) + lines(5, 6));
  });

  it('a stream that produced nothing yields the empty string', () => {
    expect(new Retention(4096).text()).toBe('');
  });

  it('keeps an unterminated final line as is', () => {
    const r = new Retention(4);
    r.add('a\n');
    r.add('b');
    expect(r.text()).toBe('a\nb');
  });

  it('marker text has three leading spaces', () => {
    expect(discardMarker(12)).toBe('   [.... 12 lines discarded ...]\n');
  });
});

describe('BoundedQueue', () => {
  it('keeps the most recent entries in order and reports evictions', () => {
    const q = new BoundedQueue<number>(3);
    expect([1, 2, 3].map((n) => q.push(n))).toEqual([false, false, false]);
    expect(q.push(4)).toBe(true);
    expect(q.push(5)).toBe(true);
    expect(q.toArray()).toEqual([3, 4, 5]);
    expect(q.size).toBe(3);
  });

  it('capacity 0 evicts everything', () => {
    const q = new BoundedQueue<number>(0);
    expect(q.push(1)).toBe(true);
    expect(q.toArray()).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import {
  BAD_CURSOR,
  EMPTY_CURSOR,
  parseTailCursor,
  sanitizeLine,
  type TailSource,
  tailPage,
} from '../../src/mcp/tail.ts';

const lines = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => ({ stream: 'stdout' as const, line: `l${from + i}\n` }));

/** A ring of `size` holding the newest lines of `published`. */
const ring = (published: number, size: number, run = 'r1'): TailSource => ({
  lines: lines(Math.max(0, published - size), published),
  published,
  run,
});

describe('sanitizeLine', () => {
  it('strips the terminator, ANSI escapes and C0 controls but keeps tabs', () => {
    expect(sanitizeLine('plain\n')).toBe('plain');
    expect(sanitizeLine('crlf\r\n')).toBe('crlf');
    expect(sanitizeLine('\x1b[1;31mred\x1b[0m text')).toBe('red text');
    expect(sanitizeLine('\x1b]0;title\x07after')).toBe('after');
    expect(sanitizeLine('a\tb\x00c\x07d\x1be\x7f')).toBe('a\tbcde');
    expect(sanitizeLine('bar\rover')).toBe('barover');
  });
});

describe('tailPage', () => {
  it('without a cursor returns the newest lines and says older ones exist', () => {
    const p = tailPage(ring(10, 1000), 3, undefined)!;
    expect(p.lines.map((l) => l.line)).toEqual(['l7', 'l8', 'l9']);
    expect(p.cursor).toBe('r1.10');
    expect(p.truncated).toBe(true);
    expect(tailPage(ring(2, 1000), 3, undefined)!.truncated).toBe(false);
  });

  it('follows with the cursor past a ring wrap and reports evicted lines as skipped', () => {
    const first = tailPage(ring(1000, 1000), 5, undefined)!;
    expect(first.cursor).toBe('r1.1000');
    // 1200 lines published later, the ring holds 200..1199: the cursor still means line 1000.
    const next = tailPage(ring(1200, 1000), 50, first.cursor)!;
    expect(next.lines[0]!.line).toBe('l1000');
    expect(next.lines).toHaveLength(50);
    expect(next.cursor).toBe('r1.1050');
    expect(next.truncated).toBe(true);
    expect(next.skipped).toBeUndefined();
    // A poller that fell behind by more than the ring: the evicted lines are counted.
    const late = tailPage(ring(3000, 1000), 10, 'r1.1050')!;
    expect(late.skipped).toBe(3000 - 1000 - 1050);
    expect(late.lines[0]!.line).toBe('l2000');
    expect(late.cursor).toBe('r1.2010');
  });

  it('restarts at the first line of a new run instance, and clamps a cursor past the end', () => {
    const p = tailPage(ring(3, 1000, 'r2'), 10, 'r1.500')!;
    expect(p.lines.map((l) => l.line)).toEqual(['l0', 'l1', 'l2']);
    expect(p.cursor).toBe('r2.3');
    expect(p.truncated).toBe(false);
    const past = tailPage(ring(3, 1000, 'r2'), 10, 'r2.99')!;
    expect(past.lines).toEqual([]);
    expect(past.cursor).toBe('r2.3');
  });

  it('answers an empty page when nothing runs and refuses a foreign cursor', () => {
    expect(tailPage(null, 10, undefined)).toEqual({ lines: [], cursor: EMPTY_CURSOR, truncated: false });
    expect(tailPage(null, 10, 'r1.4')!.cursor).toBe('r1.4');
    expect(tailPage(ring(3, 10), 10, '17')).toBeNull();
    expect(parseTailCursor('a.b')).toBeNull();
    expect(BAD_CURSOR).toContain('cursor');
  });
});

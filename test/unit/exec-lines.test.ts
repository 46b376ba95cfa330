// Byte-limited line splitting and UTF-8 decoding (spec 02 §4.2, §4.5).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeLine, LineSplitter, type SplitEvent } from '../../src/exec/lines.ts';

const enc = (s: string) => Buffer.from(s, 'utf8');

function render(events: SplitEvent[]): string[] {
  return events.map((e) => (e.kind === 'line' ? decodeLine(e.bytes) : '<overlong>'));
}

function splitAll(chunks: Uint8Array[], max: number): { out: string[]; maxBuffered: number } {
  const s = new LineSplitter(max);
  const out: string[] = [];
  let maxBuffered = 0;
  for (const c of chunks) {
    out.push(...render(s.push(c)));
    maxBuffered = Math.max(maxBuffered, s.buffered);
  }
  out.push(...render(s.end()));
  return { out, maxBuffered };
}

describe('LineSplitter', () => {
  it('splits on \\n, keeps the \\n, and carries partial lines across chunks', () => {
    expect(splitAll([enc('a\nb'), enc('c\n'), enc('\n'), enc('d')], 100).out).toEqual([
      'a\n',
      'bc\n',
      '\n',
      'd',
    ]);
  });

  it('emits nothing at EOF when the stream ended on a \\n, and nothing for no input', () => {
    expect(splitAll([enc('x\n')], 10).out).toEqual(['x\n']);
    expect(splitAll([], 10).out).toEqual([]);
    expect(splitAll([new Uint8Array(0)], 10).out).toEqual([]);
  });

  it('reassembles multi-byte characters split at every possible byte boundary', () => {
    const text = 'héllo €uro 😀\nzweite Zeile ü\nend';
    const bytes = enc(text);
    for (let i = 0; i <= bytes.length; i++) {
      for (let j = i; j <= bytes.length; j++) {
        const { out } = splitAll([bytes.subarray(0, i), bytes.subarray(i, j), bytes.subarray(j)], 1000);
        expect(out).toEqual(['héllo €uro 😀\n', 'zweite Zeile ü\n', 'end']);
      }
    }
  });

  it('keeps a line of exactly maxLineLength bytes (the \\n does not count)', () => {
    expect(splitAll([enc('12345\n123456\nok\n')], 5).out).toEqual(['12345\n', '<overlong>', 'ok\n']);
  });

  it('counts bytes, not characters', () => {
    // "éé" is 4 bytes.
    expect(splitAll([enc('éé\n')], 3).out).toEqual(['<overlong>']);
    expect(splitAll([enc('éé\n')], 4).out).toEqual(['éé\n']);
  });

  it('drops an over-long line spanning many chunks through its \\n, reporting it once, buffering <= max', () => {
    const chunks = [enc('short\nxxxx')];
    for (let i = 0; i < 50; i++) chunks.push(enc('yyyyyyy'));
    chunks.push(enc('zz\nnext'), enc(' line\n'));
    const { out, maxBuffered } = splitAll(chunks, 10);
    expect(out).toEqual(['short\n', '<overlong>', 'next line\n']);
    expect(maxBuffered).toBeLessThanOrEqual(10);
  });

  it('does not leak the tail of an over-long line as a separate line', () => {
    const { out } = splitAll([enc('0123456789ABC'), enc('DEF\n'), enc('ok\n')], 8);
    expect(out).toEqual(['<overlong>', 'ok\n']);
  });

  it('drops an over-long final line without \\n', () => {
    expect(splitAll([enc('ok\n'), enc('a'.repeat(20))], 8).out).toEqual(['ok\n', '<overlong>']);
  });

  it('handles over-long lines back to back and within one chunk', () => {
    expect(splitAll([enc('aaaaaaaaaa\nbbbbbbbbbb\nc\n')], 3).out).toEqual([
      '<overlong>',
      '<overlong>',
      'c\n',
    ]);
  });

  it('does not alias the caller buffer for held bytes', () => {
    const s = new LineSplitter(100);
    const chunk = enc('abc');
    s.push(chunk);
    chunk.fill(0x21);
    expect(render(s.push(enc('\n')))).toEqual(['abc\n']);
  });

  it('matches a whole-input reference split for any chunking (property)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 200 }).map((a) => a.map((b) => (b % 5 === 0 ? 0x0a : b))),
        fc.array(fc.nat(200), { maxLength: 8 }),
        fc.integer({ min: 1, max: 30 }),
        (bytes, cuts, max) => {
          const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          const chunks: Uint8Array[] = [];
          let prev = 0;
          for (const p of [...points, bytes.length]) {
            chunks.push(bytes.subarray(prev, p));
            prev = p;
          }
          const expected: string[] = [];
          let start = 0;
          while (start < bytes.length) {
            const nl = bytes.indexOf(0x0a, start);
            const end = nl < 0 ? bytes.length : nl + 1;
            const contentLength = (nl < 0 ? bytes.length : nl) - start;
            expected.push(contentLength > max ? '<overlong>' : decodeLine(bytes.subarray(start, end)));
            start = end;
          }
          const { out, maxBuffered } = splitAll(chunks, max);
          expect(out).toEqual(expected);
          expect(maxBuffered).toBeLessThanOrEqual(max);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('decodeLine', () => {
  it('replaces invalid UTF-8 with U+FFFD and never throws', () => {
    expect(decodeLine(Buffer.from([0x61, 0xff, 0x62, 0x0a]))).toBe('a\uFFFDb\n');
    expect(decodeLine(Buffer.from([0xe2, 0x82]))).toBe('\uFFFD');
    expect(decodeLine(Buffer.from([0xc3, 0x28]))).toBe('\uFFFD(');
  });

  it('keeps a leading BOM as text', () => {
    expect(decodeLine(Buffer.from([0xef, 0xbb, 0xbf, 0x78]))).toBe('\uFEFFx');
  });
});

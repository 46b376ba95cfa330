// The allocation-free field scanner must agree with the full field parser on everything it accepts, and must
// never accept a field the full parser rejects.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Kind, parseField } from '../../src/schedule/fields.ts';
import { scanField, scanned } from '../../src/schedule/scan.ts';

const KINDS = [Kind.Second, Kind.Minute, Kind.Hour, Kind.DayOfMonth, Kind.Month, Kind.DayOfWeek, Kind.Year];

function full(kind: Kind, text: string): { lo: number; hi: number } | null {
  try {
    const f = parseField(kind, text);
    return { lo: f.lo, hi: f.hi };
  } catch {
    return null;
  }
}

/** Field-like text over the scanner's alphabet, biased toward well-formed items. */
const token = fc.oneof(
  fc.integer({ min: 0, max: 70 }).map(String),
  fc.constantFrom('*', '-', '/', ',', '0', '00', '007', '99999'),
);
const fieldText = fc.array(token, { minLength: 1, maxLength: 7 }).map((xs) => xs.join(''));
const num = fc.oneof(
  fc.integer({ min: 0, max: 12 }),
  fc.integer({ min: 0, max: 31 }),
  fc.integer({ min: 0, max: 64 }),
);
const itemText = fc
  .tuple(
    fc.oneof(fc.constant('*'), num.map(String)),
    fc.option(num, { nil: undefined }),
    fc.option(num, { nil: undefined }),
  )
  .map(([a, b, s]) => `${a}${b === undefined ? '' : `-${b}`}${s === undefined ? '' : `/${s}`}`);
const listText = fc.array(itemText, { minLength: 1, maxLength: 4 }).map((xs) => xs.join(','));

describe('scanField', () => {
  it('agrees with parseField', () => {
    let accepted = 0;
    fc.assert(
      fc.property(fc.constantFrom(...KINDS), fc.oneof(fieldText, listText), (kind, text) => {
        const expected = full(kind, text);
        if (scanField(text, 0, text.length, kind)) {
          expect(expected).not.toBeNull();
          expect({ lo: scanned.lo, hi: scanned.hi }).toEqual(expected);
          accepted++;
        } else if (kind !== Kind.Year && expected !== null && !/\d{5}/.test(text)) {
          // The scanner may only decline what it does not handle: names, L/W/#, '?', H (none generated here)
          // and numbers longer than 4 digits.
          throw new Error(`scanner declined a valid plain field: ${text}`);
        }
      }),
      { numRuns: 20_000, seed: 42 },
    );
    expect(accepted).toBeGreaterThan(1000);
  });

  it('handles the common forms itself (the fast path is really taken)', () => {
    for (const [kind, text] of [
      [Kind.Minute, '*/5'],
      [Kind.Minute, '0'],
      [Kind.Hour, '9-17'],
      [Kind.DayOfMonth, '1,15'],
      [Kind.DayOfWeek, '1-5'],
      [Kind.DayOfWeek, '6-0'],
      [Kind.Month, '*/3'],
      [Kind.Second, '30-59/15'],
    ] as const) {
      expect(scanField(text, 0, text.length, kind)).toBe(true);
      expect({ lo: scanned.lo, hi: scanned.hi }).toEqual(full(kind, text));
    }
  });

  it('leaves names, day forms, ?, H and the year to the full parser', () => {
    for (const [kind, text] of [
      [Kind.Month, 'jan'],
      [Kind.DayOfWeek, 'mon-fri'],
      [Kind.DayOfMonth, 'L'],
      [Kind.DayOfMonth, '15W'],
      [Kind.DayOfWeek, '5#3'],
      [Kind.DayOfMonth, '?'],
      [Kind.Minute, 'H'],
      [Kind.Year, '*'],
      [Kind.Year, '2026'],
    ] as const) {
      expect(scanField(text, 0, text.length, kind)).toBe(false);
    }
  });

  it('scans a field inside a larger text', () => {
    const text = '0 9-17/2 * * *';
    expect(scanField(text, 2, 8, Kind.Hour)).toBe(true);
    expect(scanned.lo).toBe((1 << 9) | (1 << 11) | (1 << 13) | (1 << 15) | (1 << 17));
  });
});

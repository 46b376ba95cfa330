// The POSIX TZ rules of TZif footers (src/schedule/posixtz.ts): what slim zone files say about the future.
import { describe, expect, it } from 'vitest';
import { isDstAt, parsePosixTz, posixTypeAt, ruleDay } from '../../src/schedule/posixtz.ts';

const sec = (iso: string) => Date.parse(iso) / 1000;
const day = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d) / 86_400_000;

/** utoff (hours east of UTC) at an ISO instant under a TZ string. */
function offsetAt(tz: string, iso: string): number {
  const rule = parsePosixTz(tz);
  if (rule === null) throw new Error(`unparsed: ${tz}`);
  return posixTypeAt(rule, sec(iso)).utoff / 3600;
}

describe('parsePosixTz', () => {
  it('reads names, offsets (west positive) and rules', () => {
    expect(parsePosixTz('EST5EDT,M3.2.0,M11.1.0')).toEqual({
      std: { abbr: 'EST', utoff: -18_000 },
      dst: {
        abbr: 'EDT',
        utoff: -14_400,
        start: { date: { kind: 'month', month: 3, week: 2, weekday: 0 }, time: 7200 },
        end: { date: { kind: 'month', month: 11, week: 1, weekday: 0 }, time: 7200 },
      },
    });
  });

  it('reads fixed offsets with quoted names, minutes and signs', () => {
    expect(parsePosixTz('<+05>-5')).toEqual({ std: { abbr: '+05', utoff: 18_000 } });
    expect(parsePosixTz('<+0330>-3:30')).toEqual({ std: { abbr: '+0330', utoff: 12_600 } });
    expect(parsePosixTz('<-0930>9:30')).toEqual({ std: { abbr: '-0930', utoff: -34_200 } });
    expect(parsePosixTz('<+0545>-5:45')?.std.utoff).toBe(20_700);
    expect(parsePosixTz('UTC0')).toEqual({ std: { abbr: 'UTC', utoff: 0 } });
  });

  it('reads an explicit DST offset and v3 rule times (negative, past 24h)', () => {
    const nuuk = parsePosixTz('<-02>2<-01>,M3.5.0/-1,M10.5.0/0');
    expect(nuuk?.dst?.utoff).toBe(-3600);
    expect(nuuk?.dst?.start.time).toBe(-3600);
    expect(nuuk?.dst?.end.time).toBe(0);
    expect(parsePosixTz('IST-2IDT,M3.4.4/26,M10.5.0')?.dst?.start.time).toBe(26 * 3600);
    expect(parsePosixTz('<-03>3<-02>,M3.2.0/-2:30:15,M11.1.0/167')?.dst?.start.time).toBe(
      -(2 * 3600 + 30 * 60 + 15),
    );
  });

  it('rejects what is not a TZ string', () => {
    for (const bad of [
      '',
      'E5',
      '5EST',
      'EST',
      '<+05',
      'EST5EDT,M13.1.0,M11.1.0',
      'EST5EDT,M3.6.0,M11.1.0',
      'EST5EDT,M3.2.7,M11.1.0',
      'EST5EDT,M3.2.0',
      'EST5EDT,J0,J100',
      'EST5EDT,J366,J100',
      'EST5EDT,366,100',
      'EST5EDT,M3.2.0/168,M11.1.0',
      'EST25',
      'EST5EDT,M3.2.0,M11.1.0x',
      'EST5:60',
    ]) {
      expect(parsePosixTz(bad), bad).toBeNull();
    }
  });
});

describe('rule days', () => {
  it('Jn never counts Feb 29; n does', () => {
    expect(ruleDay({ kind: 'julian1', day: 59 }, 2024)).toBe(day(2024, 2, 28));
    expect(ruleDay({ kind: 'julian1', day: 60 }, 2024)).toBe(day(2024, 3, 1));
    expect(ruleDay({ kind: 'julian1', day: 60 }, 2023)).toBe(day(2023, 3, 1));
    expect(ruleDay({ kind: 'julian1', day: 365 }, 2024)).toBe(day(2024, 12, 31));
    expect(ruleDay({ kind: 'julian0', day: 59 }, 2024)).toBe(day(2024, 2, 29));
    expect(ruleDay({ kind: 'julian0', day: 59 }, 2023)).toBe(day(2023, 3, 1));
    expect(ruleDay({ kind: 'julian0', day: 0 }, 2023)).toBe(day(2023, 1, 1));
    expect(ruleDay({ kind: 'julian0', day: 365 }, 2024)).toBe(day(2024, 12, 31));
  });

  it('Mm.w.d: week 5 is the last such weekday; week 1 the first', () => {
    expect(ruleDay({ kind: 'month', month: 3, week: 2, weekday: 0 }, 2026)).toBe(day(2026, 3, 8));
    expect(ruleDay({ kind: 'month', month: 11, week: 1, weekday: 0 }, 2026)).toBe(day(2026, 11, 1));
    expect(ruleDay({ kind: 'month', month: 3, week: 5, weekday: 0 }, 2026)).toBe(day(2026, 3, 29));
    expect(ruleDay({ kind: 'month', month: 2, week: 5, weekday: 4 }, 2024)).toBe(day(2024, 2, 29));
    expect(ruleDay({ kind: 'month', month: 2, week: 5, weekday: 4 }, 2023)).toBe(day(2023, 2, 23));
  });
});

describe('offsets under a rule', () => {
  it('northern hemisphere: New York switches at 02:00 local', () => {
    const tz = 'EST5EDT,M3.2.0,M11.1.0';
    expect(offsetAt(tz, '2026-01-15T12:00:00Z')).toBe(-5);
    expect(offsetAt(tz, '2026-03-08T06:59:59Z')).toBe(-5);
    expect(offsetAt(tz, '2026-03-08T07:00:00Z')).toBe(-4);
    expect(offsetAt(tz, '2026-11-01T05:59:59Z')).toBe(-4);
    expect(offsetAt(tz, '2026-11-01T06:00:00Z')).toBe(-5);
  });

  it('southern hemisphere: Sydney is on DST across New Year', () => {
    const tz = 'AEST-10AEDT,M10.1.0,M4.1.0/3';
    expect(offsetAt(tz, '2026-01-01T00:00:00Z')).toBe(11);
    expect(offsetAt(tz, '2026-04-04T15:59:59Z')).toBe(11);
    expect(offsetAt(tz, '2026-04-04T16:00:00Z')).toBe(10);
    expect(offsetAt(tz, '2026-07-01T00:00:00Z')).toBe(10);
    expect(offsetAt(tz, '2026-10-03T15:59:59Z')).toBe(10);
    expect(offsetAt(tz, '2026-10-03T16:00:00Z')).toBe(11);
    expect(offsetAt(tz, '2026-12-31T23:59:59Z')).toBe(11);
  });

  it('negative DST: Dublin keeps IST in summer and GMT as its "daylight" time in winter', () => {
    const tz = 'IST-1GMT0,M10.5.0,M3.5.0/1';
    const rule = parsePosixTz(tz)!;
    expect(offsetAt(tz, '2026-07-01T00:00:00Z')).toBe(1);
    expect(isDstAt(rule, sec('2026-07-01T00:00:00Z'))).toBe(false);
    expect(offsetAt(tz, '2026-01-15T00:00:00Z')).toBe(0);
    expect(isDstAt(rule, sec('2026-01-15T00:00:00Z'))).toBe(true);
    expect(offsetAt(tz, '2026-03-29T00:59:59Z')).toBe(0);
    expect(offsetAt(tz, '2026-03-29T01:00:00Z')).toBe(1);
    expect(offsetAt(tz, '2026-10-25T00:59:59Z')).toBe(1);
    expect(offsetAt(tz, '2026-10-25T01:00:00Z')).toBe(0);
  });

  it('rule times past 24h and below zero', () => {
    // Jerusalem: the Friday before the last Sunday of March, 02:00 (4th Thursday + 26h).
    const jer = 'IST-2IDT,M3.4.4/26,M10.5.0';
    expect(offsetAt(jer, '2026-03-26T23:59:59Z')).toBe(2);
    expect(offsetAt(jer, '2026-03-27T00:00:00Z')).toBe(3);
    // Nuuk: last Sunday of March at -1:00, i.e. Saturday 23:00 local (-02) = 01:00Z Sunday.
    const nuuk = '<-02>2<-01>,M3.5.0/-1,M10.5.0/0';
    expect(offsetAt(nuuk, '2026-03-29T00:59:59Z')).toBe(-2);
    expect(offsetAt(nuuk, '2026-03-29T01:00:00Z')).toBe(-1);
    expect(offsetAt(nuuk, '2026-10-25T00:59:59Z')).toBe(-1);
    expect(offsetAt(nuuk, '2026-10-25T01:00:00Z')).toBe(-2);
  });

  it('Jn and n rules switch on the day they name', () => {
    const j = 'XST3XDT,J60/0,J300/0'; // Mar 1 and Oct 27, whatever the year
    expect(offsetAt(j, '2024-03-01T02:59:59Z')).toBe(-3);
    expect(offsetAt(j, '2024-03-01T03:00:00Z')).toBe(-2);
    expect(offsetAt(j, '2024-10-27T01:59:59Z')).toBe(-2);
    expect(offsetAt(j, '2024-10-27T02:00:00Z')).toBe(-3);
    const n = 'XST3XDT,59/0,299/0'; // zero-based: Feb 29 in a leap year, Mar 1 otherwise
    expect(offsetAt(n, '2024-02-29T02:59:59Z')).toBe(-3);
    expect(offsetAt(n, '2024-02-29T03:00:00Z')).toBe(-2);
    expect(offsetAt(n, '2023-02-28T12:00:00Z')).toBe(-3);
    expect(offsetAt(n, '2023-03-01T03:00:00Z')).toBe(-2);
  });

  it('DST all year (start and end meet at New Year) stays DST', () => {
    const tz = 'EST5EDT,0/0,J365/25';
    for (const iso of [
      '2026-01-01T05:00:00Z',
      '2026-06-30T12:00:00Z',
      '2026-12-31T23:59:59Z',
      '2027-01-01T04:59:59Z',
    ]) {
      expect(offsetAt(tz, iso), iso).toBe(-4);
    }
  });

  it('fixed offsets never switch', () => {
    expect(offsetAt('<+05>-5', '2026-06-01T00:00:00Z')).toBe(5);
    expect(offsetAt('<+0330>-3:30', '2100-01-01T00:00:00Z')).toBe(3.5);
    expect(posixTypeAt(parsePosixTz('<+05>-5')!, 0)).toEqual({ utoff: 18_000, isDst: false, abbr: '+05' });
  });
});

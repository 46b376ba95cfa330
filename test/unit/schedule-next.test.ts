// Next/previous fire search, DST resolution and iteration: spec 01 §5.7, §5.8 and the §8 vector table.
import { describe, expect, it, vi } from 'vitest';
import { shiftToWeekday } from '../../src/schedule/days.ts';
import {
  clearScheduleCaches,
  type Frame,
  frameName,
  isKnownTimezone,
  lintSchedule,
  matchesInstant,
  nextFire,
  occurrences,
  parseCron,
  prevFire,
  resolveFrame,
  ScheduleError,
} from '../../src/schedule/index.ts';
import { zoneFile } from '../../src/schedule/tzdb.ts';
import { frameZone } from '../../src/schedule/zone.ts';
import { spyIntlReads } from '../helpers/intl-spy.ts';

const UTC: Frame = resolveFrame({});
const NY: Frame = resolveFrame({ timezone: 'America/New_York' });
const BERLIN: Frame = resolveFrame({ timezone: 'Europe/Berlin' });
const LORD_HOWE: Frame = resolveFrame({ timezone: 'Australia/Lord_Howe' });

const t = (iso: string): number => {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`bad instant ${iso}`);
  return ms;
};
const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
const next = (expr: string, frame: Frame, after: string, hashKey?: string): string | null =>
  iso(nextFire(parseCron(expr, hashKey === undefined ? {} : { hashKey }), frame, t(after)));
const prev = (expr: string, frame: Frame, before: string): string | null =>
  iso(prevFire(parseCron(expr), frame, t(before)));

describe('§8 vector table', () => {
  it.each([
    [1, '*/5 * * * *', UTC, '2026-01-07T12:00:00Z', '2026-01-07T12:05:00.000Z'],
    [2, '*/5 * * * *', UTC, '2026-01-07T12:00:00.001Z', '2026-01-07T12:05:00.000Z'],
    [3, '0 0 13 * 5', UTC, '2026-01-07T12:00:00Z', '2026-02-13T00:00:00.000Z'],
    [4, '0 0 L * *', UTC, '2026-02-28T12:00:00Z', '2026-03-31T00:00:00.000Z'],
    [5, '0 0 29 2 *', UTC, '2026-02-28T12:00:00Z', '2028-02-29T00:00:00.000Z'],
    [6, '0 0 30 2 * *', UTC, '2026-01-07T12:00:00Z', null],
    [6, '0 0 1 1 * 2020', UTC, '2026-01-07T12:00:00Z', null],
    [7, '0 0 LW * *', UTC, '2026-01-07T12:00:00Z', '2026-01-30T00:00:00.000Z'],
    [8, '0 0 L-3 * * 2027', UTC, '2026-01-07T12:00:00Z', '2027-01-28T00:00:00.000Z'],
    [9, '0 0 1W * *', UTC, '2026-01-31T23:59:00Z', '2026-02-02T00:00:00.000Z'],
    [10, '0 0 31W * *', UTC, '2026-01-07T12:00:00Z', '2026-01-30T00:00:00.000Z'],
    [11, '0 0 * * 5#3', UTC, '2026-01-07T12:00:00Z', '2026-01-16T00:00:00.000Z'],
    [12, '0 0 * * 0#5', UTC, '2026-01-07T12:00:00Z', '2026-03-29T00:00:00.000Z'],
    [13, '0 0 * * L5', UTC, '2026-01-07T12:00:00Z', '2026-01-30T00:00:00.000Z'],
    [14, '0 0 15W * fri', UTC, '2026-01-07T12:00:00Z', '2026-05-15T00:00:00.000Z'],
    [15, '15-45/10 30 12 * * * *', UTC, '2026-01-07T12:00:00Z', '2026-01-07T12:30:15.000Z'],
    [16, '*/2 * * * * * *', UTC, '2026-01-07T12:00:30.500Z', '2026-01-07T12:00:32.000Z'],
    [17, '0 0 * * 6-0', UTC, '2026-01-07T12:00:00Z', '2026-01-10T00:00:00.000Z'],
    [18, '0 0 1 1 * */5', UTC, '2026-01-07T12:00:00Z', '2030-01-01T00:00:00.000Z'],
    [19, '59 59 23 31 12 * 2099', UTC, '2099-12-31T23:59:30Z', '2099-12-31T23:59:59.000Z'],
    [20, '0 2 * * *', NY, '2026-03-08T06:00:00Z', '2026-03-08T07:00:00.000Z'],
    [21, '*/15 * * * *', NY, '2026-11-01T05:45:00Z', '2026-11-01T07:00:00.000Z'],
    [21, '*/15 * * * *', NY, '2026-11-01T06:45:00Z', '2026-11-01T07:00:00.000Z'],
    [22, '0 2 * * *', BERLIN, '2026-10-25T00:30:00Z', '2026-10-26T01:00:00.000Z'],
    [23, '30 2 * * *', NY, '2026-03-08T06:00:00Z', '2026-03-08T07:30:00.000Z'],
    [24, '30 1 LW * *', UTC, '2026-01-31T00:00:00Z', '2026-02-27T01:30:00.000Z'],
    [24, '0 8 15W * *', UTC, '2026-08-01T00:00:00Z', '2026-08-14T08:00:00.000Z'],
    [24, '0 0 1 1 * 2026/2', UTC, '2026-01-01T00:00:00Z', '2028-01-01T00:00:00.000Z'],
  ] as const)('row %i: %s after %s', (_row, expr, frame, after, expected) => {
    expect(next(expr, frame, after)).toBe(expected);
  });

  it('row 2: the delay from a sub-second instant is 299.999 s', () => {
    const after = t('2026-01-07T12:00:00.001Z');
    expect(nextFire(parseCron('*/5 * * * *'), UTC, after)! - after).toBe(299_999);
  });

  it('row 25: H fires at the resolved slot', () => {
    expect(next('H * * * *', UTC, '2026-01-07T12:00:00Z', 'refresh-cache')).toBe('2026-01-07T12:29:00.000Z');
    expect(next('H * * * * * *', UTC, '2026-01-07T12:00:00Z', 'tick')).toBe('2026-01-07T12:00:09.000Z');
    expect(next('H H H H H', UTC, '2026-01-07T12:00:00Z', 'report-gen')).toBe('2027-08-21T09:43:00.000Z'); // a Saturday
  });
});

describe('strictly after; the search horizon', () => {
  it('an exact match is not returned again', () => {
    expect(next('0 12 * * *', UTC, '2026-01-07T12:00:00Z')).toBe('2026-01-08T12:00:00.000Z');
    expect(next('0 12 * * *', UTC, '2026-01-07T11:59:59.999Z')).toBe('2026-01-07T12:00:00.000Z');
  });
  it('carries across minute, hour, day, month and year boundaries', () => {
    expect(next('* * * * * * *', UTC, '2026-12-31T23:59:59Z')).toBe('2027-01-01T00:00:00.000Z');
    expect(next('59 * * * *', UTC, '2026-12-31T23:59:00Z')).toBe('2027-01-01T00:59:00.000Z');
    expect(next('0 0 31 * *', UTC, '2026-01-31T00:00:00Z')).toBe('2026-03-31T00:00:00.000Z');
    expect(next('0-10/5 5 * * * * *', UTC, '2026-01-07T12:05:10Z')).toBe('2026-01-07T13:05:00.000Z');
    expect(next('30 0 * * * * *', UTC, '2026-01-07T12:00:45Z')).toBe('2026-01-07T13:00:30.000Z');
  });
  it('stops after 2099', () => {
    expect(next('0 0 1 1 *', UTC, '2099-06-01T00:00:00Z')).toBeNull();
    expect(next('0 0 29 2 *', UTC, '2097-01-01T00:00:00Z')).toBeNull(); // 2100 is not a leap year anyway
    expect(next('0 0 31 12 *', UTC, '2099-06-01T00:00:00Z')).toBe('2099-12-31T00:00:00.000Z');
  });
  it('dead schedules (§6.3) return null', () => {
    expect(next('0 0 30 2 *', UTC, '2026-01-07T12:00:00Z')).toBeNull();
    expect(next('0 0 31W 4 *', UTC, '2026-01-07T12:00:00Z')).toBeNull();
    expect(next('0 0 * * L7-3', UTC, '2026-01-07T12:00:00Z')).toBeNull();
    expect(next('0 0 * * l3-1', UTC, '2026-01-07T12:00:00Z')).toBeNull();
    expect(next('0 0 15W * 1#1', UTC, '2026-01-07T12:00:00Z')).toBeNull();
  });
});

describe('day rule: AND, L/W/# forms, shift()', () => {
  it('every day forms', () => {
    expect(next('0 0 * * 0-0', UTC, '2026-01-07T12:00:00Z')).toBe('2026-01-08T00:00:00.000Z');
    expect(next('0 0 ? * ?', UTC, '2026-01-07T12:00:00Z')).toBe('2026-01-08T00:00:00.000Z');
  });
  it('shift() edge cases through nW and LW', () => {
    expect(next('0 0 1W 8 *', UTC, '2026-07-01T00:00:00Z')).toBe('2026-08-03T00:00:00.000Z'); // Sat 1st -> Mon 3rd
    expect(next('0 0 31W 5 *', UTC, '2026-01-01T00:00:00Z')).toBe('2026-05-29T00:00:00.000Z'); // Sun 31st (last) -> Fri
    expect(next('0 0 28W 2 *', UTC, '2027-01-01T00:00:00Z')).toBe('2027-02-26T00:00:00.000Z'); // Sun 28th (last) -> Fri
    expect(next('0 0 15W 2 *', UTC, '2026-01-01T00:00:00Z')).toBe('2026-02-16T00:00:00.000Z'); // Sun -> Mon
    expect(next('0 0 LW 5 *', UTC, '2026-01-01T00:00:00Z')).toBe('2026-05-29T00:00:00.000Z'); // Sun 31st -> Fri
    expect(next('0 0 LW 8 *', UTC, '2026-01-01T00:00:00Z')).toBe('2026-08-31T00:00:00.000Z'); // Mon
    expect(next('0 0 30W 11 *', UTC, '2026-01-01T00:00:00Z')).toBe('2026-11-30T00:00:00.000Z'); // Mon, no shift
    expect(next('0 0 29W 2 *', UTC, '2026-01-01T00:00:00Z')).toBe('2028-02-29T00:00:00.000Z'); // needs a 29th: Tue
  });
  it('shiftToWeekday directly', () => {
    // month starting on Saturday (wd1 = 6), 31 days
    expect(shiftToWeekday(1, 31, 6)).toBe(3);
    expect(shiftToWeekday(2, 31, 6)).toBe(3);
    expect(shiftToWeekday(8, 31, 6)).toBe(7);
    expect(shiftToWeekday(31, 31, 6)).toBe(31);
    // month starting on Friday (wd1 = 5), 31 days: 31st is a Sunday and the last day
    expect(shiftToWeekday(31, 31, 5)).toBe(29);
    expect(shiftToWeekday(30, 31, 5)).toBe(29);
    expect(shiftToWeekday(1, 31, 5)).toBe(1);
  });
  it('L-n never fires when E - n < 1', () => {
    expect(next('0 0 L-30 * *', UTC, '2026-01-07T12:00:00Z')).toBe('2026-03-01T00:00:00.000Z');
    expect(next('0 0 L-28 2 *', UTC, '2026-01-07T12:00:00Z')).toBe('2028-02-01T00:00:00.000Z');
  });
  it('last weekday forms', () => {
    expect(next('0 0 * * L5-6', UTC, '2026-01-07T12:00:00Z')).toBe('2026-01-30T00:00:00.000Z');
    expect(next('0 0 * * L0', UTC, '2026-01-07T12:00:00Z')).toBe('2026-01-25T00:00:00.000Z');
    expect(next('0 0 * * L7', UTC, '2026-01-07T12:00:00Z')).toBe('2026-01-25T00:00:00.000Z');
    expect(next('0 0 * * mon#1,L5', UTC, '2026-01-07T12:00:00Z')).toBe('2026-01-30T00:00:00.000Z');
  });
  it('AND of restricted sides', () => {
    expect(next('0 0 1-7 * 1', UTC, '2026-01-07T12:00:00Z')).toBe('2026-02-02T00:00:00.000Z');
    expect(next('0 0 L * 5', UTC, '2026-01-07T12:00:00Z')).toBe('2026-07-31T00:00:00.000Z');
    expect(next('0 0 LW * 1#5', UTC, '2026-01-07T12:00:00Z')).toBe('2026-08-31T00:00:00.000Z');
  });
});

describe('§5.8 DST semantics (America/New_York unless noted)', () => {
  it('a skipped wall time fires once at the shifted instant', () => {
    expect(next('30 2 * * *', NY, '2026-03-08T06:00:00Z')).toBe('2026-03-08T07:30:00.000Z');
    expect(next('0 2 * * *', NY, '2026-03-08T06:00:00Z')).toBe('2026-03-08T07:00:00.000Z');
    expect(next('30 2 * * *', NY, '2026-03-08T07:30:00Z')).toBe('2026-03-09T06:30:00.000Z');
  });
  it('several matches inside the gap collapse into the first', () => {
    expect(next('*/15 * * * *', NY, '2026-03-08T06:59:00Z')).toBe('2026-03-08T07:00:00.000Z');
    expect(next('*/15 * * * *', NY, '2026-03-08T07:00:00Z')).toBe('2026-03-08T07:15:00.000Z');
    expect(
      occurrences(parseCron('*/15 * * * *'), NY, t('2026-03-08T06:40:00Z'), { limit: 4 }).map(iso),
    ).toEqual([
      '2026-03-08T06:45:00.000Z',
      '2026-03-08T07:00:00.000Z',
      '2026-03-08T07:15:00.000Z',
      '2026-03-08T07:30:00.000Z',
    ]);
    // 02:30 collapses into the shifted 02:00 and is not fired separately
    expect(
      occurrences(parseCron('0,30 2 * * *'), NY, t('2026-03-07T12:00:00Z'), {
        untilMs: t('2026-03-09T12:00:00Z'),
      }).map(iso),
    ).toEqual(['2026-03-08T07:00:00.000Z', '2026-03-09T06:00:00.000Z', '2026-03-09T06:30:00.000Z']);
  });
  it('a repeated wall time fires on the first occurrence only', () => {
    expect(
      occurrences(parseCron('30 1 * * *'), NY, t('2026-10-31T12:00:00Z'), {
        untilMs: t('2026-11-02T12:00:00Z'),
      }).map(iso),
    ).toEqual(['2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z']);
  });
  it("a frequent schedule skips the repeated hour's second leg", () => {
    expect(next('*/15 * * * *', NY, '2026-11-01T05:45:00Z')).toBe('2026-11-01T07:00:00.000Z');
    expect(next('0 * * * *', NY, '2026-11-01T05:45:00Z')).toBe('2026-11-01T07:00:00.000Z');
    expect(
      occurrences(parseCron('*/15 * * * *'), NY, t('2026-11-01T05:20:00Z'), { limit: 4 }).map(iso),
    ).toEqual([
      '2026-11-01T05:30:00.000Z',
      '2026-11-01T05:45:00.000Z',
      '2026-11-01T07:00:00.000Z',
      '2026-11-01T07:15:00.000Z',
    ]);
  });
  it('now on the second leg does not re-fire labels of the first leg', () => {
    expect(next('*/15 * * * *', NY, '2026-11-01T06:45:00Z')).toBe('2026-11-01T07:00:00.000Z');
    expect(next('*/15 * * * *', NY, '2026-11-01T06:10:00Z')).toBe('2026-11-01T07:00:00.000Z');
    expect(next('30 1 * * *', NY, '2026-11-01T06:00:00Z')).toBe('2026-11-02T06:30:00.000Z');
  });
  it('02:30 on spring-forward day fires after a 03:00 job', () => {
    const a = nextFire(parseCron('30 2 * * *'), NY, t('2026-03-08T06:00:00Z'))!;
    const b = nextFire(parseCron('0 3 * * *'), NY, t('2026-03-08T06:00:00Z'))!;
    expect(b).toBe(t('2026-03-08T07:00:00Z'));
    expect(a).toBeGreaterThan(b);
  });
  it('Europe/Berlin fall-back (row 22) and spring-forward', () => {
    expect(next('0 2 * * *', BERLIN, '2026-10-25T00:30:00Z')).toBe('2026-10-26T01:00:00.000Z');
    expect(next('0 2 * * *', BERLIN, '2026-10-24T12:00:00Z')).toBe('2026-10-25T00:00:00.000Z');
    expect(next('30 2 * * *', BERLIN, '2026-03-29T00:00:00Z')).toBe('2026-03-29T01:30:00.000Z');
  });
  it('a 30-minute gap (Australia/Lord_Howe) shifts by 30 minutes', () => {
    // 2026-10-04 02:00 +10:30 -> 02:30 +11:00; 02:15 does not exist and fires at 02:45 (+11:00) = 15:45Z
    expect(next('15 2 * * *', LORD_HOWE, '2026-10-03T12:00:00Z')).toBe('2026-10-03T15:45:00.000Z');
    expect(frameZone(LORD_HOWE).classify(Date.UTC(2026, 9, 4, 2, 15))).toBe('gap');
    expect(frameZone(LORD_HOWE).classify(Date.UTC(2026, 3, 5, 1, 45))).toBe('ambiguous');
  });
  it('the UTC frame never transitions', () => {
    expect(next('30 2 * * *', UTC, '2026-03-08T00:00:00Z')).toBe('2026-03-08T02:30:00.000Z');
    expect(next('30 1 * * *', resolveFrame({ timezone: 'UTC' }), '2026-11-01T00:00:00Z')).toBe(
      '2026-11-01T01:30:00.000Z',
    );
  });
  it('fixed-offset zones', () => {
    expect(next('0 9 * * *', resolveFrame({ timezone: 'Asia/Kolkata' }), '2026-01-07T00:00:00Z')).toBe(
      '2026-01-07T03:30:00.000Z',
    );
    expect(next('0 9 * * *', resolveFrame({ timezone: 'Etc/GMT+5' }), '2026-01-07T00:00:00Z')).toBe(
      '2026-01-07T14:00:00.000Z',
    );
  });
});

describe('prevFire', () => {
  it('UTC: strictly before, floor 1970', () => {
    expect(prev('*/5 * * * *', UTC, '2026-01-07T12:00:00Z')).toBe('2026-01-07T11:55:00.000Z');
    expect(prev('*/5 * * * *', UTC, '2026-01-07T12:00:00.001Z')).toBe('2026-01-07T12:00:00.000Z');
    expect(prev('0 0 L * *', UTC, '2026-03-15T00:00:00Z')).toBe('2026-02-28T00:00:00.000Z');
    expect(prev('0 0 29 2 *', UTC, '2026-01-01T00:00:00Z')).toBe('2024-02-29T00:00:00.000Z');
    expect(prev('0 0 1 1 * 1970', UTC, '2026-01-01T00:00:00Z')).toBe('1970-01-01T00:00:00.000Z');
    expect(prev('0 0 1 1 *', UTC, '1970-01-01T00:00:00Z')).toBeNull();
    expect(prev('0 0 30 2 *', UTC, '2026-01-01T00:00:00Z')).toBeNull();
    expect(prev('*/2 * * * * * *', UTC, '2026-01-07T12:00:31Z')).toBe('2026-01-07T12:00:30.000Z');
    expect(prev('0 0 1 1 * 2030', UTC, '2150-01-01T00:00:00Z')).toBe('2030-01-01T00:00:00.000Z');
  });
  it('across a spring-forward gap', () => {
    expect(prev('30 2 * * *', NY, '2026-03-08T07:40:00Z')).toBe('2026-03-08T07:30:00.000Z');
    expect(prev('30 2 * * *', NY, '2026-03-08T07:10:00Z')).toBe('2026-03-07T07:30:00.000Z');
    expect(prev('0,30 2 * * *', NY, '2026-03-08T08:00:00Z')).toBe('2026-03-08T07:00:00.000Z');
  });
  it('across a fall-back: the second leg never fired', () => {
    expect(prev('*/15 * * * *', NY, '2026-11-01T06:10:00Z')).toBe('2026-11-01T05:45:00.000Z');
    expect(prev('*/15 * * * *', NY, '2026-11-01T07:05:00Z')).toBe('2026-11-01T07:00:00.000Z');
    expect(prev('30 1 * * *', NY, '2026-11-01T06:45:00Z')).toBe('2026-11-01T05:30:00.000Z');
  });
  it('mirrors nextFire around transitions: prev is a fire of the chain and nothing fires in between', () => {
    const windows = [
      ['2026-03-07T00:00:00Z', '2026-03-09T12:00:00Z'],
      ['2026-10-31T00:00:00Z', '2026-11-02T12:00:00Z'],
      ['2026-10-24T00:00:00Z', '2026-10-26T12:00:00Z'],
      ['2026-04-04T00:00:00Z', '2026-04-06T00:00:00Z'],
      ['2026-10-03T00:00:00Z', '2026-10-05T00:00:00Z'],
    ];
    for (const expr of [
      '*/7 * * * *',
      '0 2 * * *',
      '30 1,2 * * *',
      '0,30 2 * * *',
      '15,40 2 * * *',
      '*/20 * * * * * *',
    ]) {
      const s = parseCron(expr);
      for (const frame of [UTC, NY, BERLIN, LORD_HOWE]) {
        for (const [from, to] of windows) {
          const chain = occurrences(s, frame, t(from!) - 2 * 86_400_000, { untilMs: t(to!) + 86_400_000 });
          for (let ref = t(from!); ref < t(to!); ref += 1_777_000) {
            const p = prevFire(s, frame, ref);
            const expected = chain.filter((f) => f < ref).pop();
            expect(p).toBe(expected);
            const n = nextFire(s, frame, p!);
            expect(n === null || n >= ref).toBe(true);
          }
        }
      }
    }
  });
});

describe('matchesInstant (test())', () => {
  it('checks civil fields in the frame, ignoring sub-seconds', () => {
    const s = parseCron('*/5 * * * *');
    expect(matchesInstant(s, UTC, t('2026-01-07T12:05:00Z'))).toBe(true);
    expect(matchesInstant(s, UTC, t('2026-01-07T12:05:00.999Z'))).toBe(true);
    expect(matchesInstant(s, UTC, t('2026-01-07T12:05:01Z'))).toBe(false);
    expect(matchesInstant(s, UTC, t('2026-01-07T12:06:00Z'))).toBe(false);
    expect(matchesInstant(parseCron('0 9 * * *'), NY, t('2026-01-07T14:00:00Z'))).toBe(true);
    expect(matchesInstant(parseCron('0 9 * * *'), NY, t('2026-07-07T13:00:00Z'))).toBe(true);
    expect(matchesInstant(parseCron('0 9 * * *'), NY, t('2026-07-07T14:00:00Z'))).toBe(false);
  });
  it('day rule and year', () => {
    expect(matchesInstant(parseCron('0 0 13 * 5'), UTC, t('2026-02-13T00:00:00Z'))).toBe(true);
    expect(matchesInstant(parseCron('0 0 13 * 5'), UTC, t('2026-01-13T00:00:00Z'))).toBe(false);
    expect(matchesInstant(parseCron('0 0 LW * *'), UTC, t('2026-01-30T00:00:00Z'))).toBe(true);
    expect(matchesInstant(parseCron('0 0 1 1 *'), UTC, t('2150-01-01T00:00:00Z'))).toBe(true);
    expect(matchesInstant(parseCron('0 0 1 1 * 2026'), UTC, t('2026-01-01T00:00:00Z'))).toBe(true);
    expect(matchesInstant(parseCron('0 0 1 1 * 2026'), UTC, t('2027-01-01T00:00:00Z'))).toBe(false);
  });
});

describe('occurrences', () => {
  const s = parseCron('0 */6 * * *');
  it('limit and untilMs (inclusive), strictly after from', () => {
    expect(occurrences(s, UTC, t('2026-01-07T00:00:00Z'), { limit: 3 }).map(iso)).toEqual([
      '2026-01-07T06:00:00.000Z',
      '2026-01-07T12:00:00.000Z',
      '2026-01-07T18:00:00.000Z',
    ]);
    expect(
      occurrences(s, UTC, t('2026-01-07T00:00:00Z'), { untilMs: t('2026-01-07T12:00:00Z') }).map(iso),
    ).toEqual(['2026-01-07T06:00:00.000Z', '2026-01-07T12:00:00.000Z']);
    expect(occurrences(s, UTC, t('2026-01-07T00:00:00Z'), { limit: 0 })).toEqual([]);
    expect(occurrences(s, UTC, t('2026-01-07T00:00:00Z'), {})).toHaveLength(1000);
  });
  it('ends at 2099 and for dead schedules', () => {
    expect(
      occurrences(parseCron('0 0 1 1 *'), UTC, t('2097-06-01T00:00:00Z'), { limit: 10 }).map(iso),
    ).toEqual(['2098-01-01T00:00:00.000Z', '2099-01-01T00:00:00.000Z']);
    expect(occurrences(parseCron('0 0 30 2 *'), UTC, 0, { limit: 10 })).toEqual([]);
  });
  it('matches repeated nextFire away from DST edges', () => {
    const e = parseCron('*/20 9-17 * * mon-fri');
    const got = occurrences(e, BERLIN, t('2026-01-07T00:00:00Z'), { limit: 60 });
    let cur = t('2026-01-07T00:00:00Z');
    for (const g of got) {
      cur = nextFire(e, BERLIN, cur)!;
      expect(g).toBe(cur);
    }
  });
});

describe('frames and zones', () => {
  it('resolveFrame follows timezone > utc', () => {
    expect(resolveFrame({})).toEqual({ kind: 'utc' });
    expect(resolveFrame({ utc: true })).toEqual({ kind: 'utc' });
    expect(resolveFrame({ timezone: null, utc: true })).toEqual({ kind: 'utc' });
    expect(resolveFrame({ timezone: 'Europe/Berlin', utc: false })).toEqual({
      kind: 'zone',
      zone: 'Europe/Berlin',
    });
    const local = resolveFrame({ utc: false });
    expect(local.kind).toBe('local');
    expect(frameName(local)).toBe(new Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect(() => resolveFrame({ timezone: 'Mars/Olympus' })).toThrow(ScheduleError);
    expect(() => resolveFrame({ timezone: 'Mars/Olympus' })).toThrow('unknown timezone: Mars/Olympus');
    try {
      resolveFrame({ timezone: 'Mars/Olympus' });
    } catch (e) {
      expect((e as ScheduleError).code).toBe('unknown-timezone');
    }
    try {
      parseCron('bad');
    } catch (e) {
      expect((e as ScheduleError).code).toBe('invalid-schedule');
    }
  });
  it('frameName', () => {
    expect(frameName({ kind: 'utc' })).toBe('UTC');
    expect(frameName(resolveFrame({ timezone: 'UTC' }))).toBe('UTC');
    expect(frameName(NY)).toBe('America/New_York');
  });
  it('isKnownTimezone needs the exact tz database spelling', () => {
    for (const z of [
      'UTC',
      'America/New_York',
      'Asia/Kolkata',
      'Asia/Calcutta',
      'US/Eastern',
      'Etc/GMT+5',
      'Europe/Kyiv',
    ]) {
      expect(isKnownTimezone(z)).toBe(true);
    }
    for (const z of [
      'america/new_york',
      'utc',
      'AMERICA/NEW_YORK',
      'Mars/Olympus',
      '',
      'UTC ',
      '+05:00',
      'Z',
    ]) {
      expect(isKnownTimezone(z)).toBe(false);
    }
  });
  it('a local frame is DST-aware like its zone', () => {
    const local: Frame = { kind: 'local', zone: 'America/New_York' };
    expect(nextFire(parseCron('30 2 * * *'), local, t('2026-03-08T06:00:00Z'))).toBe(
      t('2026-03-08T07:30:00Z'),
    );
  });
});

describe('Intl use', () => {
  it('the UTC frame never touches Intl', () => {
    const parts = spyIntlReads();
    const ctor = vi.spyOn(Intl, 'DateTimeFormat');
    try {
      clearScheduleCaches();
      const frame = resolveFrame({ utc: true });
      const s = parseCron('30 2 * * *');
      const at = t('2026-03-08T06:00:00Z');
      expect(nextFire(s, frame, at)).toBe(t('2026-03-08T02:30:00Z') + 86_400_000);
      expect(prevFire(s, frame, at)).toBe(t('2026-03-08T02:30:00Z'));
      expect(occurrences(s, frame, at, { limit: 3 })).toHaveLength(3);
      expect(matchesInstant(s, frame, t('2026-03-08T02:30:00Z'))).toBe(true);
      expect(lintSchedule(s, frame, at)).toEqual([]);
      expect(nextFire(s, resolveFrame({ timezone: 'UTC' }), at)).toBe(t('2026-03-09T02:30:00Z'));
      expect(ctor).not.toHaveBeenCalled();
      expect(parts.count()).toBe(0);
    } finally {
      ctor.mockRestore();
      parts.restore();
    }
  });

  it('zone offsets are cached: repeated searches in a zone make no new Intl calls', () => {
    clearScheduleCaches();
    const s = parseCron('*/5 * * * *');
    const frame = resolveFrame({ timezone: 'Europe/Berlin' });
    const from = t('2026-03-28T12:00:00Z');
    const first = occurrences(s, frame, from, { limit: 500 });
    const parts = spyIntlReads();
    try {
      expect(occurrences(s, frame, from, { limit: 500 })).toEqual(first);
      for (const u of first) expect(nextFire(s, frame, u - 1)).toBe(u);
      expect(parts.count()).toBe(0);
      // control: on a host without zone files, a zone not seen yet does go to Intl
      process.env.TZDIR = '/nonexistent-zoneinfo';
      nextFire(s, resolveFrame({ timezone: 'Asia/Tokyo' }), from);
      expect(parts.count()).toBeGreaterThan(0);
    } finally {
      parts.restore();
      delete process.env.TZDIR;
      clearScheduleCaches();
    }
  });

  // A host without /usr/share/zoneinfo (or $TZDIR) falls back to Intl, which the test above covers.
  it.skipIf(zoneFile('America/New_York') === null)(
    'with the host tz database, zoned searches never touch Intl',
    () => {
      clearScheduleCaches();
      const parts = spyIntlReads();
      const ctor = vi.spyOn(Intl, 'DateTimeFormat');
      try {
        const s = parseCron('30 2 * * *');
        const frame = resolveFrame({ timezone: 'America/New_York' });
        expect(nextFire(s, frame, t('2026-03-08T00:00:00Z'))).toBe(t('2026-03-08T07:30:00Z'));
        expect(nextFire(s, frame, t('2026-11-01T00:00:00Z'))).toBe(t('2026-11-01T07:30:00Z'));
        expect(ctor).not.toHaveBeenCalled();
        expect(parts.count()).toBe(0);
      } finally {
        ctor.mockRestore();
        parts.restore();
      }
    },
  );
});

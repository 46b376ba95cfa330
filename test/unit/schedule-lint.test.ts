// Load-time schedule lints: spec 01 §6.1 (codes, levels, triggers, order) and dead schedules (§6.3).
import { describe, expect, it } from 'vitest';
import {
  type Frame,
  lintSchedule,
  parseCron,
  resolveFrame,
  type ScheduleFinding,
} from '../../src/schedule/index.ts';

const NOW = Date.parse('2026-01-07T12:00:00Z');
const UTC: Frame = resolveFrame({});
const NY: Frame = resolveFrame({ timezone: 'America/New_York' });

const lint = (expr: string, frame: Frame = UTC, hashKey = 'job', now = NOW): ScheduleFinding[] =>
  lintSchedule(parseCron(expr, { hashKey }), frame, now);
const codes = (expr: string, frame: Frame = UTC, hashKey = 'job'): string[] =>
  lint(expr, frame, hashKey).map((f) => f.code);

describe('clean schedules', () => {
  it.each([
    '*/5 * * * *',
    '0 0 * * *',
    '30 4 * * mon-fri',
    '0 0 L * *',
    '0 0 1 1 *',
    '*/15 * * * *',
    '0 */6 * * *',
  ])('%s has no findings', (expr) => {
    expect(lint(expr)).toEqual([]);
  });
});

describe('hashed-slot', () => {
  it('is a note naming the resolved expression', () => {
    expect(lint('H H * * *', UTC, 'report-gen')).toEqual([
      {
        code: 'hashed-slot',
        level: 'note',
        message: "H resolves to '43 9 * * *' for this job; renaming the job moves the slot",
      },
    ]);
  });
});

describe('never-fires', () => {
  it.each([
    ['0 0 1 1 * 2020', 'the year column ends at 2020, so it will never fire again'],
    ['0 0 1 1 * 2020-2025', 'the year column ends at 2025, so it will never fire again'],
    ['0 0 0 1 1 * 1999', 'the year column ends at 1999, so it will never fire again'],
    ['0 0 30 2 *', 'day, month and weekday fields never line up on a real date, so it will never fire'],
    ['0 0 30 2 * 2020', 'day, month and weekday fields never line up on a real date, so it will never fire'],
    ['0 0 31W 4 *', 'day, month and weekday fields never line up on a real date, so it will never fire'],
    ['0 0 * * L7-3', 'day, month and weekday fields never line up on a real date, so it will never fire'],
  ])('%s', (expr, message) => {
    const found = lint(expr).filter((f) => f.code === 'never-fires');
    expect(found).toEqual([{ code: 'never-fires', level: 'warning', message }]);
  });

  it('a dead schedule gets no month or DST findings', () => {
    expect(codes('0 0 31 2,4 *')).toEqual(['never-fires']);
    expect(codes('30 2 31 2 *', NY)).toEqual(['never-fires']);
  });

  it('a schedule that still fires this year is not dead', () => {
    expect(codes('0 0 1 12 * 2026')).toEqual([]);
  });
});

describe('day-fields-both-restricted', () => {
  it.each([
    ['0 0 13 * 5', true],
    ['0 0 LW * L5', true],
    ['0 0 1-15 * mon-fri', true],
    ['0 0 L * *', false],
    ['0 0 * * 5', false],
    ['0 0 1-31 * 1', false],
    ['0 0 13 * 0-0', false],
    ['0 0 ? * mon', false],
    ['0 0 13 * ?', false],
  ])('%s -> %s', (expr, expected) => {
    const found = lint(expr).filter((f) => f.code === 'day-fields-both-restricted');
    expect(found.length === 1).toBe(expected);
    if (expected) {
      expect(found[0]!.level).toBe('warning');
      expect(found[0]!.message).toContain('(AND)');
      expect(found[0]!.message).toContain('(OR)');
    }
  });
});

describe('uneven-step', () => {
  it.each([
    [
      '*/7 * * * *',
      "'*/7' in the minute field: 60 is not a multiple of 7, so the interval that wraps around is only 4 minutes",
    ],
    [
      '*/8 * * * *',
      "'*/8' in the minute field: 60 is not a multiple of 8, so the interval that wraps around is only 4 minutes",
    ],
    [
      '*/45 * * * *',
      "'*/45' in the minute field: 60 is not a multiple of 45, so the interval that wraps around is only 15 minutes",
    ],
    [
      '*/59 * * * *',
      "'*/59' in the minute field: 60 is not a multiple of 59, so the interval that wraps around is only 1 minute",
    ],
    [
      '0 */5 * * *',
      "'*/5' in the hour field: 24 is not a multiple of 5, so the interval that wraps around is only 4 hours",
    ],
    [
      '0 0 * */5 *',
      "'*/5' in the month field: 12 is not a multiple of 5, so the interval that wraps around is only 2 months",
    ],
    [
      '0 0 * * */4',
      "'*/4' in the day-of-week field: 7 is not a multiple of 4, so the interval that wraps around is only 3 days",
    ],
    [
      '*/7 * * * * * *',
      "'*/7' in the second field: 60 is not a multiple of 7, so the interval that wraps around is only 4 seconds",
    ],
    [
      'H/7 * * * *',
      "'H/7' in the minute field: 60 is not a multiple of 7, so the interval that wraps around is only 4 minutes",
    ],
  ])('%s is a warning', (expr, message) => {
    expect(lint(expr).filter((f) => f.code === 'uneven-step')).toEqual([
      { code: 'uneven-step', level: 'warning', message },
    ]);
  });

  it('day-of-month steps are a note', () => {
    expect(lint('0 0 */2 * *')).toEqual([
      {
        code: 'uneven-step',
        level: 'note',
        message:
          "'*/2' in the day-of-month field restarts at day 1 each month, so the interval across a month end varies",
      },
    ]);
    expect(codes('0 0 H/10 * *')).toEqual(['hashed-slot', 'uneven-step']);
  });

  it.each([
    '*/1 * * * *',
    '*/15 * * * *',
    '*/30 * * * *',
    '0 */6 * * *',
    '0 */8 * * *',
    '0 0 * */3 *',
    '5/7 * * * *',
    '0-59/7 * * * *',
    '0 0 * * */7',
  ])('%s is not flagged', (expr) => {
    expect(codes(expr)).not.toContain('uneven-step');
  });

  it('one finding per offending item, in column order', () => {
    expect(lint('*/7,*/11 */5 * * *').map((f) => f.message.split(':')[0])).toEqual([
      "'*/7' in the minute field",
      "'*/11' in the minute field",
      "'*/5' in the hour field",
    ]);
  });
});

describe('skipped-months and leap-day-only', () => {
  it.each([
    ['0 0 31 * *', 'February, April, June, September and November'],
    ['0 0 31W * *', 'February, April, June, September and November'],
    ['0 0 30 * *', 'February'],
    ['0 0 31 1-6 *', 'February, April and June'],
    ['0 0 30,31 * *', 'February'],
  ])('%s skips %s', (expr, months) => {
    expect(lint(expr).filter((f) => f.code === 'skipped-months')).toEqual([
      {
        code: 'skipped-months',
        level: 'warning',
        message: `the day-of-month field never matches in ${months}, so those months are skipped`,
      },
    ]);
  });

  it.each(['0 0 L * *', '0 0 LW,31 * *', '0 0 L-3,31 * *', '0 0 * * *', '0 0 28 * *', '0 0 15W * *'])(
    '%s skips nothing',
    (expr) => {
      expect(codes(expr)).not.toContain('skipped-months');
    },
  );

  it('L-n does not exempt when its offset cannot reach the month', () => {
    // D = 31, O = 30: February (max 29 days) needs O <= 28
    expect(lint('0 0 31,L-30 * *').map((f) => f.code)).toEqual(['skipped-months']);
  });

  it('leap-day-only is a note', () => {
    expect(lint('0 0 29 2 *')).toEqual([
      {
        code: 'leap-day-only',
        level: 'note',
        message:
          'in February the day-of-month field only matches the 29th, so February runs happen in leap years only',
      },
    ]);
    expect(codes('0 0 L-28 2 *')).toEqual(['leap-day-only']);
    expect(codes('0 0 29 1,2 *')).toEqual(['leap-day-only']);
    expect(codes('0 0 30 1,2 *')).toEqual(['skipped-months']);
    expect(codes('0 0 28,29 2 *')).toEqual([]);
  });
});

describe('DST notes', () => {
  it('dst-skipped-time (finance-eod-close, 02:30 New York)', () => {
    expect(lint('30 2 * * *', NY)).toEqual([
      {
        code: 'dst-skipped-time',
        level: 'note',
        message:
          'on 2026-03-08 the wall time 02:30 does not exist in America/New_York (clocks jump forward); fires at the shifted wall time 03:30',
      },
    ]);
  });

  it('dst-repeated-time (nightly-close, 01:00 New York)', () => {
    expect(lint('0 1 * * *', NY)).toEqual([
      {
        code: 'dst-repeated-time',
        level: 'note',
        message:
          'on 2026-11-01 the wall time 01:00 occurs twice in America/New_York (clocks fall back); fires on the first occurrence only',
      },
    ]);
  });

  it('one finding per transition, at most two', () => {
    const found = lint('30 1,2 * * *', NY);
    expect(found.map((f) => f.code)).toEqual(['dst-skipped-time', 'dst-repeated-time']);
    expect(found[0]!.message).toContain('on 2026-03-08 the wall time 02:30');
    expect(found[1]!.message).toContain('on 2026-11-01 the wall time 01:30');
  });

  it('scans 366 days from today in the zone', () => {
    const found = (now: string) =>
      lintSchedule(parseCron('30 2 * * *'), NY, Date.parse(now)).map((f) => f.message.slice(0, 13));
    expect(found('2026-03-09T12:00:00Z')).toEqual([]); // the next gap, 2027-03-14, is 370 days away
    expect(found('2026-03-20T12:00:00Z')).toEqual(['on 2027-03-14']);
  });

  it('only matching days count', () => {
    // 2026-03-08 is a Sunday; a weekday-only 02:30 job never meets the gap that year
    expect(codes('30 2 * * mon-fri', NY)).toEqual([]);
    expect(codes('30 2 8 3 *', NY)).toEqual(['dst-skipped-time']);
  });

  it('Europe/Berlin and a 30-minute zone', () => {
    expect(
      lint('30 2 * * *', resolveFrame({ timezone: 'Europe/Berlin' })).map((f) => f.message.slice(0, 30)),
    ).toEqual(['on 2026-03-29 the wall time 02', 'on 2026-10-25 the wall time 02']);
    const lh = lint('15 2 * * *', resolveFrame({ timezone: 'Australia/Lord_Howe' }));
    expect(lh).toHaveLength(1);
    expect(lh[0]!.message).toBe(
      'on 2026-10-04 the wall time 02:15 does not exist in Australia/Lord_Howe (clocks jump forward); fires at the shifted wall time 02:45',
    );
  });

  it('not for UTC, host-local frames, unrestricted hours, or minutes outside the change', () => {
    expect(codes('30 2 * * *', UTC)).toEqual([]);
    expect(codes('30 2 * * *', resolveFrame({ timezone: 'UTC' }))).toEqual([]);
    expect(codes('30 2 * * *', { kind: 'local', zone: 'America/New_York' })).toEqual([]);
    expect(codes('30 * * * *', NY)).toEqual([]);
    expect(codes('0 3 * * *', NY)).toEqual([]);
  });
});

describe('order of findings', () => {
  it('hashed-slot, day-fields-both-restricted, uneven-step, skipped-months', () => {
    expect(codes('H */7 31 * 5')).toEqual([
      'hashed-slot',
      'day-fields-both-restricted',
      'uneven-step',
      'skipped-months',
    ]);
  });
  it('hashed-slot, never-fires, day-fields-both-restricted, uneven-step', () => {
    expect(codes('H */7 31 2 5')).toEqual([
      'hashed-slot',
      'never-fires',
      'day-fields-both-restricted',
      'uneven-step',
    ]);
  });
  it('uneven-step before DST notes', () => {
    expect(codes('*/7 2 * * *', NY)).toEqual(['uneven-step', 'dst-skipped-time']);
  });
});

// Week calendar model: engine fires placed on the viewer's civil days; frequent jobs become background hum.
import { describe, expect, it } from 'vitest';
import { compileJob } from '../../src/dashboard/engine.ts';
import {
  buildWeek,
  HUM_THRESHOLD,
  hueOf,
  isBackgroundHum,
  localMidnight,
  MAX_CHIPS_PER_DAY,
  type WeekJob,
} from '../../src/dashboard/week.ts';

const at = (iso: string): number => Date.parse(iso);

function job(name: string, schedule: string, timezone: string | null = 'UTC', enabled = true): WeekJob {
  return { name, enabled, compiled: compileJob({ name, schedule, timezone, utc: true }) };
}

/** The chips of one job as [date, HH:MM] pairs. */
function placed(model: ReturnType<typeof buildWeek>, name: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const day of model.days) {
    for (const c of day.chips) {
      if (c.name === name) {
        out.push([
          day.date,
          `${String(Math.floor(c.minute / 60)).padStart(2, '0')}:${String(c.minute % 60).padStart(2, '0')}`,
        ]);
      }
    }
  }
  return out;
}

describe('week grid placement', () => {
  it('puts an LW job on the last weekday of the month (Fri 2026-07-31)', () => {
    const model = buildWeek([job('monthly-close-prep', '30 1 LW * *')], {
      nowMs: at('2026-07-27T12:00:00Z'),
      zone: 'UTC',
    });
    expect(model.days.map((d) => d.date)).toEqual([
      '2026-07-27',
      '2026-07-28',
      '2026-07-29',
      '2026-07-30',
      '2026-07-31',
      '2026-08-01',
      '2026-08-02',
    ]);
    expect(placed(model, 'monthly-close-prep')).toEqual([['2026-07-31', '01:30']]);
    expect(model.days[4]!.weekday).toBe(5);
    expect(model.fires).toBe(1);
  });

  it("moves LW back a day when the viewer's zone is behind UTC", () => {
    const model = buildWeek([job('monthly-close-prep', '30 1 LW * *')], {
      nowMs: at('2026-07-27T20:00:00Z'),
      zone: 'America/Los_Angeles',
    });
    expect(placed(model, 'monthly-close-prep')).toEqual([['2026-07-30', '18:30']]);
  });

  it('skips a weekend month end: LW of May 2026 (the 31st is a Sunday) is Fri 29', () => {
    const model = buildWeek([job('close', '0 6 LW * *')], { nowMs: at('2026-05-25T00:00:00Z'), zone: 'UTC' });
    expect(placed(model, 'close')).toEqual([['2026-05-29', '06:00']]);
  });

  it('places L-3, 15W and 5#3 on the engine dates', () => {
    const jobs = [
      job('payroll', '0 9 L-3 * *'),
      job('invoice-day', '0 12 15W * *'),
      job('board-pack', '0 10 * * 5#3'),
    ];
    // July 2026 has 31 days: L-3 = the 28th.
    expect(placed(buildWeek(jobs, { nowMs: at('2026-07-27T00:00:00Z'), zone: 'UTC' }), 'payroll')).toEqual([
      ['2026-07-28', '09:00'],
    ]);
    // 2026-08-15 is a Saturday: 15W = Friday the 14th.
    expect(
      placed(buildWeek(jobs, { nowMs: at('2026-08-10T00:00:00Z'), zone: 'UTC' }), 'invoice-day'),
    ).toEqual([['2026-08-14', '12:00']]);
    // Fridays of August 2026: 7, 14, 21 -> third Friday is the 21st.
    expect(placed(buildWeek(jobs, { nowMs: at('2026-08-17T00:00:00Z'), zone: 'UTC' }), 'board-pack')).toEqual(
      [['2026-08-21', '10:00']],
    );
  });

  it('navigates by whole weeks from the local midnight of today', () => {
    const model = buildWeek([job('payroll', '0 9 L-3 * *')], {
      nowMs: at('2026-07-06T15:00:00Z'),
      zone: 'UTC',
      weekOffset: 3,
    });
    expect(model.days[0]!.date).toBe('2026-07-27');
    expect(model.days.some((d) => d.today)).toBe(false);
    expect(placed(model, 'payroll')).toEqual([['2026-07-28', '09:00']]);
  });

  it('keeps civil days across a DST change (Berlin falls back on 2026-10-25)', () => {
    const model = buildWeek([job('noon-utc', '0 12 * * *')], {
      nowMs: at('2026-10-22T08:00:00Z'),
      zone: 'Europe/Berlin',
    });
    expect(placed(model, 'noon-utc')).toEqual([
      ['2026-10-22', '14:00'],
      ['2026-10-23', '14:00'],
      ['2026-10-24', '14:00'],
      ['2026-10-25', '13:00'],
      ['2026-10-26', '13:00'],
      ['2026-10-27', '13:00'],
      ['2026-10-28', '13:00'],
    ]);
    // the 25th is a 25-hour day
    expect(model.days[4]!.start - model.days[3]!.start).toBe(25 * 3_600_000);
  });

  it("dims today's past fires, splits a shared 15-minute bucket, ignores disabled and @reboot jobs", () => {
    const now = at('2026-07-27T12:00:00Z');
    const model = buildWeek(
      [
        job('morning', '0 9 * * *'),
        job('a', '0 18 * * 1'),
        job('b', '10 18 * * 1'),
        job('off', '0 9 * * *', 'UTC', false),
        job('boot', '@reboot'),
      ],
      { nowMs: now, zone: 'UTC' },
    );
    const today = model.days[0]!;
    expect(today.today).toBe(true);
    expect(today.chips.map((c) => [c.name, c.past, c.slot, c.slots])).toEqual([
      ['morning', true, 0, 1],
      ['a', false, 0, 2],
      ['b', false, 1, 2],
    ]);
    expect(model.days[1]!.chips.map((c) => c.past)).toEqual([false]);
    expect(placed(model, 'off')).toEqual([]);
    expect(placed(model, 'boot')).toEqual([]);
  });

  it('caps a day at 80 chips and counts the rest', () => {
    const jobs = Array.from({ length: 90 }, (_, i) => job(`j${i}`, `${i % 60} ${Math.floor(i / 60)} 27 7 *`));
    const model = buildWeek(jobs, { nowMs: at('2026-07-27T00:00:00Z'), zone: 'UTC' });
    expect(model.days[0]!.chips.length).toBe(MAX_CHIPS_PER_DAY);
    expect(model.days[0]!.more).toBe(10);
    expect(model.fires).toBe(90);
  });
});

describe('background hum', () => {
  const start = at('2026-07-27T00:00:00Z');
  const end = start + 7 * 86_400_000;
  const hum = (schedule: string): boolean => isBackgroundHum(job('x', schedule).compiled, start, end);

  it('sends jobs with more than 56 fires a week to the hum strip', () => {
    expect(HUM_THRESHOLD).toBe(56);
    expect(hum('*/5 * * * *')).toBe(true);
    expect(hum('0 * * * *')).toBe(true);
    expect(hum('0 */2 * * *')).toBe(true); // 84 a week
    expect(hum('*/2 * * * * * *')).toBe(true); // per-second
    expect(hum('0 0,3,6,9,12,15,18,21 * * *')).toBe(false); // exactly 56
    expect(hum('0 */4 * * *')).toBe(false); // 42
    expect(hum('30 1 LW * *')).toBe(false);
    expect(hum('@reboot')).toBe(false);
  });

  it('lists hum jobs with their cadence instead of charting them', () => {
    const model = buildWeek(
      [job('pulse', '*/2 * * * * * *'), job('hourly', '0 * * * *'), job('daily', '0 3 * * *')],
      {
        nowMs: start + 1000,
        zone: 'UTC',
      },
    );
    expect(model.hum.map((h) => [h.name, h.description])).toEqual([
      ['hourly', 'Every hour'],
      ['pulse', 'Every 2 seconds'],
    ]);
    expect(model.fires).toBe(7);
    expect(placed(model, 'pulse')).toEqual([]);
  });

  it('gives every job a stable hue', () => {
    expect(hueOf('monthly-close-prep')).toBe(hueOf('monthly-close-prep'));
    expect(hueOf('a')).not.toBe(hueOf('b'));
    expect(hueOf('x')).toBeGreaterThanOrEqual(0);
    expect(hueOf('x')).toBeLessThan(360);
  });

  it('finds the local midnight of a day in a zone', () => {
    expect(localMidnight('America/New_York', at('2026-07-05T03:00:00Z'))).toBe(at('2026-07-04T04:00:00Z'));
    expect(localMidnight('UTC', at('2026-07-05T03:00:00Z'), 2)).toBe(at('2026-07-07T00:00:00Z'));
  });
});

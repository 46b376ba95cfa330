// Parser behaviour of the schedule engine: spec 01 §5.1-§5.5, §5.9 and the accept/reject list of §8.
import { describe, expect, it } from 'vitest';
import { Kind } from '../../src/schedule/fields.ts';
import { HashSeed } from '../../src/schedule/hashed.ts';
import {
  type CronSchedule,
  describeSchedule,
  isReboot,
  looksLikeCrontabLine,
  parseCron,
  renderScheduleObject,
  ScheduleError,
  semanticKey,
} from '../../src/schedule/index.ts';
import { fieldValues } from '../../src/schedule/parse.ts';
import { sha256Hex } from '../../src/util/hash.ts';
import { thrownBy } from '../helpers/thrown.ts';

const range = (a: number, b: number, step = 1): number[] => {
  const out: number[] = [];
  for (let v = a; v <= b; v += step) out.push(v);
  return out;
};

function sets(s: CronSchedule) {
  return {
    second: fieldValues(s, Kind.Second),
    minute: fieldValues(s, Kind.Minute),
    hour: fieldValues(s, Kind.Hour),
    dom: fieldValues(s, Kind.DayOfMonth),
    month: fieldValues(s, Kind.Month),
    dow: fieldValues(s, Kind.DayOfWeek),
    years: s.years === null ? null : fieldValues(s, Kind.Year),
  };
}

/** The error message of a failing parse (fails the test when it parses). */
/** The message of the ScheduleError that parsing `text` throws. */
const refusalOf = (text: string, hashKey?: string): string =>
  thrownBy(ScheduleError, parseCron, text, hashKey === undefined ? {} : { hashKey }).message;

describe('§8 accept list', () => {
  it.each([
    '  */5   *  * * *  ',
    '*\t* * * *',
    '\n30 6 * * *',
    '0 0 * * 0-0',
    '0 0 * * 7-7',
    '0 0 * * l3-1',
    '0 0 * * FRI#1',
    '0 0 1 JAN *',
    '0 0 l,15 * *',
    '0 0 lw,l * *',
    '30 4 LW * mon-fri',
    '0 0 0 15W * 5#3 *',
    '@annually',
  ])('accepts %j', (text) => {
    expect(() => parseCron(text)).not.toThrow();
  });

  it('normalises whitespace in source', () => {
    expect(parseCron('  */5   *  * * *  ').source).toBe('*/5 * * * *');
    expect(parseCron('*\t* * * *').source).toBe('* * * * *');
    expect(parseCron('\n30 6 * * *').source).toBe('30 6 * * *');
    expect(parseCron('\n30 6 * * *').resolved).toBe('30 6 * * *');
  });

  it('reads the accepted forms as the spec says', () => {
    expect(sets(parseCron('0 0 * * 0-0')).dow).toEqual(range(0, 6));
    expect(sets(parseCron('0 0 * * 7-7')).dow).toEqual([0]);
    expect(sets(parseCron('0 0 1 JAN *')).month).toEqual([1]);
    expect(sets(parseCron('0 0 l,15 * *')).dom).toEqual([15]);
    expect(parseCron('0 0 l,15 * *').domForms?.lastOffsets).toBe(1);
    const lw = parseCron('0 0 lw,l * *').domForms;
    expect(lw?.lastWeekday).toBe(true);
    expect(lw?.lastOffsets).toBe(1);
    const q = parseCron('0 0 0 15W * 5#3 *');
    expect(q.hasSeconds).toBe(true);
    expect(q.domForms?.nearestWeekday).toBe(1 << 15);
    expect(q.dowForms?.nth).toEqual([3 * 8 + 5]);
    expect(q.years).toBeNull();
    expect(parseCron('0 0 * * l3-1').dowForms).toBeNull(); // reversed: legal, matches nothing
    expect(parseCron('0 0 * * l3-1').dowPlain).toBe(0);
  });
});

describe('§8 reject list', () => {
  it.each([
    ['', 'expected 5 to 7 whitespace-separated cron fields (or a supported @-nickname), got 0'],
    ['* * * *', 'got 4'],
    ['* * * * * * * *', 'got 8'],
    ['0 0 1 1 2027', 'value 2027 out of range 0-7 in the day-of-week field'],
    ['0 0 1 1 * 1969', 'value 1969 out of range 1970-2099 in the year field'],
    ['0 0 1 1 * 2100', 'value 2100 out of range 1970-2099 in the year field'],
    ['0 0 * * L', "'L' alone is not valid in the day-of-week field; write L<d>"],
    ['0 0 * * LW', "invalid 'L' form 'LW' in the day-of-week field"],
    ['0 0 * * 5L', "invalid value '5L' in the day-of-week field"],
    ['0 0 * * 7/2', "start 7 of '7/2' is beyond 6 in the day-of-week field"],
    ['0 0 * 15W *', "invalid value '15W' in the month field"],
    ['0 0 5#3 * *', "'#' is not valid in the day-of-month field ('5#3')"],
    ['0 0 L-0 * *', "'L-0' in the day-of-month field needs an offset of 1-30"],
    ['0 0 l/2 * *', "invalid 'L' form 'l/2' in the day-of-month field (it takes L, L-n or LW)"],
    ['0 0 * */12 *', "step 12 in '*/12' does not repeat: 1+12 exceeds 12 in the month field"],
    ['@midnight', 'got 1'],
    ['@reboot', 'got 1'],
    ['H * * * *', "'H' in the minute field needs a hash key (the job name), and none was given"],
  ])('rejects %j', (text, message) => {
    expect(refusalOf(text)).toContain(message);
  });

  it('gives the exact field-count message', () => {
    expect(refusalOf('* * * *')).toBe(
      'expected 5 to 7 whitespace-separated cron fields (or a supported @-nickname), got 4',
    );
  });
});

describe('§5.3 item grammar (exact sets)', () => {
  it.each([
    ['*/59 * * * *', 'minute', [0, 59]],
    ['0 0 */30 * *', 'dom', [1, 31]],
    ['0 0 * * */7', 'dow', [0]],
    ['1-5/10 * * * *', 'minute', [1]],
    ['55/2 * * * *', 'minute', [55, 57, 59]],
    ['5/15 * * * *', 'minute', [5, 20, 35, 50]],
    ['0 0 * * mon-5', 'dow', [1, 2, 3, 4, 5]],
    ['0 0 * * mon-fri/2', 'dow', [1, 3, 5]],
    ['0 0 * * 4-7/3', 'dow', [0, 4]],
    ['0 0 * * 6-0', 'dow', [0, 6]],
    ['0 0 * * sat-sun', 'dow', [0, 6]],
    ['0 0 * * sun-sun', 'dow', range(0, 6)],
    ['0 0 * * 7', 'dow', [0]],
    ['0 0 * * 0,7', 'dow', [0]],
    ['0 0 * * *', 'dow', range(0, 6)],
    ['0 0 ? * *', 'dom', range(1, 31)],
    ['0 0 * * ?', 'dow', range(0, 6)],
    ['*/15 * * * *', 'minute', [0, 15, 30, 45]],
    ['0 9-17/4 * * *', 'hour', [9, 13, 17]],
    ['0 */6 * * *', 'hour', [0, 6, 12, 18]],
    ['0 0 * */5 *', 'month', [1, 6, 11]],
    ['0 0 * JAN,jul,Dec *', 'month', [1, 7, 12]],
    ['0 0 * 007 *', 'month', [7]],
    ['0,30 * * * *', 'minute', [0, 30]],
    ['0-5,55-59 * * * *', 'minute', [0, 1, 2, 3, 4, 5, 55, 56, 57, 58, 59]],
  ] as const)('%s: %s', (text, field, expected) => {
    expect(sets(parseCron(text))[field]).toEqual(expected);
  });

  it('year column: */129 is {1970, 2099}; a list is exact; * is unrestricted', () => {
    expect(sets(parseCron('0 0 1 1 * */129')).years).toEqual([1970, 2099]);
    expect(sets(parseCron('0 0 1 1 * 2026/30')).years).toEqual([2026, 2056, 2086]);
    expect(sets(parseCron('0 0 1 1 * 2027,2030-2031')).years).toEqual([2027, 2030, 2031]);
    expect(parseCron('0 0 1 1 * *').years).toBeNull();
    expect(parseCron('0 0 0 1 1 * *').years).toBeNull();
  });

  it('5-field seconds are {0}; 7-field seconds as written', () => {
    expect(sets(parseCron('* * * * *')).second).toEqual([0]);
    expect(sets(parseCron('15-45/10 30 12 * * * *')).second).toEqual([15, 25, 35, 45]);
    expect(sets(parseCron('* * * * * * *')).second).toEqual(range(0, 59));
  });

  it.each([
    ['*/60 * * * *', "step 60 in '*/60' out of range 1-59 in the minute field"],
    ['0 */24 * * *', "step 24 in '*/24' out of range 1-23 in the hour field"],
    ['0 0 * */12 *', "step 12 in '*/12' does not repeat: 1+12 exceeds 12 in the month field"],
    ['0 0 */31 * *', "step 31 in '*/31' does not repeat: 1+31 exceeds 31 in the day-of-month field"],
    ['0 0 * * */8', "step 8 in '*/8' out of range 1-7 in the day-of-week field"],
    ['50-59/15 * * * *', "step 15 in '50-59/15' does not repeat: 50+15 exceeds 59 in the minute field"],
    ['58/5 * * * *', "step 5 in '58/5' does not repeat: 58+5 exceeds 59 in the minute field"],
    ['*/5/3 * * * *', "too many '/' in '*/5/3' in the minute field"],
    ['*/0 * * * *', "step 0 in '*/0' out of range 1-59 in the minute field"],
    ['1,,5 * * * *', 'empty item in the minute field'],
    ['* * * * *,', 'empty item in the day-of-week field'],
    ['-1 * * * *', "invalid item '-1' in the minute field"],
    ['1.5 * * * *', "invalid value '1.5' in the minute field"],
    ['55-5 * * * *', "range '55-5' is reversed in the minute field"],
    ['0 0 * * fri-mon', "range 'fri-mon' is reversed in the day-of-week field"],
    ['0 0 1 1 * */130', "step 130 in '*/130' does not repeat: 1970+130 exceeds 2099 in the year field"],
    ['0 0 1 1 * 2026-2100', 'value 2100 out of range 1970-2099 in the year field'],
    ['60 * * * *', 'value 60 out of range 0-59 in the minute field'],
    ['0 24 * * *', 'value 24 out of range 0-23 in the hour field'],
    ['0 0 0 * *', 'value 0 out of range 1-31 in the day-of-month field'],
    ['0 0 32 * *', 'value 32 out of range 1-31 in the day-of-month field'],
    ['0 0 * 13 *', 'value 13 out of range 1-12 in the month field'],
    ['0 0 * * 8', 'value 8 out of range 0-7 in the day-of-week field'],
    ['0 0 * * monday', "invalid value 'monday' in the day-of-week field"],
    ['0 0 * january *', "invalid value 'january' in the month field"],
    ['0 0 jan * *', "invalid value 'jan' in the day-of-month field"],
    ['0 0 1 1 * ?', "'?' is not valid in the year field"],
    ['? * * * *', "'?' is not valid in the minute field"],
    ['0 0 ?,1 * *', "'?' must stand alone as the whole day-of-month field"],
    ['x * * * *', "invalid value 'x' in the minute field"],
    ['0 0 1 1 * 2026/', "invalid step '' in '2026/' in the year field"],
  ])('rejects %j', (text, message) => {
    expect(refusalOf(text)).toContain(message);
  });

  it.each([
    ['L * * * *', 'minute'],
    ['0 l * * *', 'hour'],
    ['0 0 1 L *', 'month'],
    ['L 0 0 1 1 * *', 'second'],
    ['0 0 1 1 * L', 'year'],
    ['0 0 1 1 * 2026,L-1', 'year'],
  ])("'L' outside the day fields: %j", (text, field) => {
    expect(refusalOf(text)).toBe(
      `'L' is only valid in the day-of-month and day-of-week fields, not ${field}`,
    );
  });
});

describe('§5.4 business-day and last forms', () => {
  it.each([
    ['0 0 L * *', { lastOffsets: 1, lastWeekday: false, nearestWeekday: 0 }],
    ['0 0 L-3 * *', { lastOffsets: 1 << 3, lastWeekday: false, nearestWeekday: 0 }],
    ['0 0 L-30 * *', { lastOffsets: 1 << 30, lastWeekday: false, nearestWeekday: 0 }],
    ['0 0 LW * *', { lastOffsets: 0, lastWeekday: true, nearestWeekday: 0 }],
    ['0 0 15W * *', { lastOffsets: 0, lastWeekday: false, nearestWeekday: 1 << 15 }],
    ['0 0 1,15W,L * *', { lastOffsets: 1, lastWeekday: false, nearestWeekday: 1 << 15 }],
    ['0 0 1W,31w * *', { lastOffsets: 0, lastWeekday: false, nearestWeekday: (1 << 1) | (1 << 31) }],
  ])('day-of-month %s', (text, forms) => {
    const s = parseCron(text);
    expect(s.domForms?.lastOffsets).toBe(forms.lastOffsets);
    expect(s.domForms?.lastWeekday).toBe(forms.lastWeekday);
    expect(s.domForms?.nearestWeekday).toBe(forms.nearestWeekday);
  });

  it('plain days mix with forms', () => {
    expect(sets(parseCron('0 0 1,15W,L * *')).dom).toEqual([1]);
  });

  it.each([
    ['0 0 L-0 * *', "'L-0' in the day-of-month field needs an offset of 1-30"],
    ['0 0 L-31 * *', "'L-31' in the day-of-month field needs an offset of 1-30"],
    ['0 0 L-w * *', "invalid 'L' form 'L-w'"],
    ['0 0 LW-3 * *', "invalid 'L' form 'LW-3'"],
    ['0 0 wL * *', "invalid 'W' form 'wL'"],
    ['0 0 0W * *', "'0W' in the day-of-month field needs a day of 1-31 before 'W'"],
    ['0 0 32W * *', "'32W' in the day-of-month field needs a day of 1-31 before 'W'"],
    ['0 0 W * *', "invalid 'W' form 'W'"],
    ['0 0 1-15W * *', "invalid 'W' form '1-15W'"],
    ['0 0 15W/2 * *', "invalid 'W' form '15W/2'"],
    ['0 0 L2 * *', "invalid 'L' form 'L2' in the day-of-month field (it takes L, L-n or LW)"],
  ])('rejects day-of-month %j', (text, message) => {
    expect(refusalOf(text)).toContain(message);
  });

  it.each([
    ['0 0 * * L5', 1 << 5],
    ['0 0 * * l05', 1 << 5],
    ['0 0 * * L0', 1],
    ['0 0 * * L7', 1],
    ['0 0 * * L5-6', (1 << 5) | (1 << 6)],
    ['0 0 * * L0-7', 0x7f],
    ['0 0 * * L7-3', 0],
  ])('day-of-week last forms %s', (text, lastDow) => {
    const s = parseCron(text);
    expect(s.dowForms?.lastDow ?? 0).toBe(lastDow);
    expect(s.dowPlain).toBe(0);
  });

  it.each([
    ['0 0 * * Lmon', "invalid 'L' form 'Lmon' in the day-of-week field"],
    ['0 0 * * L5-L6', "invalid 'L' form 'L5-L6'"],
    ['0 0 * * l5-6/2', "invalid 'L' form 'l5-6/2'"],
    ['0 0 * * L8', "weekday out of range 0-7 in 'L8' in the day-of-week field"],
    ['0 0 * * l*', "invalid 'L' form 'l*'"],
    ['0 0 * * 1-2#3', "'1-2#3' in the day-of-week field needs a single weekday before '#'"],
    ['0 0 * * */2#1', "'*/2#1' in the day-of-week field needs a single weekday before '#'"],
    ['0 0 * * mon#fri', "'mon#fri' in the day-of-week field needs an occurrence of 1-5 after '#'"],
    ['0 0 * * #3', "'#3' in the day-of-week field needs a single weekday before '#'"],
    ['0 0 * * 5#', "'5#' in the day-of-week field needs an occurrence of 1-5 after '#'"],
    ['0 0 * * 5#0', "occurrence 0 in '5#0' out of range 1-5 in the day-of-week field"],
    ['0 0 * * 5#6', "occurrence 6 in '5#6' out of range 1-5 in the day-of-week field"],
    ['0 0 * * 5#3#1', "only one '#' is allowed in '5#3#1'"],
    ['0 0 * * 8#1', "weekday 8 out of range 0-7 in '8#1'"],
  ])('rejects day-of-week %j', (text, message) => {
    expect(refusalOf(text)).toContain(message);
  });

  it('d#n accepts names and 7, stored as n*8+d', () => {
    expect(parseCron('0 0 * * fri#3').dowForms?.nth).toEqual([29]);
    expect(parseCron('0 0 * * 7#1').dowForms?.nth).toEqual([8]);
    const mixed = parseCron('0 0 * * mon#1,L5');
    expect(mixed.dowForms?.nth).toEqual([9]);
    expect(mixed.dowForms?.lastDow).toBe(1 << 5);
  });
});

describe('§5.4 dialect hints', () => {
  it('hint 1: a 6-field expression with ? suggests the 7-field layout', () => {
    const msg = refusalOf('0 0 12 ? * MON');
    expect(msg).toMatch(/^'\?' is not valid in the month field \(6 fields are read as/);
    expect(msg).toContain("append ' *' to use the 7-field layout");
  });
  it("hint 2: '#' outside day-of-week", () => {
    expect(refusalOf('0 0 5#3 * *')).toBe(
      "'#' is not valid in the day-of-month field ('5#3') ('#' is only valid in the day-of-week field, e.g. 'fri#3' for the third Friday)",
    );
  });
  it("hint 3: 'W' outside day-of-month (also LW in day-of-week)", () => {
    expect(refusalOf('0 0 * 15W *')).toBe(
      "invalid value '15W' in the month field ('W' is only valid in the day-of-month field, e.g. '15W' or 'LW')",
    );
    expect(refusalOf('0 0 * * LW')).toContain("('W' is only valid in the day-of-month field");
  });
  it("hint 4: Quartz '5L' is spelled L5", () => {
    expect(refusalOf('0 0 * * 5L')).toBe(
      "invalid value '5L' in the day-of-week field (Quartz '5L' (the last Friday of the month) is spelled 'L5' here)",
    );
  });
  it("hint 5: '?' in a non-day position", () => {
    expect(refusalOf('? * * * *')).toBe(
      "'?' is not valid in the minute field ('?' is only accepted standing alone in the day-of-month or day-of-week field)",
    );
  });
  it('weekday names do not trigger the W hint; no hint when nothing applies', () => {
    expect(refusalOf('0 0 * * wed,x')).toBe("invalid value 'x' in the day-of-week field");
    expect(refusalOf('61 * * * *')).toBe('value 61 out of range 0-59 in the minute field');
  });
  it('the first applicable hint wins, scanning fields in column order', () => {
    expect(refusalOf('0 5#1 * 15W *')).toContain("('#' is only valid in the day-of-week field");
    expect(refusalOf('0 1W * * 5#1,2L')).toContain("('W' is only valid in the day-of-month field");
  });
});

describe('§5.1 nicknames and object form', () => {
  it.each([
    ['@yearly', '0 0 1 1 *'],
    ['@annually', '0 0 1 1 *'],
    ['@monthly', '0 0 1 * *'],
    ['@weekly', '0 0 * * 0'],
    ['@daily', '0 0 * * *'],
    ['@hourly', '0 * * * *'],
    ['@DAILY', '0 0 * * *'],
    ['  @Hourly ', '0 * * * *'],
  ])('%s = %s', (nick, expansion) => {
    const s = parseCron(nick);
    expect(semanticKey(s)).toBe(semanticKey(parseCron(expansion)));
    expect(s.source).toBe(nick.trim());
    expect(s.resolved).toBe(nick.trim());
    expect(s.hasSeconds).toBe(false);
  });

  it('other @words are errors', () => {
    expect(refusalOf('@midnight')).toBe(
      'expected 5 to 7 whitespace-separated cron fields (or a supported @-nickname), got 1',
    );
    expect(refusalOf('@every5m')).toContain('got 1');
    expect(refusalOf('@daily *')).toContain('got 2');
  });

  it('isReboot is exact', () => {
    expect(isReboot('@reboot')).toBe(true);
    expect(isReboot('@REBOOT')).toBe(false);
    expect(isReboot(' @reboot')).toBe(false);
    expect(isReboot('@daily')).toBe(false);
  });

  it('renders objects as in §5.1', () => {
    expect(renderScheduleObject({ minute: '*/5' })).toBe('*/5 * * * *');
    expect(
      renderScheduleObject({ minute: '0', hour: '0', dayOfMonth: '1', month: '1', year: '2026/2' }),
    ).toBe('0 0 1 1 * 2026/2');
    expect(renderScheduleObject({ second: '*/5' })).toBe('*/5 * * * * * *');
    expect(renderScheduleObject({ minute: '0', hour: '6', dayOfWeek: 'mon-fri' })).toBe('0 6 * * mon-fri');
    expect(renderScheduleObject({ second: '', minute: '30' })).toBe(' 30 * * * * *');
    expect(renderScheduleObject({ second: '10', year: '2027' })).toBe('10 * * * * * 2027');
    expect(renderScheduleObject({})).toBe('* * * * *');
  });

  it('an empty second renders a leading blank and parses as 6 fields (minute-granular)', () => {
    const s = parseCron(renderScheduleObject({ second: '', minute: '30' }));
    expect(s.hasSeconds).toBe(false);
    expect(s.source).toBe('30 * * * * *');
    expect(semanticKey(s)).toBe(semanticKey(parseCron('30 * * * *')));
  });

  it('hasSeconds only for the 7-field form', () => {
    expect(parseCron('*/2 * * * * * *').hasSeconds).toBe(true);
    expect(parseCron('0 0 * * * * *').hasSeconds).toBe(true);
    expect(parseCron('0 0 * * * 2026').hasSeconds).toBe(false);
    expect(parseCron('0 0 * * *').hasSeconds).toBe(false);
  });

  it('fieldTexts maps columns to kinds', () => {
    expect(parseCron('1 2 3 4 5 6 2030').fieldTexts).toEqual(['1', '2', '3', '4', '5', '6', '2030']);
    expect(parseCron('*/7 * * * *').fieldTexts).toEqual([null, '*/7', '*', '*', '*', '*', null]);
    expect(parseCron('@weekly').fieldTexts).toEqual([null, '0', '0', '*', '*', '0', null]);
  });
});

describe('§5.5 H', () => {
  it('pinned vectors (§8 row 25)', () => {
    expect(parseCron('H H H H H', { hashKey: 'report-gen' }).resolved).toBe('43 9 21 8 6');
    expect(parseCron('H/15 * * * *', { hashKey: 'x' }).resolved).toBe('1,16,31,46 * * * *');
    expect(parseCron('H * * * * * *', { hashKey: 'tick' }).resolved).toBe('9 * * * * * *');
    expect(parseCron('H * * * *', { hashKey: 'refresh-cache' }).resolved).toBe('29 * * * *');
  });

  it('the seed is the first 8 bytes of SHA-256("<label>\\n<key>"), big-endian', () => {
    const hex = sha256Hex('minute\nrefresh-cache');
    expect(new HashSeed('minute', 'refresh-cache').toBigInt()).toBe(BigInt(`0x${hex.slice(0, 16)}`));
    const v = BigInt(`0x${sha256Hex('day-of-month\nreport-gen').slice(0, 16)}`);
    expect(1n + (v % 28n)).toBe(21n);
    for (const n of [1, 2, 7, 12, 24, 28, 31, 59, 60]) {
      const seed = new HashSeed('hour', `job-${n}`);
      expect(seed.mod(n)).toBe(Number(seed.toBigInt() % BigInt(n)));
    }
  });

  it('source keeps H, resolved has the values, sets use the values', () => {
    const s = parseCron('H   H * * *', { hashKey: 'report-gen' });
    expect(s.source).toBe('H H * * *');
    expect(s.resolved).toBe('43 9 * * *');
    expect(sets(s).minute).toEqual([43]);
    expect(semanticKey(s)).toBe(semanticKey(parseCron('43 9 * * *')));
  });

  it('ranges and steps', () => {
    const v = new HashSeed('minute', 'job');
    expect(parseCron('H(10-19) * * * *', { hashKey: 'job' }).resolved).toBe(`${10 + v.mod(10)} * * * *`);
    const start = v.mod(20);
    expect(sets(parseCron('H/20 * * * *', { hashKey: 'job' })).minute).toEqual([
      start,
      start + 20,
      start + 40,
    ]);
    const s2 = 30 + v.mod(10);
    expect(sets(parseCron('H(30-59)/10 * * * *', { hashKey: 'job' })).minute).toEqual([s2, s2 + 10, s2 + 20]);
    const d = new HashSeed('day-of-month', 'job');
    expect(sets(parseCron('0 0 H * *', { hashKey: 'job' })).dom).toEqual([1 + d.mod(28)]);
    const w = new HashSeed('day-of-week', 'job');
    expect(sets(parseCron('0 0 * * H', { hashKey: 'job' })).dow).toEqual([w.mod(7)]);
  });

  it('H mixes with other items; the rest of the field stays as written', () => {
    const s = parseCron('0 0 * * H,FRI', { hashKey: 'job' });
    expect(s.resolved).toBe(`0 0 * * ${new HashSeed('day-of-week', 'job').mod(7)},FRI`);
  });

  it('an empty hash key is a key', () => {
    expect(() => parseCron('H * * * *', { hashKey: '' })).not.toThrow();
    expect(looksLikeCrontabLine('H * * * * /bin/true')).toBe(true);
  });

  it.each([
    ['H * * * *', undefined, "'H' in the minute field needs a hash key (the job name), and none was given"],
    ['0 0 1 1 * H', 'job', "'H' is not valid in the year field"],
    ['Hx * * * *', 'job', "invalid hashed item 'Hx' in the minute field (use H, H(a-b), H/n or H(a-b)/n)"],
    ['H(5-2) * * * *', 'job', "range of 'H(5-2)' is reversed in the minute field"],
    ['H(0-60) * * * *', 'job', "range of 'H(0-60)' out of range 0-59 in the minute field"],
    ['H/0 * * * *', 'job', "step 0 in 'H/0' out of range 1-60 in the minute field"],
    ['H/61 * * * *', 'job', "step 61 in 'H/61' out of range 1-60 in the minute field"],
    ['0 H(1-3)/4 * * *', 'job', "step 4 in 'H(1-3)/4' out of range 1-3 in the hour field"],
  ])('rejects %j (key %j)', (text, key, message) => {
    expect(refusalOf(text, key)).toBe(message);
  });
});

describe('§5.9 semantic equality', () => {
  const same = (a: string, b: string) => semanticKey(parseCron(a)) === semanticKey(parseCron(b));
  it.each([
    ['*/5 * * * *', '0-59/5 * * * *'],
    ['@daily', '0 0 * * *'],
    ['0 0 * * 7', '0 0 * * 0'],
    ['0 0 * * sat-sun', '0 0 * * 6-7'],
    ['0 0 * * fri#3', '0 0 * * 5#3'],
    ['0 0 ? * *', '0 0 * * *'],
    ['0 0 1-31 * *', '0 0 * * *'],
    ['0 0 * * *', '0 0 * * * *'],
    ['0 0 * * *', '0 0 0 * * * *'],
    ['0 0 * JAN *', '0 0 * 1 *'],
    ['0 0 * * L5', '0 0 * * l5'],
    ['0 0 L,1 * *', '0 0 1,l * *'],
  ])('%s == %s', (a, b) => {
    expect(same(a, b)).toBe(true);
  });
  it.each([
    ['* * * * *', '* * * * * * *'],
    ['0 0 * * *', '0 0 * * * 2026'],
    ['0 0 L * *', '0 0 LW * *'],
    ['0 0 15 * *', '0 0 15W * *'],
    ['0 0 * * 5', '0 0 * * L5'],
    ['0 0 * * 5#1', '0 0 * * 5#2'],
    ['0 0 L-1 * *', '0 0 L-2 * *'],
  ])('%s != %s', (a, b) => {
    expect(same(a, b)).toBe(false);
  });
  it('H equals its resolved minute', () => {
    expect(semanticKey(parseCron('H * * * *', { hashKey: 'refresh-cache' }))).toBe(
      semanticKey(parseCron('29 * * * *')),
    );
  });
});

describe('crontab content sniff (§1.2 rule c)', () => {
  it.each([
    ['*/5 * * * * /usr/bin/backup --all', true],
    ['0 4 * * mon-fri echo hi', true],
    ['H H * * * run', true],
    ['*/5 * * * *', false],
    ['jobs:', false],
    ['- name: x', false],
    ['0 0 32 * * cmd', false],
    ['a b c d e f', false],
  ])('%j -> %s', (line, expected) => {
    expect(looksLikeCrontabLine(line)).toBe(expected);
  });
});

describe('describeSchedule', () => {
  it.each([
    ['*/5 * * * *', 'every 5 minutes'],
    ['* * * * *', 'every minute'],
    ['* * * * * * *', 'every second'],
    ['*/2 * * * * * *', 'every 2 seconds'],
    ['0 * * * *', 'every hour'],
    ['15 * * * *', 'every hour at minute 15'],
    ['30 2 * * *', 'at 02:30'],
    ['30 1 LW * *', 'at 01:30 on the last weekday of the month'],
    ['0 6 * * mon-fri', 'at 06:00 on Monday through Friday'],
    ['0 0 * * L5', 'at 00:00 on the last Friday of the month'],
    ['0 0 * * 5#3', 'at 00:00 on the third Friday of the month'],
    ['0 0 13 * 5', 'at 00:00 on the 13th of the month when it is a Friday'],
    ['0 0 1 1 *', 'at 00:00 on the 1st of January'],
    ['0 0 1,15 * *', 'at 00:00 on the 1st and 15th of the month'],
    [
      '0 0,12 1 */2 *',
      'at 00:00 and 12:00 on the 1st of the month in January, March, May, July, September and November',
    ],
    ['0 0 L-3 * *', 'at 00:00 on the 4th-to-last day of the month'],
    ['0 8-18 * * *', 'every hour from 08:00 to 18:00'],
    ['15-45/10 30 12 * * * *', 'at 12:30:15, 12:30:25, 12:30:35 and 12:30:45'],
    ['0 12 * * mon#1,L5', 'at 12:00 on the last Friday or the first Monday of the month'],
    ['0 0 15W * fri', 'at 00:00 on the weekday nearest the 15th of the month when it is a Friday'],
    ['0 0 * * l3-1', 'at 00:00 on no day (the weekday field matches nothing)'],
    ['0 9,17 * * *', 'at 09:00 and 17:00'],
    ['0 0 1 1 * 2026/2', 'at 00:00 on the 1st of January every 2 years from 2026'],
    ['*/15 9-17 * * *', 'every 15 minutes between 09:00 and 17:59'],
  ])('%s -> %s', (text, description) => {
    expect(describeSchedule(parseCron(text))).toBe(description);
  });
});

describe('parses are independent', () => {
  it('nothing leaks from one parse into the next', () => {
    parseCron('0 0 1 1 * 2030');
    expect(parseCron('0 0 1 1 *').years).toBeNull();
    parseCron('0 0 L * L5');
    const plain = parseCron('0 0 1 * 5');
    expect(plain.domForms).toBeNull();
    expect(plain.dowForms).toBeNull();
    parseCron('*/2 * * * * * *');
    expect(sets(parseCron('* * * * *')).second).toEqual([0]);
    parseCron('H H * * *', { hashKey: 'a' });
    expect(parseCron('5 5 * * *').resolved).toBe('5 5 * * *');
    expect(() => parseCron('0 0 5#3 * *')).toThrow();
    expect(sets(parseCron('0 0 5 * *')).dom).toEqual([5]);
  });
});

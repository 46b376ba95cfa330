// Short plain-English description of a schedule (best effort; used by the dashboard and duplicate grouping).
import { bitList, bitList60 } from './bits.ts';
import { domMatchesAll, dowMatchesAll } from './days.ts';
import { DAY_LONG, joinAnd, MONTH_LONG, pad2 } from './english.ts';
import { yearList } from './fields.ts';
import type { CronSchedule, DayOfMonthForms, DayOfWeekForms } from './parse.ts';

const NO_DOM_FORMS: DayOfMonthForms = { lastOffsets: 0, lastWeekday: false, nearestWeekday: 0 };
const NO_DOW_FORMS: DayOfWeekForms = { lastDow: 0, nth: [] };
const ORDINAL = ['', 'first', 'second', 'third', 'fourth', 'fifth'];

/** Runs of consecutive values rendered with `name`, e.g. [1,2,3,5] -> "Monday through Wednesday and Friday". */
function runs(values: number[], name: (v: number) => string, through = ' through '): string {
  const parts: string[] = [];
  let i = 0;
  while (i < values.length) {
    let j = i;
    while (j + 1 < values.length && values[j + 1] === values[j]! + 1) j++;
    if (j - i >= 2) parts.push(`${name(values[i]!)}${through}${name(values[j]!)}`);
    else for (let k = i; k <= j; k++) parts.push(name(values[k]!));
    i = j + 1;
  }
  return joinAnd(parts);
}

/**
 * Step n when values = a, a+n, ... and the field wraps round evenly, so the gap from the last value to
 * the first one of the next cycle is n too (`*\/15` minutes, `5/20` minutes); `*\/25` (fires :00, :25,
 * :50, then :00 again 10 minutes later) is not "every 25 minutes". `size` is the field's cycle length
 * (60 for seconds and minutes, 24 for hours).
 */
function stepOf(values: number[], size: number): { start: number; step: number } | null {
  const st = arithmetic(values);
  if (st === null || values[values.length - 1]! + st.step !== size + values[0]!) return null;
  return st;
}

/** Step n when values = a, a+n, ... (n > 1), else null. */
function arithmetic(values: number[]): { start: number; step: number } | null {
  if (values.length < 2) return null;
  const step = values[1]! - values[0]!;
  if (step < 2) return null;
  for (let i = 1; i < values.length; i++) if (values[i]! - values[i - 1]! !== step) return null;
  return { start: values[0]!, step };
}

function describeTime(s: CronSchedule): string {
  const secs = bitList60(s.secLo, s.secHi);
  const mins = bitList60(s.minLo, s.minHi);
  const hours = bitList(s.hours);
  const allSec = secs.length === 60;
  const allMin = mins.length === 60;
  const allHour = hours.length === 24;
  const secStep = stepOf(secs, 60);
  const minStep = stepOf(mins, 60);
  const hourStep = stepOf(hours, 24);
  if (allHour && allMin) {
    if (allSec) return 'every second';
    if (secStep !== null)
      return `every ${secStep.step} seconds${secStep.start ? ` from second ${secStep.start}` : ''}`;
    if (secs.length === 1) return secs[0] === 0 ? 'every minute' : `every minute at second ${secs[0]}`;
    return `every minute at seconds ${runs(secs, String, '-')}`;
  }
  const secSuffix =
    secs.length === 1 && secs[0] === 0
      ? ''
      : ` at second${secs.length > 1 ? 's' : ''} ${runs(secs, String, '-')}`;
  if (allHour) {
    if (minStep !== null) {
      return `every ${minStep.step} minutes${minStep.start ? ` from minute ${minStep.start}` : ''}${secSuffix}`;
    }
    if (mins.length === 1)
      return mins[0] === 0 && secSuffix === '' ? 'every hour' : `every hour at minute ${mins[0]}${secSuffix}`;
    return `every hour at minutes ${runs(mins, String, '-')}${secSuffix}`;
  }
  if (mins.length === 1 && secs.length > 1 && hours.length * secs.length <= 6) {
    const clocks = hours.flatMap((h) => secs.map((sec) => `${pad2(h)}:${pad2(mins[0]!)}:${pad2(sec)}`));
    return `at ${joinAnd(clocks)}`;
  }
  if (mins.length === 1 && secs.length === 1) {
    const clock = (h: number): string => `${pad2(h)}:${pad2(mins[0]!)}${secs[0] ? `:${pad2(secs[0])}` : ''}`;
    if (hours.length <= 6) return `at ${joinAnd(hours.map(clock))}`;
    if (hourStep !== null) {
      return `every ${hourStep.step} hours at minute ${mins[0]}${hourStep.start ? ` from ${clock(hourStep.start)}` : ''}`;
    }
    if (hours[hours.length - 1]! - hours[0]! === hours.length - 1) {
      return `every hour from ${clock(hours[0]!)} to ${clock(hours[hours.length - 1]!)}`;
    }
    return `at minute ${mins[0]} past hours ${runs(hours, String, '-')}`;
  }
  const minPart =
    minStep !== null
      ? `every ${minStep.step} minutes`
      : allMin
        ? 'every minute'
        : `at minute${mins.length > 1 ? 's' : ''} ${runs(mins, String, '-')}`;
  const contiguous = hours[hours.length - 1]! - hours[0]! === hours.length - 1;
  const hourPart = contiguous
    ? `between ${pad2(hours[0]!)}:00 and ${pad2(hours[hours.length - 1]!)}:59`
    : `during hours ${runs(hours, String, '-')}`;
  return `${minPart}${secSuffix} ${hourPart}`;
}

function ordinalDay(d: number): string {
  const suffix =
    d % 10 === 1 && d !== 11
      ? 'st'
      : d % 10 === 2 && d !== 12
        ? 'nd'
        : d % 10 === 3 && d !== 13
          ? 'rd'
          : 'th';
  return `${d}${suffix}`;
}

function domParts(s: CronSchedule): string[] {
  const dom = s.domForms ?? NO_DOM_FORMS;
  const parts: string[] = [];
  const plain = bitList(s.domPlain);
  if (plain.length > 0) parts.push(`the ${runs(plain, ordinalDay, '-')}`);
  for (const w of bitList(dom.nearestWeekday)) parts.push(`the weekday nearest the ${ordinalDay(w)}`);
  if (dom.lastWeekday) parts.push('the last weekday');
  for (const n of bitList(dom.lastOffsets)) {
    parts.push(
      n === 0
        ? 'the last day'
        : `the ${n === 1 ? 'second' : n === 2 ? 'third' : ordinalDay(n + 1)}-to-last day`,
    );
  }
  return parts;
}

function dowParts(s: CronSchedule): string[] {
  const dow = s.dowForms ?? NO_DOW_FORMS;
  const parts: string[] = [];
  const plain = bitList(s.dowPlain);
  if (plain.length > 0) parts.push(runs(plain, (d) => DAY_LONG[d]!));
  for (const d of bitList(dow.lastDow)) parts.push(`the last ${DAY_LONG[d]}`);
  for (const code of dow.nth) parts.push(`the ${ORDINAL[code >> 3]} ${DAY_LONG[code & 7]}`);
  return parts;
}

function describeDays(s: CronSchedule): string {
  const domAll = domMatchesAll(s);
  const dowAll = dowMatchesAll(s);
  if (domAll && dowAll) return '';
  const ofMonth = (p: string[]): string => `${joinAnd(p, 'or')} of the month`;
  if (dowAll && s.domForms === null && monthsNamed(s))
    return `on the ${runs(bitList(s.domPlain), ordinalDay, '-')} of ${monthNames(s)}`;
  if (dowAll) return `on ${ofMonth(domParts(s))}`;
  const dow = dowParts(s);
  if (dow.length === 0) return 'on no day (the weekday field matches nothing)';
  const dowText = joinAnd(dow, 'or') + (s.dowForms !== null ? ' of the month' : '');
  if (domAll) return `on ${dowText}`;
  return `on ${ofMonth(domParts(s))} when it is ${dowText.startsWith('the ') ? '' : 'a '}${dowText}`;
}

const monthNames = (s: CronSchedule): string => runs(bitList(s.months), (m) => MONTH_LONG[m - 1]!);

/** Plain days of a few named months read best as "the 1st of January": then the months go with the days. */
function monthsNamed(s: CronSchedule): boolean {
  const months = bitList(s.months).length;
  return months <= 3 && !domMatchesAll(s) && dowMatchesAll(s) && s.domForms === null;
}

function describeMonths(s: CronSchedule): string {
  if ((s.months & 0x1ffe) === 0x1ffe || monthsNamed(s)) return '';
  return `in ${monthNames(s)}`;
}

function describeYears(s: CronSchedule): string {
  if (s.years === null) return '';
  const years = yearList(s.years);
  if (years.length === 0) return 'in no year';
  if (years.length <= 5) return `in ${runs(years, String, '-')}`;
  // years do not wrap: a step counts when it runs on to the field's end
  const st = arithmetic(years);
  if (st !== null && years[years.length - 1]! + st.step > 2099)
    return `every ${st.step} years from ${st.start}`;
  return `in ${years.length} selected years from ${years[0]} to ${years[years.length - 1]}`;
}

/** e.g. "every 5 minutes", "at 02:30 on the last weekday of the month", "at 06:00 on Monday through Friday". */
export function describeSchedule(s: CronSchedule): string {
  return [describeTime(s), describeDays(s), describeMonths(s), describeYears(s)]
    .filter((p) => p !== '')
    .join(' ');
}

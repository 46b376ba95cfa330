// Which days of one month satisfy the day rule: day-of-month side AND day-of-week side (spec 01 §5.4).
import { daysFromCivil, daysInMonth, weekdayOfDays } from './civil.ts';
import type { CronSchedule } from './parse.ts';

/** FULL[e] = bits 1..e */
const FULL = new Int32Array(32);
for (let e = 1; e < 32; e++) FULL[e] = FULL[e - 1]! | (1 << e);
/** Days 1-31. */
export const ALL_DOM = FULL[31]!;
const ALL_DOW = 0x7f;

/**
 * DOW_DAYS[wd1 * 128 + set] = days (bits 1..31) whose weekday is in `set` (7-bit mask, 0 = Sunday) in a month
 * whose day 1 falls on weekday wd1.
 */
const DOW_DAYS = new Int32Array(7 * 128);
for (let wd1 = 0; wd1 < 7; wd1++) {
  for (let set = 0; set < 128; set++) {
    let m = 0;
    for (let d = 1; d <= 31; d++) if (set & (1 << ((wd1 + d - 1) % 7))) m |= 1 << d;
    DOW_DAYS[wd1 * 128 + set] = m;
  }
}

/** Nearest weekday of day t in a month of e days starting on weekday wd1, never leaving the month. */
export function shiftToWeekday(t: number, e: number, wd1: number): number {
  const w = (wd1 + t - 1) % 7;
  if (w === 6) return t === 1 ? 3 : t - 1;
  if (w === 0) return t === e ? t - 2 : t + 1;
  return t;
}

/** The day-of-month side matches every day (plain set 1-31). */
export const domMatchesAll = (s: CronSchedule): boolean => (s.domPlain & ALL_DOM) === ALL_DOM;
/** The day-of-week side matches every day (plain set 0-6). */
export const dowMatchesAll = (s: CronSchedule): boolean => (s.dowPlain & ALL_DOW) === ALL_DOW;

/** Bit mask (bits 1..31) of the days of month m of year y that match the schedule's day rule. */
export function matchingDays(s: CronSchedule, y: number, m: number): number {
  const e = daysInMonth(y, m);
  const full = FULL[e]!;
  const domAll = (s.domPlain & ALL_DOM) === ALL_DOM;
  const dowAll = (s.dowPlain & ALL_DOW) === ALL_DOW;
  if (domAll && dowAll) return full;
  const wd1 = weekdayOfDays(daysFromCivil(y, m, 1));
  let dom = s.domPlain & full;
  const df = s.domForms;
  if (df !== null && !domAll) {
    let off = df.lastOffsets;
    while (off !== 0) {
      const n = 31 - Math.clz32(off & -off);
      off &= off - 1;
      if (e - n >= 1) dom |= 1 << (e - n);
    }
    if (df.lastWeekday) dom |= 1 << shiftToWeekday(e, e, wd1);
    let w = df.nearestWeekday & full;
    while (w !== 0) {
      const t = 31 - Math.clz32(w & -w);
      w &= w - 1;
      dom |= 1 << shiftToWeekday(t, e, wd1);
    }
  }
  if (dom === 0 || dowAll) return dom;
  const row = wd1 * 128;
  let dow = DOW_DAYS[row + s.dowPlain]!;
  const wf = s.dowForms;
  if (wf !== null) {
    if (wf.lastDow !== 0) dow |= DOW_DAYS[row + wf.lastDow]! & full & ~FULL[e - 7]!;
    for (const code of wf.nth) {
      const day = (((code & 7) - wd1 + 7) % 7) + 1 + 7 * ((code >> 3) - 1);
      if (day <= e) dow |= 1 << day;
    }
  }
  return dom & dow;
}

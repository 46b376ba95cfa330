// POSIX TZ strings as found in the footer of a TZif file (RFC 8536 §3.3, with the v3 extensions: rule
// times from -167 to 167 hours). They say what a zone does after its last listed transition, which is
// all that "slim" zone files (Debian's) give for the future. Pure: no I/O, no Date.
import { DAY_S, daysFromCivil } from './civil.ts';

/** When a rule switches, as a day of some year: Jn (1-365, never Feb 29), n (0-365), or Mm.w.d. */
export type RuleDate =
  | { kind: 'julian1'; day: number }
  | { kind: 'julian0'; day: number }
  | { kind: 'month'; month: number; week: number; weekday: number };

export interface RuleEdge {
  readonly date: RuleDate;
  /** seconds after local midnight (of the clock in force before the switch); may be negative or past 24h */
  readonly time: number;
}

export interface PosixTz {
  readonly std: { abbr: string; utoff: number };
  /** absent for a zone without daylight saving time */
  readonly dst?: { abbr: string; utoff: number; start: RuleEdge; end: RuleEdge };
}

export interface LocalType {
  /** seconds east of UTC */
  readonly utoff: number;
  readonly isDst: boolean;
  readonly abbr: string;
}

class Cursor {
  i = 0;
  constructor(readonly s: string) {}
  peek(): string {
    return this.s[this.i] ?? '';
  }
  done(): boolean {
    return this.i >= this.s.length;
  }
}

function parseAbbr(c: Cursor): string | null {
  const s = c.s;
  if (c.peek() === '<') {
    const close = s.indexOf('>', c.i);
    if (close < 0) return null;
    const abbr = s.slice(c.i + 1, close);
    if (!/^[A-Za-z0-9+-]{3,}$/.test(abbr)) return null;
    c.i = close + 1;
    return abbr;
  }
  const m = /^[A-Za-z]{3,}/.exec(s.slice(c.i));
  if (m === null) return null;
  c.i += m[0].length;
  return m[0];
}

/** [+-]hh[:mm[:ss]] as seconds, hours up to maxHours. */
function parseHms(c: Cursor, maxHours: number): number | null {
  const m = /^([+-]?)(\d{1,3})(?::(\d{2}))?(?::(\d{2}))?/.exec(c.s.slice(c.i));
  if (m === null) return null;
  const h = Number(m[2]);
  const mi = m[3] === undefined ? 0 : Number(m[3]);
  const se = m[4] === undefined ? 0 : Number(m[4]);
  if (h > maxHours || mi > 59 || se > 59) return null;
  c.i += m[0].length;
  const v = h * 3600 + mi * 60 + se;
  return m[1] === '-' ? -v : v;
}

const MONTH_RULE = /^M(\d{1,2})\.(\d)\.(\d)/;
const JULIAN1_RULE = /^J(\d{1,3})/;
const JULIAN0_RULE = /^(\d{1,3})/;

/** The date part of a rule edge and how many characters it took; null when malformed. */
function parseRuleDate(rest: string): { date: RuleDate; len: number } | null {
  const mm = MONTH_RULE.exec(rest);
  if (mm !== null) {
    const month = Number(mm[1]);
    const week = Number(mm[2]);
    const weekday = Number(mm[3]);
    if (month < 1 || month > 12 || week < 1 || week > 5 || weekday > 6) return null;
    return { date: { kind: 'month', month, week, weekday }, len: mm[0].length };
  }
  const j1 = JULIAN1_RULE.exec(rest);
  if (j1 !== null) {
    const day = Number(j1[1]);
    return day < 1 || day > 365 ? null : { date: { kind: 'julian1', day }, len: j1[0].length };
  }
  const j0 = JULIAN0_RULE.exec(rest);
  if (j0 !== null) {
    const day = Number(j0[1]);
    return day > 365 ? null : { date: { kind: 'julian0', day }, len: j0[0].length };
  }
  return null;
}

function parseEdge(c: Cursor): RuleEdge | null {
  const d = parseRuleDate(c.s.slice(c.i));
  if (d === null) return null;
  const { date } = d;
  c.i += d.len;
  let time = 7200;
  if (c.peek() === '/') {
    c.i++;
    const t = parseHms(c, 167);
    if (t === null) return null;
    time = t;
  }
  return { date, time };
}

/** Parses a POSIX TZ string ('EST5EDT,M3.2.0,M11.1.0', '<+0330>-3:30'); null when it is not one. */
export function parsePosixTz(text: string): PosixTz | null {
  const c = new Cursor(text);
  const stdAbbr = parseAbbr(c);
  if (stdAbbr === null) return null;
  const stdOff = parseHms(c, 24);
  if (stdOff === null) return null;
  const std = { abbr: stdAbbr, utoff: 0 - stdOff };
  if (c.done()) return { std };
  const dstAbbr = parseAbbr(c);
  if (dstAbbr === null) return null;
  let dstUtoff = std.utoff + 3600;
  if (c.peek() !== ',' && !c.done()) {
    const o = parseHms(c, 24);
    if (o === null) return null;
    dstUtoff = 0 - o;
  }
  let start: RuleEdge | null;
  let end: RuleEdge | null;
  if (c.done()) {
    // No rule: the tz reference code's default, the US rules since 2007.
    start = { date: { kind: 'month', month: 3, week: 2, weekday: 0 }, time: 7200 };
    end = { date: { kind: 'month', month: 11, week: 1, weekday: 0 }, time: 7200 };
  } else {
    if (c.peek() !== ',') return null;
    c.i++;
    start = parseEdge(c);
    if (start === null || c.peek() !== ',') return null;
    c.i++;
    end = parseEdge(c);
    if (end === null || !c.done()) return null;
  }
  return { std, dst: { abbr: dstAbbr, utoff: dstUtoff, start, end } };
}

const isLeap = (y: number): boolean => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days since 1970-01-01 of a rule date in year y. */
export function ruleDay(date: RuleDate, y: number): number {
  const jan1 = daysFromCivil(y, 1, 1);
  switch (date.kind) {
    case 'julian0':
      return jan1 + date.day;
    case 'julian1':
      return jan1 + date.day - 1 + (isLeap(y) && date.day >= 60 ? 1 : 0);
    case 'month': {
      const first = daysFromCivil(y, date.month, 1);
      const wdFirst = (((first + 4) % 7) + 7) % 7; // 1970-01-01 was a Thursday
      let dom = 1 + ((date.weekday - wdFirst + 7) % 7) + (date.week - 1) * 7;
      const len = MONTH_DAYS[date.month - 1]! + (date.month === 2 && isLeap(y) ? 1 : 0);
      while (dom > len) dom -= 7;
      return first + dom - 1;
    }
  }
}

/** The two switch instants (Unix seconds) of year y: DST starts (read on standard time) and ends (on DST). */
export function yearSwitches(tz: PosixTz, y: number): { start: number; end: number } | null {
  const dst = tz.dst;
  if (dst === undefined) return null;
  return {
    start: ruleDay(dst.start.date, y) * DAY_S + dst.start.time - tz.std.utoff,
    end: ruleDay(dst.end.date, y) * DAY_S + dst.end.time - dst.utoff,
  };
}

/** Year (proleptic Gregorian, UTC) of a Unix second. */
function utcYear(sec: number): number {
  // 400 Gregorian years are exactly 146097 days; good enough to pick a year, then correct it.
  let y = 1970 + Math.floor(sec / (DAY_S * 365.2425));
  if (daysFromCivil(y, 1, 1) * DAY_S > sec) y--;
  else if (daysFromCivil(y + 1, 1, 1) * DAY_S <= sec) y++;
  return y;
}

/**
 * Whether DST is in force at Unix second sec. Switches of the neighbouring years are considered too, since
 * rule times past 24h or below 0 and southern-hemisphere rules move a year's switches across New Year.
 * A start and an end at the same instant (all-year DST, 'J365/25' style) leave DST in force.
 */
export function isDstAt(tz: PosixTz, sec: number): boolean {
  if (tz.dst === undefined) return false;
  const y = utcYear(sec);
  let lastAt = Number.NEGATIVE_INFINITY;
  let dst = false;
  for (let yy = y - 1; yy <= y + 1; yy++) {
    const sw = yearSwitches(tz, yy)!;
    if (sw.end <= sec && (sw.end > lastAt || (sw.end === lastAt && !dst))) {
      lastAt = sw.end;
      dst = false;
    }
    if (sw.start <= sec && sw.start >= lastAt) {
      lastAt = sw.start;
      dst = true;
    }
  }
  if (lastAt === Number.NEGATIVE_INFINITY) {
    // Nothing switched in the three years around sec: the order of a year's two switches decides.
    const sw = yearSwitches(tz, y)!;
    return sw.end < sw.start;
  }
  return dst;
}

/** The local time type in force at Unix second sec. */
export function posixTypeAt(tz: PosixTz, sec: number): LocalType {
  if (tz.dst !== undefined && isDstAt(tz, sec))
    return { utoff: tz.dst.utoff, isDst: true, abbr: tz.dst.abbr };
  return { utoff: tz.std.utoff, isDst: false, abbr: tz.std.abbr };
}

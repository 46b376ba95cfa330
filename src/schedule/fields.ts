// One cron field's text -> its value sets (bitmasks), with the dialect's validation rules (spec 01 §5.2-5.4).
import { ScheduleError } from './errors.ts';

export enum Kind {
  Second = 0,
  Minute = 1,
  Hour = 2,
  DayOfMonth = 3,
  Month = 4,
  DayOfWeek = 5,
  Year = 6,
}

export interface FieldSpec {
  readonly label: string;
  /** explicit range */
  readonly lo: number;
  readonly hi: number;
  /** where `*` and bare-start steps end */
  readonly end: number;
  readonly names: readonly string[] | null;
}

export const MONTH_NAMES = [
  'jan',
  'feb',
  'mar',
  'apr',
  'may',
  'jun',
  'jul',
  'aug',
  'sep',
  'oct',
  'nov',
  'dec',
];
export const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

export const FIELDS: readonly FieldSpec[] = [
  { label: 'second', lo: 0, hi: 59, end: 59, names: null },
  { label: 'minute', lo: 0, hi: 59, end: 59, names: null },
  { label: 'hour', lo: 0, hi: 23, end: 23, names: null },
  { label: 'day-of-month', lo: 1, hi: 31, end: 31, names: null },
  { label: 'month', lo: 1, hi: 12, end: 12, names: MONTH_NAMES },
  { label: 'day-of-week', lo: 0, hi: 7, end: 6, names: DAY_NAMES },
  { label: 'year', lo: 1970, hi: 2099, end: 2099, names: null },
];

export const FIRST_YEAR = 1970;
export const LAST_YEAR = 2099;

/**
 * The parsed sets of one field. `lo`/`hi` hold the plain values as bits: values 0-29 in `lo` and 30-59 in `hi`
 * for second/minute; every other field keeps all its values in `lo` (hour 0-23, day 1-31, month 1-12,
 * weekday 0-6). Day and year extras are only non-empty for their own field.
 */
export interface FieldSet {
  readonly lo: number;
  readonly hi: number;
  /** day-of-month: bit n for `L-n`, bit 0 for bare `L` */
  readonly lastOffsets: number;
  /** day-of-month: `LW` present */
  readonly lastWeekday: boolean;
  /** day-of-month: bit n for each `nW` target */
  readonly nearestWeekday: number;
  /** day-of-week: weekdays of `L<d>` / `L<a>-<b>` items */
  readonly lastDow: number;
  /** day-of-week: `d#n` items, each encoded as n * 8 + d, ascending and unique */
  readonly nth: readonly number[];
  /** year: allowed years as a 130-entry table (index year - 1970), or null when unrestricted (`*`) */
  readonly years: Uint8Array | null;
}

/** Allowed years of a year table, ascending. */
export function yearList(years: Uint8Array): number[] {
  const out: number[] = [];
  for (let i = 0; i < years.length; i++) if (years[i] === 1) out.push(FIRST_YEAR + i);
  return out;
}

const NO_NTH: readonly number[] = Object.freeze([]);

function isDigits(t: string): boolean {
  if (t.length === 0) return false;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

function fail(message: string): never {
  throw new ScheduleError(message);
}

/** A single value: decimal digits (leading zeros ok) or an exact 3-letter name; range-checked. */
function parseValue(t: string, f: FieldSpec, raw: string): number {
  let v: number;
  if (isDigits(t)) v = Number(t);
  else {
    const i = f.names === null ? -1 : f.names.indexOf(t);
    if (i < 0) {
      if (t === '' || t.length !== raw.length) fail(`invalid item '${raw}' in the ${f.label} field`);
      fail(`invalid value '${raw}' in the ${f.label} field`);
    }
    v = f === FIELDS[Kind.Month] ? i + 1 : i;
  }
  if (v < f.lo || v > f.hi) fail(`value ${v} out of range ${f.lo}-${f.hi} in the ${f.label} field`);
  return v;
}

/**
 * Expands a plain item (`v`, `*`, `a-b`, `*\/s`, `a-b/s`, `a/s`) and calls add(v) for each value.
 * Day-of-week values are passed as written (7 stays 7); the caller stores them mod 7.
 */
function expandPlain(item: string, raw: string, f: FieldSpec, kind: Kind, add: (v: number) => void): void {
  const slash = item.indexOf('/');
  let head = item;
  let step = 0;
  if (slash >= 0) {
    if (item.indexOf('/', slash + 1) >= 0) fail(`too many '/' in '${raw}' in the ${f.label} field`);
    head = item.slice(0, slash);
    const st = item.slice(slash + 1);
    if (!isDigits(st)) fail(`invalid step '${st}' in '${raw}' in the ${f.label} field`);
    step = Number(st);
    if (step < 1 || step > f.hi)
      fail(`step ${step} in '${raw}' out of range 1-${f.hi} in the ${f.label} field`);
  }
  let a: number;
  let b: number;
  if (head === '*') {
    a = f.lo;
    b = f.end;
  } else {
    const dash = head.indexOf('-');
    if (dash >= 0) {
      a = parseValue(head.slice(0, dash), f, raw);
      b = parseValue(head.slice(dash + 1), f, raw);
      if (kind === Kind.DayOfWeek && b === 0) b = 7;
      if (a > b)
        fail(`range '${raw.split('/')[0]}' is reversed in the ${f.label} field (start must not exceed end)`);
    } else {
      a = parseValue(head, f, raw);
      if (step > 0) {
        if (a > f.end) fail(`start ${a} of '${raw}' is beyond ${f.end} in the ${f.label} field`);
        b = f.end;
      } else b = a;
    }
  }
  if (step > 0) {
    if (a + step > f.hi)
      fail(`step ${step} in '${raw}' does not repeat: ${a}+${step} exceeds ${f.hi} in the ${f.label} field`);
    for (let v = a; v <= b; v += step) add(v);
  } else for (let v = a; v <= b; v++) add(v);
}

class SetBuilder {
  lo = 0;
  hi = 0;
  lastOffsets = 0;
  lastWeekday = false;
  nearestWeekday = 0;
  lastDow = 0;
  nth: number[] | null = null;
  years: Uint8Array | null = null;

  build(): FieldSet {
    const nth = this.nth === null ? NO_NTH : Object.freeze([...new Set(this.nth)].sort((x, y) => x - y));
    return Object.freeze({
      lo: this.lo,
      hi: this.hi,
      lastOffsets: this.lastOffsets,
      lastWeekday: this.lastWeekday,
      nearestWeekday: this.nearestWeekday,
      lastDow: this.lastDow,
      nth,
      years: this.years,
    });
  }
}

function lInWrongField(f: FieldSpec): never {
  fail(`'L' is only valid in the day-of-month and day-of-week fields, not ${f.label}`);
}

function parseDomItem(
  item: string,
  raw: string,
  f: FieldSpec,
  sb: SetBuilder,
  addPlain: (v: number) => void,
): void {
  const c0 = item.charCodeAt(0);
  if (c0 === 108 /* l */) {
    if (item === 'l') sb.lastOffsets |= 1;
    else if (item === 'lw') sb.lastWeekday = true;
    else if (item.startsWith('l-') && isDigits(item.slice(2))) {
      const n = Number(item.slice(2));
      if (n < 1 || n > 30) fail(`'${raw}' in the day-of-month field needs an offset of 1-30`);
      sb.lastOffsets |= 1 << n;
    } else fail(`invalid 'L' form '${raw}' in the day-of-month field (it takes L, L-n or LW)`);
    return;
  }
  if (item.includes('w')) {
    const n = item.slice(0, -1);
    if (!item.endsWith('w') || !isDigits(n)) {
      fail(
        `invalid 'W' form '${raw}' in the day-of-month field (it takes nW with a single day n of 1-31, or LW)`,
      );
    }
    const v = Number(n);
    if (v < 1 || v > 31) fail(`'${raw}' in the day-of-month field needs a day of 1-31 before 'W'`);
    sb.nearestWeekday |= 1 << v;
    return;
  }
  if (item.includes('#')) fail(`'#' is not valid in the day-of-month field ('${raw}')`);
  expandPlain(item, raw, f, Kind.DayOfMonth, addPlain);
}

function parseDowItem(
  item: string,
  raw: string,
  f: FieldSpec,
  sb: SetBuilder,
  addPlain: (v: number) => void,
): void {
  if (item.charCodeAt(0) === 108 /* l */) {
    if (item === 'l') {
      fail(
        `'L' alone is not valid in the day-of-week field; write L<d> for the last weekday d of the month (e.g. L5 = last Friday)`,
      );
    }
    const body = item.slice(1);
    const dash = body.indexOf('-');
    const aText = dash < 0 ? body : body.slice(0, dash);
    const bText = dash < 0 ? body : body.slice(dash + 1);
    if (!isDigits(aText) || !isDigits(bText)) {
      fail(
        `invalid 'L' form '${raw}' in the day-of-week field (it takes L<d> or L<a>-<b> with weekday digits 0-7)`,
      );
    }
    const a = Number(aText);
    const b = Number(bText);
    if (a > 7 || b > 7) fail(`weekday out of range 0-7 in '${raw}' in the day-of-week field`);
    for (let v = a; v <= b; v++) sb.lastDow |= 1 << (v % 7);
    return;
  }
  const hash = item.indexOf('#');
  if (hash >= 0) {
    const dText = item.slice(0, hash);
    const nText = item.slice(hash + 1);
    if (nText.includes('#')) fail(`only one '#' is allowed in '${raw}' in the day-of-week field`);
    let d: number;
    if (isDigits(dText)) d = Number(dText);
    else {
      d = DAY_NAMES.indexOf(dText);
      if (d < 0) fail(`'${raw}' in the day-of-week field needs a single weekday before '#'`);
    }
    if (d > 7) fail(`weekday ${d} out of range 0-7 in '${raw}' in the day-of-week field`);
    if (!isDigits(nText)) fail(`'${raw}' in the day-of-week field needs an occurrence of 1-5 after '#'`);
    const n = Number(nText);
    if (n < 1 || n > 5) fail(`occurrence ${n} in '${raw}' out of range 1-5 in the day-of-week field`);
    if (sb.nth === null) sb.nth = [];
    sb.nth.push(n * 8 + (d % 7));
    return;
  }
  expandPlain(item, raw, f, Kind.DayOfWeek, addPlain);
}

/** Parses one field's (H-free) text; names and L/W forms are case-insensitive. Throws ScheduleError. */
export function parseField(kind: Kind, text: string): FieldSet {
  const f = FIELDS[kind]!;
  const sb = new SetBuilder();
  if (text === '?') {
    if (kind !== Kind.DayOfMonth && kind !== Kind.DayOfWeek) fail(`'?' is not valid in the ${f.label} field`);
    text = '*';
  }
  if (kind === Kind.Year && text === '*') return sb.build();
  let addPlain: (v: number) => void;
  if (kind === Kind.Second || kind === Kind.Minute) {
    addPlain = (v) => {
      if (v < 30) sb.lo |= 1 << v;
      else sb.hi |= 1 << (v - 30);
    };
  } else if (kind === Kind.DayOfWeek) {
    addPlain = (v) => {
      sb.lo |= 1 << (v % 7);
    };
  } else if (kind === Kind.Year) {
    const years = new Uint8Array(130);
    sb.years = years;
    addPlain = (v) => {
      years[v - 1970] = 1;
    };
  } else {
    addPlain = (v) => {
      sb.lo |= 1 << v;
    };
  }
  let start = 0;
  for (;;) {
    const comma = text.indexOf(',', start);
    const raw = comma < 0 ? text.slice(start) : text.slice(start, comma);
    const item = raw.toLowerCase();
    if (item === '') fail(`empty item in the ${f.label} field`);
    if (item === '?') fail(`'?' must stand alone as the whole ${f.label} field`);
    if (kind === Kind.DayOfMonth) parseDomItem(item, raw, f, sb, addPlain);
    else if (kind === Kind.DayOfWeek) parseDowItem(item, raw, f, sb, addPlain);
    else {
      if (item.charCodeAt(0) === 108 /* l */) lInWrongField(f);
      expandPlain(item, raw, f, kind, addPlain);
    }
    if (comma < 0) break;
    start = comma + 1;
  }
  return sb.build();
}

// Expression text -> CronSchedule: field split, @-nicknames, H resolution, per-field parse (cached), hints.
import { bitList, bitList60 } from './bits.ts';
import { ScheduleError } from './errors.ts';
import { type FieldSet, Kind, parseField, yearList } from './fields.ts';
import { resolveHashedField } from './hashed.ts';
import { dialectHint } from './hints.ts';

/** A parsed cron expression (immutable). */
export interface CronSchedule {
  /** whitespace-normalised text as written */
  readonly source: string;
  /** `source` with H items replaced by their values (== source when no H) */
  readonly resolved: string;
  /** 7-field form (per-second ticking) */
  readonly hasSeconds: boolean;
  /** source field texts indexed by Kind (second .. year); null where the form has no such column */
  readonly fieldTexts: readonly (string | null)[];
  readonly second: FieldSet;
  readonly minute: FieldSet;
  readonly hour: FieldSet;
  readonly dayOfMonth: FieldSet;
  readonly month: FieldSet;
  readonly dayOfWeek: FieldSet;
  readonly year: FieldSet;
  // Flattened hot-path view of the sets (derived from the FieldSets above).
  readonly secLo: number;
  readonly secHi: number;
  readonly minLo: number;
  readonly minHi: number;
  readonly hours: number;
  readonly months: number;
  readonly domPlain: number;
  readonly dowPlain: number;
  readonly firstSec: number;
  readonly firstMin: number;
  readonly firstHour: number;
  readonly lastSec: number;
  readonly lastMin: number;
  readonly lastHour: number;
  /** both day sides match every day */
  readonly everyDay: boolean;
  /** day-of-month side: plain set is 1-31 (so it matches every day) */
  readonly domAll: boolean;
  /** day-of-week side: plain set is 0-6 */
  readonly dowAll: boolean;
  /** day-of-month has L / L-n / LW / nW items */
  readonly domExtra: boolean;
  /** day-of-week has L<d> / d#n items */
  readonly dowExtra: boolean;
  readonly years: Uint8Array | null;
}

const ALL_DOM = 0xfffffffe | 0; // bits 1..31
const ALL_DOW = 0x7f;

const NICKNAMES: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** Field kinds of each column, by field count. */
const KINDS: Readonly<Record<number, readonly Kind[]>> = {
  5: [Kind.Minute, Kind.Hour, Kind.DayOfMonth, Kind.Month, Kind.DayOfWeek],
  6: [Kind.Minute, Kind.Hour, Kind.DayOfMonth, Kind.Month, Kind.DayOfWeek, Kind.Year],
  7: [Kind.Second, Kind.Minute, Kind.Hour, Kind.DayOfMonth, Kind.Month, Kind.DayOfWeek, Kind.Year],
};

const ZERO_TEXT = '0';
const STAR_TEXT = '*';

// Per-field memo of parsed sets, keyed by the (H-resolved) field text. Real job sets repeat field texts a lot.
const FIELD_CACHE_LIMIT = 20_000;
let fieldCaches: Map<string, FieldSet>[] = newCaches();

function newCaches(): Map<string, FieldSet>[] {
  return Array.from({ length: 7 }, () => new Map<string, FieldSet>());
}

/** Drops the parse memo (benchmarks use it to measure a cold start). */
export function clearParseCache(): void {
  fieldCaches = newCaches();
}

function fieldSet(kind: Kind, text: string): FieldSet {
  const cache = fieldCaches[kind]!;
  let fs = cache.get(text);
  if (fs === undefined) {
    fs = parseField(kind, text);
    if (cache.size >= FIELD_CACHE_LIMIT) cache.clear();
    cache.set(text, fs);
  }
  return fs;
}

function splitFields(text: string): string[] {
  const t = text.trim();
  return t === '' ? [] : t.split(/\s+/);
}

function countError(n: number): ScheduleError {
  return new ScheduleError(
    `expected 5 to 7 whitespace-separated cron fields (or a supported @-nickname), got ${n}`,
  );
}

class Schedule implements CronSchedule {
  readonly secLo: number;
  readonly secHi: number;
  readonly minLo: number;
  readonly minHi: number;
  readonly hours: number;
  readonly months: number;
  readonly domPlain: number;
  readonly dowPlain: number;
  readonly firstSec: number;
  readonly firstMin: number;
  readonly firstHour: number;
  readonly lastSec: number;
  readonly lastMin: number;
  readonly lastHour: number;
  readonly everyDay: boolean;
  readonly domAll: boolean;
  readonly dowAll: boolean;
  readonly domExtra: boolean;
  readonly dowExtra: boolean;
  readonly years: Uint8Array | null;

  constructor(
    readonly source: string,
    readonly resolved: string,
    readonly hasSeconds: boolean,
    readonly fieldTexts: readonly (string | null)[],
    readonly second: FieldSet,
    readonly minute: FieldSet,
    readonly hour: FieldSet,
    readonly dayOfMonth: FieldSet,
    readonly month: FieldSet,
    readonly dayOfWeek: FieldSet,
    readonly year: FieldSet,
  ) {
    this.secLo = second.lo;
    this.secHi = second.hi;
    this.minLo = minute.lo;
    this.minHi = minute.hi;
    this.hours = hour.lo;
    this.months = month.lo;
    this.domPlain = dayOfMonth.lo;
    this.dowPlain = dayOfWeek.lo;
    this.firstSec = lowest60(second);
    this.firstMin = lowest60(minute);
    this.firstHour = 31 - Math.clz32(hour.lo & -hour.lo);
    this.lastSec = highest60(second);
    this.lastMin = highest60(minute);
    this.lastHour = 31 - Math.clz32(hour.lo);
    this.domAll = (dayOfMonth.lo & ALL_DOM) === ALL_DOM;
    this.dowAll = (dayOfWeek.lo & ALL_DOW) === ALL_DOW;
    this.everyDay = this.domAll && this.dowAll;
    this.domExtra = dayOfMonth.lastOffsets !== 0 || dayOfMonth.lastWeekday || dayOfMonth.nearestWeekday !== 0;
    this.dowExtra = dayOfWeek.lastDow !== 0 || dayOfWeek.nth.length > 0;
    this.years = year.years;
  }
}

function lowest60(f: FieldSet): number {
  return f.lo !== 0 ? 31 - Math.clz32(f.lo & -f.lo) : 61 - Math.clz32(f.hi & -f.hi);
}

function highest60(f: FieldSet): number {
  return f.hi !== 0 ? 61 - Math.clz32(f.hi) : 31 - Math.clz32(f.lo);
}

function build(
  source: string,
  tokens: readonly string[],
  hashKey: string | undefined,
  nickname: boolean,
): Schedule {
  const n = tokens.length;
  const kinds = KINDS[n]!;
  const texts: (string | null)[] = [null, null, null, null, null, null, null];
  const sets: FieldSet[] = [];
  let resolved = source;
  try {
    let changed = false;
    const resolvedTokens: string[] = [];
    for (let i = 0; i < n; i++) {
      const kind = kinds[i]!;
      const raw = tokens[i]!;
      texts[kind] = raw;
      let text = raw;
      if (raw.includes('h') || raw.includes('H')) {
        text = resolveHashedField(kind, raw, hashKey);
        if (text !== raw) changed = true;
      }
      resolvedTokens.push(text);
    }
    for (let i = 0; i < n; i++) sets[kinds[i]!] = fieldSet(kinds[i]!, resolvedTokens[i]!);
    if (changed) resolved = resolvedTokens.join(' ');
  } catch (e) {
    if (e instanceof ScheduleError && !nickname) {
      const hint = dialectHint(tokens, kinds);
      if (hint !== null) throw new ScheduleError(`${e.message} (${hint})`);
    }
    throw e;
  }
  if (n < 7) sets[Kind.Second] = fieldSet(Kind.Second, ZERO_TEXT);
  if (n < 6) sets[Kind.Year] = fieldSet(Kind.Year, STAR_TEXT);
  return new Schedule(
    source,
    resolved,
    n === 7,
    texts,
    sets[0]!,
    sets[1]!,
    sets[2]!,
    sets[3]!,
    sets[4]!,
    sets[5]!,
    sets[6]!,
  );
}

/**
 * Parses a cron expression of the reference dialect: 5 fields (`min hour dom mon dow`), 6 (`... year`),
 * 7 (`sec min hour dom mon dow year`) or an @-nickname. `hashKey` (the job name) enables `H`.
 * Throws ScheduleError with the engine message (plus a dialect hint when one applies).
 */
export function parseCron(text: string, opts?: { hashKey?: string }): CronSchedule {
  const tokens = splitFields(text);
  const n = tokens.length;
  if (n === 1 && tokens[0]!.charCodeAt(0) === 64 /* @ */) {
    const expansion = NICKNAMES[tokens[0]!.toLowerCase()];
    if (expansion === undefined) throw countError(1);
    const s = build(tokens[0]!, expansion.split(' '), undefined, true);
    return s;
  }
  if (n < 5 || n > 7) throw countError(n);
  return build(tokens.join(' '), tokens, opts?.hashKey, false);
}

/** Exactly `@reboot` (case-sensitive, no surrounding spaces): a start-up marker, not an expression. */
export function isReboot(text: string): boolean {
  return text === '@reboot';
}

/**
 * Object-form schedule -> expression text (spec 01 §5.1). Keys: second, minute, hour, dayOfMonth, month,
 * year, dayOfWeek; values are inserted verbatim.
 */
export function renderScheduleObject(obj: Record<string, string | null | undefined>): string {
  const v = (k: string): string => obj[k] ?? '*';
  const day = `${v('minute')} ${v('hour')} ${v('dayOfMonth')} ${v('month')} ${v('dayOfWeek')}`;
  const second = obj.second;
  const year = obj.year;
  if (second !== undefined && second !== null) return `${second} ${day} ${year ? year : '*'}`;
  if (year !== undefined && year !== null) return `${day} ${year}`;
  return day;
}

/**
 * Classic-crontab content sniff (spec 01 §1.2 rule c): at least 6 whitespace-separated tokens whose first five
 * parse as a 5-field expression with hash key ''.
 */
export function looksLikeCrontabLine(line: string): boolean {
  const tokens = splitFields(line);
  if (tokens.length < 6) return false;
  try {
    parseCron(tokens.slice(0, 5).join(' '), { hashKey: '' });
    return true;
  } catch (e) {
    if (e instanceof ScheduleError) return false;
    throw e;
  }
}

/** Plain values of a field, ascending (day-of-week 0-6, years only when restricted). */
export function fieldValues(s: CronSchedule, kind: Kind): number[] {
  switch (kind) {
    case Kind.Second:
      return bitList60(s.secLo, s.secHi);
    case Kind.Minute:
      return bitList60(s.minLo, s.minHi);
    case Kind.Year:
      return s.years === null ? [] : yearList(s.years);
    default:
      return bitList([s.second, s.minute, s.hour, s.dayOfMonth, s.month, s.dayOfWeek][kind]!.lo);
  }
}

/**
 * Semantic identity (spec 01 §5.9): equal keys <=> equal field sets. Callers add the frame name.
 */
export function semanticKey(s: CronSchedule): string {
  const d = s.dayOfMonth;
  const w = s.dayOfWeek;
  let years = '*';
  if (s.years !== null) years = fieldValues(s, Kind.Year).join(',');
  return [
    s.secLo,
    s.secHi,
    s.minLo,
    s.minHi,
    s.hours,
    s.domPlain,
    d.lastOffsets,
    d.nearestWeekday,
    d.lastWeekday ? 1 : 0,
    s.months,
    s.dowPlain,
    w.lastDow,
    w.nth.join('.'),
    years,
  ].join('|');
}

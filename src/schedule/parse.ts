// Expression text -> CronSchedule: field split, @-nicknames, H resolution, per-field parse, dialect hints.
// Hot path: one pass over the text with an allocation-free scanner for plain numeric fields; other fields go
// through the full parser (fields.ts), memoised per field text.
import { bitList, bitList60 } from './bits.ts';
import { ScheduleError } from './errors.ts';
import { type FieldSet, Kind, parseField, yearList } from './fields.ts';
import { resolveHashedField } from './hashed.ts';
import { dialectHint } from './hints.ts';
import { scanField, scanned } from './scan.ts';

/** Day-of-month `L`, `L-n`, `LW`, `nW` items. */
export interface DayOfMonthForms {
  /** bit n for `L-n`, bit 0 for bare `L` */
  readonly lastOffsets: number;
  /** `LW` present */
  readonly lastWeekday: boolean;
  /** bit n for each `nW` target */
  readonly nearestWeekday: number;
}

/** Day-of-week `L<d>`, `L<a>-<b>` and `d#n` items. */
export interface DayOfWeekForms {
  /** weekdays (bit 0 = Sunday) of `L<d>` / `L<a>-<b>` items */
  readonly lastDow: number;
  /** `d#n` items, each n * 8 + d, ascending and unique */
  readonly nth: readonly number[];
}

/** A parsed cron expression (immutable). Plain value sets are bit masks. */
export interface CronSchedule {
  /** whitespace-normalised text as written */
  readonly source: string;
  /** `source` with H items replaced by their values (== source when no H) */
  readonly resolved: string;
  /** 7-field form (per-second ticking) */
  readonly hasSeconds: boolean;
  /** seconds 0-29 (bit n = second n) and 30-59 (bit n = second 30 + n) */
  readonly secLo: number;
  readonly secHi: number;
  /** minutes, split the same way */
  readonly minLo: number;
  readonly minHi: number;
  /** bits 0-23 */
  readonly hours: number;
  /** bits 1-12 */
  readonly months: number;
  /** plain day-of-month values, bits 1-31 (`*` and `?` = all) */
  readonly domPlain: number;
  /** plain weekdays, bits 0-6 (0 = Sunday; 7 folded onto 0) */
  readonly dowPlain: number;
  /** day-of-month L/W forms, or null when the field has none */
  readonly domForms: DayOfMonthForms | null;
  /** day-of-week L/# forms, or null when the field has none */
  readonly dowForms: DayOfWeekForms | null;
  /** allowed years as a 130-entry table (index year - 1970), or null when unrestricted */
  readonly years: Uint8Array | null;
  /** source field texts indexed by Kind (second .. year), null where the form has no such column; a nickname
   * gives its expansion's columns */
  readonly fieldTexts: readonly (string | null)[];
}

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

// Memo of fully parsed fields per field text (names, L/W/# forms, years, H-resolved values). Sets are immutable
// and shared. Bounded.
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

/** Whitespace as Python's str.split() sees it (the reference splits fields that way). */
function isSpace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13) || (c >= 28 && c <= 31);
  if (c < 0x85) return false;
  return (
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  );
}

function splitFields(text: string): string[] {
  const out: string[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (isSpace(text.charCodeAt(i))) {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < n && !isSpace(text.charCodeAt(j))) j++;
    out.push(text.slice(i, j));
    i = j;
  }
  return out;
}

function countError(n: number): ScheduleError {
  return new ScheduleError(
    `expected 5 to 7 whitespace-separated cron fields (or a supported @-nickname), got ${n}`,
  );
}

/** Second set of 5- and 6-field expressions: {0}. */
const SECOND_ZERO = 1;

/** The rarely used parts of a schedule, kept out of line so the common schedule object stays small. */
class Extra {
  constructor(
    readonly resolved: string | null,
    readonly hasSeconds: boolean,
    readonly domForms: DayOfMonthForms | null,
    readonly dowForms: DayOfWeekForms | null,
    readonly years: Uint8Array | null,
  ) {}
}

/**
 * Compact immutable schedule: a job set holds one per job (100k jobs = 100k of these), so fields that are
 * usually default live in `extra` (null when all are default) and months/weekdays share one small integer.
 */
class Schedule implements CronSchedule {
  constructor(
    readonly source: string,
    private readonly extra: Extra | null,
    readonly secLo: number,
    readonly secHi: number,
    readonly minLo: number,
    readonly minHi: number,
    readonly hours: number,
    readonly domPlain: number,
    /** months (bits 1-12) | weekdays (bits 0-6) << 16 */
    private readonly monthsAndDays: number,
  ) {}

  get resolved(): string {
    return this.extra?.resolved ?? this.source;
  }
  get hasSeconds(): boolean {
    return this.extra?.hasSeconds === true;
  }
  get months(): number {
    return this.monthsAndDays & 0xffff;
  }
  get dowPlain(): number {
    return this.monthsAndDays >>> 16;
  }
  get domForms(): DayOfMonthForms | null {
    return this.extra === null ? null : this.extra.domForms;
  }
  get dowForms(): DayOfWeekForms | null {
    return this.extra === null ? null : this.extra.dowForms;
  }
  get years(): Uint8Array | null {
    return this.extra === null ? null : this.extra.years;
  }

  get fieldTexts(): readonly (string | null)[] {
    const cols = (NICKNAMES[this.source.toLowerCase()] ?? this.source).split(' ');
    const kinds = KINDS[cols.length]!;
    const texts: (string | null)[] = [null, null, null, null, null, null, null];
    for (let i = 0; i < cols.length; i++) texts[kinds[i]!] = cols[i]!;
    return texts;
  }
}

// Token boundaries of the expression being parsed (at most 8 are kept; the count goes on).
const starts = new Int32Array(8);
const ends = new Int32Array(8);

// Per-field results of one parse, indexed by Kind.
const los = new Int32Array(7);
const his = new Int32Array(7);
const fulls: (FieldSet | null)[] = [null, null, null, null, null, null, null];

/** Fast whitespace test: ASCII space first, everything else through isSpace. */
const spaceAt = (text: string, i: number): boolean => {
  const c = text.charCodeAt(i);
  return c === 32 || ((c < 32 || c >= 0x85) && isSpace(c));
};

/**
 * Parses a cron expression of the reference dialect: 5 fields (`min hour dom mon dow`), 6 (`... year`),
 * 7 (`sec min hour dom mon dow year`) or an @-nickname. `hashKey` (the job name) enables `H`.
 * Throws ScheduleError with the engine message (plus a dialect hint when one applies).
 */
export function parseCron(text: string, opts?: { hashKey?: string }): CronSchedule {
  // Tokenise: boundaries only; note whether the text is already in normal form (single spaces, trimmed).
  const len = text.length;
  let n = 0;
  let normal = true;
  let i = 0;
  while (i < len) {
    if (spaceAt(text, i)) {
      if (text.charCodeAt(i) !== 32 || i === 0 || i === len - 1 || spaceAt(text, i - 1)) normal = false;
      i++;
      continue;
    }
    let j = i + 1;
    while (j < len && !spaceAt(text, j)) j++;
    if (n < 8) {
      starts[n] = i;
      ends[n] = j;
    }
    n++;
    i = j;
  }
  if (n === 1 && text.charCodeAt(starts[0]!) === 64 /* @ */)
    return nickname(text.slice(starts[0]!, ends[0]!));
  if (n < 5 || n > 7) throw countError(n);
  const kinds = KINDS[n]!;
  let hashed: (string | undefined)[] | null = null;
  let special = n === 7;
  try {
    for (let k = 0; k < n; k++) {
      const kind = kinds[k]!;
      if (scanField(text, starts[k]!, ends[k]!, kind)) {
        los[kind] = scanned.lo;
        his[kind] = scanned.hi;
        fulls[kind] = null;
        continue;
      }
      let token = text.slice(starts[k]!, ends[k]!);
      if (token.includes('h') || token.includes('H')) {
        const resolved = resolveHashedField(kind, token, opts?.hashKey);
        if (resolved !== token) {
          hashed ??= [];
          hashed[k] = resolved;
          token = resolved;
          if (scanField(token, 0, token.length, kind)) {
            los[kind] = scanned.lo;
            his[kind] = scanned.hi;
            fulls[kind] = null;
            continue;
          }
        }
      }
      const fs = fieldSet(kind, token);
      los[kind] = fs.lo;
      his[kind] = fs.hi;
      fulls[kind] = fs;
      special = true;
    }
  } catch (e) {
    if (e instanceof ScheduleError) {
      const hint = dialectHint(splitFields(text), kinds);
      if (hint !== null) throw new ScheduleError(`${e.message} (${hint})`);
    }
    throw e;
  }
  const source = normal ? text : splitFields(text).join(' ');
  let extra: Extra | null = null;
  if (special || hashed !== null) {
    const dom = fulls[Kind.DayOfMonth] ?? null;
    const dow = fulls[Kind.DayOfWeek] ?? null;
    const domForms =
      dom !== null && (dom.lastOffsets !== 0 || dom.lastWeekday || dom.nearestWeekday !== 0) ? dom : null;
    const dowForms = dow !== null && (dow.lastDow !== 0 || dow.nth.length > 0) ? dow : null;
    const years = n > 5 ? fulls[Kind.Year]!.years : null;
    if (n === 7 || hashed !== null || domForms !== null || dowForms !== null || years !== null) {
      extra = new Extra(
        hashed === null ? null : resolvedText(text, normal, n, hashed),
        n === 7,
        domForms,
        dowForms,
        years,
      );
    }
  }
  return new Schedule(
    source,
    extra,
    n === 7 ? los[Kind.Second]! : SECOND_ZERO,
    n === 7 ? his[Kind.Second]! : 0,
    los[Kind.Minute]!,
    his[Kind.Minute]!,
    los[Kind.Hour]!,
    los[Kind.DayOfMonth]!,
    los[Kind.Month]! | (los[Kind.DayOfWeek]! << 16),
  );
}

/** The normalised text with H fields replaced by their resolved values (`hashed[k]` for column k). */
function resolvedText(text: string, normal: boolean, n: number, hashed: (string | undefined)[]): string {
  if (!normal) {
    const tokens = splitFields(text);
    for (let k = 0; k < n; k++) if (hashed[k] !== undefined) tokens[k] = hashed[k]!;
    return tokens.join(' ');
  }
  let out = '';
  let from = 0;
  for (let k = 0; k < n; k++) {
    const h = hashed[k];
    if (h === undefined) continue;
    out += text.slice(from, starts[k]!) + h;
    from = ends[k]!;
  }
  return out + text.slice(from);
}

function nickname(token: string): Schedule {
  const expansion = NICKNAMES[token.toLowerCase()];
  if (expansion === undefined) throw countError(1);
  const f = expansion.split(' ').map((t, k) => fieldSet(KINDS[5]![k]!, t));
  return new Schedule(
    token,
    null,
    SECOND_ZERO,
    0,
    f[0]!.lo,
    f[0]!.hi,
    f[1]!.lo,
    f[2]!.lo,
    f[3]!.lo | (f[4]!.lo << 16),
  );
}

/** Exactly `@reboot` (case-sensitive, no surrounding spaces): a start-up marker, not an expression. */
export function isReboot(text: string): boolean {
  return text === '@reboot';
}

/**
 * Object-form schedule -> expression text (spec 01 §5.1). Keys: second, minute, hour, dayOfMonth, month,
 * year, dayOfWeek; values are inserted verbatim, missing day/time keys become `*`.
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

/** Plain values of one field, ascending (weekdays 0-6; years only when the column is restricted). */
export function fieldValues(s: CronSchedule, kind: Kind): number[] {
  switch (kind) {
    case Kind.Second:
      return bitList60(s.secLo, s.secHi);
    case Kind.Minute:
      return bitList60(s.minLo, s.minHi);
    case Kind.Hour:
      return bitList(s.hours);
    case Kind.DayOfMonth:
      return bitList(s.domPlain);
    case Kind.Month:
      return bitList(s.months);
    case Kind.DayOfWeek:
      return bitList(s.dowPlain);
    case Kind.Year:
      return s.years === null ? [] : yearList(s.years);
  }
}

/** Semantic identity (spec 01 §5.9): equal keys <=> equal field sets. Callers add the frame name. */
export function semanticKey(s: CronSchedule): string {
  const d = s.domForms;
  const w = s.dowForms;
  return [
    s.secLo,
    s.secHi,
    s.minLo,
    s.minHi,
    s.hours,
    s.domPlain,
    d?.lastOffsets ?? 0,
    d?.nearestWeekday ?? 0,
    d?.lastWeekday ? 1 : 0,
    s.months,
    s.dowPlain,
    w?.lastDow ?? 0,
    w?.nth.join('.') ?? '',
    s.years === null ? '*' : yearList(s.years).join(','),
  ].join('|');
}

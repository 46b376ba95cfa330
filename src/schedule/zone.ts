// Frames (UTC, IANA zone, host-local) and civil <-> instant conversion with Python fold=0 semantics
// (spec 01 §5.6, §5.8). Zone offsets come from the host's tz database files (tzdb.ts) or, for a zone
// without a readable file, from Intl; either way they are cached as constant-offset segments per zone.
import { DAY_MS, daysFromCivil } from './civil.ts';
import { ScheduleError } from './errors.ts';
import { clearZoneFiles, hostZoneFromSystem, zoneFile } from './tzdb.ts';
import { type TzifZone, tzifTypeAt } from './tzif.ts';
import { isListedZoneName, isListedZoneNameIgnoringCase } from './tznames.ts';

export type Frame = { kind: 'utc' } | { kind: 'zone'; zone: string } | { kind: 'local'; zone: string };

export const UTC_FRAME: Frame = Object.freeze({ kind: 'utc' });

/** Where a zone's raw offsets come from: local minus UTC (ms, whole seconds) at an instant. */
export interface OffsetSource {
  readonly kind: 'tzif' | 'intl';
  offset(ms: number): number;
}

/** Offsets read from a zone's TZif file. */
export function tzifSource(z: TzifZone): OffsetSource {
  return { kind: 'tzif', offset: (ms) => tzifTypeAt(z, Math.floor(ms / 1000)).utoff * 1000 };
}

/** Offsets read off Intl's wall clock for the zone (ICU's own tz data). */
export function intlSource(zone: string): OffsetSource {
  let fmt: Intl.DateTimeFormat | null = null;
  return {
    kind: 'intl',
    offset(ms) {
      fmt ??= civilFormatter(zone);
      const f = wallFields(fmt, ms);
      const local = daysFromCivil(f[0], f[1], f[2]) * DAY_MS + f[3] * 3_600_000 + f[4] * 60_000 + f[5] * 1000;
      return local - (ms - (((ms % 1000) + 1000) % 1000));
    },
  };
}

type Wall = [year: number, month: number, day: number, hour: number, minute: number, second: number];

const fields: Wall = [0, 0, 0, 0, 0, 0];
/** What follows each field in `format`'s en-US "M/D/Y, HH:MM:SS". */
const SEPARATORS = ['/', '/', ', ', ':', ':'] as const;
const WIRE_ORDER = [1, 2, 0, 3, 4, 5] as const;

/**
 * Year, month, day, hour, minute, second of `ms` on the formatter's wall clock, in a shared array.
 * Read from `format`'s string (a third of `formatToParts`' cost, which builds an object per part:
 * hosts without tz files take every offset from here); any other shape an ICU may print is read
 * part by part.
 */
export function wallFields(fmt: Intl.DateTimeFormat, ms: number): Readonly<Wall> {
  const s = fmt.format(ms);
  let i = 0;
  for (let k = 0; k < 6; k++) {
    let v = 0;
    const from = i;
    for (let c = s.charCodeAt(i); c >= 48 && c <= 57; c = s.charCodeAt(++i)) v = v * 10 + (c - 48);
    if (i === from) return partsFields(fmt, ms);
    fields[WIRE_ORDER[k]!] = v;
    if (k === 5) break;
    const sep = SEPARATORS[k]!;
    if (!s.startsWith(sep, i)) return partsFields(fmt, ms);
    i += sep.length;
  }
  return i === s.length ? fields : partsFields(fmt, ms);
}

function partsFields(fmt: Intl.DateTimeFormat, ms: number): Readonly<Wall> {
  fields.fill(0);
  for (const p of fmt.formatToParts(ms)) {
    const at = PART_INDEX[p.type];
    if (at !== undefined) fields[at] = Number(p.value);
  }
  return fields;
}

const PART_INDEX: Partial<Record<Intl.DateTimeFormatPartTypes, number>> = {
  year: 0,
  month: 1,
  day: 2,
  hour: 3,
  minute: 4,
  second: 5,
};

/** The zone's file when the host has one we can read, else Intl exactly as before there were files. */
export function zoneSource(zone: string): OffsetSource {
  const file = zoneFile(zone);
  return file !== null ? tzifSource(file) : intlSource(zone);
}

// Offsets are sampled at fixed points SAMPLE_MS apart (each sample fetched from the source once and shared by the two
// chunks it bounds); a chunk whose two samples differ has its transitions located by bisection, first on a
// half-hour grid (transitions fall on one in practice), then to the second. No IANA zone has two transitions
// less than 6.75 days apart between 1970 and 2100 (tzdata 2025b), so 6-day chunks cannot hide a pair that
// cancels out.
const SAMPLE_MS = 6 * DAY_MS;
const CHUNK_MS = SAMPLE_MS;
const HALF_HOUR_MS = 1_800_000;

/** Constant-offset segments of one chunk: segment i starts at starts[i] and has offset offs[i] (ms). */
interface Chunk {
  readonly starts: number[];
  readonly offs: number[];
  readonly end: number;
}

/** What a civil time (local ms as if UTC) is in a zone, with its instants. */
export interface CivilResolution {
  kind: 'normal' | 'gap' | 'repeated';
  /** normal: the instant; repeated: the first occurrence; gap: the shifted (pre-transition offset) instant */
  first: number;
  /** repeated: the second occurrence; otherwise equal to first */
  last: number;
}

/** Per-zone offset cache. `fixed` is set for zones that are UTC under another name (no Intl at all). */
export class ZoneInfo {
  private src: OffsetSource | null;
  private readonly chunks = new Map<number, Chunk>();
  private readonly samples = new Map<number, number>();
  /** the most recently used segment [segStart, segEnd) with offset segOff */
  segStart = 1;
  segEnd = 0;
  segOff = 0;

  constructor(
    readonly name: string,
    readonly fixed: number | null,
    source?: OffsetSource,
  ) {
    this.src = source ?? null;
    if (fixed !== null) {
      this.segStart = Number.NEGATIVE_INFINITY;
      this.segEnd = Number.POSITIVE_INFINITY;
      this.segOff = fixed;
    }
  }

  /** UTC offset (local minus UTC, ms) in effect at instant ms. */
  offset(ms: number): number {
    if (ms >= this.segStart && ms < this.segEnd) return this.segOff;
    const chunk = this.chunk(Math.floor(ms / CHUNK_MS));
    const { starts, offs } = chunk;
    let i = starts.length - 1;
    while (starts[i]! > ms) i--;
    this.segStart = starts[i]!;
    this.segEnd = i + 1 < starts.length ? starts[i + 1]! : chunk.end;
    this.segOff = offs[i]!;
    return this.segOff;
  }

  /** Offset straight from the zone's source (second precision), chosen on first use. */
  private rawOffset(ms: number): number {
    this.src ??= zoneSource(this.name);
    return this.src.offset(ms);
  }

  private sample(idx: number): number {
    let o = this.samples.get(idx);
    if (o === undefined) {
      o = this.rawOffset(idx * SAMPLE_MS);
      this.samples.set(idx, o);
    }
    return o;
  }

  /** First instant in (lo, hi] whose offset differs from `before` (offset(hi) must differ). */
  private firstChange(lo: number, hi: number, before: number): number {
    while (hi - lo > HALF_HOUR_MS) {
      const mid = lo + Math.max(1, Math.floor((hi - lo) / (2 * HALF_HOUR_MS))) * HALF_HOUR_MS;
      if (this.rawOffset(mid) === before) lo = mid;
      else hi = mid;
    }
    if (this.rawOffset(hi - 1000) === before) return hi;
    while (hi - lo > 1000) {
      const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
      if (this.rawOffset(mid) === before) lo = mid;
      else hi = mid;
    }
    return hi;
  }

  private buildChunk(idx: number): Chunk {
    const start = idx * CHUNK_MS;
    const end = start + CHUNK_MS;
    let prev = this.sample(idx);
    const last = this.sample(idx + 1);
    const starts = [start];
    const offs = [prev];
    let from = start;
    while (prev !== last) {
      const at = this.firstChange(from, end, prev);
      if (at >= end) break; // the change is exactly at the next chunk's start
      prev = this.rawOffset(at);
      starts.push(at);
      offs.push(prev);
      from = at;
    }
    return { starts, offs, end };
  }

  /** Chunk idx, built on first use. */
  private chunk(idx: number): Chunk {
    let chunk = this.chunks.get(idx);
    if (chunk === undefined) {
      chunk = this.buildChunk(idx);
      this.chunks.set(idx, chunk);
    }
    return chunk;
  }

  /**
   * The latest offset transition in (a, b] as { at, delta } (delta = offset after - offset before), or null.
   * Windows are meant to be a few days long; transitions are at least a week apart.
   */
  lastTransition(a: number, b: number): { at: number; delta: number } | null {
    if (this.fixed !== null) return null;
    for (let idx = Math.floor(b / CHUNK_MS); idx * CHUNK_MS + CHUNK_MS > a; idx--) {
      const { starts, offs } = this.chunk(idx);
      for (let i = starts.length - 1; i >= 1; i--) {
        const at = starts[i]!;
        if (at > a && at <= b) return { at, delta: offs[i]! - offs[i - 1]! };
      }
      const at = starts[0]!;
      if (at > a && at <= b) {
        const before = this.offset(at - 1);
        if (before !== offs[0]!) return { at, delta: offs[0]! - before };
      }
    }
    return null;
  }

  /**
   * Civil time (local ms as if UTC) -> instant, Python fold=0: the first occurrence of a repeated time,
   * the pre-transition offset for a skipped time (so it lands after the jump by the gap size).
   */
  resolve(t0: number): number {
    const oBefore = this.offset(t0 - DAY_MS);
    // The allocation-free common case of civil() below: the search calls this per candidate.
    if (this.segEnd > t0 + DAY_MS) return t0 - oBefore;
    return this.civil(t0).first;
  }

  /**
   * Both occurrences of a civil time (the fold=0 / fold=1 pair of spec 01 §5.8). No offset jump
   * exceeds a day, so when one constant-offset segment spans the two days around t0 the time is
   * normal: one cached lookup instead of four.
   */
  civil(t0: number): CivilResolution {
    const oBefore = this.offset(t0 - DAY_MS);
    if (this.segEnd > t0 + DAY_MS) {
      const u = t0 - oBefore;
      return { kind: 'normal', first: u, last: u };
    }
    const oAfter = this.offset(t0 + DAY_MS);
    const u1 = t0 - oBefore;
    const u2 = t0 - oAfter;
    const v1 = this.offset(u1) === oBefore;
    const v2 = this.offset(u2) === oAfter;
    if (v1 && v2 && u1 !== u2) return { kind: 'repeated', first: Math.min(u1, u2), last: Math.max(u1, u2) };
    if (v1) return { kind: 'normal', first: u1, last: u1 };
    if (v2) return { kind: 'normal', first: u2, last: u2 };
    return { kind: 'gap', first: u1, last: u1 };
  }

  /** 'gap' (skipped wall time), 'ambiguous' (repeated wall time) or 'normal'. */
  classify(t0: number): 'normal' | 'gap' | 'ambiguous' {
    const kind = this.civil(t0).kind;
    return kind === 'repeated' ? 'ambiguous' : kind;
  }

  /** Local civil time (ms, as if UTC) of an instant. */
  render(ms: number): number {
    return ms + this.offset(ms);
  }
}

// Names that are UTC itself: no Intl needed.
const UTC_ALIASES = new Set([
  'UTC',
  'Etc/UTC',
  'Etc/UCT',
  'UCT',
  'Etc/Universal',
  'Universal',
  'Etc/Zulu',
  'Zulu',
  'Etc/GMT',
  'GMT',
  'Etc/GMT0',
  'GMT0',
  'Etc/GMT+0',
  'Etc/GMT-0',
  'GMT+0',
  'GMT-0',
  'Etc/Greenwich',
  'Greenwich',
]);

let zoneInfos = new Map<string, ZoneInfo>();
const UTC_INFO = new ZoneInfo('UTC', 0);

/** Offset cache of a zone (created on first use). */
export function zoneInfo(name: string): ZoneInfo {
  let z = zoneInfos.get(name);
  if (z === undefined) {
    z = new ZoneInfo(name, UTC_ALIASES.has(name) ? 0 : null);
    zoneInfos.set(name, z);
  }
  return z;
}

/** The conversion helper of a frame (UTC frames share one fixed-offset instance). */
export function frameZone(frame: Frame): ZoneInfo {
  return frame.kind === 'utc' ? UTC_INFO : zoneInfo(frame.zone);
}

/** Civil time ("local ms read as if UTC") of an instant in a frame: what its wall clock reads there. */
export function civilInFrame(frame: Frame, ms: number): number {
  return frameZone(frame).render(ms);
}

let formatters = new Map<string, Intl.DateTimeFormat>();
let zonedFormatters = 0;

/**
 * How many Intl.DateTimeFormat objects for a named zone this module has built since the process started:
 * each one loads that zone from ICU's data. Tests use it to pin that zoned jobs run on the tz files alone.
 */
export function zonedFormatterCount(): number {
  return zonedFormatters;
}

/** The Intl formatter that reads an instant's wall clock in a zone (throws RangeError for an unknown zone). */
function civilFormatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (f === undefined) {
    zonedFormatters++;
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

let knownZones = new Map<string, boolean>();
let zoneFrames = new Map<string, Frame>();

/** Drops every cached zone offset, name check and frame (benchmarks use it to measure a cold start). */
export function clearZoneCache(): void {
  zoneInfos = new Map();
  formatters = new Map();
  knownZones = new Map();
  zoneFrames = new Map();
  hostZone = null;
  clearZoneFiles();
}

/**
 * True for an IANA zone name in its exact spelling and case ('UTC' ok, 'america/new_york' rejected), the way a
 * case-sensitive lookup in the tz database behaves. The runtime's Intl must also support it.
 */
export function isKnownTimezone(name: string): boolean {
  let known = knownZones.get(name);
  if (known !== undefined) return known;
  if (UTC_ALIASES.has(name) && isListedZoneName(name)) return true; // no Intl needed for UTC itself
  // A listed name with a readable zone file needs no Intl: its offsets will come from that file.
  if (isListedZoneName(name) && zoneFile(name) !== null) {
    knownZones.set(name, true);
    return true;
  }
  known = false;
  try {
    const canonical = civilFormatter(name).resolvedOptions().timeZone;
    // Listed names are accepted as spelled; a zone newer than our list must match Intl's own spelling.
    if (isListedZoneName(name)) known = true;
    else if (!isListedZoneNameIgnoringCase(name)) known = canonical === name;
  } catch {
    known = false;
  }
  knownZones.set(name, known);
  return known;
}

let hostZone: string | null = null;

/** The host's zone: TZ or /etc/localtime when they name a zone file, else what Intl reports. */
export function hostTimezone(): string {
  if (hostZone === null) {
    const sys = hostZoneFromSystem();
    // Intl reports the UTC family as 'UTC'; keep that spelling whichever way the name was found.
    if (sys !== null) hostZone = UTC_ALIASES.has(sys) ? 'UTC' : sys;
    else hostZone = new Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  }
  return hostZone;
}

/** The host zone's abbreviation at an instant ('CET', 'EDT') from its zone file; null without one. */
export function hostZoneAbbreviation(ms: number): string | null {
  const file = zoneFile(hostTimezone());
  return file === null ? null : tzifTypeAt(file, Math.floor(ms / 1000)).abbr;
}

/** Frame of a job: `timezone` wins; otherwise `utc` (default true) picks UTC or the host's local zone. */
export function resolveFrame(opts: { timezone?: string | null; utc?: boolean }): Frame {
  const tz = opts.timezone;
  if (tz !== undefined && tz !== null) {
    let frame = zoneFrames.get(tz);
    if (frame === undefined) {
      if (!isKnownTimezone(tz)) throw new ScheduleError(`unknown timezone: ${tz}`, 'unknown-timezone');
      frame = Object.freeze({ kind: 'zone', zone: tz });
      zoneFrames.set(tz, frame);
    }
    return frame;
  }
  if (opts.utc === false) return { kind: 'local', zone: hostTimezone() };
  return UTC_FRAME;
}

/** 'UTC' for the UTC frame and `timezone: UTC`; the zone name otherwise (host zone for local frames). */
export function frameName(frame: Frame): string {
  return frame.kind === 'utc' ? 'UTC' : frame.zone;
}

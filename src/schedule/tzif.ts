// Compiled tz database files (TZif, RFC 8536, versions 1-4): transition instants, local time types and
// the footer's POSIX TZ rule for instants after the last transition. Pure: parses bytes it is given.
import { type LocalType, type PosixTz, parsePosixTz, posixTypeAt } from './posixtz.ts';

export interface TzifZone {
  /** transition instants, Unix seconds, ascending */
  readonly times: Float64Array;
  /** index into `types` of the type in force from each transition on */
  readonly typeIdx: Uint8Array;
  readonly types: readonly LocalType[];
  /** the footer rule (v2+), or null when absent or empty */
  readonly footer: PosixTz | null;
}

const HEADER = 44;

interface Counts {
  isutcnt: number;
  isstdcnt: number;
  leapcnt: number;
  timecnt: number;
  typecnt: number;
  charcnt: number;
}

function readHeader(b: Uint8Array, at: number): { version: number; counts: Counts } | null {
  if (b.length < at + HEADER) return null;
  if (b[at] !== 0x54 || b[at + 1] !== 0x5a || b[at + 2] !== 0x69 || b[at + 3] !== 0x66) return null; // "TZif"
  const v = b[at + 4]!;
  const version = v === 0 ? 1 : v - 0x30;
  if (version < 1 || version > 9) return null; // later versions stay readable (RFC 8536 §4)
  const dv = new DataView(b.buffer, b.byteOffset + at + 20, 24);
  const n = (i: number) => dv.getUint32(i * 4);
  return {
    version,
    counts: { isutcnt: n(0), isstdcnt: n(1), leapcnt: n(2), timecnt: n(3), typecnt: n(4), charcnt: n(5) },
  };
}

const blockSize = (c: Counts, timeSize: number): number =>
  c.timecnt * timeSize +
  c.timecnt +
  c.typecnt * 6 +
  c.charcnt +
  c.leapcnt * (timeSize + 4) +
  c.isstdcnt +
  c.isutcnt;

/** Parses a TZif file; null when the bytes are not one this reader trusts (then the caller uses Intl). */
export function parseTzif(bytes: Uint8Array): TzifZone | null {
  const first = readHeader(bytes, 0);
  if (first === null) return null;
  let at = HEADER;
  let counts = first.counts;
  let timeSize = 4;
  if (first.version >= 2) {
    at += blockSize(counts, 4);
    const second = readHeader(bytes, at);
    if (second === null) return null;
    at += HEADER;
    counts = second.counts;
    timeSize = 8;
  }
  const { timecnt, typecnt, charcnt, leapcnt } = counts;
  // Leap-second ("right/") files count TAI-like seconds, not Unix time; ICU has no such zones either.
  if (leapcnt !== 0 || typecnt === 0 || charcnt === 0) return null;
  if (bytes.length < at + blockSize(counts, timeSize)) return null;
  const dv = new DataView(bytes.buffer, bytes.byteOffset + at);
  const times = new Float64Array(timecnt);
  let p = 0;
  for (let i = 0; i < timecnt; i++, p += timeSize) {
    times[i] = timeSize === 8 ? Number(dv.getBigInt64(p)) : dv.getInt32(p);
    if (i > 0 && times[i]! <= times[i - 1]!) return null;
  }
  const typeIdx = new Uint8Array(timecnt);
  for (let i = 0; i < timecnt; i++, p++) {
    typeIdx[i] = dv.getUint8(p);
    if (typeIdx[i]! >= typecnt) return null;
  }
  const raw: { utoff: number; isDst: boolean; abbrAt: number }[] = [];
  for (let i = 0; i < typecnt; i++, p += 6) {
    raw.push({ utoff: dv.getInt32(p), isDst: dv.getUint8(p + 4) === 1, abbrAt: dv.getUint8(p + 5) });
  }
  const chars = bytes.subarray(at + p, at + p + charcnt);
  const types: LocalType[] = [];
  for (const t of raw) {
    if (t.abbrAt >= charcnt || t.utoff <= -89_999 || t.utoff >= 93_600) return null;
    const nul = chars.indexOf(0, t.abbrAt);
    const abbr = String.fromCharCode(...chars.subarray(t.abbrAt, nul < 0 ? charcnt : nul));
    types.push({ utoff: t.utoff, isDst: t.isDst, abbr });
  }
  let footer: PosixTz | null = null;
  if (timeSize === 8) {
    const end = at + blockSize(counts, 8);
    if (bytes[end] !== 0x0a) return null;
    const close = bytes.indexOf(0x0a, end + 1);
    if (close < 0) return null;
    const text = String.fromCharCode(...bytes.subarray(end + 1, close));
    if (text !== '') {
      footer = parsePosixTz(text);
      if (footer === null) return null; // a rule we cannot read: better Intl than a wrong future
    }
  }
  return { times, typeIdx, types, footer };
}

/** The local time type in force at Unix second sec. */
export function tzifTypeAt(z: TzifZone, sec: number): LocalType {
  const { times } = z;
  const n = times.length;
  if (n === 0 || sec < times[0]!) {
    if (n === 0 && z.footer !== null) return posixTypeAt(z.footer, sec);
    return z.types[0]!;
  }
  if (sec > times[n - 1]! && z.footer !== null) return posixTypeAt(z.footer, sec);
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (times[mid]! <= sec) lo = mid;
    else hi = mid - 1;
  }
  return z.types[z.typeIdx[lo]!]!;
}

// The feed's VEVENTs as UTF-8 written straight into the caller's buffer (spec 06 §8). The lines are
// the ones ical-generator serializes for these events, in its order and with its escaping
// (test/unit/ical-oracle.test.ts renders events both ways and compares), plus DURATION after
// DTSTART, which the library cannot emit, and each line folded by foldLine. The events of one job
// differ only in the fire instant, which appears twice (UID, DTSTART) as a fixed-width UTC stamp
// on lines that never fold, and every event of a feed has the same DTSTAMP: so a job is two byte
// pieces around constant lines and three stamps, and writing an event allocates nothing.
import { escape as icalEscape } from 'ical-generator';
import { civilFromDays, DAY_MS } from '../schedule/civil.ts';

/** RFC 5545 §3.1 folding: lines over 75 octets continue on lines starting with one space (74 octets). */
export function foldLine(line: string): string {
  let ascii = true;
  for (let i = 0; i < line.length; i++) {
    if (line.charCodeAt(i) > 0x7f) {
      ascii = false;
      break;
    }
  }
  if (ascii) {
    if (line.length <= 75) return line;
    let out = line.slice(0, 75);
    for (let i = 75; i < line.length; i += 74) out += `\r\n ${line.slice(i, i + 74)}`;
    return out;
  }
  let out = '';
  let used = 0;
  let budget = 75;
  for (const ch of line) {
    const cp = ch.codePointAt(0)!;
    const size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (used + size > budget) {
      out += '\r\n ';
      used = 0;
      budget = 74;
    }
    out += ch;
    used += size;
  }
  return out;
}

/** A TEXT property (RFC 5545 §3.3.11) as the library escapes it, folded, with its line end. */
export function textLine(name: string, value: string): string {
  return `${foldLine(`${name}:${icalEscape(value, false)}`)}\r\n`;
}

/** What every event of one job shares; only the fire instant differs from one event to the next. */
export interface JobEventFields {
  /** 12 hex digits naming the job in every UID (`<prefix>-<instant>@cronstable`). */
  uidPrefix: string;
  summary: string;
  description: string;
  /** RFC 5545 dur-time, e.g. `PT5M`. */
  duration: string;
}

/** The width of `icsUtc` (`20260705T120000Z`) in years 0-9999; the engine fires in 1970-2099. */
const STAMP = 16;
/** The lines between the UID's stamp and DTSTAMP's, and between DTSTAMP's and DTSTART's. */
const AFTER_UID = Buffer.from('@cronstable\r\nSEQUENCE:0\r\nDTSTAMP:', 'utf8');
const AFTER_DTSTAMP = Buffer.from('\r\nDTSTART:', 'utf8');

/**
 * One job's events: the bytes before the UID's stamp and after DTSTART's. They hold nothing of the
 * request (DTSTAMP is written per event), so a job's template serves every feed until its text changes.
 */
export interface EventTemplate {
  head: Uint8Array;
  tail: Uint8Array;
  /** Bytes of one event. */
  size: number;
}

export function eventTemplate(job: JobEventFields): EventTemplate {
  const head = Buffer.from(`BEGIN:VEVENT\r\nUID:${job.uidPrefix}-`, 'utf8');
  const tail = Buffer.from(
    `\r\nDURATION:${job.duration}\r\n${textLine('SUMMARY', job.summary)}TRANSP:TRANSPARENT\r\n` +
      `${textLine('DESCRIPTION', job.description)}STATUS:CONFIRMED\r\nEND:VEVENT\r\n`,
    'utf8',
  );
  return {
    head,
    tail,
    size: head.length + tail.length + AFTER_UID.length + AFTER_DTSTAMP.length + 3 * STAMP,
  };
}

/** Writes `n` as `width` ASCII digits (zero-padded) at `at`. */
function putDigits(buf: Uint8Array, at: number, n: number, width: number): void {
  for (let i = width - 1; i >= 0; i--) {
    buf[at + i] = 0x30 + (n % 10);
    n = (n / 10) | 0;
  }
}

/** Writes the 16 bytes of `icsUtc(ms)` at `at` (years 0-9999). */
function putStamp(buf: Uint8Array, at: number, ms: number): void {
  // Whole days and seconds (small integers) rather than a Date: nothing to allocate, even unoptimized.
  const days = Math.floor(ms / DAY_MS);
  const sod = Math.floor((ms - days * DAY_MS) / 1000);
  const ymd = civilFromDays(days);
  putDigits(buf, at, Math.floor(ymd / 512), 4);
  putDigits(buf, at + 4, (ymd >> 5) & 15, 2);
  putDigits(buf, at + 6, ymd & 31, 2);
  buf[at + 8] = 0x54; // T
  putDigits(buf, at + 9, (sod / 3600) | 0, 2);
  putDigits(buf, at + 11, ((sod / 60) | 0) % 60, 2);
  putDigits(buf, at + 13, sod % 60, 2);
  buf[at + 15] = 0x5a; // Z
}

/** `icsUtc(ms)` as bytes: a feed's DTSTAMP, written into each of its events. */
export function stampBytes(ms: number): Uint8Array {
  const out = new Uint8Array(STAMP);
  putStamp(out, 0, ms);
  return out;
}

/**
 * Writes the event of the fire at `ms`, stamped `stamp` (stampBytes), at `at` in `out` (room for
 * `t.size` bytes); returns the end.
 */
export function writeEvent(
  t: EventTemplate,
  ms: number,
  stamp: Uint8Array,
  out: Uint8Array,
  at: number,
): number {
  out.set(t.head, at);
  at += t.head.length;
  putStamp(out, at, ms);
  at += STAMP;
  out.set(AFTER_UID, at);
  at += AFTER_UID.length;
  out.set(stamp, at);
  at += STAMP;
  out.set(AFTER_DTSTAMP, at);
  at += AFTER_DTSTAMP.length;
  putStamp(out, at, ms);
  at += STAMP;
  out.set(t.tail, at);
  return at + t.tail.length;
}

// The feed's VEVENTs as UTF-8 written straight into the caller's buffer (spec 06 §8). The lines are
// the ones ical-generator serializes for these events, in its order and with its escaping
// (test/unit/ical-oracle.test.ts renders events both ways and compares), plus DURATION after
// DTSTART, which the library cannot emit, and each line folded by foldLine. The events of one job
// differ only in the fire instant, which appears twice (UID, DTSTART) as a fixed-width UTC stamp
// on lines that never fold, and every event of a feed has the same DTSTAMP: so an event is a job's
// two byte pieces around the feed's middle piece and the instant twice, and writing it allocates
// nothing.
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

/**
 * One job's events: the bytes before the UID's stamp and after DTSTART's. They hold nothing of the
 * request (DTSTAMP is in the feed's middle piece), so a job's template serves every feed until its
 * text changes.
 */
export interface EventTemplate {
  head: Uint8Array;
  tail: Uint8Array;
}

export function eventTemplate(job: JobEventFields): EventTemplate {
  return {
    head: Buffer.from(`BEGIN:VEVENT\r\nUID:${job.uidPrefix}-`, 'utf8'),
    tail: Buffer.from(
      `\r\nDURATION:${job.duration}\r\n${textLine('SUMMARY', job.summary)}TRANSP:TRANSPARENT\r\n` +
        `${textLine('DESCRIPTION', job.description)}STATUS:CONFIRMED\r\nEND:VEVENT\r\n`,
      'utf8',
    ),
  };
}

/** What lies between an event's two instants in a feed generated at `stampMs`: the same in all. */
export function eventMiddle(stampMs: number): Uint8Array {
  const before = Buffer.from('@cronstable\r\nSEQUENCE:0\r\nDTSTAMP:', 'utf8');
  const after = Buffer.from('\r\nDTSTART:', 'utf8');
  const out = new Uint8Array(before.length + STAMP + after.length);
  out.set(before, 0);
  putStamp(out, before.length, stampMs);
  out.set(after, before.length + STAMP);
  return out;
}

/** Bytes of one event of template `t` with the feed's middle `mid`. */
export function eventSize(t: EventTemplate, mid: Uint8Array): number {
  return t.head.length + mid.length + t.tail.length + 2 * STAMP;
}

/** `00` .. `99` as ASCII pairs: a field of the stamp is two table reads, no division loop. */
const PAIRS = Uint8Array.from(
  { length: 200 },
  (_, i) => 0x30 + (i & 1 ? (i >> 1) % 10 : ((i >> 1) / 10) | 0),
);

function putPair(buf: Uint8Array, at: number, n: number): void {
  buf[at] = PAIRS[2 * n]!;
  buf[at + 1] = PAIRS[2 * n + 1]!;
}

/** Writes the 16 bytes of `icsUtc(ms)` at `at` (years 0-9999). */
function putStamp(buf: Uint8Array, at: number, ms: number): void {
  // Whole days and seconds (small integers) rather than a Date: nothing to allocate, even unoptimized.
  const days = Math.floor(ms / DAY_MS);
  const sod = Math.floor((ms - days * DAY_MS) / 1000);
  const ymd = civilFromDays(days);
  const y = Math.floor(ymd / 512);
  putPair(buf, at, (y / 100) | 0);
  putPair(buf, at + 2, y % 100);
  putPair(buf, at + 4, (ymd >> 5) & 15);
  putPair(buf, at + 6, ymd & 31);
  buf[at + 8] = 0x54; // T
  putPair(buf, at + 9, (sod / 3600) | 0);
  putPair(buf, at + 11, ((sod / 60) | 0) % 60);
  putPair(buf, at + 13, sod % 60);
  buf[at + 15] = 0x5a; // Z
}

/**
 * Writes the event of the fire at `ms` at `at` in `out` (room for eventSize bytes): the template's
 * head, the instant, the feed's middle, the instant again, the tail. Returns the end.
 */
export function writeEvent(
  t: EventTemplate,
  mid: Uint8Array,
  ms: number,
  out: Uint8Array,
  at: number,
): number {
  out.set(t.head, at);
  at += t.head.length;
  const first = at;
  putStamp(out, at, ms);
  at += STAMP;
  out.set(mid, at);
  at += mid.length;
  out.copyWithin(at, first, first + STAMP);
  at += STAMP;
  out.set(t.tail, at);
  return at + t.tail.length;
}

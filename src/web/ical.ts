// The iCalendar feeds (spec 06 §8): one VEVENT per fire in [now, now + days), enumerated by our
// engine in each job's own frame, so business-day forms (LW, L-3, 15W, 5#3) land on the engine's
// dates. ical-generator serializes the header and one event per job (the template of that job's
// other events); we assemble the calendar ourselves so truncation markers sit right after their
// job's events, the body ends with CRLF, and folding stays linear (the library folds the whole text
// one character at a time, far too slow for 30k events).
import { createHash } from 'node:crypto';
// Named imports only: the bundle loads this package lazily through require() (scripts/build.mjs),
// where a default import would resolve to the module object rather than its default function.
import {
  ICalCalendar,
  ICalCalendarMethod,
  ICalEvent,
  ICalEventStatus,
  ICalEventTransparency,
  escape as icalEscape,
} from 'ical-generator';
import { icsUtc } from '../api/timefmt.ts';
// The week view's background-hum rule (spec 06 §9.2): one threshold for the feed and the dashboard.
import { HUM_FIRES_PER_DAY } from '../dashboard/week.ts';
import type { CronSchedule, DstPolicy, Frame } from '../schedule/index.ts';
import { describeSchedule, occurrences } from '../schedule/index.ts';
import type { RunRecord } from '../scheduler/history.ts';

export const DEFAULT_DAYS = 14;
export const MAX_DAYS = 60;
export const DEFAULT_PER_JOB = 100;
export const MAX_PER_JOB = 1000;

const MIN_BLOCK_S = 5 * 60;
const MAX_BLOCK_S = 24 * 3600;

export interface CalendarEntry {
  name: string;
  cron: CronSchedule;
  frame: Frame;
  /** The job's DST policy (issue 15); absent = default. */
  dst?: DstPolicy;
  /** Finished runs (for the typical duration); oldest first. */
  runs: readonly RunRecord[];
}

export interface CalendarOptions {
  version: string;
  /** `cronstable` (fleet) or `cronstable: <job>` (per job). */
  calName: string;
  nowMs: number;
  days: number;
  perJob: number;
}

function uidPrefix(name: string): string {
  return createHash('sha256').update(name, 'utf8').digest('hex').slice(0, 12);
}

/** Average duration of the retained runs (seconds), or null without history. */
export function averageDuration(runs: readonly RunRecord[]): number | null {
  let sum = 0;
  let n = 0;
  for (const r of runs.slice(-50)) {
    if (r.durationSeconds === null) continue;
    sum += r.durationSeconds;
    n++;
  }
  return n > 0 ? sum / n : null;
}

/** Event length: the average rounded up to whole minutes, clamped to [5 min, 24 h]; 5 min by default. */
export function blockSeconds(avg: number | null): number {
  if (avg === null) return MIN_BLOCK_S;
  return Math.min(MAX_BLOCK_S, Math.max(MIN_BLOCK_S, Math.ceil(avg / 60) * 60));
}

export function typicalRuntime(avg: number): string {
  if (avg < 60) return `${Math.round(avg)}s`;
  if (avg < 3600) return `${Math.round(avg / 60)}m`;
  return `${(avg / 3600).toFixed(1)}h`;
}

/** `PT1H30M`, `PT2H`, `PT5M` (RFC 5545 dur-time; blocks are whole minutes). */
export function icsDuration(seconds: number): string {
  const minutes = Math.round(seconds / 60);
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return `PT${h > 0 ? `${h}H` : ''}${m > 0 || h === 0 ? `${m}M` : ''}`;
}

function zoneLabel(frame: Frame): string {
  return frame.kind === 'utc' ? 'UTC' : frame.kind === 'zone' ? frame.zone : 'local';
}

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

function foldText(text: string): string {
  const lines = text.split('\r\n');
  for (let i = 0; i < lines.length; i++) lines[i] = foldLine(lines[i]!);
  return lines.join('\r\n');
}

const utf8 = (text: string) => Buffer.from(text, 'utf8');

/** Headers already serialized, by version and calendar name (they depend on nothing else). */
const headers = new Map<string, Buffer>();

/** BEGIN:VCALENDAR .. the refresh hints, without END (serialized by ical-generator, ~2 ms). */
function header(opts: CalendarOptions): Buffer {
  const key = `${opts.version}\u0000${opts.calName}`;
  let bytes = headers.get(key);
  if (bytes === undefined) {
    if (headers.size >= 256) headers.clear();
    bytes = utf8(serializeHeader(opts));
    headers.set(key, bytes);
  }
  return bytes;
}

function serializeHeader(opts: CalendarOptions): string {
  const cal = new ICalCalendar({
    prodId: { company: 'cronstable', product: opts.version || 'unversioned', language: 'EN' },
    method: ICalCalendarMethod.PUBLISH,
    scale: 'GREGORIAN',
    name: opts.calName,
    ttl: 3600,
  });
  const text = cal.toString();
  return text.slice(0, text.lastIndexOf('END:VCALENDAR'));
}

/** What every event of one job shares; only the fire instant differs from one event to the next. */
interface JobEvents {
  uid: string;
  description: string;
  duration: string;
  name: string;
}

/** One VEVENT as ical-generator serializes it, with DURATION and the feed's own folding. */
function serializeEvent(job: JobEvents, at: number, stamp: Date, cal: ICalCalendar): string {
  const ev = new ICalEvent(
    {
      id: `${job.uid}-${icsUtc(at)}@cronstable`,
      stamp,
      start: new Date(at),
      summary: job.name,
      description: job.description,
      status: ICalEventStatus.CONFIRMED,
      transparency: ICalEventTransparency.TRANSPARENT,
    },
    cal,
  );
  // The event length goes out as DURATION (spec 06 §8), which ical-generator cannot emit:
  // it is placed right after DTSTART.
  const text = ev.toString();
  const dtstart = text.indexOf('\r\n', text.indexOf('\r\nDTSTART') + 2) + 2;
  return foldText(text.slice(0, dtstart) + job.duration + text.slice(dtstart));
}

/** Writes `n` as `width` ASCII digits (zero-padded) at `at`. */
function putDigits(buf: Buffer, at: number, n: number, width: number): void {
  for (let i = width - 1; i >= 0; i--) {
    buf[at + i] = 0x30 + (n % 10);
    n = Math.floor(n / 10);
  }
}

/** Writes the 16 bytes of `icsUtc(ms)` (`20260705T120000Z`) at `at`; years 0-9999 only. */
function putStamp(buf: Buffer, at: number, ms: number): void {
  const d = new Date(ms);
  putDigits(buf, at, d.getUTCFullYear(), 4);
  putDigits(buf, at + 4, d.getUTCMonth() + 1, 2);
  putDigits(buf, at + 6, d.getUTCDate(), 2);
  buf[at + 8] = 0x54; // T
  putDigits(buf, at + 9, d.getUTCHours(), 2);
  putDigits(buf, at + 11, d.getUTCMinutes(), 2);
  putDigits(buf, at + 13, d.getUTCSeconds(), 2);
  buf[at + 15] = 0x5a; // Z
}

/**
 * The events of one job, as UTF-8. ical-generator serializes the job's first event only; that text
 * is the template of the rest, split where the instant appears (the UID and DTSTART), because the
 * events of a job differ in nothing else and a fixed-width UTC stamp never moves a fold; each event
 * is then three copies and two 16-byte stamps written straight into the job's buffer. Serializing
 * 30k events one by one (an object, a string and a fold each) made a 14-day feed cost ~100 ms. A
 * template that does not hold the instant exactly twice (a job name that contains it, a fold through
 * it) or an instant outside years 0-9999 falls back to one serialization per event.
 */
function jobEvents(job: JobEvents, fires: readonly number[], stamp: Date, cal: ICalCalendar): Buffer {
  const first = icsUtc(fires[0]!);
  const template = serializeEvent(job, fires[0]!, stamp, cal);
  const pieces = template.split(first);
  if (pieces.length !== 3 || first.length !== 16 || icsUtc(fires[fires.length - 1]!).length !== 16) {
    let out = template;
    for (let i = 1; i < fires.length; i++) out += serializeEvent(job, fires[i]!, stamp, cal);
    return Buffer.from(out, 'utf8');
  }
  const [a, b, c] = pieces.map((p) => Buffer.from(p, 'utf8')) as [Buffer, Buffer, Buffer];
  const buf = Buffer.allocUnsafe((a.length + b.length + c.length + 32) * fires.length);
  let at = 0;
  for (const ms of fires) {
    at += a.copy(buf, at);
    putStamp(buf, at, ms);
    at += 16;
    at += b.copy(buf, at);
    putStamp(buf, at, ms);
    at += 16;
    at += c.copy(buf, at);
  }
  return buf;
}

/**
 * The feed as UTF-8 pieces: the header, then each job's events and markers, then the end. A reader
 * (the HTTP stream) takes a few jobs at a time, so the whole feed never sits in memory at once and a
 * big feed never holds the event loop for long. Entries are rendered in the order given (callers sort
 * by name); each walks its fires strictly after `nowMs` and strictly before `nowMs + days`, at most
 * `perJob` of them.
 */
export function* calendarChunks(entries: readonly CalendarEntry[], opts: CalendarOptions): Generator<Buffer> {
  yield header(opts);
  const cal = new ICalCalendar();
  const stamp = new Date(opts.nowMs);
  const end = opts.nowMs + opts.days * 86_400_000;
  const humAbove = HUM_FIRES_PER_DAY * opts.days;
  for (const entry of entries) {
    const probe = Math.max(opts.perJob, humAbove) + 1;
    const fires = occurrences(entry.cron, entry.frame, opts.nowMs, {
      untilMs: end - 1,
      limit: probe,
      dst: entry.dst,
    });
    if (fires.length === 0) continue;
    const avg = averageDuration(entry.runs);
    let description = `Schedule: ${entry.cron.source}\n${describeSchedule(entry.cron)}\nTimezone: ${zoneLabel(entry.frame)}`;
    if (avg !== null) description += `\nTypical runtime: ${typicalRuntime(avg)}`;
    const job: JobEvents = {
      uid: uidPrefix(entry.name),
      description,
      duration: `DURATION:${icsDuration(blockSeconds(avg))}\r\n`,
      name: entry.name,
    };
    yield jobEvents(job, fires.length > opts.perJob ? fires.slice(0, opts.perJob) : fires, stamp, cal);
    let markers = '';
    if (fires.length > opts.perJob)
      markers += `${foldLine(`X-CRONSTABLE-TRUNCATED;CAP=${opts.perJob}:${icalEscape(entry.name, false)}`)}\r\n`;
    if (fires.length > humAbove)
      markers += `${foldLine(`X-CRONSTABLE-BACKGROUND-HUM;DAYS=${opts.days}:${icalEscape(entry.name, false)}`)}\r\n`;
    if (markers !== '') yield utf8(markers);
  }
  yield utf8('END:VCALENDAR\r\n');
}

/** The whole feed as one string (tests, small feeds); the route streams `calendarStream`. */
export function renderCalendar(entries: readonly CalendarEntry[], opts: CalendarOptions): string {
  return Buffer.concat([...calendarChunks(entries, opts)]).toString('utf8');
}

/** Each pull hands over pieces until about this many bytes: few socket writes, a small peak. */
const PULL_BYTES = 128 * 1024;

/** The feed as a byte stream that renders the next jobs only when the reader wants more. */
export function calendarStream(
  entries: readonly CalendarEntry[],
  opts: CalendarOptions,
): ReadableStream<Uint8Array> {
  const chunks = calendarChunks(entries, opts);
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      let sent = 0;
      while (sent < PULL_BYTES) {
        const next = chunks.next();
        if (next.done) {
          controller.close();
          return;
        }
        controller.enqueue(next.value);
        sent += next.value.length;
      }
    },
    cancel() {
      chunks.return(undefined);
    },
  });
}

// The iCalendar feeds (spec 06 §8): one VEVENT per fire in [now, now + days), enumerated by our
// engine in each job's own frame, so business-day forms (LW, L-3, 15W, 5#3) land on the engine's
// dates. ical-generator serializes the header; the events are written as bytes from a template per
// job (ical-event.ts, the same lines as the library's, which the tests hold it to), straight into
// chunk buffers that are reused once the socket has taken them (http/lent-chunks.ts): a request
// leaves next to no garbage however big the feed. We assemble the calendar ourselves so truncation
// markers sit right after their job's events and the body ends with CRLF.
import { createHash } from 'node:crypto';
// Named imports only: the bundle loads this package lazily through require() (scripts/build.mjs),
// where a default import would resolve to the module object rather than its default function.
import { ICalCalendar, ICalCalendarMethod } from 'ical-generator';
// The week view's background-hum rule (spec 06 §9.2): one threshold for the feed and the dashboard.
import { HUM_FIRES_PER_DAY } from '../dashboard/week.ts';
import { ChunkStream } from '../http/chunk-stream.ts';
import { BufferPool } from '../http/lent-chunks.ts';
import type { CronSchedule, DstPolicy, Frame } from '../schedule/index.ts';
import { describeSchedule, occurrencesInto } from '../schedule/index.ts';
import type { RunRecord } from '../scheduler/history.ts';
import {
  type EventTemplate,
  eventMiddle,
  eventSize,
  eventTemplate,
  foldLine,
  textLine,
  writeEvent,
} from './ical-event.ts';

export { foldLine };

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
  for (let i = Math.max(0, runs.length - 50); i < runs.length; i++) {
    const d = runs[i]!.durationSeconds;
    if (d === null) continue;
    sum += d;
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

/**
 * A job's template and marker lines, with what they were made from: the job's name, its zone
 * label, and the typical runtime's text and block (both follow from the average duration alone).
 * The marker lines depend on the feed's cap and days too; each keeps the last one asked for.
 */
interface JobText {
  name: string;
  zone: string;
  avg: number | null;
  template: EventTemplate;
  truncatedCap: number;
  truncated: Buffer | null;
  humDays: number;
  hum: Buffer | null;
}

/**
 * Job texts by schedule: a job's events read the same from one request to the next until its
 * history moves the typical runtime, so the text (description, escaping, folding, hash) and its
 * marker lines are made once, not once per request, and finding them builds no key. Keyed weakly
 * by the parsed schedule, so a reload's schedules take their texts with them.
 */
const jobTexts = new WeakMap<CronSchedule, JobText[]>();
/** Texts kept per schedule (the same schedule can serve several jobs; runtimes drift). */
const TEXTS_PER_SCHEDULE = 16;

/** The same text: an average gives the same runtime and block as the one the text was made for. */
function sameText(t: JobText, name: string, zone: string, avg: number | null): boolean {
  if (t.name !== name || t.zone !== zone) return false;
  if (t.avg === avg) return true;
  if (t.avg === null || avg === null) return false;
  return typicalRuntime(t.avg) === typicalRuntime(avg) && blockSeconds(t.avg) === blockSeconds(avg);
}

function jobTextOf(entry: CalendarEntry, avg: number | null): JobText {
  const zone = zoneLabel(entry.frame);
  let texts = jobTexts.get(entry.cron);
  if (texts === undefined) {
    texts = [];
    jobTexts.set(entry.cron, texts);
  }
  for (const t of texts)
    if (sameText(t, entry.name, zone, avg)) {
      t.avg = avg; // the next request with this history then compares no text
      return t;
    }
  const runtime = avg === null ? '' : typicalRuntime(avg);
  let description = `Schedule: ${entry.cron.source}\n${describeSchedule(entry.cron)}\nTimezone: ${zone}`;
  if (runtime !== '') description += `\nTypical runtime: ${runtime}`;
  const template = eventTemplate({
    uidPrefix: uidPrefix(entry.name),
    summary: entry.name,
    description,
    duration: icsDuration(blockSeconds(avg)),
  });
  const t: JobText = {
    name: entry.name,
    zone,
    avg,
    template,
    truncatedCap: 0,
    truncated: null,
    humDays: 0,
    hum: null,
  };
  if (texts.length >= TEXTS_PER_SCHEDULE) texts.length = 0;
  texts.push(t);
  return t;
}

function truncatedLine(t: JobText, cap: number): Buffer {
  if (t.truncated === null || t.truncatedCap !== cap) {
    t.truncated = utf8(textLine(`X-CRONSTABLE-TRUNCATED;CAP=${cap}`, t.name));
    t.truncatedCap = cap;
  }
  return t.truncated;
}

function humLine(t: JobText, days: number): Buffer {
  if (t.hum === null || t.humDays !== days) {
    t.hum = utf8(textLine(`X-CRONSTABLE-BACKGROUND-HUM;DAYS=${days}`, t.name));
    t.humDays = days;
  }
  return t.hum;
}

const END = utf8('END:VCALENDAR\r\n');

/**
 * The feed's bytes, written a chunk at a time into buffers the reader provides: the header, then
 * each job's events and markers, then the end. Each job's fires are searched only when the writer
 * reaches it, into one array the feed reuses, so the whole feed never sits in memory and a chunk
 * never holds the event loop for long. Pieces (the header, an event, a job's markers, the end) are
 * never split across chunks. Entries are rendered in the order given (callers sort by name); each
 * walks its fires strictly after `nowMs` and strictly before `nowMs + days`, at most `perJob` of
 * them, and enough past that to tell a truncated job and a background hum (spec 06 §9.2).
 */
class FeedWriter {
  private readonly mid: Uint8Array;
  private readonly humAbove: number;
  private readonly fires: Float64Array;
  private started = false;
  private ended = false;
  private nextEntry = 0;
  /** The job being written (null: set up the next one), its fires, the next of them, its markers. */
  private template: EventTemplate | null = null;
  private eventBytes = 0;
  private count = 0;
  private event = 0;
  /** The job's marker lines (null: none), written together as one piece after its events. */
  private truncated: Buffer | null = null;
  private hum: Buffer | null = null;

  constructor(
    private readonly entries: readonly CalendarEntry[],
    private readonly opts: CalendarOptions,
  ) {
    this.mid = eventMiddle(opts.nowMs);
    this.humAbove = HUM_FIRES_PER_DAY * opts.days;
    this.fires = new Float64Array(Math.max(opts.perJob, this.humAbove) + 1);
  }

  /** Sets up the next entry that has fires; false after the last. */
  private nextJob(): boolean {
    const { opts } = this;
    while (this.nextEntry < this.entries.length) {
      const entry = this.entries[this.nextEntry++]!;
      const found = occurrencesInto(
        entry.cron,
        entry.frame,
        opts.nowMs,
        { untilMs: opts.nowMs + opts.days * 86_400_000 - 1, dst: entry.dst },
        this.fires,
      );
      if (found === 0) continue;
      const text = jobTextOf(entry, averageDuration(entry.runs));
      this.template = text.template;
      this.eventBytes = eventSize(this.template, this.mid);
      this.count = Math.min(found, opts.perJob);
      this.event = 0;
      this.truncated = found > opts.perJob ? truncatedLine(text, opts.perJob) : null;
      this.hum = found > this.humAbove ? humLine(text, opts.days) : null;
      return true;
    }
    return false;
  }

  /** Bytes of the next piece; 0 when the feed is complete. */
  nextPieceSize(): number {
    if (!this.started) return header(this.opts).length;
    if (this.template === null && !this.nextJob()) return this.ended ? 0 : END.length;
    return this.event < this.count ? this.eventBytes : this.markersSize();
  }

  private markersSize(): number {
    return (this.truncated?.length ?? 0) + (this.hum?.length ?? 0);
  }

  /** Writes whole pieces into `out` while they fit; returns the bytes written. */
  fill(out: Uint8Array): number {
    let at = 0;
    if (!this.started) {
      const head = header(this.opts);
      if (head.length > out.length) return at;
      out.set(head, at);
      at += head.length;
      this.started = true;
    }
    while (this.template !== null || this.nextJob()) {
      const t = this.template!;
      for (; this.event < this.count; this.event++) {
        if (this.eventBytes > out.length - at) return at;
        at = writeEvent(t, this.mid, this.fires[this.event]!, out, at);
      }
      if (this.markersSize() > out.length - at) return at;
      if (this.truncated !== null) {
        out.set(this.truncated, at);
        at += this.truncated.length;
      }
      if (this.hum !== null) {
        out.set(this.hum, at);
        at += this.hum.length;
      }
      this.template = null;
    }
    if (!this.ended && END.length <= out.length - at) {
      out.set(END, at);
      at += END.length;
      this.ended = true;
    }
    return at;
  }
}

/** Bytes of one chunk of a streamed feed (a piece bigger than this goes out alone). */
const CHUNK_BYTES = 32 * 1024;
/** Chunk buffers shared by every feed: only a released chunk's buffer is filled again. */
export const chunkPool = new BufferPool(CHUNK_BYTES, 4);

/**
 * The feed's chunks in order, each lent from the pool (or, for a piece bigger than a chunk, a buffer
 * of its own); each is set up only when the reader asks for it.
 */
export function* calendarChunks(
  entries: readonly CalendarEntry[],
  opts: CalendarOptions,
): Generator<Uint8Array> {
  const feed = new FeedWriter(entries, opts);
  for (let size = feed.nextPieceSize(); size > 0; size = feed.nextPieceSize()) {
    if (size > CHUNK_BYTES) {
      const own = Buffer.allocUnsafe(size);
      yield own.subarray(0, feed.fill(own));
    } else {
      const buf = chunkPool.take();
      yield chunkPool.lend(buf, feed.fill(buf));
    }
  }
}

/** The whole feed as one string (tests, small feeds); the route streams `calendarStream`. */
export function renderCalendar(entries: readonly CalendarEntry[], opts: CalendarOptions): string {
  return Buffer.concat([...calendarChunks(entries, opts)]).toString('utf8');
}

/**
 * The feed as a byte stream that renders the next chunk only when the reader wants it; the
 * daemon's writer takes the chunks without the stream (http/chunk-stream.ts). Entries are
 * rendered in the order given (callers sort by name).
 */
export function calendarStream(
  entries: readonly CalendarEntry[],
  opts: CalendarOptions,
): ReadableStream<Uint8Array> {
  return new ChunkStream(calendarChunks(entries, opts));
}

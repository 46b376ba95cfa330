// The feed writes its VEVENTs itself, as bytes from a template per job (issue 34: a request then
// leaves next to no garbage). ical-generator stays the reference: here every event of a feed is
// serialized by the library (one ICalEvent each, DURATION placed after DTSTART, each line folded
// by the feed's foldLine, as the feed did before) and the whole feed must be byte-identical, for
// names and schedules that exercise escaping (`,` `;` `\` newlines), folding (long and non-ASCII
// text), zones, DST, typical runtimes and the truncation and hum markers. DTSTAMP is normalised,
// although both sides are given the same instant.
import { createHash } from 'node:crypto';
import {
  ICalCalendar,
  ICalCalendarMethod,
  ICalEvent,
  ICalEventStatus,
  ICalEventTransparency,
  escape as icalEscape,
} from 'ical-generator';
import { describe, expect, it } from 'vitest';
import { icsUtc } from '../../src/api/timefmt.ts';
import { HUM_FIRES_PER_DAY } from '../../src/dashboard/week.ts';
import { describeSchedule, occurrences, parseCron, resolveFrame } from '../../src/schedule/index.ts';
import {
  averageDuration,
  blockSeconds,
  type CalendarEntry,
  type CalendarOptions,
  foldLine,
  icsDuration,
  renderCalendar,
  typicalRuntime,
} from '../../src/web/ical.ts';
import { succeededRun } from '../helpers/run-record.ts';

const run = (durationSeconds: number | null) => succeededRun('j', durationSeconds);

/** The feed as ical-generator serializes it, one event at a time. */
function libraryFeed(entries: readonly CalendarEntry[], opts: CalendarOptions): string {
  const head = new ICalCalendar({
    prodId: { company: 'cronstable', product: opts.version || 'unversioned', language: 'EN' },
    method: ICalCalendarMethod.PUBLISH,
    scale: 'GREGORIAN',
    name: opts.calName,
    ttl: 3600,
  }).toString();
  let out = head.slice(0, head.lastIndexOf('END:VCALENDAR'));
  const cal = new ICalCalendar();
  const humAbove = HUM_FIRES_PER_DAY * opts.days;
  for (const e of entries) {
    const fires = occurrences(e.cron, e.frame, opts.nowMs, {
      untilMs: opts.nowMs + opts.days * 86_400_000 - 1,
      limit: Math.max(opts.perJob, humAbove) + 1,
      dst: e.dst,
    });
    if (fires.length === 0) continue;
    const avg = averageDuration(e.runs);
    const zone = e.frame.kind === 'utc' ? 'UTC' : e.frame.kind === 'zone' ? e.frame.zone : 'local';
    let description = `Schedule: ${e.cron.source}\n${describeSchedule(e.cron)}\nTimezone: ${zone}`;
    if (avg !== null) description += `\nTypical runtime: ${typicalRuntime(avg)}`;
    const uid = createHash('sha256').update(e.name, 'utf8').digest('hex').slice(0, 12);
    for (const at of fires.slice(0, opts.perJob)) {
      const text = new ICalEvent(
        {
          id: `${uid}-${icsUtc(at)}@cronstable`,
          stamp: new Date(opts.nowMs),
          start: new Date(at),
          summary: e.name,
          description,
          status: ICalEventStatus.CONFIRMED,
          transparency: ICalEventTransparency.TRANSPARENT,
        },
        cal,
      ).toString();
      const lines = text.slice(0, -2).split('\r\n');
      const start = lines.findIndex((l) => l.startsWith('DTSTART'));
      lines.splice(start + 1, 0, `DURATION:${icsDuration(blockSeconds(avg))}`);
      out += `${lines.map(foldLine).join('\r\n')}\r\n`;
    }
    const marker = (name: string) => `${foldLine(`${name}:${icalEscape(e.name, false)}`)}\r\n`;
    if (fires.length > opts.perJob) out += marker(`X-CRONSTABLE-TRUNCATED;CAP=${opts.perJob}`);
    if (fires.length > humAbove) out += marker(`X-CRONSTABLE-BACKGROUND-HUM;DAYS=${opts.days}`);
  }
  return `${out}END:VCALENDAR\r\n`;
}

const normStamp = (feed: string) => feed.replace(/^DTSTAMP:\d{8}T\d{6}Z$/gm, 'DTSTAMP:X');

const utc = resolveFrame({ utc: true });
const entry = (name: string, schedule: string, extra: Partial<CalendarEntry> = {}): CalendarEntry => ({
  name,
  cron: parseCron(schedule),
  frame: utc,
  runs: [],
  ...extra,
});

const ENTRIES: CalendarEntry[] = [
  entry('backup, nightly; full\\copy', '0 2 * * *'),
  entry('every-minute', '* * * * *', { runs: [run(12), run(null), run(20)] }),
  entry(`long-${'x'.repeat(90)}`, '*/15 9-17 * * mon-fri', { runs: [run(5400)] }),
  entry('rapport-été-日本-😀-'.repeat(4), '30 6 L * *'),
  entry('multi\nline', '0 */6 * * *', { runs: [run(86_400 * 2)] }),
  entry('london', '30 1 * * *', { frame: resolveFrame({ timezone: 'Europe/London' }) }),
  entry('ny-both', '30 1 * * *', {
    frame: resolveFrame({ timezone: 'America/New_York' }),
    dst: { repeated: 'both', skipped: 'shift' },
  }),
  entry('seconds', '*/20 * * * * *'),
  entry('hum', '0 */2 * * *'),
  entry('never-in-window', '0 0 1 1 * 2099'),
  entry('20261101T013000Z', '30 1 * * *', { frame: resolveFrame({ timezone: 'America/New_York' }) }),
];

describe('calendar feed against ical-generator', () => {
  it.each([
    ['a fortnight, 100 per job', { days: 14, perJob: 100 }],
    ['one day, 20 per job', { days: 1, perJob: 20 }],
    ['sixty days, 1000 per job', { days: 60, perJob: 1000 }],
  ])('%s: byte-identical to the library, event by event', (_label, window) => {
    // Across a fall-back in New York and London (2026-10-25 / 2026-11-01), off a whole second.
    const opts: CalendarOptions = {
      version: '1.2.3',
      calName: 'cronstable: ré; x',
      nowMs: Date.parse('2026-10-20T08:17:42.317Z'),
      ...window,
    };
    const ours = renderCalendar(ENTRIES, opts);
    const theirs = libraryFeed(ENTRIES, opts);
    expect(ours.length).toBeGreaterThan(10_000);
    // What the comparison covers: folds, escapes, both markers, a repeated hour fired twice.
    for (const part of [
      '\r\n ',
      '\\,',
      '\\;',
      '\\\\',
      '\\n',
      'X-CRONSTABLE-TRUNCATED',
      'X-CRONSTABLE-BACKGROUND-HUM',
    ])
      expect(ours).toContain(part);
    if (window.days >= 14) {
      expect(ours).toContain('DTSTART:20261101T053000Z\r\nDURATION:PT5M\r\nSUMMARY:ny-both');
      expect(ours).toContain('DTSTART:20261101T063000Z\r\nDURATION:PT5M\r\nSUMMARY:ny-both');
    }
    expect(normStamp(ours)).toBe(normStamp(theirs));
    expect(ours).toBe(theirs);
  });

  it('a later request with a changed typical runtime gets the new text, not an earlier one', () => {
    const opts: CalendarOptions = {
      version: '1',
      calName: 'c',
      nowMs: Date.parse('2026-03-01T00:00:00Z'),
      days: 2,
      perJob: 5,
    };
    const job = entry('drifting', '0 * * * *');
    const before = renderCalendar([job], opts);
    const later = renderCalendar([{ ...job, runs: [run(3000)] }], opts);
    expect(before).toBe(libraryFeed([job], opts));
    expect(later).toBe(libraryFeed([{ ...job, runs: [run(3000)] }], opts));
    expect(later).toContain('DURATION:PT50M\r\n');
    expect(renderCalendar([job], { ...opts, nowMs: opts.nowMs + 3_600_000 })).toBe(
      libraryFeed([job], { ...opts, nowMs: opts.nowMs + 3_600_000 }),
    );
  });
});

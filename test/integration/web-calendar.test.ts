// The iCalendar feeds over real HTTP, parsed back with ical.js.
import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/util/clock.ts';
import { type Harness, job, LOOPBACK, startHarness } from './web-harness.ts';

const NOW = Date.parse('2026-01-10T12:00:00Z');

interface Ev {
  uid: string;
  summary: string;
  start: string;
  startIsUtc: boolean;
  end: string;
  description: string;
}

function parseIcs(text: string): { cal: ICAL.Component; events: Ev[] } {
  const cal = new ICAL.Component(ICAL.parse(text));
  expect(cal.name).toBe('vcalendar');
  const events = cal.getAllSubcomponents('vevent').map((c) => {
    const e = new ICAL.Event(c);
    return {
      uid: e.uid,
      summary: e.summary,
      start: e.startDate.toJSDate().toISOString(),
      startIsUtc: e.startDate.zone?.tzid === 'UTC',
      end: e.endDate.toJSDate().toISOString(),
      description: e.description,
    };
  });
  return { cal, events };
}

const dates = (events: Ev[], name: string) => events.filter((e) => e.summary === name).map((e) => e.start);

describe('calendar feeds', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(
      [
        job('monthly-close-prep', 'true', '30 1 LW * *', ['timezone: Europe/London']),
        job('ny-nightly', 'true', '0 2 * * *', ['timezone: America/New_York']),
        job('l-minus-3', 'true', '0 9 L-3 * *'),
        job('nearest-15', 'true', '0 9 15W * *'),
        job('third-friday', 'true', '0 9 * * 5#3'),
        job('busy', 'true', '*/10 * * * *'),
        job('off', 'true', '0 9 * * *', ['enabled: false']),
        job('boot', 'true', '@reboot'),
        job('comma, name; with', 'true', '0 12 * * *'),
      ].join('\n'),
      `${LOOPBACK}\n  headers:\n    X-Feed: yes`,
      { clock: new FakeClock(NOW) },
    );
  });
  afterAll(async () => {
    await h.stop();
  });

  it('serves a valid RFC 5545 fleet feed: header, CRLF, final CRLF, folded lines', async () => {
    const res = await h.get('/calendar.ics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('inline; filename="cronstable.ics"');
    expect(res.headers.get('x-feed')).toBe('yes');
    const text = await res.text();
    expect(
      text.startsWith('BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//cronstable//9.9.9-test//EN\r\n'),
    ).toBe(true);
    expect(text.endsWith('END:VCALENDAR\r\n')).toBe(true);
    expect(text.replace(/\r\n/g, '')).not.toContain('\n');
    expect(text).toContain('\r\nDURATION:PT5M\r\n');
    expect(text).not.toContain('DTEND');
    for (const line of text.split('\r\n')) expect(Buffer.byteLength(line, 'utf8')).toBeLessThanOrEqual(75);
    for (const want of [
      'CALSCALE:GREGORIAN',
      'METHOD:PUBLISH',
      'X-WR-CALNAME:cronstable',
      'REFRESH-INTERVAL;VALUE=DURATION:PT1H',
      'X-PUBLISHED-TTL:PT1H',
    ])
      expect(text).toContain(`\r\n${want}\r\n`);
    const { events } = parseIcs(text);
    const names = [...new Set(events.map((e) => e.summary))];
    // every enabled cron job, sorted by name; never disabled or @reboot jobs
    expect(names).toEqual([...names].sort());
    expect(names).not.toContain('off');
    expect(names).not.toContain('boot');
    expect(names).toContain('comma, name; with');
    for (const e of events) {
      expect(e.startIsUtc).toBe(true);
      expect(Date.parse(e.start)).toBeGreaterThan(NOW);
      expect(Date.parse(e.start)).toBeLessThan(NOW + 14 * 86_400_000);
      expect(Date.parse(e.end) - Date.parse(e.start)).toBe(5 * 60_000);
    }
    // UIDs are stable: name hash + fire instant
    const ny = events.find((e) => e.summary === 'ny-nightly')!;
    expect(ny.uid).toMatch(/^[0-9a-f]{12}-20260111T070000Z@cronstable$/);
    expect(ny.description).toMatch(/^Schedule: 0 2 \* \* \*\n.+\nTimezone: America\/New_York$/);
    // the default per_job cap (100) truncates the busy job and says so right after its events
    expect(dates(events, 'busy')).toHaveLength(100);
    expect(text).toMatch(/END:VEVENT\r\nX-CRONSTABLE-TRUNCATED;CAP=100:busy\r\n/);
  });

  it("places fires in each job's zone, DST included", async () => {
    const { events } = parseIcs(await (await h.get('/calendar.ics?days=60')).text());
    const ny = dates(events, 'ny-nightly');
    expect(ny[0]).toBe('2026-01-11T07:00:00.000Z');
    // 2026-03-08 is the spring-forward day in New York: 02:00 does not exist, fires at 03:00 EDT (07:00Z)
    expect(ny).toContain('2026-03-08T07:00:00.000Z');
    expect(ny).toContain('2026-03-09T06:00:00.000Z');
    expect(ny).toHaveLength(60);
  });

  it('lands business-day forms (LW, L-3, 15W, 5#3) on the engine dates', async () => {
    const { events } = parseIcs(await (await h.get('/calendar.ics?days=60')).text());
    // last weekday of the month at 01:30 London (UTC in winter): Jan 31 2026 is a Saturday
    expect(dates(events, 'monthly-close-prep')).toEqual([
      '2026-01-30T01:30:00.000Z',
      '2026-02-27T01:30:00.000Z',
    ]);
    expect(dates(events, 'l-minus-3')).toEqual(['2026-01-28T09:00:00.000Z', '2026-02-25T09:00:00.000Z']);
    // Feb 15 2026 is a Sunday: the nearest weekday is Monday the 16th
    expect(dates(events, 'nearest-15')).toEqual(['2026-01-15T09:00:00.000Z', '2026-02-16T09:00:00.000Z']);
    expect(dates(events, 'third-friday')).toEqual(['2026-01-16T09:00:00.000Z', '2026-02-20T09:00:00.000Z']);
  });

  it('honours days and per_job with the spec clamps', async () => {
    const small = parseIcs(await (await h.get('/calendar.ics?days=1&per_job=20')).text());
    expect(dates(small.events, 'busy')).toHaveLength(20);
    expect(dates(small.events, 'ny-nightly')).toEqual(['2026-01-11T07:00:00.000Z']);
    expect(dates(small.events, 'monthly-close-prep')).toEqual([]);
    const text = await (await h.get('/calendar.ics?days=30&per_job=20')).text();
    expect(text).toContain('X-CRONSTABLE-TRUNCATED;CAP=20:busy\r\n');
    expect(dates(parseIcs(text).events, 'ny-nightly')).toHaveLength(20);
    // out of range -> clamped (60 days, 1000 per job); unparsable -> default
    const wide = parseIcs(await (await h.get('/calendar.ics?days=999&per_job=99999')).text());
    expect(dates(wide.events, 'ny-nightly')).toHaveLength(60);
    expect(dates(wide.events, 'busy')).toHaveLength(1000);
    const dflt = parseIcs(await (await h.get('/calendar.ics?days=abc&per_job=-')).text());
    expect(dates(dflt.events, 'ny-nightly')).toHaveLength(14);
    expect(dates(dflt.events, 'busy')).toHaveLength(100);
  });

  it('marks jobs too frequent to chart (background hum) without dropping their events', async () => {
    const text = await (await h.get('/calendar.ics?days=7')).text();
    expect(text).toContain('X-CRONSTABLE-BACKGROUND-HUM;DAYS=7:busy\r\n');
    expect(text).not.toContain('BACKGROUND-HUM;DAYS=7:ny-nightly');
  });

  it('serves one job per feed; disabled and @reboot jobs give an empty calendar; unknown is 404', async () => {
    const res = await h.get('/jobs/monthly-close-prep/calendar.ics?days=60');
    expect(res.headers.get('content-disposition')).toBe('inline; filename="cronstable.ics"');
    const text = await res.text();
    expect(text).toContain('\r\nX-WR-CALNAME:cronstable: monthly-close-prep\r\n');
    const { events } = parseIcs(text);
    expect(events.map((e) => e.start)).toEqual(['2026-01-30T01:30:00.000Z', '2026-02-27T01:30:00.000Z']);
    expect(events[0]!.description).toContain('Timezone: Europe/London');
    for (const name of ['off', 'boot']) {
      const empty = await h.get(`/jobs/${name}/calendar.ics`);
      expect(empty.status).toBe(200);
      const body = await empty.text();
      expect(parseIcs(body).events).toEqual([]);
      expect(body.endsWith('END:VCALENDAR\r\n')).toBe(true);
    }
    const missing = await h.get('/jobs/ghost/calendar.ics');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-feed')).toBeNull();
    expect(await missing.json()).toEqual({ error: "no job or DAG schedule named 'ghost'" });
    const escaped = await (
      await h.get(`/jobs/${encodeURIComponent('comma, name; with')}/calendar.ics`)
    ).text();
    expect(escaped).toContain('SUMMARY:comma\\, name\\; with\r\n');
    expect(parseIcs(escaped).events[0]!.summary).toBe('comma, name; with');
  });
});

// The feed's per-job templates (issue 23, issue 34): every event of a job is written from one
// template with the fire instant stamped in, so a job whose name is itself a stamp must get the
// same events as any other, and the streamed feed the same bytes as the whole string.
import { describe, expect, it } from 'vitest';
import { parseCron, resolveFrame } from '../../src/schedule/index.ts';
import { type CalendarEntry, calendarStream, renderCalendar } from '../../src/web/ical.ts';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const OPTS = { version: '1.2.3', calName: 'cronstable', nowMs: NOW, days: 5, perJob: 100 };
const entry = (name: string, schedule: string): CalendarEntry => ({
  name,
  cron: parseCron(schedule),
  frame: resolveFrame({ utc: true }),
  runs: [],
});

/** The VEVENT blocks of one job (by SUMMARY), with its UID prefix and name masked. */
function eventsOf(feed: string, name: string): string[] {
  return feed
    .split('BEGIN:VEVENT\r\n')
    .slice(1)
    .map((e) => e.slice(0, e.indexOf('END:VEVENT\r\n')))
    .filter((e) => e.includes(`\r\nSUMMARY:${name}\r\n`))
    .map((e) =>
      e.replace(/^UID:[0-9a-f]{12}-/, 'UID:*-').replace(`\r\nSUMMARY:${name}\r\n`, '\r\nSUMMARY:*\r\n'),
    );
}

describe('calendar templates', () => {
  it('a job named like its first fire gets the same events as any other job', () => {
    // The first fire after NOW is 2026-12-01T09:00:00Z: it appears in that job's name as well.
    const stamp = '20261201T090000Z';
    const feed = renderCalendar([entry('daily', '0 9 * * *'), entry(stamp, '0 9 * * *')], OPTS);
    const plain = eventsOf(feed, 'daily');
    expect(plain).toHaveLength(5);
    expect(plain.map((e) => /DTSTART:(\S+)\r\n/.exec(e)![1])).toEqual([
      '20261201T090000Z',
      '20261202T090000Z',
      '20261203T090000Z',
      '20261204T090000Z',
      '20261205T090000Z',
    ]);
    for (const e of plain) expect(e).toContain(`UID:*-${/DTSTART:(\S+)\r\n/.exec(e)![1]}@cronstable\r\n`);
    expect(eventsOf(feed, stamp)).toEqual(plain);
  });

  it('streams the same bytes as the whole feed, a chunk of whole events at a time', async () => {
    const entries = [
      ...['a', 'b', 'c', 'd', 'e', 'f'].map((n) => entry(`${n}-every-minute`, '* * * * *')),
      entry('g-hourly', '0 * * * *'),
      entry('h-daily', '0 9 * * *'),
    ];
    const whole = renderCalendar(entries, OPTS);
    const reader = calendarStream(entries, OPTS).getReader();
    const chunks: Uint8Array[] = [];
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
    // Chunks of at most 32 KiB (whole events each), never the whole feed at once.
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThanOrEqual(32 * 1024);
    expect(chunks.length).toBeGreaterThanOrEqual(Math.ceil(Buffer.byteLength(whole) / (32 * 1024)));
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThan(whole.length / 4);
    expect(Buffer.concat(chunks).toString('utf8')).toBe(whole);
    expect(whole).toContain('X-CRONSTABLE-TRUNCATED;CAP=100:a-every-minute\r\n');
    expect(whole.endsWith('END:VCALENDAR\r\n')).toBe(true);
  });
});

// Instants typed by a person: the one parser behind `cronstable next --after` and
// `/schedule/why?at=`.
import { describe, expect, it } from 'vitest';
import { parseIsoInstant } from '../../src/util/instant.ts';

describe('parseIsoInstant', () => {
  it.each([
    ['2026-03-08T06:00:00Z', Date.UTC(2026, 2, 8, 6)],
    ['2026-03-08T06:00:00z', Date.UTC(2026, 2, 8, 6)],
    ['2026-03-08 06:00:00', Date.UTC(2026, 2, 8, 6)],
    ['2026-03-08T01:00:00-05:00', Date.UTC(2026, 2, 8, 6)],
    ['2026-03-08T11:30:00+0530', Date.UTC(2026, 2, 8, 6)],
    ['2026-03-08T06:00:00.123456Z', Date.UTC(2026, 2, 8, 6, 0, 0, 123)],
    ['2026-03-08', Date.UTC(2026, 2, 8)],
    ['2028-02-29T12:00', Date.UTC(2028, 1, 29, 12)],
    [' 2026-03-08T06:00:00,5Z ', Date.UTC(2026, 2, 8, 6, 0, 0, 500)],
  ])('%s', (text, ms) => {
    expect(parseIsoInstant(text)).toBe(ms);
  });
  it.each([
    '',
    'now',
    '2026-13-01',
    '2026-03-08T24:00:00Z',
    '2026-03-08T06:60Z',
    '2026-03-08T06:00:00+25:00',
    '08/03/2026',
    '2026-02-30',
    '2026-02-29T00:00:00Z',
    '2026-03-08T06:00:00 UTC',
  ])('rejects %j', (text) => {
    expect(parseIsoInstant(text)).toBeNull();
  });
});

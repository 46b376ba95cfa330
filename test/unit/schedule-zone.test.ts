// The per-zone offset cache (src/schedule/zone.ts) against Intl itself, including odd zones.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY_MS, daysFromCivil } from '../../src/schedule/civil.ts';
import { intlSource, wallFields, ZoneInfo } from '../../src/schedule/zone.ts';

const ODD_ZONES = [
  'America/New_York',
  'Europe/Berlin',
  'Europe/Dublin', // negative DST in tzdata
  'Australia/Lord_Howe', // 30-minute DST
  'Antarctica/Troll', // 2-hour DST
  'Pacific/Apia', // skipped 2011-12-30 entirely
  'Pacific/Chatham',
  'Asia/Kathmandu', // +05:45, changed from +05:30 in 1986
  'Africa/Casablanca', // Ramadan suspensions
  'Asia/Gaza',
  'America/Sao_Paulo',
  'America/St_Johns',
  'Asia/Tehran',
  'Europe/Moscow',
  'Pacific/Kiritimati',
  'America/Caracas',
];

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Offset (ms) at an instant, straight from Intl. */
function intlOffset(zone: string, ms: number): number {
  const f =
    formatters.get(zone) ??
    new Intl.DateTimeFormat('en-US', {
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
  const p = Object.fromEntries(f.formatToParts(ms).map((x) => [x.type, Number(x.value)]));
  const local =
    daysFromCivil(p.year!, p.month!, p.day!) * DAY_MS +
    p.hour! * 3_600_000 +
    p.minute! * 60_000 +
    p.second! * 1000;
  return local - Math.floor(ms / 1000) * 1000;
}

describe('ZoneInfo offsets', () => {
  const infos = new Map(ODD_ZONES.map((z) => [z, new ZoneInfo(z, null)]));

  it('equal Intl at random instants 1970-2099', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ODD_ZONES),
        fc.integer({ min: 0, max: Date.UTC(2099, 11, 31) }),
        (zone, ms) => {
          expect(infos.get(zone)!.offset(ms)).toBe(intlOffset(zone, ms));
        },
      ),
      { numRuns: 3000, seed: 1 },
    );
  });

  it('locate transitions to the second', () => {
    for (const zone of ODD_ZONES) {
      const z = infos.get(zone)!;
      let found = 0;
      for (let t = Date.UTC(1975, 0, 1); t < Date.UTC(2030, 0, 1); t += 5 * DAY_MS) {
        const tr = z.lastTransition(t - 5 * DAY_MS, t);
        if (tr === null) continue;
        found++;
        expect(intlOffset(zone, tr.at)).not.toBe(intlOffset(zone, tr.at - 1000));
        expect(intlOffset(zone, tr.at) - intlOffset(zone, tr.at - 1000)).toBe(tr.delta);
      }
      expect(found, zone).toBeGreaterThan(0);
    }
  });

  it('Pacific/Apia skipped 2011-12-30: the whole day is a gap', () => {
    const z = infos.get('Pacific/Apia')!;
    expect(z.classify(Date.UTC(2011, 11, 30, 12))).toBe('gap');
    expect(z.classify(Date.UTC(2011, 11, 29, 12))).toBe('normal');
    expect(z.classify(Date.UTC(2011, 11, 31, 12))).toBe('normal');
  });

  it('a UTC alias never consults Intl', () => {
    const z = new ZoneInfo('Etc/UTC', 0);
    expect(z.offset(0)).toBe(0);
    expect(z.resolve(Date.UTC(2026, 2, 8, 2, 30))).toBe(Date.UTC(2026, 2, 8, 2, 30));
    expect(z.lastTransition(0, Date.UTC(2099, 0, 1))).toBeNull();
  });
});

describe('intlSource: offsets read from the formatted string', () => {
  it('equal the part-by-part reading at random instants, years 1 to 9999', () => {
    const sources = new Map(ODD_ZONES.map((z) => [z, intlSource(z)]));
    fc.assert(
      fc.property(
        fc.constantFrom(...ODD_ZONES),
        fc.integer({ min: Date.parse('0001-01-01T00:00:00Z'), max: Date.parse('9999-12-31T00:00:00Z') }),
        (zone, ms) => {
          expect(sources.get(zone)!.offset(ms)).toBe(intlOffset(zone, ms));
        },
      ),
      { numRuns: 3000, seed: 7 },
    );
  });

  it('reads any other printed shape part by part', () => {
    const opts = { timeZone: 'Asia/Kathmandu', hourCycle: 'h23', year: 'numeric', month: 'numeric' } as const;
    const full = { ...opts, day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' } as const;
    const at = Date.UTC(2031, 4, 6, 7, 8, 9);
    const want = [2031, 5, 6, 12, 53, 9];
    expect([...wallFields(new Intl.DateTimeFormat('en-US', full), at)]).toEqual(want);
    // de-DE's "6.5.2031, 12:53:09" and ar-EG's right-to-left marks are not the en-US shape
    expect([...wallFields(new Intl.DateTimeFormat('de-DE', full), at)]).toEqual(want);
    expect([
      ...wallFields(new Intl.DateTimeFormat('ar-EG', { ...full, numberingSystem: 'latn' }), at),
    ]).toEqual(want);
    // fields the formatter does not print read as 0
    expect([...wallFields(new Intl.DateTimeFormat('en-US', opts), at)]).toEqual([2031, 5, 0, 0, 0, 0]);
  });
});

describe('ZoneInfo.civil: the one-segment fast path answers as the four-lookup resolution', () => {
  // The resolution without the fast path, on a separate cache so neither run warms the other.
  function slow(z: ZoneInfo, t0: number) {
    const oBefore = z.offset(t0 - DAY_MS);
    const oAfter = z.offset(t0 + DAY_MS);
    const u1 = t0 - oBefore;
    const u2 = t0 - oAfter;
    const v1 = z.offset(u1) === oBefore;
    const v2 = z.offset(u2) === oAfter;
    if (v1 && v2 && u1 !== u2) return { kind: 'repeated', first: Math.min(u1, u2), last: Math.max(u1, u2) };
    if (v1) return { kind: 'normal', first: u1, last: u1 };
    if (v2) return { kind: 'normal', first: u2, last: u2 };
    return { kind: 'gap', first: u1, last: u1 };
  }
  const zones = ['America/New_York', 'Europe/London', 'Australia/Lord_Howe', 'Pacific/Apia', 'Asia/Tehran'];

  it.each(zones)('%s: random civil times and every half hour around the transitions of 2011-2026', (name) => {
    const fast = new ZoneInfo(name, null);
    const ref = new ZoneInfo(name, null);
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2040, 0, 1) }), (t0) => {
        expect(fast.civil(t0)).toEqual(slow(ref, t0));
        expect(fast.resolve(t0)).toBe(slow(ref, t0).first);
      }),
      { numRuns: 400 },
    );
    const kinds = new Set<string>();
    for (let y = 2011; y <= 2026; y++)
      for (let t = Date.UTC(y, 0, 1); t < Date.UTC(y + 1, 0, 1); t += 30 * 60_000) {
        // Only near a transition (offset differs across the day) is the slow branch worth comparing at
        // every step; elsewhere sample one step in 97.
        const near = ref.offset(t - DAY_MS) !== ref.offset(t + DAY_MS);
        if (!near && (t / 60_000) % 97 !== 0) continue;
        const got = fast.civil(t);
        kinds.add(got.kind);
        expect(got).toEqual(slow(ref, t));
        expect(fast.classify(t)).toBe(got.kind === 'repeated' ? 'ambiguous' : got.kind);
      }
    // Every zone here has both a skipped and a repeated wall time in these years.
    expect([...kinds].sort()).toEqual(['gap', 'normal', 'repeated']);
  });
});

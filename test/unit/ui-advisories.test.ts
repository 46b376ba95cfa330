// Dashboard Schedule-tab advisories computed with the daemon's engine: thundering herd, DST ahead, overlap.
import { describe, expect, it } from 'vitest';
import {
  dstAdvisoryText,
  dstAhead,
  HERD_SCAN_CAP,
  type HerdCandidate,
  nameList,
  overlapAdvisory,
  thunderingHerd,
} from '../../src/dashboard/advisories.ts';
import { compileJob } from '../../src/dashboard/engine.ts';

const at = (iso: string): number => Date.parse(iso);

function job(
  name: string,
  schedule: string,
  opts: { enabled?: boolean; timezone?: string | null } = {},
): HerdCandidate {
  return {
    name,
    enabled: opts.enabled ?? true,
    compiled: compileJob({ name, schedule, timezone: opts.timezone ?? 'UTC', utc: true }),
  };
}

describe('thundering herd', () => {
  const now = at('2026-07-05T09:20:00Z');
  const fleet = [
    job('hourly-a', '0 * * * *'),
    job('hourly-b', '0 * * * *'),
    job('every-minute', '* * * * *'),
    job('hourly-c', '@hourly'),
    job('hourly-off', '0 * * * *', { enabled: false }),
    job('daily', '0 3 * * *'),
    job('hourly-d', '0 */1 * * *'),
    job('boot', '@reboot'),
    job('quarter-past', '15 * * * *'),
  ];

  it("lists the other enabled jobs whose next fire is in this job's next fire minute", () => {
    const herd = thunderingHerd(fleet[0]!, fleet, now);
    expect(herd).not.toBeNull();
    expect(new Date(herd!.minuteStart).toISOString()).toBe('2026-07-05T10:00:00.000Z');
    expect(herd!.peers).toEqual(['hourly-b', 'hourly-c', 'hourly-d']);
    expect(herd!.capped).toBe(false);
  });

  it('compares minutes across zones by instant (10:00 UTC = 12:00 Berlin)', () => {
    const berlin = job('berlin-noon', '0 12 * * *', { timezone: 'Europe/Berlin' });
    const herd = thunderingHerd(berlin, [...fleet, berlin], now);
    expect(herd!.peers).toEqual(['hourly-a', 'hourly-b', 'hourly-c', 'hourly-d']);
  });

  it('finds no herd for a job alone in its minute, and none for @reboot', () => {
    expect(thunderingHerd(fleet[8]!, fleet, now)!.peers).toEqual([]);
    expect(thunderingHerd(fleet[7]!, fleet, now)).toBeNull();
  });

  it('examines at most 200 other jobs', () => {
    const many = Array.from({ length: 260 }, (_, i) => job(`h${i}`, '0 * * * *'));
    const herd = thunderingHerd(many[0]!, many, now);
    expect(HERD_SCAN_CAP).toBe(200);
    expect(herd!.scanned).toBe(200);
    expect(herd!.capped).toBe(true);
    expect(herd!.peers.length).toBe(200);
  });

  it('names at most four jobs', () => {
    expect(nameList(['a'])).toBe('a');
    expect(nameList(['a', 'b', 'c'])).toBe('a, b and c');
    expect(nameList(['a', 'b', 'c', 'd', 'e', 'f'])).toBe('a, b, c, d and 2 more');
  });
});

describe('DST transition ahead', () => {
  const ny = compileJob({
    name: 'finance-eod-close',
    schedule: '30 2 * * *',
    timezone: 'America/New_York',
    utc: true,
  });

  it('finds the autumn change (clocks back) to the minute', () => {
    const dst = dstAhead(ny, at('2026-07-05T12:00:00Z'));
    expect(dst).toEqual({
      zone: 'America/New_York',
      direction: 'back',
      at: at('2026-11-01T06:00:00Z'),
      localDate: '2026-11-01',
      deltaMinutes: -60,
    });
  });

  it('finds the spring change (clocks forward)', () => {
    const dst = dstAhead(ny, at('2026-12-01T00:00:00Z'));
    expect(dst?.direction).toBe('forward');
    expect(dst?.localDate).toBe('2027-03-14');
    expect(dst?.at).toBe(at('2027-03-14T07:00:00Z'));
  });

  it('stays quiet for UTC, zones without DST, unrestricted hours and dead horizons', () => {
    const now = at('2026-07-05T12:00:00Z');
    expect(
      dstAhead(compileJob({ name: 'u', schedule: '30 2 * * *', timezone: 'UTC', utc: true }), now),
    ).toBeNull();
    expect(
      dstAhead(compileJob({ name: 't', schedule: '0 9 * * *', timezone: 'Asia/Tokyo', utc: true }), now),
    ).toBeNull();
    expect(
      dstAhead(
        compileJob({ name: 'f', schedule: '*/5 * * * *', timezone: 'America/New_York', utc: true }),
        now,
      ),
    ).toBeNull();
    expect(dstAhead(ny, now, 30)).toBeNull();
  });

  it('only considers explicit zones, not the daemon-local frame', () => {
    const local = compileJob({ name: 'l', schedule: '30 2 * * *', timezone: null, utc: false });
    expect(local.frame.kind).toBe('local');
    expect(dstAhead(local, at('2026-07-05T12:00:00Z'))).toBeNull();
  });
});

describe('runs may overlap', () => {
  const every5 = compileJob({ name: 'x', schedule: '*/5 * * * *', timezone: 'UTC', utc: true });
  const now = at('2026-07-05T09:00:30Z');

  it('warns when a recent run lasted as long as the tightest gap', () => {
    const adv = overlapAdvisory(
      every5,
      [
        { outcome: 'success', duration: 10 },
        { outcome: 'success', duration: 301 },
      ],
      now,
    );
    expect(adv).toEqual({ kind: 'overlap', minGapSeconds: 300, longestSeconds: 301 });
  });

  it('notes tight packing from 70 % of the gap, and is silent below or without history', () => {
    expect(overlapAdvisory(every5, [{ outcome: 'success', duration: 220 }], now)?.kind).toBe('tight');
    expect(overlapAdvisory(every5, [{ outcome: 'success', duration: 200 }], now)).toBeNull();
    expect(overlapAdvisory(every5, [], now)).toBeNull();
  });

  it('uses the tightest gap of an uneven schedule', () => {
    const uneven = compileJob({ name: 'y', schedule: '0,10 * * * *', timezone: 'UTC', utc: true });
    const adv = overlapAdvisory(uneven, [{ outcome: 'failure', duration: 700 }], now);
    expect(adv).toEqual({ kind: 'overlap', minGapSeconds: 600, longestSeconds: 700 });
  });
});

describe('DST advisory text follows the job policy (issue 15)', () => {
  const job = (dst?: { repeated: 'first' | 'last' | 'both'; skipped: 'shift' | 'skip' }) =>
    compileJob({ name: 'p', schedule: '30 1 * * *', timezone: 'America/New_York', utc: true, dst });
  const fall = at('2026-07-05T12:00:00Z');
  const spring = at('2026-12-01T00:00:00Z');
  it('keeps the general warning for the default policy and names the policy otherwise', () => {
    expect(dstAdvisoryText(dstAhead(job(), fall)!, job().dst)).toBe(
      'America/New_York shifts clocks back on 2026-11-01; a fixed local time near the change may be skipped or run twice.',
    );
    const both = job({ repeated: 'both', skipped: 'shift' });
    expect(dstAdvisoryText(dstAhead(both, fall)!, both.dst)).toContain(
      'runs on both occurrences (dst.repeated: both)',
    );
    const last = job({ repeated: 'last', skipped: 'shift' });
    expect(dstAdvisoryText(dstAhead(last, fall)!, last.dst)).toContain(
      'second occurrence only (dst.repeated: last)',
    );
    const skip = job({ repeated: 'first', skipped: 'skip' });
    expect(dstAdvisoryText(dstAhead(skip, spring)!, skip.dst)).toBe(
      'America/New_York shifts clocks forward on 2027-03-14; a local time the jump skips does not run that day (dst.skipped: skip).',
    );
  });
});

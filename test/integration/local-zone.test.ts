// Behaviour under a local zone other than the host's: each case sets the process's TZ, which
// Node applies to the whole process. A worker thread's TZ only changes its copy of the
// environment, never the zone Date uses, so these run in the system project's forks (a process
// per file), not beside the unit tests in threads. Moved from test/unit/logconfig.test.ts and
// test/unit/tui-paste.test.ts.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { strftime } from '../../src/config/logconfig.ts';
import { clearScheduleCaches } from '../../src/schedule/index.ts';
import { fileStamp, utcStamp } from '../../src/tui/text/stamp.ts';
import { spyIntlReads } from '../helpers/intl-spy.ts';

describe('logging section (spec 01 §1.9)', () => {
  it('%Z is the local zone abbreviation from the zone file, without Intl', () => {
    const saved = process.env.TZ;
    const ctor = vi.spyOn(Intl, 'DateTimeFormat');
    try {
      process.env.TZ = 'Europe/Berlin'; // Node re-reads TZ on assignment
      clearScheduleCaches();
      expect(strftime('%H:%M %Z', Date.UTC(2026, 6, 1, 12))).toBe('14:00 CEST');
      expect(strftime('%H:%M %Z %z', Date.UTC(2026, 0, 1, 12))).toBe('13:00 CET +0100');
      process.env.TZ = 'America/New_York';
      clearScheduleCaches();
      expect(strftime('%H %Z', Date.UTC(2026, 6, 1, 12))).toBe('08 EDT');
      expect(ctor).not.toHaveBeenCalled();
      ctor.mockRestore();
      // with no zone file to read, Intl still names the zone
      process.env.TZDIR = '/nonexistent-zoneinfo';
      clearScheduleCaches();
      const parts = spyIntlReads();
      expect(strftime('%Z', Date.UTC(2026, 6, 1, 12))).toBe('EDT');
      expect(parts.count()).toBeGreaterThan(0);
      parts.restore();
    } finally {
      ctor.mockRestore();
      delete process.env.TZDIR;
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
      clearScheduleCaches();
    }
  });
});

describe('the terminal dashboard: times in UTC (spec 08 Q11)', () => {
  const zone = process.env.TZ;
  beforeAll(() => {
    process.env.TZ = 'Asia/Kathmandu';
  });
  afterAll(() => {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  });

  it('history stamps and file-name stamps ignore the local zone', () => {
    const at = Date.parse('2026-07-05T23:59:58Z');
    expect(new Date(at).getHours()).not.toBe(23); // the zone took effect
    expect(utcStamp(at)).toBe('07-05 23:59:58');
    expect(fileStamp(at)).toBe('20260705-235958');
  });
});

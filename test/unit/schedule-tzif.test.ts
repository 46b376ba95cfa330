// Zone offsets from the host's tz database files (src/schedule/tzif.ts, tzdb.ts) against Intl's own tz
// data, zone by zone, plus the TZif reader's handling of odd and hostile input.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { yearSwitches } from '../../src/schedule/posixtz.ts';
import { clearZoneFiles, hostZoneFromSystem, zoneFile, zoneinfoDir } from '../../src/schedule/tzdb.ts';
import { parseTzif, type TzifZone, tzifTypeAt } from '../../src/schedule/tzif.ts';
import { listedZoneNames } from '../../src/schedule/tznames.ts';
import { intlSource, tzifSource, ZoneInfo } from '../../src/schedule/zone.ts';
import { writeTree } from '../helpers/tmp.ts';

const Y1900 = Date.UTC(1900, 0, 1) / 1000;
const Y1970 = 0;
const Y2100 = Date.UTC(2100, 0, 1) / 1000;

/**
 * Zones where the host's files and ICU (the data inside Node) genuinely disagree, and until when. Outside
 * these zones and years every offset must be equal. On the host these were measured on (Debian tzdata
 * 2025b, Node 20 with ICU 78.2 / tz 2025c) each listed zone does differ, which the test checks too.
 */
const SKEW: readonly { reason: string; untilYear: number; zones: readonly string[] }[] = [
  {
    reason:
      "Debian builds tzdata with backzone (the pre-1970 history of zones the main data has folded into others, e.g. Europe/Oslo into Europe/Berlin, and of the old rule-named zones); ICU's data has only the main data, so these zones follow their link target before 1970",
    untilYear: 1970,
    zones: [
      'Africa/Accra',
      'Africa/Addis_Ababa',
      'Africa/Asmara',
      'Africa/Bamako',
      'Africa/Bangui',
      'Africa/Banjul',
      'Africa/Blantyre',
      'Africa/Brazzaville',
      'Africa/Bujumbura',
      'Africa/Conakry',
      'Africa/Dakar',
      'Africa/Dar_es_Salaam',
      'Africa/Djibouti',
      'Africa/Douala',
      'Africa/Freetown',
      'Africa/Gaborone',
      'Africa/Harare',
      'Africa/Kampala',
      'Africa/Kigali',
      'Africa/Kinshasa',
      'Africa/Libreville',
      'Africa/Lome',
      'Africa/Luanda',
      'Africa/Lubumbashi',
      'Africa/Lusaka',
      'Africa/Malabo',
      'Africa/Maseru',
      'Africa/Mbabane',
      'Africa/Mogadishu',
      'Africa/Niamey',
      'Africa/Nouakchott',
      'Africa/Ouagadougou',
      'Africa/Porto-Novo',
      'America/Anguilla',
      'America/Antigua',
      'America/Aruba',
      'America/Atikokan',
      'America/Blanc-Sablon',
      'America/Cayman',
      'America/Creston',
      'America/Curacao',
      'America/Dominica',
      'America/Grenada',
      'America/Guadeloupe',
      'America/Montserrat',
      'America/Nassau',
      'America/Port_of_Spain',
      'America/St_Kitts',
      'America/St_Lucia',
      'America/St_Thomas',
      'America/St_Vincent',
      'America/Tortola',
      'Antarctica/DumontDUrville',
      'Antarctica/McMurdo',
      'Antarctica/Syowa',
      'Asia/Aden',
      'Asia/Bahrain',
      'Asia/Brunei',
      'Asia/Kuala_Lumpur',
      'Asia/Kuwait',
      'Asia/Muscat',
      'Asia/Phnom_Penh',
      'Asia/Vientiane',
      'Atlantic/Reykjavik',
      'Atlantic/St_Helena',
      'CET',
      'CST6CDT',
      'EST',
      'EST5EDT',
      'Europe/Amsterdam',
      'Europe/Copenhagen',
      'Europe/Guernsey',
      'Europe/Jersey',
      'Europe/Ljubljana',
      'Europe/Luxembourg',
      'Europe/Monaco',
      'Europe/Oslo',
      'Europe/Sarajevo',
      'Europe/Skopje',
      'Europe/Stockholm',
      'Europe/Zagreb',
      'HST',
      'Indian/Antananarivo',
      'Indian/Christmas',
      'Indian/Cocos',
      'Indian/Comoro',
      'Indian/Kerguelen',
      'Indian/Mahe',
      'Indian/Mayotte',
      'Indian/Reunion',
      'MET',
      'MST',
      'MST7MDT',
      'PST8PDT',
      'Pacific/Chuuk',
      'Pacific/Funafuti',
      'Pacific/Majuro',
      'Pacific/Midway',
      'Pacific/Pohnpei',
      'Pacific/Saipan',
      'Pacific/Wake',
      'Pacific/Wallis',
    ],
  },
  {
    reason:
      "backzone keeps EET's pre-2024b rule-based definition (EU-style DST from 1977); ICU has EET as a link to Europe/Athens, whose DST rules differed until 1981",
    untilYear: 1981,
    zones: ['EET'],
  },
  {
    reason:
      "backzone keeps WET's pre-2024b rule-based definition; ICU has WET as a link to Europe/Lisbon, which kept other clocks (CET 1992-1996, different DST) until 1996",
    untilYear: 1997,
    zones: ['WET'],
  },
  {
    reason:
      "version skew: the host has tzdata 2025b, Node's ICU tz 2025c, and the two disagree on Baja California's summer time from 1953 to 1975 (2025c revised that history)",
    untilYear: 1976,
    zones: ['America/Tijuana', 'America/Ensenada', 'America/Santa_Isabel', 'Mexico/BajaNorte'],
  },
];

const skewOf = new Map(SKEW.flatMap((s) => s.zones.map((z) => [z, s] as const)));

/** The host pairing the SKEW list was measured on: there it must be exact, not just an allowance. */
function measuredPairing(): boolean {
  try {
    const head = readFileSync(join(zoneinfoDir(), 'tzdata.zi'), 'utf8').slice(0, 40);
    return head.startsWith('# version 2025b') && process.versions.tz === '2025c';
  } catch {
    return false;
  }
}

/** Every transition in [lo, hi) and its neighbours (file and footer), plus a grid, in Unix seconds. */
function probes(z: TzifZone, lo: number, hi: number): number[] {
  const out: number[] = [];
  for (const t of z.times) if (t >= lo && t < hi) out.push(t - 1, t, t + 1);
  const lastListed = z.times.length > 0 ? z.times[z.times.length - 1]! : Number.NEGATIVE_INFINITY;
  if (z.footer?.dst !== undefined) {
    for (let y = 1970; y < 2100; y++) {
      const sw = yearSwitches(z.footer, y)!;
      for (const t of [sw.start, sw.end]) if (t > lastListed && t >= lo && t < hi) out.push(t - 1, t, t + 1);
    }
  }
  // An irregular grid step (29 days, 1 h, 7 s) walks through every hour, minute and weekday.
  for (let t = lo; t < hi; t += 29 * 86_400 + 3607) out.push(t);
  return out;
}

const zonesWithFiles = listedZoneNames().filter((n) => zoneFile(n) !== null);

/** Zone -> first few disagreeing instants, over [lo, hi). */
function disagreements(lo: number, hi: number): Map<string, { sec: number; tzif: number; intl: number }[]> {
  const bad = new Map<string, { sec: number; tzif: number; intl: number }[]>();
  for (const name of zonesWithFiles) {
    const file = zoneFile(name)!;
    const a = tzifSource(file);
    const b = intlSource(name);
    for (const sec of probes(file, lo, hi)) {
      const tzif = a.offset(sec * 1000) / 1000;
      const intl = b.offset(sec * 1000) / 1000;
      if (tzif !== intl) {
        const list = bad.get(name) ?? [];
        list.push({ sec, tzif, intl });
        bad.set(name, list);
      }
    }
  }
  return bad;
}

function checkAgainstSkew(bad: Map<string, { sec: number; tzif: number; intl: number }[]>, lo: number) {
  const unexplained: string[] = [];
  for (const [name, list] of bad) {
    const skew = skewOf.get(name);
    const limit = skew === undefined ? Number.NEGATIVE_INFINITY : Date.UTC(skew.untilYear, 0, 1) / 1000;
    const late = list.filter((d) => d.sec >= limit);
    if (late.length > 0) {
      const d = late[0]!;
      unexplained.push(
        `${name} at ${new Date(d.sec * 1000).toISOString()}: file ${d.tzif}s, Intl ${d.intl}s`,
      );
    }
  }
  expect(unexplained).toEqual([]);
  if (measuredPairing()) {
    // Each zone named for this window must still differ in it, so the list cannot quietly outlive its reason.
    const firstYear = new Date(lo * 1000).getUTCFullYear();
    const named = SKEW.filter((s) => s.untilYear > firstYear && (firstYear >= 1970 || s.untilYear <= 1970));
    for (const z of named.flatMap((s) => s.zones)) {
      expect(bad.has(z), `${z} is listed as skewed here but agrees with Intl`).toBe(true);
    }
  }
}

const hasTzdb = zonesWithFiles.length > 0;

describe.skipIf(!hasTzdb)('TZif offsets equal Intl for every listed zone', () => {
  it('has a file for (nearly) every listed name on this host', () => {
    expect(zonesWithFiles.length).toBeGreaterThan(listedZoneNames().length * 0.9);
  });

  it('1970-2100: every transition +-1 s and a grid', { timeout: 300_000 }, () => {
    checkAgainstSkew(disagreements(Y1970, Y2100), Y1970);
  });

  it('1900-1970: every transition +-1 s and a grid', { timeout: 300_000 }, () => {
    checkAgainstSkew(disagreements(Y1900, Y1970), Y1900);
  });

  it('ZoneInfo finds the same transitions from either source', () => {
    const a0 = Date.UTC(2020, 0, 1);
    for (const name of [
      'America/New_York',
      'Europe/Dublin',
      'Australia/Lord_Howe',
      'Africa/Casablanca',
      'America/Nuuk',
    ]) {
      const viaFile = new ZoneInfo(name, null, tzifSource(zoneFile(name)!));
      const viaIntl = new ZoneInfo(name, null, intlSource(name));
      for (let a = a0; a < Date.UTC(2031, 0, 1); a += 3 * 86_400_000) {
        expect(viaFile.lastTransition(a, a + 3 * 86_400_000), `${name} ${a}`).toEqual(
          viaIntl.lastTransition(a, a + 3 * 86_400_000),
        );
        expect(viaFile.offset(a)).toBe(viaIntl.offset(a));
      }
    }
  });
});

// --- the reader on crafted files ---

interface Spec {
  version: 1 | 2 | 3 | 4;
  times: number[];
  idx: number[];
  types: { utoff: number; isDst: boolean; abbr: string }[];
  footer?: string;
  leaps?: number;
}

/** TZif bytes for a spec (RFC 8536 layout; the v1 block repeats the data with 32-bit times). */
function tzifBytes(s: Spec): Uint8Array {
  const chars: number[] = [];
  const abbrAt = s.types.map((t) => {
    const at = chars.length;
    for (const ch of t.abbr) chars.push(ch.charCodeAt(0));
    chars.push(0);
    return at;
  });
  const leaps = s.leaps ?? 0;
  const block = (timeSize: 4 | 8): number[] => {
    // Like zic, the 32-bit block leaves out transitions it cannot express.
    const keep = s.times.map((_t, i) => i).filter((i) => timeSize === 8 || Math.abs(s.times[i]!) < 2 ** 31);
    const out: number[] = [];
    const head = Buffer.alloc(44);
    head.write('TZif', 0, 'latin1');
    head[4] = s.version === 1 ? 0 : 0x30 + s.version;
    const counts = [0, 0, leaps, keep.length, s.types.length, chars.length];
    for (let i = 0; i < counts.length; i++) head.writeUInt32BE(counts[i]!, 20 + i * 4);
    out.push(...head);
    const w = Buffer.alloc(timeSize);
    for (const i of keep) {
      if (timeSize === 8) w.writeBigInt64BE(BigInt(s.times[i]!));
      else w.writeInt32BE(s.times[i]!);
      out.push(...w);
    }
    for (const i of keep) out.push(s.idx[i]!);
    s.types.forEach((t, i) => {
      const b = Buffer.alloc(6);
      b.writeInt32BE(t.utoff);
      b[4] = t.isDst ? 1 : 0;
      b[5] = abbrAt[i]!;
      out.push(...b);
    });
    out.push(...chars);
    for (let i = 0; i < leaps; i++) out.push(...Buffer.alloc(timeSize + 4));
    return out;
  };
  const bytes = block(4);
  if (s.version >= 2) bytes.push(...block(8), 0x0a, ...Buffer.from(s.footer ?? '', 'latin1'), 0x0a);
  return Uint8Array.from(bytes);
}

const EST = { utoff: -18_000, isDst: false, abbr: 'EST' };
const EDT = { utoff: -14_400, isDst: true, abbr: 'EDT' };
const LMT = { utoff: -17_762, isDst: false, abbr: 'LMT' };

describe('parseTzif', () => {
  it('v1: transitions only; before the first, type 0; after the last, the last type', () => {
    const z = parseTzif(tzifBytes({ version: 1, times: [-100, 1000], idx: [1, 2], types: [LMT, EST, EDT] }))!;
    expect(z.footer).toBeNull();
    expect(tzifTypeAt(z, -101)).toEqual(LMT);
    expect(tzifTypeAt(z, -100)).toEqual(EST);
    expect(tzifTypeAt(z, 999)).toEqual(EST);
    expect(tzifTypeAt(z, 1000)).toEqual(EDT);
    expect(tzifTypeAt(z, 4e9)).toEqual(EDT);
  });

  it('v2-v4: the 64-bit block and the footer rule for instants after the last transition', () => {
    for (const version of [2, 3, 4] as const) {
      const z = parseTzif(
        tzifBytes({
          version,
          times: [-3e9, 0],
          idx: [1, 1],
          types: [LMT, EST, EDT],
          footer: 'EST5EDT,M3.2.0,M11.1.0',
        }),
      )!;
      expect(z.times[0]).toBe(-3e9); // beyond 32 bits: read from the second block
      expect(tzifTypeAt(z, -3e9 - 1)).toEqual(LMT);
      expect(tzifTypeAt(z, Date.parse('2026-07-01T00:00:00Z') / 1000)).toEqual(EDT);
      expect(tzifTypeAt(z, Date.parse('2026-12-01T00:00:00Z') / 1000)).toEqual(EST);
    }
  });

  it('a slim file with no transitions at all follows its footer', () => {
    const plus5 = { utoff: 18_000, isDst: false, abbr: '+05' };
    const z = parseTzif(tzifBytes({ version: 2, times: [], idx: [], types: [plus5], footer: '<+05>-5' }))!;
    expect(tzifTypeAt(z, 0)).toEqual(plus5);
    expect(tzifTypeAt(z, 5e9)).toEqual(plus5);
  });

  it('an empty footer leaves the last type in force', () => {
    const z = parseTzif(tzifBytes({ version: 2, times: [0], idx: [1], types: [LMT, EST], footer: '' }))!;
    expect(z.footer).toBeNull();
    expect(tzifTypeAt(z, 5e9)).toEqual(EST);
  });

  it('refuses what it cannot trust (the caller then asks Intl)', () => {
    const good = { version: 2 as const, times: [0], idx: [1], types: [LMT, EST], footer: 'EST5' };
    expect(parseTzif(tzifBytes(good))).not.toBeNull();
    const bytes = tzifBytes(good);
    expect(parseTzif(bytes.subarray(0, bytes.length - 3)), 'truncated').toBeNull();
    const magic = Uint8Array.from(bytes);
    magic[0] = 0x58;
    expect(parseTzif(magic), 'bad magic').toBeNull();
    expect(parseTzif(tzifBytes({ ...good, leaps: 1 })), 'leap seconds').toBeNull();
    expect(parseTzif(tzifBytes({ ...good, footer: 'EST5EDT,M13.1.0,M1.1.0' })), 'bad footer').toBeNull();
    expect(parseTzif(tzifBytes({ ...good, idx: [7] })), 'type index out of range').toBeNull();
    expect(parseTzif(tzifBytes({ ...good, times: [5, 5], idx: [1, 1] })), 'unsorted').toBeNull();
    expect(parseTzif(new Uint8Array(0))).toBeNull();
  });
});

describe('the zoneinfo tree', () => {
  const saved = { TZDIR: process.env.TZDIR, TZ: process.env.TZ };
  afterEach(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    clearZoneFiles();
  });

  it('honours TZDIR, and a name with no readable file is null (Intl fallback)', () => {
    const dir = writeTree({});
    mkdirSync(join(dir, 'America'));
    writeFileSync(
      join(dir, 'America', 'New_York'),
      tzifBytes({ version: 2, times: [], idx: [], types: [EST], footer: 'EST5' }),
    );
    writeFileSync(join(dir, 'UTC'), 'not a zone file');
    process.env.TZDIR = dir;
    expect(tzifTypeAt(zoneFile('America/New_York')!, Date.parse('2026-07-01T00:00:00Z') / 1000)).toEqual(EST);
    expect(zoneFile('Europe/Berlin')).toBeNull();
    expect(zoneFile('UTC')).toBeNull();
  });

  it('never opens a path outside the tree', () => {
    const dir = writeTree({});
    const zi = join(dir, 'zoneinfo');
    mkdirSync(zi);
    writeFileSync(
      join(dir, 'Secret'),
      tzifBytes({ version: 2, times: [], idx: [], types: [EST], footer: 'EST5' }),
    );
    process.env.TZDIR = zi;
    for (const name of ['../Secret', '/etc/passwd', 'America/../../Secret', './Secret', 'Secret\0', '']) {
      expect(zoneFile(name), JSON.stringify(name)).toBeNull();
    }
  });

  it('the host zone comes from TZ (name, :name, path) or /etc/localtime, else null', () => {
    const real = zoneinfoDir();
    expect(hostZoneFromSystem({ TZ: 'Europe/Berlin' })).toBe(
      zoneFile('Europe/Berlin') ? 'Europe/Berlin' : null,
    );
    expect(hostZoneFromSystem({ TZ: ':Asia/Tokyo' })).toBe(zoneFile('Asia/Tokyo') ? 'Asia/Tokyo' : null);
    expect(hostZoneFromSystem({ TZ: join(real, 'Asia/Kolkata') })).toBe(
      zoneFile('Asia/Kolkata') ? 'Asia/Kolkata' : null,
    );
    expect(hostZoneFromSystem({ TZ: 'Bogus/Zone' })).toBeNull();
    expect(hostZoneFromSystem({ TZ: '../../etc/passwd' })).toBeNull();
    expect(hostZoneFromSystem({ TZ: 'EST5EDT,M3.2.0,M11.1.0' })).toBeNull();
    const dir = writeTree({});
    symlinkSync(join(real, 'Europe/Paris'), join(dir, 'localtime'));
    expect(hostZoneFromSystem({ TZ: join(dir, 'localtime') })).toBeNull(); // a path outside the tree names no zone
  });
});

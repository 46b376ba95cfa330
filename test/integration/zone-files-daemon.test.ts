// A daemon whose jobs run in named zones takes every offset from the host's tz database files: the next
// fires are the ones Intl's data gives, and nothing on the daemon path builds a zoned Intl.DateTimeFormat
// (each one makes ICU load that zone's data: ~5 MB more resident in a real process).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { Daemon } from '../../src/daemon/daemon.ts';
import { clearScheduleCaches, nextFire, parseCron, resolveFrame } from '../../src/schedule/index.ts';
import { zoneFile } from '../../src/schedule/tzdb.ts';
import { hostTimezone, zonedFormatterCount } from '../../src/schedule/zone.ts';
import { FakeClock } from '../../src/util/clock.ts';
import { setSink } from '../../src/util/log.ts';
import { writeTree } from '../helpers/tmp.ts';

const NOW = Date.parse('2026-03-07T12:00:00Z'); // the day before New York's spring-forward
const JOBS = [
  { name: 'ny-settle', schedule: '30 2 * * *', zone: 'America/New_York' }, // 02:30 is skipped on 2026-03-08
  { name: 'ny-hourly', schedule: '15 * * * *', zone: 'America/New_York' },
  { name: 'berlin-close', schedule: '0 18 * * 1-5', zone: 'Europe/Berlin' },
  { name: 'berlin-weekly', schedule: '0 2 * * 0', zone: 'Europe/Berlin' },
  { name: 'lord-howe', schedule: '45 1 * * *', zone: 'Australia/Lord_Howe' },
  { name: 'kathmandu', schedule: '*/20 6 * * *', zone: 'Asia/Kathmandu' },
];

/** Counts zoned Intl.DateTimeFormat constructions anywhere in this process while installed. */
function watchZonedIntl(): { count: () => number; restore: () => void } {
  const Real = Intl.DateTimeFormat;
  let zoned = 0;
  const note = (args: unknown[]) => {
    const opts = args[1] as Intl.DateTimeFormatOptions | undefined;
    if (opts?.timeZone !== undefined) zoned++;
  };
  Intl.DateTimeFormat = new Proxy(Real, {
    construct(target, args, newTarget) {
      note(args);
      return Reflect.construct(target, args, newTarget);
    },
    apply(target, self, args) {
      note(args);
      return Reflect.apply(target, self, args);
    },
  });
  return {
    count: () => zoned,
    restore: () => {
      Intl.DateTimeFormat = Real;
    },
  };
}

const CONFIG = (log: string) => `logging:
  version: 1
  disable_existing_loggers: false
  formatters:
    stamped:
      format: "%(asctime)s %(levelname)s %(message)s"
      datefmt: "%Y-%m-%d %H:%M:%S %Z"
  handlers:
    file:
      class: logging.FileHandler
      filename: ${log}
      formatter: stamped
  root:
    level: INFO
    handlers:
      - file
jobs:
${JOBS.map((j) => `  - name: ${j.name}\n    command: "true"\n    schedule: "${j.schedule}"\n    timezone: ${j.zone}\n`).join('')}  - name: host-local
    command: "true"
    schedule: "0 3 * * *"
    utc: false
`;

describe.skipIf(JOBS.some((j) => zoneFile(j.zone) === null))('a daemon on zone files', () => {
  afterEach(() => {
    delete process.env.TZDIR;
    clearScheduleCaches();
    setSink(null);
  });

  it('fires where Intl says, and builds no zoned Intl.DateTimeFormat', { timeout: 60_000 }, async () => {
    const dir = writeTree({});
    const conf = join(dir, 'jobs.yaml');
    const logFile = join(dir, 'daemon.log');
    writeFileSync(conf, CONFIG(logFile));
    clearScheduleCaches();
    const before = zonedFormatterCount();
    const intl = watchZonedIntl();
    const clock = new FakeClock(NOW);
    const seen: Record<string, number[]> = {};
    let daemon: Daemon | null = null;
    try {
      daemon = new Daemon(loadConfig(conf), { configPath: conf, clock, reloadPollMs: 3_600_000 });
      await daemon.start();
      const record = () => {
        for (const s of daemon!.scheduler.status()) {
          if (s.nextFire === null) continue;
          const list = seen[s.name] ?? [];
          if (list.at(-1) !== s.nextFire) list.push(s.nextFire);
          seen[s.name] = list;
        }
      };
      record();
      // Three days in 10-minute steps: every job fires (real `true` children) and re-arms across
      // New York's spring-forward, with each next fire read as the scheduler holds it.
      for (let i = 0; i < 3 * 144; i++) {
        await clock.advance(600_000);
        record();
      }
    } finally {
      await daemon?.stop(5_000);
      intl.restore();
    }
    expect(intl.count()).toBe(0);
    expect(zonedFormatterCount()).toBe(before);
    expect(readFileSync(logFile, 'utf8')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \S+ INFO /m);

    // The same schedules, offsets from Intl alone (no zone files): the fires must be the same instants.
    process.env.TZDIR = '/nonexistent-zoneinfo';
    clearScheduleCaches();
    for (const j of JOBS) {
      const frame = resolveFrame({ timezone: j.zone });
      const want: number[] = [];
      let at = NOW;
      for (;;) {
        const next = nextFire(parseCron(j.schedule), frame, at);
        if (next === null || next > seen[j.name]!.at(-1)!) break;
        want.push(next);
        at = next;
      }
      expect(seen[j.name], j.name).toEqual(want);
      expect(want.length, j.name).toBeGreaterThan(1);
    }
    expect(zonedFormatterCount()).toBeGreaterThan(before); // the control did go through Intl
    // 2026-03-08 02:30 does not exist in New York: read on the clock before the jump, it is 03:30 EDT.
    expect(seen['ny-settle']).toContain(Date.parse('2026-03-08T07:30:00Z'));
    expect(hostTimezone()).toBeTruthy();
  });
});

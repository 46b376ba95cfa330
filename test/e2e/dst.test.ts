// Issue 15's acceptance for the DST policy: on a fall-back night, a `repeated: both` job's fires
// agree in the dashboard (headless Chromium, the bundled engine), the iCal feed and `cronstable
// next`. No real "now" is near a fall-back night within the feed's window, so the daemon starts
// its wall clock on 2027-11-05 (the CRONSTABLE_TEST_EPOCH hook) and the browser's clock with it.
import { spawnSync } from 'node:child_process';
import ICAL from 'ical.js';
import { describe, expect, it } from 'vitest';
import { dashboardSuite } from '../helpers/dashboard-suite.ts';
import { DAEMON } from '../helpers/e2e-daemon.ts';
import { shot } from '../helpers/shots.ts';

// Two days before New York falls back (Sunday 2027-11-07, 02:00 EDT -> 01:00 EST).
const EPOCH = '2027-11-05T12:00:00Z';
// 01:30 happens twice that night: 05:30Z (EDT) and 06:30Z (EST).
const NIGHT = ['2027-11-07T05:30:00Z', '2027-11-07T06:30:00Z'];

const CONFIG = (port: number): string => `jobs:
  - name: settle-both
    command: "true"
    schedule: "30 1 * * *"
    timezone: America/New_York
    dst:
      repeated: both
  - name: settle-first
    command: "true"
    schedule: "30 1 * * *"
    timezone: America/New_York
web:
  listen:
    - http://127.0.0.1:${port}
`;

function icsStarts(text: string): string[] {
  const cal = new ICAL.Component(ICAL.parse(text));
  return cal
    .getAllSubcomponents('vevent')
    .map((c) => new ICAL.Event(c).startDate.toJSDate().toISOString().replace('.000Z', 'Z'))
    .sort();
}

function nextCli(args: string[]): string[] {
  const r = spawnSync(process.execPath, [DAEMON, 'next', ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`cronstable next ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim().split('\n');
}

describe('DST policy on a fall-back night: dashboard, iCal and `next` agree', () => {
  const ui = dashboardSuite({
    name: 'dst',
    config: CONFIG,
    env: { CRONSTABLE_TEST_EPOCH: EPOCH },
    context: { colorScheme: 'light', timezoneId: 'America/New_York' },
    ready: async () => {
      // The browser's clock starts where the daemon's did, then runs at real speed.
      await ui.page.clock.install({ time: new Date(EPOCH) });
      await ui.page.clock.resume();
    },
  });

  it('the daemon runs on the hooked clock and says so', async () => {
    expect(ui.daemon.logs()).toContain('CRONSTABLE_TEST_EPOCH');
    const jobs = (await (await fetch(`${ui.base}/jobs`)).json()) as { name: string; scheduled_in: number }[];
    const both = jobs.find((j) => j.name === 'settle-both')!;
    // next fire: 2027-11-06 01:30 EDT = 05:30Z, about 17.5 h after the epoch
    expect(both.scheduled_in).toBeGreaterThan(17 * 3600);
    expect(both.scheduled_in).toBeLessThan(18 * 3600);
  });

  it('iCal lists 01:30 twice on the night for `both`, once for the default', async () => {
    const both = icsStarts(await (await fetch(`${ui.base}/jobs/settle-both/calendar.ics?days=4`)).text());
    const first = icsStarts(await (await fetch(`${ui.base}/jobs/settle-first/calendar.ics?days=4`)).text());
    expect(both.filter((s) => s.startsWith('2027-11-07'))).toEqual(NIGHT);
    expect(first.filter((s) => s.startsWith('2027-11-07'))).toEqual([NIGHT[0]]);
  });

  it('`cronstable next` agrees, with the flag and with the job', () => {
    const flag = nextCli([
      '30 1 * * *',
      '--tz',
      'America/New_York',
      '--after',
      EPOCH,
      '-n',
      '3',
      '--dst-repeated',
      'both',
    ]);
    expect(flag).toEqual(['2027-11-06T05:30:00Z', ...NIGHT]);
    const job = nextCli(['--job', 'settle-both', '-c', ui.dir, '--after', EPOCH, '-n', '3']);
    expect(job).toEqual(flag);
  });

  it('the dashboard draws the same fires in the Schedule tab and the week calendar', async () => {
    await ui.page.goto(`${ui.base}/#job/settle-both/schedule`);
    const list = ui.page.locator('[data-testid=next-fires] li .nextlist-at');
    await expect.poll(() => list.count(), { timeout: 15_000 }).toBeGreaterThanOrEqual(3);
    const shown = (await list.allTextContents()).slice(0, 3);
    // wall times in the job's zone: the 6th once, the 7th twice (EDT, then EST)
    expect(shown.map((s) => s.replace(/\s+/g, ' ').trim())).toEqual([
      expect.stringContaining('2027-11-06 01:30'),
      expect.stringContaining('2027-11-07 01:30'),
      expect.stringContaining('2027-11-07 01:30'),
    ]);
    await shot(ui.page, 'dst-both-schedule.png');
    await ui.page.goto(`${ui.base}/#week`);
    await ui.page.locator('[data-testid=week]').first().waitFor({ timeout: 15_000 });
    const chips = ui.page.locator('[data-testid=week] [data-job="settle-both"]');
    const firstChips = ui.page.locator('[data-testid=week] [data-job="settle-first"]');
    await expect.poll(() => chips.count(), { timeout: 15_000 }).toBeGreaterThan(0);
    // the 7-day window from the 5th: one fire a night for `first`, one extra on the 7th for `both`
    expect(await chips.count()).toBe((await firstChips.count()) + 1);
    await shot(ui.page, 'dst-both-week.png');
    expect(ui.pageErrors).toEqual([]);
  }, 45_000);
});

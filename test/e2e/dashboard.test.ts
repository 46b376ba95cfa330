// The dashboard end to end: the real daemon (dist/cronstable.mjs, built by `npm test`) serving a temp config with
// a web section, driven by headless Chromium through playwright-core. Screenshots (CRONSTABLE_SCREENSHOTS=1) go to test/e2e/screenshots/.
// DOM types for the callbacks that run in the page (evaluate, $$eval).
/// <reference lib="dom" />
import { describe, expect, it } from 'vitest';
import { dashboardSuite } from '../helpers/dashboard-suite.ts';
import { shot } from '../helpers/shots.ts';

const MARKER = 'cronstable-e2e-marker 4242';
const VIEWER_ZONE = 'Europe/Berlin';

const JOBS = [
  'pulse-fast',
  'say-hello',
  'month-end-close',
  'hourly-rollup',
  'hourly-invoices',
  'hourly-search-stats',
  'hourly-cache-warm',
  'retired-sync',
  'nyc-close',
];

const CONFIG = (port: number): string => `# e2e fixture for the dashboard
jobs:
  - name: pulse-fast
    command: "true"
    schedule: "*/2 * * * * * *"
  - name: say-hello
    command: echo "${MARKER}"
    schedule: "0 0 1 1 *"
    captureStdout: true
  - name: month-end-close
    command: echo closing the books
    schedule: "30 12 LW * *"
  - name: hourly-rollup
    command: "true"
    schedule: "0 * * * *"
  - name: hourly-invoices
    command: "true"
    schedule: "0 * * * *"
  - name: hourly-search-stats
    command: "true"
    schedule: "0 * * * *"
  - name: hourly-cache-warm
    command: "true"
    schedule: "0 * * * *"
  - name: retired-sync
    command: echo retired
    schedule: "0 1 * * *"
    enabled: false
  - name: nyc-close
    command: echo close
    schedule: "30 2 * * *"
    timezone: America/New_York
web:
  listen:
    - http://127.0.0.1:${port}
`;

/**
 * The date (in the viewer's zone) of the first `30 12 LW * *` fire on or after today: the week grid starts at
 * today's local midnight, so a fire earlier today is still drawn (dimmed). 12:30 UTC is the same date in Berlin.
 */
function firstLastWeekdayFrom(now: number): string {
  const day = (t: number): string => new Intl.DateTimeFormat('en-CA', { timeZone: VIEWER_ZONE }).format(t);
  const today = day(now);
  for (let k = 0; k < 3; k++) {
    const d = new Date(now);
    const y = d.getUTCFullYear();
    const m = d.getUTCMonth() + k;
    let dom = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
    while ([0, 6].includes(new Date(Date.UTC(y, m, dom)).getUTCDay())) dom--;
    const date = day(Date.UTC(y, m, dom, 12, 30));
    if (date >= today) return date;
  }
  throw new Error('no last weekday found');
}

describe('dashboard (real daemon + headless Chromium)', () => {
  const ui = dashboardSuite({
    name: 'dashboard',
    config: CONFIG,
    context: { viewport: { width: 1600, height: 1000 }, colorScheme: 'light', timezoneId: VIEWER_ZONE },
  });

  it('serves the dashboard page at / with its security headers', async () => {
    const res = await fetch(`${ui.base}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await res.text();
    expect(html).toContain('<div id="app">');
    expect(html).not.toContain('The dashboard is not part of this build');
  });

  it('shows every job, the per-second countdown and the summary', async () => {
    await ui.page.goto(`${ui.base}/`);
    await ui.page.waitForSelector('tr.job');
    for (const name of JOBS)
      await expect.poll(() => ui.page.locator(`tr.job[data-job="${name}"]`).count()).toBe(1);
    await expect
      .poll(() => ui.page.locator('[data-testid=job-count]').textContent())
      .toBe(`${JOBS.length} jobs`);
    await expect.poll(() => ui.page.locator('[data-testid=conn]').textContent()).toContain('live');
    const countdown = ui.page.locator('tr.job[data-job="pulse-fast"] .countdown-sec');
    await expect.poll(() => countdown.textContent(), { timeout: 5000 }).toMatch(/^(in (?:<1s|[12]s)|due)$/);
    expect(await ui.page.locator('tr.job[data-job="retired-sync"] .status').textContent()).toContain(
      'Disabled',
    );
    expect(await ui.page.locator('tr.job[data-job="month-end-close"] .sched-desc').textContent()).toContain(
      'last weekday of the month',
    );
    expect(await ui.page.locator('[data-testid=jobset]').textContent()).toMatch(/^#[0-9a-f]{12}/);
    await shot(ui.page, 'overview.png');
  }, 30_000);

  it("runs a job from its drawer and streams the job's output line", async () => {
    await ui.page.locator('tr.job[data-job="say-hello"] .jobname').click();
    await ui.page.waitForSelector('[data-testid=drawer]');
    expect(await ui.page.locator('#drawer-title').textContent()).toBe('say-hello');
    expect(ui.page.url()).toContain('#job/say-hello/logs');
    await ui.page.locator('[data-testid=drawer-run]').click();
    await expect
      .poll(() => ui.page.locator('[data-testid=logview]').textContent(), { timeout: 20_000 })
      .toContain(MARKER);
    await ui.page.locator('[data-testid=log-search]').fill('marker');
    await expect.poll(() => ui.page.locator('.logsearch-count').textContent()).toBe('1 match');
    expect(await ui.page.locator('[data-testid=logview] mark').textContent()).toBe('marker');
    await expect
      .poll(() => ui.page.locator('tr.job[data-job="say-hello"] .status').textContent(), { timeout: 10_000 })
      .toContain('OK');
    await shot(ui.page, 'drawer-logs.png');
  }, 40_000);

  it('warns about the thundering herd of the four :00 jobs in the schedule tab', async () => {
    await ui.page.goto(`${ui.base}/#job/hourly-rollup/schedule`);
    const herd = ui.page.locator('[data-advice=herd]');
    await expect.poll(() => herd.textContent(), { timeout: 10_000 }).toContain('Thundering herd.');
    const text = (await herd.textContent()) ?? '';
    for (const peer of ['hourly-invoices', 'hourly-search-stats', 'hourly-cache-warm'])
      expect(text).toContain(peer);
    expect(await ui.page.locator('[data-testid=next-fires] li').count()).toBe(6);
    expect(await ui.page.locator('[data-testid=ics-link]').getAttribute('href')).toBe(
      '/jobs/hourly-rollup/calendar.ics',
    );
    await shot(ui.page, 'schedule-tab.png');
    await ui.page.goto(`${ui.base}/#job/nyc-close/schedule`);
    await expect
      .poll(() => ui.page.locator('[data-advice=dst]').textContent(), { timeout: 10_000 })
      .toContain('DST transition ahead. America/New_York shifts clocks');
  }, 30_000);

  it('draws the week calendar with the LW job on the last weekday of the month', async () => {
    await ui.page.goto(`${ui.base}/`);
    await ui.page.waitForSelector('tr.job');
    await ui.page.locator('[data-testid=week-button]').click();
    await ui.page.waitForSelector('[data-testid=week]');
    const hum = ui.page.locator('[data-testid=hum]');
    for (const name of ['pulse-fast', 'hourly-rollup', 'hourly-cache-warm']) {
      expect(await hum.locator(`[data-job="${name}"]`).count()).toBe(1);
    }
    const expected = firstLastWeekdayFrom(Date.now());
    const chip = ui.page.locator('.wk-chip[data-job="month-end-close"]');
    for (let i = 0; i < 6 && (await chip.count()) === 0; i++)
      await ui.page.locator('[data-testid=week-next]').click();
    expect(await chip.count()).toBe(1);
    const day = await chip.locator('xpath=ancestor::section[@data-date][1]').getAttribute('data-date');
    expect(day).toBe(expected);
    expect(await chip.textContent()).toContain('month-end-close');
    await shot(ui.page, 'week-calendar.png');
  }, 30_000);

  it('toggles the dark theme', async () => {
    await ui.page.goto(`${ui.base}/`);
    await ui.page.waitForSelector('tr.job');
    // A new visitor on a light system gets the standard theme's light twin (spec 10 §5.3).
    expect(await ui.page.locator('html').getAttribute('data-theme')).toBe('standard-light');
    await ui.page.locator('[data-testid=theme-toggle]').click();
    await expect.poll(() => ui.page.locator('html').getAttribute('data-theme')).toBe('standard');
    await ui.page.evaluate('document.activeElement && document.activeElement.blur()');
    const bg = await ui.page.evaluate('getComputedStyle(document.documentElement).backgroundColor');
    expect(bg).toMatch(/^rgb\((\d|1\d),/);
    await shot(ui.page, 'dark.png');
    // T flips light and dark (t cycles every theme: chrome.test.ts)
    await ui.page.keyboard.press('T');
    await expect.poll(() => ui.page.locator('html').getAttribute('data-theme')).toBe('standard-light');
    expect(ui.pageErrors).toEqual([]);
  }, 20_000);
});

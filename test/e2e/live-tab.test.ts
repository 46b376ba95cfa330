// The dashboard as a background tab (spec 10 §5.1-§5.3) on a real daemon and headless Chromium: the live tab
// title follows the daemon's state (all quiet, a running job, a failing job), the favicon is the static
// pendulum, a hidden tab stops polling at the chosen period and the per-second tick, and polls and ticks once
// when shown again; a new visitor gets the `standard` theme.
/// <reference lib="dom" />
import { describe, expect, it } from 'vitest';
import { dashboardSuite } from '../helpers/dashboard-suite.ts';
import { until } from '../helpers/until.ts';

// Every job fires once a year: nothing runs but what a test starts.
const CONFIG = (port: number): string => `web:
  listen:
    - http://127.0.0.1:${port}
jobs:
  - name: steady
    schedule: "0 0 1 1 *"
    command: "true"
  - name: long-etl
    schedule: "0 0 1 1 *"
    command: sleep 60
  - name: broken
    schedule: "0 0 1 1 *"
    command: exit 3
`;

describe('live tab title and hidden-tab polling (real daemon + headless Chromium)', () => {
  const ui = dashboardSuite({
    name: 'livetab',
    config: CONFIG,
    context: { viewport: { width: 1400, height: 900 }, timezoneId: 'UTC' },
    actionTimeoutMs: 10_000,
    cleanup: async ({ base }) => {
      await fetch(`${base}/jobs/long-etl/cancel`, { method: 'POST' });
    },
  });
  // Page-side code as strings: the project's type-check has no DOM library.
  const js = <T>(code: string): Promise<T> => ui.page.evaluate(code) as Promise<T>;
  const title = (): Promise<string> => ui.page.title();
  const titleMatching = (what: string, re: RegExp, ms = 15_000): Promise<string> =>
    until(what, ms, async () => {
      const t = await title();
      return re.test(t) ? t : null;
    });

  it('quiet: the job count, then the next fire, each with the brand; the pendulum favicon', async () => {
    await ui.page.goto(`${ui.base}/`);
    await ui.page.locator('tr.job[data-job="steady"]').waitFor();
    // No job has run: none ok; both frames turn up within one rotation.
    await titleMatching('the count frame', /^3 jobs · cronstable$/, 10_000);
    const next = await titleMatching('the next-fire frame', /^next: \S+ in \d+d · cronstable$/, 10_000);
    expect(next).toMatch(/^next: (steady|long-etl|broken) in \d+d · cronstable$/);
    const icon = await js<string>(`document.querySelector('link[rel=icon]').getAttribute('href')`);
    expect(icon.startsWith('data:image/svg+xml,')).toBe(true);
    expect(decodeURIComponent(icon)).toContain('<circle');
  });

  it('a running job shows with its elapsed time, then a failure takes over', async () => {
    expect((await fetch(`${ui.base}/jobs/long-etl/start`, { method: 'POST' })).status).toBe(200);
    const t = await titleMatching('the running frame', /^long-etl running · \d+s · cronstable$/);
    expect(t).toMatch(/^long-etl running · \d+s · cronstable$/);
    expect((await fetch(`${ui.base}/jobs/broken/start`, { method: 'POST' })).status).toBe(200);
    await titleMatching('the failing frame', /^broken failing · cronstable$/);
    expect(ui.pageErrors).toEqual([]);
  });

  it('hidden: no poll at the chosen 1 s and no per-second tick; shown again: one poll and a tick at once', async () => {
    const jobsPolls: number[] = [];
    ui.page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/jobs') jobsPolls.push(Date.now());
    });
    await js(`localStorage.setItem('cronstable.refresh', '1')`);
    await ui.page.reload();
    await ui.page.locator('tr.job[data-job="steady"]').waitFor();
    const since = (t: number): number => jobsPolls.filter((x) => x >= t).length;
    const shownAt = Date.now();
    await until('polls every second while shown', 6000, async () => (since(shownAt) >= 3 ? true : null));

    // Hide the tab the way the browser does: visibilityState/hidden change, then the event.
    const setHidden = (hidden: boolean): Promise<unknown> =>
      js(`(() => {
        Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => '${hidden ? 'hidden' : 'visible'}' });
        Object.defineProperty(document, 'hidden', { configurable: true, get: () => ${hidden} });
        document.dispatchEvent(new Event('visibilitychange'));
      })()`);
    await setHidden(true);
    // The wait already scheduled may still fire once; after it, nothing for the 30 s period.
    await new Promise((r) => setTimeout(r, 1500));
    const clockAt = await ui.page.locator('header time.clock').textContent();
    const quietFrom = Date.now();
    await new Promise((r) => setTimeout(r, 4000));
    expect(since(quietFrom)).toBe(0);
    expect(await ui.page.locator('header time.clock').textContent()).toBe(clockAt);

    const visibleAt = Date.now();
    await setHidden(false);
    await until('one poll as the tab shows', 1500, async () => (since(visibleAt) >= 1 ? true : null));
    expect(await ui.page.locator('header time.clock').textContent()).not.toBe(clockAt);
    await until('the 1 s period back', 6000, async () => (since(visibleAt) >= 4 ? true : null));
  });

  it('a new visitor gets the standard theme (light twin on a light system); a stored choice is kept', async () => {
    const theme = (): Promise<string | null> => ui.page.locator('html').getAttribute('data-theme');
    await ui.page.goto(`${ui.base}/`);
    await js(`localStorage.clear()`);
    await ui.page.reload();
    await ui.page.locator('tr.job[data-job="steady"]').waitFor();
    expect(await theme()).toBe('standard-light');
    await ui.page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(theme).toBe('standard');
    // Picker order: follow the system, then standard and its light twin first.
    await ui.page.locator('[data-testid=settings-button]').click();
    const options = await js<string[]>(
      `[...document.querySelectorAll('#set-theme option')].map((o) => o.value)`,
    );
    expect(options).toEqual(['auto', 'standard', 'standard-light', 'light', 'dark', 'hc-light', 'hc-dark']);
    await ui.page.selectOption('#set-theme', 'hc-dark');
    await ui.page.keyboard.press('Escape');
    await ui.page.reload();
    await ui.page.locator('tr.job[data-job="steady"]').waitFor();
    expect(await theme()).toBe('hc-dark');
    // t from the last theme comes round to standard.
    await ui.page.locator('body').press('t');
    await expect.poll(theme).toBe('standard');
    expect(await js<string | null>(`localStorage.getItem('cronstable.theme')`)).toBeNull();
    await ui.page.emulateMedia({ colorScheme: 'light' });
  });
});

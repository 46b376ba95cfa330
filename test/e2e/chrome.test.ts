// The dashboard's chrome end to end (issue 13 items 6 and 7): sorting by every column, the column chooser, the
// command palette, settings persisted across a reload, the shortcuts sheet, desktop notifications on a new
// failure, and an axe-core WCAG 2 A/AA scan of every view in every theme. One real daemon, one headless
// Chromium; screenshots (CRONSTABLE_SCREENSHOTS=1) go to test/e2e/screenshots/chrome-*.png.
// DOM types for the callbacks that run in the page (evaluate, $$eval).
/// <reference lib="dom" />
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFailed } from 'vitest';
import { axeViolations, COLOUR_RULES } from '../helpers/axe.ts';
import { dashboardSuite } from '../helpers/dashboard-suite.ts';
import { shot } from '../helpers/shots.ts';
import { until } from '../helpers/until.ts';

const THEMES = ['standard', 'standard-light', 'light', 'dark', 'hc-light', 'hc-dark'] as const;

const CONFIG = (port: number, stateDir: string): string => `# e2e fixture for the dashboard chrome
state:
  path: ${stateDir}
  topology: single-node
dags:
  - name: nightly
    schedule: "0 3 * * *"
    tasks:
      - id: extract
        command: echo extracted
      - id: load
        dependsOn:
          - extract
        command: echo loaded
jobs:
  - name: backup-db
    command: "true"
    schedule: "15 3 * * *"
  - name: flaky-export
    command: "echo exporting; exit 3"
    schedule: "0 0 1 1 *"
    captureStdout: true
  - name: nyc-close
    command: echo close
    schedule: "30 16 * * 1-5"
    timezone: America/New_York
  - name: local-report
    command: "true"
    schedule: "45 7 * * *"
    utc: false
  - name: pulse
    command: "true"
    schedule: "*/20 * * * * * *"
  - name: zz-retired
    command: echo retired
    schedule: "0 1 * * *"
    enabled: false
web:
  listen:
    - http://127.0.0.1:${port}
`;

interface ApiJob {
  name: string;
  enabled: boolean;
  utc: boolean;
  timezone: string | null;
  scheduled_in: number | null;
  running: boolean;
  history: Array<{ outcome: string }>;
  last_run: { outcome: string; finished_at: string; fail_reason: string | null } | null;
}

describe('dashboard chrome and accessibility (real daemon + headless Chromium)', () => {
  // Page-side code is passed as strings: the project's type-check has no DOM library.
  const js = <T>(code: string): Promise<T> => ui.page.evaluate(code) as Promise<T>;
  const pref = (key: string): Promise<string | null> => js(`localStorage.getItem('cronstable.${key}')`);
  const apiJobs = async (): Promise<ApiJob[]> => (await fetch(`${ui.base}/jobs`)).json() as Promise<ApiJob[]>;
  const shownNames = (): Promise<string[]> =>
    js<string[]>(`[...document.querySelectorAll('tr.job')].map((tr) => tr.getAttribute('data-job'))`);
  const runAndWait = async (name: string): Promise<void> => {
    const before = (await apiJobs()).find((j) => j.name === name)?.last_run?.finished_at ?? null;
    await fetch(`${ui.base}/jobs/${name}/start`, { method: 'POST' });
    await until(`a finished run of ${name}`, 15_000, async () => {
      const j = (await apiJobs()).find((x) => x.name === name);
      return j?.last_run && j.last_run.finished_at !== before && !j.running ? true : null;
    });
  };

  const ui = dashboardSuite({
    name: 'chrome',
    config: (port, dir) => CONFIG(port, join(dir, 'state')),
    context: { viewport: { width: 1500, height: 950 }, colorScheme: 'light', timezoneId: 'Europe/Berlin' },
    actionTimeoutMs: 15_000,
    ready: async () => {
      await ui.context.grantPermissions(['notifications'], { origin: ui.base });
      // Records every desktop notification the page shows (the real constructor still runs).
      await ui.page.addInitScript(`{
        const Real = window.Notification;
        const shown = [];
        window.__notes = shown;
        const Spy = function (title, opts) {
          shown.push(title + ' | ' + ((opts && opts.body) || ''));
          return new Real(title, opts);
        };
        Object.defineProperty(Spy, 'permission', { get: () => Real.permission });
        Spy.requestPermission = Real.requestPermission.bind(Real);
        window.Notification = Spy;
      }`);
      // history for the Rate column: one success, one failure; one finished DAG run for its card and drawer
      await runAndWait('backup-db');
      await runAndWait('flaky-export');
      await fetch(`${ui.base}/dags/nightly/trigger`, { method: 'POST' });
      await until('a finished run of the nightly DAG', 20_000, async () => {
        const res = await fetch(`${ui.base}/dags/nightly/runs`);
        const body = (await res.json()) as { runs?: Array<{ state: string }> } | Array<{ state: string }>;
        const runs = Array.isArray(body) ? body : (body.runs ?? []);
        return runs.some((r) => r.state === 'success') ? true : null;
      });
    },
  });

  it('sorts by every column from the header, by mouse and keyboard, with aria-sort', async () => {
    await ui.page.goto(`${ui.base}/`);
    await ui.page.waitForSelector('tr.job');
    const jobs = await apiJobs();
    const names = jobs.map((j) => j.name).sort();
    const header = (key: string) => ui.page.locator(`th button[data-sort="${key}"]`);
    await header('name').click();
    await expect.poll(shownNames).toEqual(names);
    expect(await ui.page.locator('th:has(button[data-sort="name"])').getAttribute('aria-sort')).toBe(
      'ascending',
    );
    await header('name').focus();
    await ui.page.keyboard.press('Enter');
    await expect.poll(shownNames).toEqual([...names].reverse());
    expect(await ui.page.locator('th:has(button[data-sort="name"])').getAttribute('aria-sort')).toBe(
      'descending',
    );
    // next fire ascending: the soonest first, jobs without a next fire (disabled) last
    await header('next').click();
    const order = await shownNames();
    const byNext = jobs
      .filter((j) => j.scheduled_in !== null)
      .sort((a, b) => a.scheduled_in! - b.scheduled_in!)
      .map((j) => j.name);
    expect(order.slice(0, byNext.length)).toEqual(byNext);
    expect(order.at(-1)).toBe('zz-retired');
    // status: failing first among the idle jobs, disabled last
    await header('status').click();
    const byStatus = await shownNames();
    expect(byStatus.indexOf('flaky-export')).toBeLessThan(byStatus.indexOf('backup-db'));
    expect(byStatus.at(-1)).toBe('zz-retired');
    for (const key of ['last', 'took']) {
      await header(key).click();
      expect(await ui.page.locator(`th:has(button[data-sort="${key}"])`).getAttribute('aria-sort')).toBe(
        'ascending',
      );
      expect(await ui.page.locator('th[aria-sort]').count()).toBe(1);
    }
    // the choice is a preference
    expect(await pref('sort')).toBe('took');
  }, 30_000);

  it('adds Policy, TZ, Next at and Rate from "⊞ cols", checks them against /jobs, and sorts by them', async () => {
    await ui.page.locator('[data-testid=cols-button]').click();
    await ui.page.waitForSelector('[data-testid=cols-menu]');
    for (const col of ['policy', 'tz', 'nextat', 'rate'])
      await ui.page.locator(`input[data-col="${col}"]`).check();
    await ui.page.keyboard.press('Escape');
    await expect.poll(() => ui.page.locator('[data-testid=cols-menu]').count()).toBe(0);
    expect(await ui.page.locator('[data-testid=cols-button]').textContent()).toContain('+4');
    const jobs = await apiJobs();
    for (const j of jobs) {
      const row = ui.page.locator(`tr.job[data-job="${j.name}"]`);
      const tz = j.timezone === 'UTC' ? 'UTC' : (j.timezone ?? (j.utc ? 'UTC' : 'local'));
      expect(await row.locator('td.c-tz').textContent()).toBe(tz);
      expect(await row.locator('td.c-policy').textContent()).toBe('—');
      // the page and a fresh /jobs agree (a scheduled run can land between a read and the page's
      // refresh, and the page refreshes every 3 s: poll past a few refreshes)
      await expect
        .poll(
          async () => {
            const now = (await apiJobs()).find((x) => x.name === j.name)!;
            const ok = now.history.filter((h) => h.outcome === 'success').length;
            const rate = now.history.length === 0 ? '—' : `${Math.round((ok / now.history.length) * 100)}%`;
            return (await row.locator('td.c-rate').textContent()) === rate;
          },
          { timeout: 15_000 },
        )
        .toBe(true);
    }
    // Next at: the browser's wall clock (Europe/Berlin) of backup-db's next 03:15 UTC fire
    const backup = jobs.find((j) => j.name === 'backup-db')!;
    const at = Date.now() + backup.scheduled_in! * 1000;
    const hhmm = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Europe/Berlin',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).format(at);
    expect(await ui.page.locator('tr.job[data-job="backup-db"] td.c-nextat').textContent()).toContain(hhmm);
    expect(await ui.page.locator('tr.job[data-job="local-report"] td.c-tz').textContent()).toBe('local');
    await ui.page.locator('th button[data-sort="rate"]').click();
    const byRate = await shownNames();
    expect(byRate.indexOf('flaky-export')).toBeLessThan(byRate.indexOf('backup-db'));
    await ui.page.locator('th button[data-sort="tz"]').click();
    expect((await shownNames())[0]).toBe('nyc-close');
    // "N jobs (of M)" under a filter
    await ui.page.locator('#job-filter').fill('backup');
    await expect
      .poll(() => ui.page.locator('[data-testid=job-count]').textContent())
      .toBe(`1 jobs (of ${jobs.length})`);
    await shot(ui.page, 'chrome-columns.png');
    await ui.page.locator('#job-filter').fill('');
    await ui.page.reload();
    await ui.page.waitForSelector('tr.job');
    expect(await ui.page.locator('th.c-rate').count()).toBe(1);
    expect(await pref('cols')).toBe('policy,tz,nextat,rate');
  }, 30_000);

  it('opens the command palette with Ctrl-K / Ctrl-P and runs job and view actions', async () => {
    await ui.page.goto(`${ui.base}/`);
    await ui.page.waitForSelector('tr.job');
    await ui.page.keyboard.press('Control+k');
    await ui.page.waitForSelector('[data-testid=palette]');
    await ui.page.keyboard.type('nycclose');
    expect(await ui.page.locator('.palette-item').first().getAttribute('data-command')).toBe(
      'job.open:nyc-close',
    );
    await shot(ui.page, 'chrome-palette.png');
    await ui.page.keyboard.press('Enter');
    await ui.page.waitForSelector('[data-testid=drawer]');
    expect(await ui.page.locator('#drawer-title').textContent()).toBe('nyc-close');
    expect(ui.page.url()).toContain('#job/nyc-close/logs');
    // the palette works over the drawer, and per-job actions reach the API
    await ui.page.keyboard.press('Control+p');
    await ui.page.waitForSelector('[data-testid=palette]');
    await ui.page.keyboard.type('pulse run now');
    expect(await ui.page.locator('.palette-item').first().getAttribute('data-command')).toBe('job.run:pulse');
    const before = (await apiJobs()).find((j) => j.name === 'pulse')!.last_run?.finished_at ?? null;
    await ui.page.keyboard.press('Enter');
    await until('the palette-started run of pulse', 10_000, async () => {
      const j = (await apiJobs()).find((x) => x.name === 'pulse')!;
      return j.last_run && j.last_run.finished_at !== before ? true : null;
    });
    await ui.page.keyboard.press('Escape');
    await expect.poll(() => ui.page.locator('[data-testid=drawer]').count()).toBe(0);
    await ui.page.keyboard.press('Control+k');
    await ui.page.keyboard.type('week cal');
    await ui.page.keyboard.press('Enter');
    await ui.page.waitForSelector('[data-testid=week]');
    expect(ui.page.url()).toContain('#week');
    // arrows move the active option; Esc closes and leaves the view alone
    await ui.page.keyboard.press('Control+k');
    await ui.page.keyboard.type('show the jobs');
    await ui.page.keyboard.press('ArrowDown');
    await ui.page.keyboard.press('ArrowUp');
    expect(await ui.page.locator('.palette-item[aria-selected=true]').getAttribute('data-command')).toBe(
      'view.jobs',
    );
    await ui.page.keyboard.press('Enter');
    await ui.page.waitForSelector('tr.job');
    await ui.page.keyboard.press('Control+k');
    await ui.page.keyboard.press('Escape');
    expect(await ui.page.locator('[data-testid=palette]').count()).toBe(0);
  }, 30_000);

  it('persists every setting across a reload', async () => {
    await ui.page.locator('[data-testid=settings-button]').click();
    await ui.page.waitForSelector('[data-testid=settings]');
    await ui.page.selectOption('#set-theme', 'hc-dark');
    await ui.page.selectOption('#set-cvd', 'red-green');
    await ui.page.selectOption('#set-density', 'compact');
    await ui.page.selectOption('#set-scale', '110');
    await ui.page.locator('#set-motion').check();
    await ui.page.selectOption('#set-refresh', '5');
    await shot(ui.page, 'chrome-settings.png');
    await ui.page.keyboard.press('Escape');
    const attrs = () =>
      js<string>(`(({ theme, cvd, density, scale, motion }) => [theme, cvd, density, scale, motion].join(' '))(
        document.documentElement.dataset)`);
    expect(await attrs()).toBe('hc-dark red-green compact 110 reduce');
    expect(await js<number>(`document.querySelector('tr.job').getBoundingClientRect().height`)).toBeCloseTo(
      40 * 1.1,
      0,
    );
    await ui.page.reload();
    await ui.page.waitForSelector('tr.job');
    expect(await attrs()).toBe('hc-dark red-green compact 110 reduce');
    const stored = await js<Record<string, string>>(
      'Object.fromEntries(Object.keys(localStorage).map((k) => [k, localStorage.getItem(k)]))',
    );
    expect(stored).toMatchObject({
      'cronstable.theme': 'hc-dark',
      'cronstable.cvd': 'red-green',
      'cronstable.density': 'compact',
      'cronstable.scale': '110',
      'cronstable.motion': 'reduce',
      'cronstable.refresh': '5',
    });
    expect(await ui.page.locator('.toolbar select').inputValue()).toBe('5');
    await shot(ui.page, 'chrome-hc-dark.png');
    // back to the defaults for the rest of the file
    await js(
      `for (const k of Object.keys(localStorage)) if (k !== 'cronstable.cols') localStorage.removeItem(k)`,
    );
    await ui.page.reload();
    await ui.page.waitForSelector('tr.job');
    expect(await attrs()).toBe('standard-light none comfortable 100 system');
  }, 30_000);

  it('shows the shortcuts sheet on ? with every section', async () => {
    await ui.page.locator('body').click({ position: { x: 5, y: 300 } });
    await ui.page.keyboard.press('?');
    await ui.page.waitForSelector('[data-testid=help]');
    const text = (await ui.page.locator('[data-testid=help]').textContent()) ?? '';
    for (const s of ['Anywhere', 'Jobs table', 'Job drawer', 'command palette', 'high-contrast', 'copy'])
      expect(text).toContain(s);
    expect(await ui.page.locator('[role=dialog][aria-modal=true]').count()).toBe(1);
    await shot(ui.page, 'chrome-shortcuts.png');
    await ui.page.keyboard.press('Escape');
    expect(await ui.page.locator('[data-testid=help]').count()).toBe(0);
    // t cycles the themes from the default (standard-light on this light system), T flips light and dark
    await ui.page.keyboard.press('t');
    await expect.poll(() => ui.page.locator('html').getAttribute('data-theme')).toBe('light');
    await ui.page.keyboard.press('t');
    await expect.poll(() => ui.page.locator('html').getAttribute('data-theme')).toBe('dark');
    await ui.page.keyboard.press('T');
    await expect.poll(() => ui.page.locator('html').getAttribute('data-theme')).toBe('light');
    await js(`localStorage.removeItem('cronstable.theme')`);
  }, 20_000);

  it('sends a desktop notification when a job fails anew', async () => {
    await ui.page.reload();
    await ui.page.waitForSelector('tr.job');
    await ui.page.locator('[data-testid=settings-button]').click();
    await ui.page.locator('#set-notify').check();
    await expect.poll(() => pref('notify')).toBe('on');
    await ui.page.keyboard.press('Escape');
    await ui.page.selectOption('.toolbar select', '1');
    await runAndWait('flaky-export');
    await expect
      .poll(() => js<string[]>('window.__notes'), {
        timeout: 8000,
      })
      .toEqual([
        `cronstable: flaky-export failed | exit 3 · ${(await apiJobs()).find((j) => j.name === 'flaky-export')!.last_run!.fail_reason}`,
      ]);
    await js(`localStorage.removeItem('cronstable.notify')`);
  }, 30_000);

  it('works from the keyboard alone, with a visible focus ring', async () => {
    // A hang here once ran into the test's timeout with no word of where: name the last step.
    let step = 'start';
    onTestFailed(() => console.error(`keyboard test failed at step: ${step}`));
    await ui.page.goto(`${ui.base}/`);
    await js(`localStorage.removeItem('cronstable.theme')`);
    await ui.page.reload();
    await ui.page.waitForSelector('tr.job');
    const focused = (): Promise<string> =>
      js(`(document.activeElement?.getAttribute('data-testid') || document.activeElement?.id ||
        document.activeElement?.textContent || '').trim()`);
    step = 'filter and drawer';
    // `/` filters, Enter leaves the box, j selects, Enter opens the drawer
    await ui.page.keyboard.press('/');
    expect(await focused()).toBe('job-filter');
    await ui.page.keyboard.type('backup');
    await ui.page.keyboard.press('Enter');
    await ui.page.keyboard.press('j');
    await ui.page.keyboard.press('Enter');
    await ui.page.waitForSelector('[data-testid=drawer]');
    expect(await ui.page.locator('#drawer-title').textContent()).toBe('backup-db');
    step = 'tab strip';
    // the tab strip: arrows move between tabs, digits jump
    await ui.page.locator('[data-testid=tab-logs]').focus();
    await ui.page.keyboard.press('ArrowRight');
    expect(await ui.page.locator('[data-testid=tab-history]').getAttribute('aria-selected')).toBe('true');
    expect(await focused()).toBe('tab-history');
    const ring = await js<string>(`getComputedStyle(document.activeElement).outlineStyle`);
    expect(ring).not.toBe('none');
    await ui.page.keyboard.press('3');
    expect(await ui.page.locator('[data-testid=tab-schedule]').getAttribute('aria-selected')).toBe('true');
    step = 'focus trap';
    // Tab stays inside the open drawer
    for (let i = 0; i < 12; i++) {
      await ui.page.keyboard.press('Tab');
      expect(await js<boolean>(`!!document.activeElement.closest('[data-testid=drawer]')`)).toBe(true);
    }
    await ui.page.keyboard.press('Escape');
    await expect.poll(() => ui.page.locator('[data-testid=drawer]').count()).toBe(0);
    step = 'column chooser';
    // the column chooser and the sort headers by keyboard
    await ui.page.locator('#job-filter').focus();
    await ui.page.keyboard.press('Escape');
    await ui.page.keyboard.press('Escape');
    await ui.page.locator('[data-testid=cols-button]').focus();
    await ui.page.keyboard.press('Enter');
    await expect.poll(() => js<string>(`document.activeElement.getAttribute('data-col')`)).toBe('policy');
    await ui.page.keyboard.press('Escape');
    expect(await focused()).toBe('cols-button');
    await ui.page.keyboard.press('Tab');
    expect(await js<string>(`document.activeElement.getAttribute('data-sort')`)).toBe('status');
    const statusTh = ui.page.locator('th:has(button[data-sort="status"])');
    const before = await statusTh.getAttribute('aria-sort');
    await ui.page.keyboard.press('Enter');
    await expect
      .poll(() => statusTh.getAttribute('aria-sort'))
      .toBe(before === 'ascending' ? 'descending' : 'ascending');
    step = 'week view';
    // the week view and its chips
    await ui.page.keyboard.press('v');
    await ui.page.waitForSelector('[data-testid=week]');
    await ui.page.locator('.wk-chip').first().focus();
    const chipJob = await js<string>(`document.activeElement.getAttribute('data-job')`);
    await ui.page.keyboard.press('Enter');
    await ui.page.waitForSelector('[data-testid=drawer]');
    expect(await ui.page.locator('#drawer-title').textContent()).toBe(chipJob);
    await ui.page.keyboard.press('Escape');
    await ui.page.keyboard.press('v');
    await ui.page.waitForSelector('tr.job');
  }, 60_000);

  it('has no WCAG 2 A/AA violations (axe-core) in any view, dialog or theme', async () => {
    // `within` limits a scan to an open dialog or drawer (the page under it was scanned on its own)
    // The first theme gets every WCAG 2 A/AA rule; the others only the colour rules (a theme changes
    // colours, nothing else: see COLOUR_RULES).
    let rules: readonly string[] | undefined;
    const scan = async (what: string, within?: string): Promise<string[]> => {
      // opening transitions fade in: measure the settled colours (infinite pulses never settle)
      await js(`Promise.all(document.getAnimations()
        .filter((a) => a.effect?.getTiming().iterations !== Infinity)
        .map((a) => a.finished.catch(() => {})))`);
      return axeViolations(ui.page, within ?? 'document', { label: what, ...(rules ? { rules } : {}) });
    };
    const found: string[] = [];
    // Themes and colour remaps are switched live from the settings dialog, as a user does: a
    // reload per theme cost the browser ~1.5 CPU-s each (bench/RESULTS.md, "Suite time").
    const look = async (theme: string, cvd: string): Promise<void> => {
      await ui.page.getByRole('button', { name: '☰ jobs' }).click();
      await ui.page.locator('[data-testid=settings-button]').click();
      await ui.page.locator('#set-theme').selectOption(theme);
      await ui.page.locator('#set-cvd').selectOption(cvd);
      await ui.page.keyboard.press('Escape');
      await ui.page.waitForSelector('tr.job');
      await expect.poll(() => ui.page.locator('html').getAttribute('data-theme')).toBe(theme);
      // 'none' is drawn without the attribute
      const drawn = await ui.page.locator('html').getAttribute('data-cvd');
      expect(drawn ?? 'none').toBe(cvd);
    };
    await ui.page.goto(`${ui.base}/`);
    await ui.page.waitForSelector('tr.job');
    for (const theme of THEMES) {
      await look(theme, 'none');
      found.push(...(await scan(`${theme} jobs`)));
      await ui.page.locator('[data-testid=cols-button]').click();
      found.push(...(await scan(`${theme} column chooser`, '[data-testid=cols-menu]')));
      await ui.page.keyboard.press('Escape');
      await ui.page.locator('tr.job[data-job="flaky-export"] .jobname').click();
      await ui.page.waitForSelector('[data-testid=drawer] .logline');
      found.push(...(await scan(`${theme} drawer logs`)));
      await ui.page.locator('[data-testid=tab-history]').click();
      await ui.page.waitForSelector('[data-testid=drawer] table');
      found.push(...(await scan(`${theme} drawer history`, '[data-testid=drawer]')));
      await ui.page.locator('[data-testid=tab-schedule]').click();
      await ui.page.waitForSelector('[data-testid=next-fires]');
      found.push(...(await scan(`${theme} drawer schedule`, '[data-testid=drawer]')));
      await ui.page.keyboard.press('Escape');
      await ui.page.locator('[data-testid=dag-open]').first().click();
      await ui.page.waitForSelector('[data-testid=dag-runs]');
      found.push(...(await scan(`${theme} dag drawer runs`, '[data-testid=dag-drawer]')));
      await ui.page.locator('[data-testid=dag-tab-graph]').click();
      await ui.page.waitForSelector('[data-testid=dag-graph]');
      found.push(...(await scan(`${theme} dag drawer graph`, '[data-testid=dag-drawer]')));
      await ui.page.locator('[data-testid=dag-close]').click();
      await ui.page.locator('[data-testid=week-button]').click();
      await ui.page.waitForSelector('[data-testid=week]');
      found.push(...(await scan(`${theme} week`)));
      await ui.page.keyboard.press('?');
      await ui.page.waitForSelector('[data-testid=help]');
      found.push(...(await scan(`${theme} shortcuts`, '[role=dialog]')));
      await ui.page.keyboard.press('Escape');
      await ui.page.locator('[data-testid=settings-button]').click();
      found.push(...(await scan(`${theme} settings`, '[role=dialog]')));
      await ui.page.keyboard.press('Escape');
      await ui.page.keyboard.press('Control+k');
      await ui.page.keyboard.type('backup');
      found.push(...(await scan(`${theme} palette`, '[role=dialog]')));
      await ui.page.keyboard.press('Escape');
      await ui.page.locator('button:has-text("token")').click();
      found.push(...(await scan(`${theme} token dialog`, '[role=dialog]')));
      await ui.page.keyboard.press('Escape');
      await shot(ui.page, `chrome-theme-${theme}.png`);
      rules = COLOUR_RULES;
    }
    // the colour-vision remaps keep the contrast too (light and dark family)
    for (const [theme, cvd] of <const>[
      ['light', 'red-green'],
      ['hc-dark', 'blue-yellow'],
      ['dark', 'blue-yellow'],
      ['hc-light', 'red-green'],
    ]) {
      await look(theme, cvd);
      found.push(...(await scan(`${theme}+${cvd} jobs`)));
    }
    if (process.env.AXE_DUMP) writeFileSync(process.env.AXE_DUMP, found.join('\n'));
    expect(found).toEqual([]);
    expect(ui.pageErrors).toEqual([]);
  }, 240_000);

  it('runs no endless animation on the jobs view when motion is allowed, and rings the live dot once per answer', async () => {
    // An infinite CSS animation makes the browser paint every frame for as long as the tab is
    // open (a GPU-less Chromium spent 0.6 CPU-seconds a second on the old endless pulse).
    // The page's own context, its media emulated (a second context cost ~2-3 CPU-s of the browser).
    const p = ui.page;
    await p.emulateMedia({ reducedMotion: 'no-preference' });
    try {
      await p.goto(`${ui.base}/`);
      await p.waitForSelector('tr.job');
      const endless = `document.getAnimations()
        .filter((a) => a.effect?.getTiming().iterations === Infinity)
        .map((a) => a.animationName ?? String(a.effect?.target?.className))`;
      expect(await p.evaluate(endless)).toEqual([]);
      // The dot is drawn anew on each answer of the 3 s poll, and its ring plays once.
      await p.evaluate(`window.__dots = 0; new MutationObserver((ms) => { for (const m of ms)
        for (const n of m.addedNodes) if (n.classList?.contains('conn-dot')) window.__dots++; })
        .observe(document.body, { childList: true, subtree: true })`);
      await expect.poll(() => p.evaluate('window.__dots'), { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
      expect(
        await p.evaluate(
          `getComputedStyle(document.querySelector('.conn-live .conn-dot')).animationIterationCount`,
        ),
      ).toBe('1');
      expect(await p.evaluate(endless)).toEqual([]);
    } finally {
      await p.emulateMedia({ reducedMotion: 'reduce' });
    }
  });
});

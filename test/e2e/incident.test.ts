// The dashboard's incident tools and wallboard end to end (issue 13 items 1 and 3): one real daemon whose jobs
// fail together with exit 3 (and one with exit 5), one headless Chromium, and every view checked against the API:
// the fleet-event banner, the incident timeline, the multi-tail, the mitigate console, "▶ run failing" (aborted
// mid-way) and the TV view with its stale-data banner and screensaver. Screenshots (CRONSTABLE_SCREENSHOTS=1) go to test/e2e/screenshots/;
// with CRONSTABLE_DOCS_SHOTS=1 the README's two (docs/dashboard-incident.png, docs/dashboard-tv.png) are rewritten.
// DOM types for the callbacks that run in the page (evaluate, $$eval).
/// <reference lib="dom" />
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstPage } from '../../scripts/chromium.ts';
import { freePort } from '../../scripts/fleet/ports.ts';
import { axeViolations } from '../helpers/axe.ts';
import { openContext } from '../helpers/browser.ts';
import {
  type E2eDaemon,
  ROOT,
  requireE2ePrereqs,
  startE2eDaemon,
  tearDownE2e,
} from '../helpers/e2e-daemon.ts';
import { SCREENSHOTS, SHOTS, shot } from '../helpers/shots.ts';
import { until } from '../helpers/until.ts';

const DOCS = process.env.CRONSTABLE_DOCS_SHOTS === '1' ? join(ROOT, 'docs') : null;

/** Three jobs that break the same way (one cause) and one that breaks its own way. */
const SAME_CAUSE = ['db-orders', 'db-payments', 'db-ledger'];
const ODD_ONE = 'flaky-export';
const FAILING = [...SAME_CAUSE, ODD_ONE];
const LONG = 'long-haul';

// Every job is manual-only ("once a year") so every run in this file is one the test (or the dashboard) started.
const CONFIG = (port: number): string => `# e2e fixture for the incident tools
jobs:
${SAME_CAUSE.map(
  (n) => `  - name: ${n}
    command: 'echo "${n}: connection refused by db-primary (pid $$)" >&2; exit 3'
    schedule: "0 0 1 1 *"
`,
).join('')}  - name: ${ODD_ONE}
    command: 'echo "${ODD_ONE}: bucket quota exceeded (pid $$)" >&2; exit 5'
    schedule: "0 0 1 1 *"
  - name: ${LONG}
    command: 'echo "${LONG} working (pid $$)"; sleep 120'
    schedule: "0 0 1 1 *"
    captureStdout: true
  - name: heartbeat
    command: echo beat
    schedule: "0 0 1 1 *"
  - name: nightly-report
    command: echo report
    schedule: "0 3 * * *"
  - name: retired-sync
    command: echo retired
    schedule: "0 1 * * *"
    enabled: false
web:
  listen:
    - http://127.0.0.1:${port}
`;

interface Job {
  name: string;
  enabled: boolean;
  running: boolean;
  last_run: { outcome: string; exit_code: number | null; finished_at: string } | null;
}

describe('incident tools and wallboard (real daemon + headless Chromium)', () => {
  let dir = '';
  let daemon: E2eDaemon | null = null;
  let base = '';
  let context: BrowserContext | null = null;
  let page: Page;
  const pageErrors: string[] = [];

  const jobs = async (): Promise<Job[]> => (await fetch(`${base}/jobs`)).json() as Promise<Job[]>;
  const failingNow = (list: Job[]): string[] =>
    list
      .filter((j) => j.enabled && !j.running && j.last_run?.outcome === 'failure')
      .map((j) => j.name)
      .sort();
  const runsOf = async (name: string): Promise<number> =>
    ((await (await fetch(`${base}/jobs/${name}/runs`)).json()) as { stats: { total: number } }).stats.total;
  const start = async (name: string): Promise<void> => {
    const res = await fetch(`${base}/jobs/${name}/start`, { method: 'POST' });
    expect(res.status).toBe(200);
  };
  /**
   * axe-core's serious and critical findings (WCAG 2 A/AA) inside `selector`, as "theme rule: target" lines, in
   * the light and the dark theme (the theme is a data attribute over CSS variables, so flipping it is enough).
   */
  const axe = async (selector: string): Promise<string[]> => {
    const original = (await page.evaluate('document.documentElement.dataset.theme ?? null')) as string | null;
    const out: string[] = [];
    for (const theme of ['light', 'dark']) {
      await page.evaluate(`document.documentElement.dataset.theme = ${JSON.stringify(theme)}`);
      out.push(...(await axeViolations(page, selector, { label: theme, impacts: ['serious', 'critical'] })));
    }
    await page.evaluate(
      original === null
        ? 'delete document.documentElement.dataset.theme'
        : `document.documentElement.dataset.theme = ${JSON.stringify(original)}`,
    );
    return out;
  };

  const shoot = async (file: string, docName?: string): Promise<void> => {
    if (DOCS && docName) {
      await page.screenshot({ path: join(DOCS, docName) });
      if (SCREENSHOTS) copyFileSync(join(DOCS, docName), join(SHOTS, file));
    } else await shot(page, file);
  };

  beforeAll(async () => {
    requireE2ePrereqs();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    dir = mkdtempSync(join(tmpdir(), 'cronstable-e2e-incident-'));
    writeFileSync(join(dir, 'cronstable.yaml'), CONFIG(port));
    daemon = await startE2eDaemon(dir, { base });
    // The incident: the three db jobs fail within a second of each other, the export on its own, one job is busy.
    await Promise.all([...FAILING, 'heartbeat', LONG].map(start));
    await until('four failing jobs and a running one', 15_000, async () => {
      const list = await jobs();
      const busy = list.find((j) => j.name === LONG)?.running;
      return failingNow(list).length === FAILING.length && busy ? true : null;
    });
    context = await openContext({
      viewport: { width: 1600, height: 1000 },
      colorScheme: 'dark',
      timezoneId: 'UTC',
    });
    page = await firstPage(context, pageErrors);
  }, 60_000);

  afterAll(async () => {
    await tearDownE2e(context, daemon, dir);
  }, 30_000);

  it('shows a FLEET EVENT banner whose count and verdict match /jobs', async () => {
    await page.goto(`${base}/`);
    const banner = page.locator('[data-testid=failure-banner]');
    await banner.waitFor();
    const failing = failingNow(await jobs());
    expect(failing).toEqual([...FAILING].sort());
    await expect
      .poll(() => banner.locator('strong').textContent())
      .toBe(`FLEET EVENT — ${failing.length} jobs failing`);
    expect(await banner.getAttribute('data-failing')).toBe(String(failing.length));
    // three of four share exit 3 within a minute: a majority, so one cause
    expect(await banner.getAttribute('data-verdict')).toBe('one-cause');
    expect(await banner.locator('.banner-sub').textContent()).toContain(
      '3 of 4 share a failure signature (exit 3) within 60 s — likely one cause',
    );
    // the header's failing pill says the same
    expect(await page.locator('.pill-fail b').textContent()).toBe(String(failing.length));
    await page.evaluate('document.activeElement && document.activeElement.blur()');
    await shoot('incident-banner.png', 'dashboard-incident.png');
    expect(await axe('[data-testid=failure-banner]')).toEqual([]);
  }, 30_000);

  it('lists the newest finish per job in the incident timeline (i)', async () => {
    await page.keyboard.press('i');
    const list = page.locator('[data-testid=incident-timeline]');
    await list.waitFor();
    expect(await page.locator('[role=dialog] h2').textContent()).toBe('Incident timeline');
    const api = (await jobs())
      .filter((j) => j.last_run !== null)
      .sort((a, b) => Date.parse(b.last_run!.finished_at) - Date.parse(a.last_run!.finished_at));
    const shown = await list
      .locator('li')
      .evaluateAll((els) => els.map((e) => [e.getAttribute('data-job'), e.getAttribute('data-outcome')]));
    expect(shown.map((s) => s[0]).sort()).toEqual(api.map((j) => j.name).sort());
    for (const [name, outcome] of shown)
      expect(api.find((j) => j.name === name)?.last_run?.outcome).toBe(outcome);
    // newest first, in the order of the API's finish times
    const order = shown.map((s) => s[0]!);
    const times = order.map((n) => Date.parse(api.find((j) => j.name === n)!.last_run!.finished_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    // the three exit-3 failures are marked as one group; the export is not
    for (const n of SAME_CAUSE) expect(await list.locator(`li[data-job="${n}"] .it-group`).count()).toBe(1);
    expect(await list.locator(`li[data-job="${ODD_ONE}"] .it-group`).count()).toBe(0);
    await shoot('incident-timeline.png');
    expect(await axe('[role=dialog]')).toEqual([]);
    await page.keyboard.press('Escape');
    await expect.poll(() => list.count()).toBe(0);
  }, 20_000);

  it('merges up to four log streams with job prefixes and re-attaches when a job runs again', async () => {
    await page.locator('[data-testid=tail-button]').click();
    const view = page.locator('[data-testid=mt-view]');
    await view.waitFor();
    expect(page.url()).toContain('#tail');
    await page.locator('[data-testid=mt-running]').click();
    await page.locator('[data-testid=mt-failing]').click();
    const chips = page.locator('.mt-chip');
    // long-haul plus the first three failing jobs by name; the fourth is left out by the 4-stream cap
    await expect
      .poll(() => chips.evaluateAll((els) => els.map((e) => e.getAttribute('data-job'))))
      .toEqual([LONG, 'db-ledger', 'db-orders', 'db-payments']);
    expect(await page.locator('.mt-note').textContent()).toBe(`4-stream limit: left out ${ODD_ONE}`);
    const lineOf = (job: string) => view.locator(`.mt-line[data-job="${job}"]:not(.mt-marker)`);
    await expect.poll(() => lineOf('db-orders').count(), { timeout: 10_000 }).toBeGreaterThan(0);
    await expect.poll(() => lineOf(LONG).count(), { timeout: 10_000 }).toBeGreaterThan(0);
    expect(await lineOf('db-orders').first().textContent()).toMatch(
      /^db-orders\s+│db-orders: connection refused by db-primary \(pid \d+\)$/,
    );
    expect(await lineOf(LONG).first().textContent()).toMatch(/^long-haul\s+│long-haul working/);
    // a finished run's replay ends with the marker; the live long-haul stream does not
    const markers = (job: string) => view.locator(`.mt-marker[data-job="${job}"]`);
    await expect.poll(() => markers('db-orders').count()).toBe(1);
    expect(await markers(LONG).count()).toBe(0);
    // the job runs again: the tail re-attaches and shows the new run's line and a second marker
    await start('db-orders');
    await expect.poll(() => markers('db-orders').count(), { timeout: 15_000 }).toBe(2);
    const texts = await lineOf('db-orders').allTextContents();
    expect(new Set(texts).size).toBe(2);
    await shoot('incident-multitail.png');
    expect(await axe('[data-testid=multitail]')).toEqual([]);
  }, 40_000);

  it('mitigate: starts the picked failing jobs staggered and cancels a running one, with a summary', async () => {
    await page.goto(`${base}/`);
    await page.locator('[data-testid=mitigate-button]').click();
    const mc = page.locator('[data-testid=mitigate]');
    await mc.waitFor();
    // failing jobs are picked by default, the running job is offered for cancel but not picked
    for (const n of FAILING) expect(await mc.locator(`tr[data-job="${n}"] input`).isChecked()).toBe(true);
    expect(await mc.locator(`tr[data-job="${LONG}"] input`).isChecked()).toBe(false);
    const before = Object.fromEntries(
      await Promise.all(FAILING.map(async (n) => [n, await runsOf(n)] as const)),
    );
    await shoot('incident-mitigate-pick.png');
    await mc.locator('[data-testid=mc-gap]').selectOption('250');
    await mc.locator('[data-testid=mc-start]').click();
    await mc.locator('[data-testid=mc-yes]').click();
    await expect.poll(() => mc.getAttribute('data-phase'), { timeout: 10_000 }).toBe('done');
    const summary = await mc.locator('[data-testid=mc-summary]').inputValue();
    expect(summary).toContain('- result: 4 ok, 0 failed');
    for (const n of FAILING)
      expect(summary).toMatch(new RegExp(`\\| \`${n}\` \\| start \\| ok \\| \\d\\d:\\d\\d:\\d\\d \\|`));
    // the daemon really ran each job once more
    for (const n of FAILING) await expect.poll(() => runsOf(n), { timeout: 10_000 }).toBe(before[n]! + 1);
    await shoot('incident-mitigate.png');
    expect(await axe('[role=dialog]')).toEqual([]);
    await page.keyboard.press('Escape');

    // second pass: cancel the long-running job only
    await expect.poll(async () => failingNow(await jobs()), { timeout: 10_000 }).toEqual([...FAILING].sort());
    await page.locator('[data-testid=mitigate-button]').click();
    await mc.waitFor();
    for (const n of FAILING) await mc.locator(`tr[data-job="${n}"] input`).uncheck();
    await mc.locator(`tr[data-job="${LONG}"] input`).check();
    await mc.locator('[data-testid=mc-cancel]').click();
    await mc.locator('[data-testid=mc-yes]').click();
    await expect.poll(() => mc.getAttribute('data-phase'), { timeout: 10_000 }).toBe('done');
    expect(await mc.locator('[data-testid=mc-summary]').inputValue()).toContain(
      `| \`${LONG}\` | cancel | ok |`,
    );
    await expect
      .poll(async () => (await jobs()).find((j) => j.name === LONG)?.running, { timeout: 15_000 })
      .toBe(false);
    await page.keyboard.press('Escape');
  }, 60_000);

  it('"▶ run failing" asks first, and an abort mid-way leaves the rest unsent (by keyboard)', async () => {
    await page.goto(`${base}/`);
    await expect.poll(() => page.locator('[data-testid=run-failing]').isEnabled()).toBe(true);
    const before = Object.fromEntries(
      await Promise.all(FAILING.map(async (n) => [n, await runsOf(n)] as const)),
    );
    await page.locator('[data-testid=run-failing]').click();
    const mc = page.locator('[data-testid=mitigate]');
    await mc.locator('[data-testid=mc-confirm]').waitFor();
    expect(await mc.locator('.mc-names li').allTextContents()).toEqual([...FAILING].sort());
    // nothing is sent before the confirmation
    for (const n of FAILING) expect(await runsOf(n)).toBe(before[n]);
    const focused = (): Promise<unknown> => page.evaluate('document.activeElement?.dataset.testid ?? null');
    // the confirmation button has the focus, so Enter confirms
    await mc.locator('[data-testid=mc-gap]').selectOption('2000');
    expect(await focused()).toBe('mc-yes');
    await page.keyboard.press('Enter');
    // while it runs the focus sits on abort, so Enter stops it before the second job (2 s later)
    await mc.locator('.mc-step[data-state=ok]').first().waitFor();
    expect(await focused()).toBe('mc-abort');
    await page.keyboard.press('Enter');
    await expect.poll(() => mc.getAttribute('data-phase'), { timeout: 10_000 }).toBe('done');
    expect(await mc.locator('.mc-step[data-state=ok]').count()).toBe(1);
    expect(await mc.locator('.mc-step[data-state=skipped]').count()).toBe(3);
    expect(await mc.locator('[data-testid=mc-summary]').inputValue()).toContain('aborted with 3 not sent');
    // the summary is one key away from the clipboard
    expect(await focused()).toBe('mc-copy');
    await page.keyboard.press('Enter');
    await expect.poll(() => mc.locator('.mc-copied').textContent()).toBe('copied');
    const first = [...FAILING].sort()[0]!;
    await expect.poll(() => runsOf(first), { timeout: 10_000 }).toBe(before[first]! + 1);
    for (const n of FAILING.filter((x) => x !== first)) expect(await runsOf(n)).toBe(before[n]);
    await page.keyboard.press('Escape');
  }, 30_000);

  it('wallboard (w): worst-first tiles, then the stale-data banner and the screensaver', async () => {
    await start(LONG);
    await expect
      .poll(
        async () => {
          const list = await jobs();
          return failingNow(list).length === FAILING.length && list.find((j) => j.name === LONG)?.running;
        },
        { timeout: 10_000 },
      )
      .toBe(true);
    // a fresh document, so the fake clock (for the 15 s and 30 s timers below) is there from the first script
    await page.goto('about:blank');
    await page.clock.install();
    await page.goto(`${base}/#tv`);
    const tv = page.locator('[data-testid=tv]');
    await tv.waitFor();
    const list = await jobs();
    const failing = failingNow(list);
    await expect
      .poll(() => page.locator('[data-testid=tv-verdict]').textContent())
      .toBe(`${failing.length} failing`);
    const tiles = await tv
      .locator('.tv-tile')
      .evaluateAll((els) => els.map((e) => [e.getAttribute('data-job'), e.getAttribute('data-status')]));
    expect(tiles).toHaveLength(list.length);
    // every failed tile comes before any other, the disabled job comes last
    expect(
      tiles
        .slice(0, failing.length)
        .map((t) => t[0])
        .sort(),
    ).toEqual(failing);
    expect(tiles.slice(0, failing.length).every((t) => t[1] === 'failed')).toBe(true);
    expect(tiles[failing.length]).toEqual([LONG, 'running']);
    expect(tiles[tiles.length - 1]).toEqual(['retired-sync', 'disabled']);
    expect(await page.locator('[data-testid=tv-stale]').count()).toBe(0);
    await shoot('incident-tv.png', 'dashboard-tv.png');
    expect(await axe('[data-testid=tv]')).toEqual([]);
    expect(pageErrors).toEqual([]);

    // the daemon stops answering: after 15 s the tiles are marked stale
    await page.route('**/jobs', (route) => route.abort());
    await page.mouse.move(10, 10);
    await page.clock.fastForward(20_000);
    await expect
      .poll(() => page.locator('[data-testid=tv-stale]').textContent(), { timeout: 5000 })
      .toContain('STALE DATA — last answer');
    // no input for 30 s: the screensaver; a key wakes the screen and does nothing else
    await page.clock.fastForward(31_000);
    await page.locator('[data-testid=zen]').waitFor({ timeout: 5000 });
    expect(await page.locator('.zen-line').textContent()).toBe(
      `${failing.length} failing · 1 running · ${list.length} jobs`,
    );
    expect(await page.locator('.zen-stale').textContent()).toMatch(/^data stale: last answer \d+s ago$/);
    await shoot('incident-zen.png');
    expect(await axe('[data-testid=zen]')).toEqual([]);
    await page.unroute('**/jobs');
    await page.keyboard.press('w');
    await expect.poll(() => page.locator('[data-testid=zen]').count()).toBe(0);
    expect(await tv.count()).toBe(1);
    // w leaves the wallboard
    await page.keyboard.press('w');
    await expect.poll(() => tv.count()).toBe(0);
  }, 40_000);
});

// The OVERDUE marker in the browser dashboard (spec 09 §2.8) on a real daemon and headless Chromium: a job
// whose run outlasts its maxRuntime (scaled to 1 s; the SLA pass every 250 ms via CRONSTABLE_TEST_SLA_PASS_MS)
// gets the row chip with its tooltip, the drawer line, the wallboard badge and the footer count; a job
// without sla gets none of them.
/// <reference lib="dom" />
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstPage } from '../../scripts/chromium.ts';
import { freePort } from '../../scripts/fleet/ports.ts';
import { openContext } from '../helpers/browser.ts';
import { type E2eDaemon, requireE2ePrereqs, startE2eDaemon, tearDownE2e } from '../helpers/e2e-daemon.ts';
import { until } from '../helpers/until.ts';

const CONFIG = (port: number): string => `jobs:
  - name: slow-etl
    command: sleep 120
    schedule: "0 0 1 1 *"
    sla:
      maxRuntimeSeconds: 1
  - name: calm
    command: sleep 120
    schedule: "0 0 1 1 *"
web:
  listen:
    - http://127.0.0.1:${port}
`;

describe('OVERDUE in the browser dashboard (real daemon + headless Chromium)', () => {
  let dir = '';
  let daemon: E2eDaemon | null = null;
  let base = '';
  let context: BrowserContext | null = null;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    requireE2ePrereqs();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    dir = mkdtempSync(join(tmpdir(), 'cronstable-e2e-sla-'));
    writeFileSync(join(dir, 'cronstable.yaml'), CONFIG(port));
    daemon = await startE2eDaemon(dir, { base, env: { CRONSTABLE_TEST_SLA_PASS_MS: '250' } });
    for (const name of ['slow-etl', 'calm'])
      expect((await fetch(`${base}/jobs/${name}/start`, { method: 'POST' })).status).toBe(200);
    await until('slow-etl overdue in /jobs', 15_000, async () => {
      const row = ((await (await fetch(`${base}/jobs/slow-etl`)).json()) as { sla?: { state: string } }).sla;
      return row?.state === 'late' ? true : null;
    });
    context = await openContext({ viewport: { width: 1400, height: 900 }, timezoneId: 'UTC' });
    page = await firstPage(context, pageErrors);
  }, 60_000);

  afterAll(async () => {
    for (const name of ['slow-etl', 'calm'])
      await fetch(`${base}/jobs/${name}/cancel`, { method: 'POST' }).catch(() => null);
    await tearDownE2e(context, daemon, dir);
  }, 30_000);

  it('the row chip, with the breached checks in its tooltip, on the overdue job only', async () => {
    await page.goto(`${base}/`);
    const chip = page.locator('tr[data-job="slow-etl"] [data-testid=overdue]');
    await chip.waitFor();
    expect((await chip.textContent())?.trim()).toBe('⚠ overdue');
    expect(await chip.getAttribute('title')).toBe('SLA breached: maxRuntime');
    expect(await page.locator('tr[data-job="calm"] [data-testid=overdue]').count()).toBe(0);
  });

  it('the drawer line', async () => {
    await page.locator('tr[data-job="slow-etl"] .jobname').click();
    const line = page.locator('[data-testid=drawer-overdue]');
    await line.waitFor();
    expect((await line.textContent())?.trim()).toBe('⚠ OVERDUE · maxRuntime');
    await page.keyboard.press('Escape');
  });

  it('the wallboard badge and footer count', async () => {
    await page.goto(`${base}/#tv`);
    const tile = page.locator('.tv-tile[data-job="slow-etl"]');
    await tile.waitFor();
    expect(await tile.locator('.tv-overdue-badge').textContent()).toBe('overdue');
    expect(await page.locator('.tv-tile[data-job="calm"] .tv-overdue-badge').count()).toBe(0);
    expect((await page.locator('[data-testid=tv-overdue]').textContent())?.trim()).toBe('· 1 overdue');
    expect(pageErrors).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { dashboardSuite } from '../helpers/dashboard-suite.ts';
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
  const ui = dashboardSuite({
    name: 'sla',
    config: CONFIG,
    env: { CRONSTABLE_TEST_SLA_PASS_MS: '250' },
    context: { viewport: { width: 1400, height: 900 }, timezoneId: 'UTC' },
    ready: async ({ base }) => {
      for (const name of ['slow-etl', 'calm'])
        expect((await fetch(`${base}/jobs/${name}/start`, { method: 'POST' })).status).toBe(200);
      await until('slow-etl overdue in /jobs', 15_000, async () => {
        const row = ((await (await fetch(`${base}/jobs/slow-etl`)).json()) as { sla?: { state: string } })
          .sla;
        return row?.state === 'late' ? true : null;
      });
    },
    cleanup: async ({ base }) => {
      for (const name of ['slow-etl', 'calm'])
        await fetch(`${base}/jobs/${name}/cancel`, { method: 'POST' }).catch(() => null);
    },
  });

  it('the row chip, with the breached checks in its tooltip, on the overdue job only', async () => {
    await ui.page.goto(`${ui.base}/`);
    const chip = ui.page.locator('tr[data-job="slow-etl"] [data-testid=overdue]');
    await chip.waitFor();
    expect((await chip.textContent())?.trim()).toBe('⚠ overdue');
    expect(await chip.getAttribute('title')).toBe('SLA breached: maxRuntime');
    expect(await ui.page.locator('tr[data-job="calm"] [data-testid=overdue]').count()).toBe(0);
  });

  it('the drawer line', async () => {
    await ui.page.locator('tr[data-job="slow-etl"] .jobname').click();
    const line = ui.page.locator('[data-testid=drawer-overdue]');
    await line.waitFor();
    expect((await line.textContent())?.trim()).toBe('⚠ OVERDUE · maxRuntime');
    await ui.page.keyboard.press('Escape');
  });

  it('the wallboard badge and footer count', async () => {
    await ui.page.goto(`${ui.base}/#tv`);
    const tile = ui.page.locator('.tv-tile[data-job="slow-etl"]');
    await tile.waitFor();
    expect(await tile.locator('.tv-overdue-badge').textContent()).toBe('overdue');
    expect(await ui.page.locator('.tv-tile[data-job="calm"] .tv-overdue-badge').count()).toBe(0);
    expect((await ui.page.locator('[data-testid=tv-overdue]').textContent())?.trim()).toBe('· 1 overdue');
    expect(ui.pageErrors).toEqual([]);
  });
});

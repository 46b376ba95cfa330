// Scope-aware dashboard chrome (spec 10 §5.4) on a real daemon with `web.authTokens` (a view token, a control
// token) and `anonymousScopes: [view]`, in headless Chromium: the public view offers no Run/Stop/Pause, no
// run-failing or mitigate, no DAG Trigger/Backfill, no gate buttons, no palette entries or r/x/p, and its
// token button reads `view only`; setting the control token re-probes /whoami and brings the controls back
// (the gate still reads as a state: no approve scope); a view token hides them again. Deep links keep working.
/// <reference lib="dom" />
import { describe, expect, it } from 'vitest';
import { dashboardSuite } from '../helpers/dashboard-suite.ts';
import { scopedTokensYaml } from '../helpers/scoped-tokens.ts';
import { until } from '../helpers/until.ts';

const CONFIG = (port: number, dir: string): string => `state:
  path: ${dir}/state
  topology: single-node
jobs:
  - name: steady
    command: "true"
    schedule: "0 0 1 1 *"
  - name: broken
    command: exit 3
    schedule: "0 0 1 1 *"
dags:
  - name: ship
    tasks:
      - id: prep
        command: echo prepared
      - id: gate
        type: approval
        dependsOn:
          - prep
web:
  listen:
    - http://127.0.0.1:${port}
${scopedTokensYaml()}`;

const CTL = { authorization: 'Bearer ctltok' };

describe('scope-aware chrome (real daemon with scoped tokens + headless Chromium)', () => {
  let runKey = '';
  const posts: string[] = [];
  const ui = dashboardSuite({
    name: 'scopes',
    config: CONFIG,
    context: { viewport: { width: 1500, height: 950 }, timezoneId: 'UTC' },
    actionTimeoutMs: 10_000,
    // The page's own 403s would be console errors; none is expected, so they stay counted.
    ready: async ({ base, page }) => {
      expect((await fetch(`${base}/jobs/broken/start`, { method: 'POST', headers: CTL })).status).toBe(200);
      const trig = await fetch(`${base}/dags/ship/trigger`, { method: 'POST', headers: CTL });
      expect(trig.status).toBe(200);
      runKey = ((await trig.json()) as { runKey: string }).runKey;
      await until('broken failed and the gate waits', 20_000, async () => {
        const jobs = (await (await fetch(`${base}/jobs`)).json()) as Array<{
          name: string;
          last_run: { outcome: string } | null;
        }>;
        const failed = jobs.find((j) => j.name === 'broken')?.last_run?.outcome === 'failure';
        const run = (await (await fetch(`${base}/dags/ship/runs/${runKey}`)).json()) as {
          tasks?: Record<string, { awaitingApproval?: boolean }>;
        };
        return failed && run.tasks?.gate?.awaitingApproval ? true : null;
      });
      page.on('request', (r) => {
        if (r.method() === 'POST') posts.push(new URL(r.url()).pathname);
      });
    },
  });
  const page = () => ui.page;
  const count = (sel: string): Promise<number> => ui.page.locator(sel).count();
  const tokenButton = () => ui.page.locator('[data-testid=token-button]');
  /** Opens the board, then the token dialog from the token button, and enters `token`. */
  const enterToken = async (token: string): Promise<void> => {
    await ui.page.goto(`${ui.base}/`);
    await ui.page.locator('tr.job[data-job="steady"]').waitFor();
    await tokenButton().click();
    await ui.page.locator('[data-testid=token-input]').fill(token);
    await ui.page.locator('[data-testid=token-input]').press('Enter');
  };
  const openPalette = async (query: string): Promise<string[]> => {
    await ui.page.keyboard.press('Control+k');
    await ui.page.locator('[data-testid=palette] input').fill(query);
    const items = await ui.page.locator('[data-testid=palette] .palette-item').allTextContents();
    await ui.page.keyboard.press('Escape');
    return items;
  };

  it('public view: view-only token button, no control anywhere, no token prompt', async () => {
    await page().goto(`${ui.base}/`);
    await page().locator('tr.job[data-job="steady"]').waitFor();
    await expect.poll(() => tokenButton().textContent()).toContain('view only');
    expect(await tokenButton().getAttribute('title')).toBe(
      'Read-only public view. Set a token to run and pause jobs.',
    );
    expect(await count('[role=dialog]')).toBe(0);
    await page().locator('[data-testid=failure-banner]').waitFor();
    for (const sel of [
      'tr.job .btn-run',
      'tr.job .btn-stop',
      'tr.job .btn-pause',
      '[data-testid=run-failing]',
      '[data-testid=mitigate-button]',
      '[data-testid=dag-trigger]',
    ])
      expect(await count(sel), sel).toBe(0);
    // r, x and p on the selected row do nothing; the palette has no run / pause / incident actions.
    await page().locator('tr.job[data-job="steady"] button.jobname').focus();
    await page().keyboard.press('Escape');
    for (const key of ['r', 'p', 'x']) await page().locator('body').press(key);
    const items = await openPalette('steady');
    expect(items.some((t) => t.includes('steady'))).toBe(true);
    expect(items.filter((t) => /run now|pause|resume|cancel/.test(t))).toEqual([]);
    expect((await openPalette('failing')).filter((t) => /Run every failing|mitigate/i.test(t))).toEqual([]);
    await new Promise((r) => setTimeout(r, 500));
    expect(posts).toEqual([]);
    expect(ui.pageErrors).toEqual([]);
  });

  it('deep links still open: #job/<name> without run or pause, #dag/<name>/<runKey> with the gate as a state, #tv', async () => {
    await page().goto(`${ui.base}/#job/steady`);
    await page().locator('[data-testid=drawer]').waitFor();
    expect(await count('[data-testid=drawer-run]')).toBe(0);
    expect(await count('[data-testid=drawer-pause]')).toBe(0);

    await page().goto(`${ui.base}/#dag/ship/${encodeURIComponent(runKey)}`);
    await page().locator('[data-testid=dag-drawer]').waitFor();
    expect(await count('[data-testid=dag-drawer-trigger]')).toBe(0);
    expect(await count('[data-testid=dag-backfill]')).toBe(0);
    await page().locator('[data-testid=dag-tab-tasks]').click();
    const gate = page().locator('[data-testid=dag-task-gate]');
    await expect.poll(() => gate.textContent()).toContain('awaiting approval');
    expect(await gate.locator('[data-testid=dag-approve]').count()).toBe(0);
    expect(await gate.locator('[data-testid=dag-reject]').count()).toBe(0);

    await page().goto(`${ui.base}/#dag/ship`);
    await page().locator('[data-testid=dag-drawer]').waitFor();

    await page().goto(`${ui.base}/#tv`);
    await page().locator('[data-testid=tv-verdict]').waitFor();
  });

  it('view only opens the token dialog; the control token brings the controls back, not the gate buttons', async () => {
    await enterToken('ctltok');
    await expect.poll(() => tokenButton().textContent()).not.toContain('view only');
    await page().locator('tr.job[data-job="steady"] .btn-run').waitFor();
    expect(await count('tr.job[data-job="steady"] .btn-pause')).toBe(1);
    expect(await count('[data-testid=run-failing]')).toBe(1);
    expect(await count('[data-testid=mitigate-button]')).toBe(1);
    expect(await count('[data-testid=dag-trigger]')).toBeGreaterThan(0);
    expect((await openPalette('steady')).some((t) => t.includes('run now'))).toBe(true);
    // control without approve: the waiting gate is still a state.
    await page().goto(`${ui.base}/#dag/ship/${encodeURIComponent(runKey)}`);
    await page().locator('[data-testid=dag-drawer-trigger]').waitFor();
    await page().locator('[data-testid=dag-tab-tasks]').click();
    const gate = page().locator('[data-testid=dag-task-gate]');
    await expect.poll(() => gate.textContent()).toContain('awaiting approval');
    expect(await gate.locator('[data-testid=dag-approve]').count()).toBe(0);
  });

  it('a view token: not the public view, and still no controls', async () => {
    await enterToken('viewtok');
    await until('the run buttons to go', 8000, async () =>
      (await count('tr.job .btn-run')) === 0 ? true : null,
    );
    expect((await tokenButton().textContent())?.trim()).toBe('token');
    expect(await count('tr.job .btn-pause')).toBe(0);
    expect(await count('[data-testid=run-failing]')).toBe(0);
    expect(posts).toEqual([]);
  });
});

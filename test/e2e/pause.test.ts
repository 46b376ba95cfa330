import { describe, expect, it } from 'vitest';
import { dashboardSuite } from '../helpers/dashboard-suite.ts';
import { until } from '../helpers/until.ts';

const CONFIG = (port: number) => `jobs:
  - name: nightly
    command: "true"
    schedule: "15 3 * * *"
  - name: other
    command: "true"
    schedule: "45 7 * * *"
web:
  listen:
    - http://127.0.0.1:${port}
`;

type Paused = { since: string; until: string; by: string; channel: string } | null;

describe('dashboard pause and resume (real daemon + headless Chromium)', () => {
  const pausedOf = async (name: string): Promise<Paused> =>
    ((await (await fetch(`${ui.base}/jobs/${name}`)).json()) as { paused: Paused }).paused;
  const rowText = (name: string) => ui.page.locator(`tr.job[data-job="${name}"]`).innerText();

  const ui = dashboardSuite({
    name: 'pause',
    config: CONFIG,
    context: { viewport: { width: 1400, height: 800 } },
    actionTimeoutMs: 15_000,
    ready: async () => {
      await ui.page.goto(ui.base);
      await ui.page.locator('tr.job[data-job="nightly"]').waitFor();
    },
  });

  it('the row button pauses for an hour; the row shows Paused, the expiry chip and no next fire', async () => {
    await ui.page.locator('tr.job[data-job="nightly"] button.btn-pause').click();
    await ui.page.getByText('⏸ paused nightly').waitFor();
    const p = await until('the pause on the daemon', 5000, () => pausedOf('nightly'));
    expect(Date.parse(p.until) - Date.parse(p.since)).toBe(3_600_000);
    expect(p).toMatchObject({ by: 'api', channel: 'api' });
    await until('the paused row', 8000, async () =>
      (await rowText('nightly')).includes('Paused') ? true : null,
    );
    const text = await rowText('nightly');
    expect(text).toMatch(/⏸ until \d\d:\d\d UTC/);
    expect(text).toContain('⏵ Resume');
    expect(await ui.page.locator('tr.job[data-job="nightly"] .c-next').innerText()).toBe('—');
    expect(await pausedOf('other')).toBeNull();
  });

  it('p on the selected row resumes it', async () => {
    await ui.page.locator('tr.job[data-job="nightly"] button.jobname').focus();
    await ui.page.keyboard.press('Escape');
    await ui.page.locator('body').press('p');
    await ui.page.getByText('⏵ resumed nightly').waitFor();
    await until('the resume on the daemon', 5000, async () =>
      (await pausedOf('nightly')) === null ? true : null,
    );
    await until('the row back to normal', 8000, async () =>
      (await rowText('nightly')).includes('⏸ Pause') ? true : null,
    );
  });

  it('the drawer pauses: the chip, the paused pill and the palette entry; the drawer resumes', async () => {
    await ui.page.goto(`${ui.base}/#job/other`);
    const button = ui.page.locator('[data-testid=drawer-pause]');
    expect((await button.textContent())?.trim()).toBe('⏸ Pause');
    await button.click();
    await ui.page.getByText('⏸ paused other').waitFor();
    await until('the pause on the daemon', 5000, () => pausedOf('other'));
    const pill = ui.page.locator('[data-testid=paused-pill]');
    await pill.waitFor();
    expect((await pill.textContent())?.trim()).toBe('⏸ 1 paused');
    await until('the chip on the row', 8000, async () =>
      /⏸ until \d\d:\d\d UTC/.test(await rowText('other')) ? true : null,
    );
    await until('the drawer button turned', 8000, async () =>
      (await button.textContent())?.trim() === '⏵ Resume' ? true : null,
    );
    // The palette offers the resume of the paused job.
    await ui.page.keyboard.press('Control+k');
    await ui.page.locator('[data-testid=palette] input').fill('other resume');
    const items = await ui.page.locator('[data-testid=palette] .palette-item').allTextContents();
    expect(items.some((t) => t.startsWith('other › resume'))).toBe(true);
    await ui.page.keyboard.press('Escape');
    await button.click();
    await ui.page.getByText('⏵ resumed other').waitFor();
    await until('the resume on the daemon', 5000, async () =>
      (await pausedOf('other')) === null ? true : null,
    );
    await until('the pill gone', 8000, async () => ((await pill.count()) === 0 ? true : null));
  });
});

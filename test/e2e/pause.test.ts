// The dashboard's pause control end to end (spec 10 §1.5): the row's Pause button pauses a job for an
// hour (the daemon's record says by api, one hour), the row then reads Paused with the expiry chip and
// `—` for Next, and `p` on the selected row resumes it. One real daemon, one headless Chromium.
/// <reference lib="dom" />
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/fleet/ports.ts';
import { openContext } from '../helpers/browser.ts';
import { type E2eDaemon, requireE2ePrereqs, startE2eDaemon, tearDownE2e } from '../helpers/e2e-daemon.ts';
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
  let dir = '';
  let daemon: E2eDaemon | null = null;
  let base = '';
  let context: BrowserContext | null = null;
  let page: Page;
  const pausedOf = async (name: string): Promise<Paused> =>
    ((await (await fetch(`${base}/jobs/${name}`)).json()) as { paused: Paused }).paused;
  const rowText = (name: string) => page.locator(`tr.job[data-job="${name}"]`).innerText();

  beforeAll(async () => {
    requireE2ePrereqs();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    dir = mkdtempSync(join(tmpdir(), 'cronstable-e2e-pause-'));
    writeFileSync(join(dir, 'cronstable.yaml'), CONFIG(port));
    daemon = await startE2eDaemon(dir, { base });
    context = await openContext({ viewport: { width: 1400, height: 800 } });
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(8000);
    await page.goto(base);
    await page.locator('tr.job[data-job="nightly"]').waitFor();
  }, 60_000);
  afterAll(async () => {
    await tearDownE2e(context, daemon, dir);
  });

  it('the row button pauses for an hour; the row shows Paused, the expiry chip and no next fire', async () => {
    await page.locator('tr.job[data-job="nightly"] button.btn-pause').click();
    await page.getByText('⏸ paused nightly').waitFor();
    const p = await until('the pause on the daemon', 5000, () => pausedOf('nightly'));
    expect(Date.parse(p.until) - Date.parse(p.since)).toBe(3_600_000);
    expect(p).toMatchObject({ by: 'api', channel: 'api' });
    await until('the paused row', 8000, async () =>
      (await rowText('nightly')).includes('Paused') ? true : null,
    );
    const text = await rowText('nightly');
    expect(text).toMatch(/⏸ until \d\d:\d\d UTC/);
    expect(text).toContain('⏵ Resume');
    expect(await page.locator('tr.job[data-job="nightly"] .c-next').innerText()).toBe('—');
    expect(await pausedOf('other')).toBeNull();
  });

  it('p on the selected row resumes it', async () => {
    await page.locator('tr.job[data-job="nightly"] button.jobname').focus();
    await page.keyboard.press('Escape');
    await page.locator('body').press('p');
    await page.getByText('⏵ resumed nightly').waitFor();
    await until('the resume on the daemon', 5000, async () =>
      (await pausedOf('nightly')) === null ? true : null,
    );
    await until('the row back to normal', 8000, async () =>
      (await rowText('nightly')).includes('⏸ Pause') ? true : null,
    );
  });
});

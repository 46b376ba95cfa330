// The slot strip and the unaccounted-slots pill end to end (issue 15 part 2): a real daemon with a
// state store, a Forbid job whose runs outlast the next slot, and a job whose ledger has a gap (seeded
// before the daemon starts), drawn by one headless Chromium and checked against the API answers.
// DOM types for the callbacks that run in the page (evaluate, $$eval).
/// <reference lib="dom" />
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.ts';
import { dashboardSuite } from '../helpers/dashboard-suite.ts';
import { shot } from '../helpers/shots.ts';
import { until } from '../helpers/until.ts';

const CONFIG = (port: number, state: string): string => `state:
  path: ${state}
  topology: single-node
jobs:
  - name: busy
    command: sleep 1.3
    schedule: "* * * * * * *"
    concurrencyPolicy: Forbid
  - name: gappy
    command: "true"
    schedule: "0 * * * *"
web:
  listen:
    - http://127.0.0.1:${port}
`;

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies, checked field by field below
type Json = any;

describe('slot strip and unaccounted pill (real daemon + headless Chromium)', () => {
  const api = (path: string): Promise<Json> => ui.api<Json>(path);
  const hour = 3_600_000;
  const lastHour = Math.floor(Date.now() / hour) * hour;

  const ui = dashboardSuite({
    name: 'slots',
    config: (port, dir) => CONFIG(port, join(dir, 'state')),
    context: { viewport: { width: 1400, height: 900 }, colorScheme: 'dark' },
    consoleErrors: false,
    seed: async (dir) => {
      // gappy ran 3 hours ago, then nobody recorded its next three slots, the one of this hour included
      // (no finished_at: the start-up catch-up has no watermark to look back from).
      const store = await openStore({
        path: join(dir, 'state'),
        namespace: 'default',
        topology: 'single-node',
        inline: true,
        writer: 'old-node#1',
      });
      await store.append('runs/gappy', {
        outcome: 'success',
        scheduled_at: new Date(lastHour - 3 * hour).toISOString(),
        run_id: 'seeded-run',
        trigger: 'schedule',
        attempt: 0,
      });
      await store.close();
    },
    ready: async () => {
      await until('a ran and a skipped-overlap slot of busy', 20_000, async () => {
        const b = await api('/jobs/busy/slots');
        const fates = b.slots.map((s: Json) => s.outcome);
        return fates.includes('ran') && fates.includes('skipped-overlap') ? true : null;
      });
      await ui.page.goto(`${ui.base}/`);
      await ui.page.waitForSelector('tr.job');
    },
  });

  it('shows the fleet-wide unaccounted count in the header, red above zero', async () => {
    const answer = await api('/slots/unaccounted');
    expect(answer.unaccounted).toBe(3);
    expect(answer.jobs).toEqual([{ name: 'gappy', unaccounted: 3 }]);
    const pill = ui.page.locator('[data-testid=unaccounted]');
    await pill.waitFor();
    expect((await pill.textContent())?.replace(/\s+/g, ' ').trim()).toBe('3 unaccounted');
    expect(await pill.getAttribute('class')).toContain('pill-hot');
    expect(await pill.getAttribute('title')).toContain('gappy 3');
  });

  it('rests while refresh is paused: one request on load, none over the next minutes', async () => {
    const asked: number[] = [];
    const onRequest = (r: { url(): string }) => {
      if (r.url().endsWith('/slots/unaccounted')) asked.push(Date.now());
    };
    await ui.page.goto(`${ui.base}/`);
    await ui.page.evaluate(() => localStorage.setItem('cronstable.refresh', 'paused'));
    await ui.page.clock.install();
    ui.page.on('request', onRequest);
    try {
      await ui.page.reload();
      await ui.page.locator('[data-testid=unaccounted]').waitFor();
      await ui.page.clock.runFor(95_000);
      await ui.page.waitForTimeout(300);
      expect(asked).toHaveLength(1);
      // Back to live refresh: it polls again (every 30 s).
      await ui.page.evaluate(() => localStorage.setItem('cronstable.refresh', '3'));
      await ui.page.reload();
      await ui.page.locator('[data-testid=unaccounted]').waitFor();
      const before = asked.length;
      await ui.page.clock.runFor(61_000);
      await expect.poll(() => asked.length - before, { timeout: 5_000 }).toBeGreaterThanOrEqual(2);
    } finally {
      ui.page.off('request', onRequest);
    }
  });

  it('opens the token prompt when its request answers 401, like every other request', async () => {
    // A token rotated on the daemon: the pill's request is the first to learn it.
    await ui.page.route('**/slots/unaccounted', (route) =>
      route.fulfill({ status: 401, contentType: 'application/json', body: '{"error":"unauthorized"}' }),
    );
    try {
      await ui.page.goto(`${ui.base}/`);
      await ui.page.locator('[data-testid=token-input]').waitFor({ timeout: 10_000 });
      expect(await ui.page.locator('[data-testid=unaccounted]').count()).toBe(0);
    } finally {
      await ui.page.unroute('**/slots/unaccounted');
    }
  });

  it('draws one cell per slot in the drawer, coloured by outcome, with node and reason on hover', async () => {
    await ui.page.goto(`${ui.base}/#job/busy/history`);
    const strip = ui.page.locator('[data-testid=drawer] [data-testid=slot-strip]');
    await strip.waitFor();
    await strip.locator('li[data-outcome=skipped-overlap]').first().waitFor();
    const cells = await strip.locator('li').evaluateAll((els) =>
      els.map((e) => ({
        outcome: e.getAttribute('data-outcome'),
        title: e.getAttribute('title'),
        cls: e.className,
      })),
    );
    const answer = await api('/jobs/busy/slots');
    const known = new Set(answer.slots.map((s: Json) => s.outcome));
    expect(cells.length).toBeGreaterThanOrEqual(2);
    for (const c of cells)
      expect(known.has(c.outcome) || c.outcome === 'running' || c.outcome === 'unaccounted').toBe(true);
    const ran = cells.find((c) => c.outcome === 'ran')!;
    expect(ran.cls).toContain('slot-ok');
    expect(ran.title).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ ran · on \S+/);
    const skipped = cells.find((c) => c.outcome === 'skipped-overlap')!;
    expect(skipped.cls).toContain('slot-skip');
    await shot(ui.page.locator('[data-testid=drawer]'), 'slot-strip.png');

    await ui.page.goto(`${ui.base}/#job/gappy/history`);
    const gap = ui.page.locator('[data-testid=drawer] [data-testid=slot-strip]');
    await gap.locator('li[data-outcome=unaccounted]').first().waitFor();
    const gappy = await gap
      .locator('li')
      .evaluateAll((els) => els.map((e) => [e.getAttribute('data-outcome'), e.getAttribute('data-node')]));
    // A run that crosses the top of an hour also sees gappy's new slot fire on this daemon.
    const crossed = Math.floor(Date.now() / hour) * hour > lastHour;
    expect(crossed ? gappy.slice(0, 4) : gappy).toEqual([
      ['ran', 'old-node'],
      ['unaccounted', ''],
      ['unaccounted', ''],
      ['unaccounted', ''],
    ]);
    if (crossed)
      expect(gappy.slice(4).map(([outcome]) => outcome)).toEqual([expect.stringMatching(/^(ran|running)$/)]);
    expect(ui.pageErrors).toEqual([]);
  });
});

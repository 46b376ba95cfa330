// The schedule and state views end to end (issue 13 items 2, 4, 5): one real daemon with a state store, jobs that
// share minutes, per-second jobs and a monitored long run, driven by one headless Chromium. Each view is checked
// against the API answer it was drawn from and by axe-core (WCAG A/AA); screenshots (CRONSTABLE_SCREENSHOTS=1) go to test/e2e/screenshots/.
// DOM types for the callbacks that run in the page (evaluate, $$eval).
/// <reference lib="dom" />
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { axeViolations } from '../helpers/axe.ts';
import { dashboardSuite } from '../helpers/dashboard-suite.ts';
import { shot } from '../helpers/shots.ts';
import { until } from '../helpers/until.ts';

const CONFIG = (port: number, state: string): string => `# e2e fixture for the schedule and state views
state:
  path: ${state}
  topology: single-node
jobs:
  - name: pulse-fast
    command: "true"
    schedule: "*/2 * * * * * *"
  - name: tick-7s
    command: "true"
    schedule: "*/7 * * * * * *"
  - name: hourly-rollup
    command: "true"
    schedule: "15 * * * *"
  - name: hourly-invoices
    command: "true"
    schedule: "15 * * * *"
  - name: hourly-search-stats
    command: "true"
    schedule: "15 * * * *"
  - name: nightly-backup
    command: "true"
    schedule: "30 2 * * *"
  - name: nightly-vacuum
    command: "true"
    schedule: "30 2 * * *"
  - name: business-hours
    command: "true"
    schedule: "*/20 9-17 * * mon-fri"
    timezone: America/New_York
  - name: kv-writer
    command: >-
      cronstable state set greeting hello --global && cronstable state set build 42 &&
      cronstable state set flags '{"a":[1,2]}' --json && cronstable cursor advance offset 4711 &&
      cronstable idempotent invoice-2026-11 && cronstable lock run nightly -- true
    schedule: "@reboot"
  - name: brief
    command: sleep 1.5
    schedule: "@reboot"
    monitorResources:
      interval: 0.5
  - name: hog
    command: sleep 900
    schedule: "@reboot"
    monitorResources:
      interval: 0.5
web:
  listen:
    - http://127.0.0.1:${port}
  nodeHistory:
    interval: 1
`;

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON bodies, checked field by field below
type Json = any;

describe('schedule, state and resource views (real daemon + headless Chromium)', () => {
  const api = (path: string): Promise<Json> => ui.api<Json>(path);

  const ui = dashboardSuite({
    name: 'sched',
    config: (port, dir) => CONFIG(port, join(dir, 'state')),
    context: { viewport: { width: 1600, height: 1000 }, colorScheme: 'dark', timezoneId: 'Europe/Berlin' },
    // Under the 30 s test: a blocked click (CI once spent a whole test on one) fails with its call log.
    actionTimeoutMs: 15_000,
    ready: async () => {
      // The @reboot state writer has finished before the views look.
      // Six CLI processes one after another: seconds each when a loaded CI machine is busy.
      const run = await until("kv-writer's run", 40_000, async () => {
        const jobs = (await api('/jobs')) as Json[];
        return jobs.find((j) => j.name === 'kv-writer')?.last_run ?? null;
      }).catch((err: Error) => {
        throw new Error(`${err.message}; log:\n${ui.daemon.logs()}`);
      });
      if (run.outcome !== 'success') throw new Error(`kv-writer failed: ${ui.daemon.logs()}`);
      await ui.page.goto(`${ui.base}/`);
      await ui.page.waitForSelector('tr.job');
    },
  });

  it('⌁ radar: the first entry is the soonest next fire of /jobs, the track marks the next 10 minutes', async () => {
    await ui.page.locator('[data-testid=view-radar]').click();
    await ui.page.waitForSelector('.radar-row');
    expect(ui.page.url()).toContain('#radar');
    // Read the radar and /jobs in one page task, so both see the same instant (within a few ms).
    const check = async () =>
      ui.page.evaluate(async () => {
        const t = Date.now();
        const jobs = (await (await fetch('/jobs')).json()) as {
          name: string;
          enabled: boolean;
          scheduled_in: number | null;
        }[];
        const soonest = Math.min(
          ...jobs.filter((j) => j.enabled && j.scheduled_in !== null).map((j) => t + j.scheduled_in! * 1000),
        );
        const names = jobs
          .filter(
            (j) =>
              j.enabled && j.scheduled_in !== null && Math.abs(t + j.scheduled_in * 1000 - soonest) < 1000,
          )
          .map((j) => j.name);
        return {
          soonest,
          names,
          t,
        };
      });
    await expect
      .poll(
        async () => {
          const r = await check();
          const first = ui.page.locator('.radar-row').first();
          const at = Number(await first.getAttribute('data-at'));
          const job = (await first.getAttribute('data-job')) ?? '';
          // A fire passing between the fetch and the read moves the radar on: ask again.
          return at > r.t && Math.abs(at - r.soonest) < 1000 && r.names.includes(job);
        },
        { timeout: 10_000 },
      )
      .toBe(true);
    expect(await ui.page.locator('.radar-row').count()).toBe(8);
    // pulse-fast fires every 2 s: 300 fires in 10 minutes, capped at 120 markers; tick-7s ~86.
    expect(await ui.page.locator('.radar-mark[data-job="pulse-fast"]').count()).toBe(120);
    expect(await ui.page.locator('.radar-row[data-job="pulse-fast"] .radar-more').textContent()).toMatch(
      /×(299|300|301)/,
    );
    expect(await ui.page.locator('[data-testid=radar-countdown]').first().textContent()).toMatch(
      /^(in (?:<1s|[12]s)|due)$/,
    );
    await shot(ui.page, 'radar.png');
    expect(await axeViolations(ui.page, '[data-testid=radar]')).toEqual([]);
  }, 30_000);

  it('▥ pressure: the grid, busiest cell, duplicate groups and a suggested slot match /schedule/*', async () => {
    const pressure = ui.page.waitForResponse((r) => r.url().includes('/schedule/pressure'));
    await ui.page.locator('[data-testid=view-pressure]').click();
    const body = (await (await pressure).json()) as Json;
    await ui.page.waitForSelector('[data-testid=pressure-grid]');
    // The busiest cell on the page is the one of the grid the route answered.
    const top = body.top_cells[0];
    const max = Math.max(...body.grid.flat());
    expect(top.fires).toBe(max);
    const busiest = await ui.page.locator('[data-testid=pressure-busiest]').textContent();
    expect(busiest).toContain(`· ${max} fires`);
    const cells = await ui.page
      .locator('[data-testid=pressure-grid] td.pg-cell')
      .evaluateAll((tds) => tds.map((td) => Number(td.getAttribute('data-fires'))));
    expect(cells).toEqual(body.grid.flat());
    expect(await ui.page.locator('[data-testid=pressure-meta]').textContent()).toContain(
      `${body.total_fires} fires`,
    );
    // Duplicate groups as /schedule/duplicates lists them: the three :15 jobs, then the two nightly ones.
    const dups = await api('/schedule/duplicates');
    expect(dups.groups.map((g: Json) => g.count)).toEqual([3, 2]);
    const rows = ui.page.locator('[data-testid=duplicates] tbody tr');
    expect(await rows.count()).toBe(dups.groups.length);
    expect(await rows.first().textContent()).toContain('hourly-invoices');
    // Suggest an hourly slot: the page shows the route's answer.
    const suggest = ui.page.waitForResponse((r) => r.url().includes('/schedule/suggest?period=hourly'));
    await ui.page.locator('[data-testid=suggest-hourly]').click();
    const slot = (await (await suggest).json()) as Json;
    await expect
      .poll(() => ui.page.locator('[data-testid=suggestion]').textContent())
      .toContain(slot.expression);
    expect(body.by_minute_fires[slot.minute]).toBe(Math.min(...body.by_minute_fires));
    await shot(ui.page, 'pressure.png');
    expect(await axeViolations(ui.page, '[data-testid=pressure]')).toEqual([]);
    // The local switch asks for the viewer's zone.
    const local = ui.page.waitForResponse((r) => r.url().includes('/schedule/pressure?tz=Europe%2FBerlin'));
    await ui.page.locator('[data-testid=pressure-local]').click();
    expect(((await (await local).json()) as Json).timezone).toBe('Europe/Berlin');
    await ui.page.locator('[data-testid=pressure-utc]').click();
  }, 30_000);

  it('the cron sandbox previews the same 12 fires and description as /schedule/preview', async () => {
    await ui.page.locator('[data-testid=sandbox-button]').click();
    await ui.page.waitForSelector('[data-testid=sandbox]');
    await ui.page.locator('[data-testid=sandbox-expr]').fill('0 9 * * 1-5');
    await ui.page.locator('[data-testid=sandbox-zone]').fill('America/New_York');
    await expect.poll(() => ui.page.locator('[data-testid=sandbox-fires] li').count()).toBe(12);
    const shown = await ui.page
      .locator('[data-testid=sandbox-fires] li')
      .evaluateAll((lis) => lis.map((li) => Number(li.getAttribute('data-at'))));
    const server = await api(
      `/schedule/preview?expr=${encodeURIComponent('0 9 * * 1-5')}&tz=America/New_York&count=12`,
    );
    expect(shown).toEqual(server.fires.map((f: string) => Date.parse(f)));
    const description = await ui.page.locator('[data-testid=sandbox-description]').textContent();
    expect(description?.toLowerCase()).toBe(server.description.toLowerCase());
    expect(await ui.page.locator('[data-testid=sandbox-fires] li').first().textContent()).toContain(
      '09:00:00',
    );
    await shot(ui.page, 'sandbox.png');
    expect(await axeViolations(ui.page, '[data-testid=sandbox]')).toEqual([]);
    // A bad expression is refused with the engine's reason, as the route refuses it.
    await ui.page.locator('[data-testid=sandbox-expr]').fill('61 * * * *');
    const bad = await fetch(`${ui.base}/schedule/preview?expr=${encodeURIComponent('61 * * * *')}`);
    const reason = ((await bad.json()) as Json).error as string;
    await expect.poll(() => ui.page.locator('[data-testid=sandbox-verdict]').textContent()).toContain(reason);
    await ui.page.keyboard.press('Escape');
    await expect.poll(() => ui.page.locator('[data-testid=sandbox]').count()).toBe(0);
  }, 30_000);

  it('▦ heat: each job row counts the runs /jobs/{name}/runs retained in the window, all read from one /activity', async () => {
    // Spec 10 §4.4: the heat map asks /activity once instead of /jobs/{name}/runs per job.
    const asked: string[] = [];
    const onRequest = (r: { url(): string }) => asked.push(new URL(r.url()).pathname);
    ui.page.on('request', onRequest);
    await ui.page.locator('[data-testid=view-heat]').click();
    await ui.page.waitForSelector('[data-testid=heat-grid]');
    const jobs = (await api('/jobs')) as Json[];
    expect(await ui.page.locator('[data-testid=heat-grid] tbody tr').count()).toBe(jobs.length);
    // kv-writer ran once at boot and never again: a stable count to compare.
    const runs = await api('/jobs/kv-writer/runs');
    await expect
      .poll(() => ui.page.locator('tr[data-job="kv-writer"]').getAttribute('data-runs'))
      .toBe(String(runs.runs.length));
    expect(runs.runs.length).toBe(1);
    // pulse-fast keeps running; the page's count is at most what the route holds by now.
    await expect
      .poll(
        async () => Number(await ui.page.locator('tr[data-job="pulse-fast"]').getAttribute('data-runs')),
        {
          timeout: 15_000,
        },
      )
      .toBeGreaterThan(0);
    const pulse = Number(await ui.page.locator('tr[data-job="pulse-fast"]').getAttribute('data-runs'));
    expect(pulse).toBeLessThanOrEqual((await api('/jobs/pulse-fast/runs')).runs.length);
    ui.page.off('request', onRequest);
    expect(asked).toContain('/activity');
    expect(asked.filter((p) => /^\/jobs\/[^/]+\/runs$/.test(p))).toEqual([]);
    await ui.page.locator('[data-testid=heat-6h]').click();
    await expect.poll(() => ui.page.locator('[data-testid=heat-meta]').textContent()).toContain('15 min');
    await shot(ui.page, 'heat.png');
    expect(await axeViolations(ui.page, '[data-testid=heat]')).toEqual([]);
  }, 30_000);

  it('⛁ state: shown with a store; the KV tab lists exactly the documents /state/documents serves', async () => {
    const state = await api('/state');
    expect(state.enabled).toBe(true);
    await ui.page.locator('[data-testid=view-state]').click();
    await ui.page.waitForSelector('[data-testid=state]');
    await expect.poll(() => ui.page.locator('[data-testid=state-records]').textContent()).toMatch(/^\d+$/);
    // Overview: one row per record-stream prefix of /state.
    expect(await ui.page.locator('[data-testid=state-prefixes] tbody tr').count()).toBe(
      Object.keys(state.records.prefixes).length,
    );
    await ui.page.locator('[data-testid=stab-kv]').click();
    await ui.page.waitForSelector('[data-testid=state-docs-kv] tbody tr[data-key]');
    const jobs = (await api('/jobs')) as Json[];
    const namespaces: string[] = state.documents
      ? state.documents.filter((d: Json) => d.namespace.startsWith('kv/')).map((d: Json) => d.namespace)
      : ['kv/global', ...jobs.map((j) => `kv/${j.name}`)];
    const expected: string[] = [];
    for (const ns of namespaces) {
      const docs = await api(`/state/documents?ns=${encodeURIComponent(ns)}`);
      for (const d of docs.documents) expected.push(`${ns}|${d.key}|${d.valueType}`);
    }
    const shown = await ui.page.locator('[data-testid=state-docs-kv] tbody tr[data-key]').evaluateAll((trs) =>
      trs.map((tr) => {
        return `${tr.getAttribute('data-ns')}|${tr.getAttribute('data-key')}|${tr.children[2]?.textContent}`;
      }),
    );
    expect(shown.sort()).toEqual(expected.sort());
    expect(shown).toEqual(
      expect.arrayContaining([
        'kv/global|greeting|string',
        'kv/kv-writer|build|string',
        'kv/kv-writer|flags|object',
      ]),
    );
    // Values never reach the page.
    expect(await ui.page.locator('[data-testid=state]').textContent()).not.toContain('hello');
    await shot(ui.page, 'state-kv.png');
    expect(await axeViolations(ui.page, '[data-testid=state]')).toEqual([]);
    // Keyboard: → moves from KV to cursors, which lists the cursor documents of /state/documents.
    await ui.page.locator('[data-testid=stab-kv]').focus();
    await ui.page.keyboard.press('ArrowRight');
    await expect
      .poll(() => ui.page.locator('[data-testid=stab-cursor]').getAttribute('aria-selected'))
      .toBe('true');
    const cursors = await api('/state/documents?ns=cursor/kv-writer');
    expect(cursors.documents.map((d: Json) => d.key)).toEqual(['offset']);
    await expect
      .poll(() => ui.page.locator('[data-testid=state-docs-cursor] tr[data-key]').getAttribute('data-ns'))
      .toBe('cursor/kv-writer');
    expect(await ui.page.locator('[data-testid=state]').textContent()).not.toContain('4711');
    await ui.page.locator('[data-testid=stab-idem]').click();
    await expect
      .poll(() => ui.page.locator('[data-testid=state-docs-idem] tr[data-key]').getAttribute('data-key'))
      .toBe('invoice-2026-11');
    // Locks: the lease rows of /state (released after its run, the row stays with its fence).
    await ui.page.locator('[data-testid=stab-locks]').click();
    const leases = (await api('/state')).leases as Json[];
    expect(leases.map((l) => l.name)).toContain('lock/kv-writer/nightly#0');
    await expect
      .poll(() =>
        ui.page
          .locator('[data-testid=state-locks] tr[data-lease]')
          .evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-lease'))),
      )
      .toEqual(leases.map((l) => l.name));
    await shot(ui.page, 'state-locks.png');
    // The runs tab lists the ledger streams and opens one, newest record first.
    await ui.page.locator('[data-testid=stab-runs]').click();
    const row = ui.page.locator('[data-testid=state-streams] tr[data-stream="runs/kv-writer"]');
    await row.locator('button').click();
    const records = await api('/state/records?stream=runs/kv-writer');
    await expect
      .poll(() => ui.page.locator('[data-testid=state-records-table] tbody tr').count())
      .toBe(records.records.length);
  }, 30_000);

  it('node card: the header meter opens the /node/history chart', async () => {
    await ui.page.locator('[data-testid=node-meter]').click();
    await ui.page.waitForSelector('[data-testid=node-chart]', { timeout: 10_000 });
    const samples = Number(await ui.page.locator('[data-testid=node-samples]').textContent());
    const history = await api('/node/history');
    expect(history.enabled).toBe(true);
    expect(history.interval).toBe(1);
    // The page fetched a moment before the test did; the 1 s sampler may have added a point since.
    expect(history.points.length - samples).toBeGreaterThanOrEqual(0);
    expect(history.points.length - samples).toBeLessThanOrEqual(2);
    await shot(ui.page, 'node-history.png');
    await ui.page.keyboard.press('Escape');
    await expect.poll(() => ui.page.locator('[data-testid=node-history]').count()).toBe(0);
  }, 30_000);

  it('Resources tab: /jobs/{name}/resources of the monitored running job, refetched every 2 s', async () => {
    await ui.page.goto(`${ui.base}/#job/hog/resources`);
    await ui.page.waitForSelector('[data-testid=resources]');
    const res = await api('/jobs/hog/resources');
    expect(res.monitored).toBe(true);
    await expect.poll(() => ui.page.locator('[data-testid=resources]').textContent()).toContain('monitored');
    await expect
      .poll(
        async () => Number(await ui.page.locator('[data-testid=resources]').getAttribute('data-fetches')),
        {
          timeout: 8000,
        },
      )
      .toBeGreaterThanOrEqual(3);
    const jobs = (await api('/jobs')) as Json[];
    const hog = jobs.find((j) => j.name === 'hog');
    expect(hog.running).toBe(true);
    // The sampler reads the running instance's process tree from /proc every 0.5 s.
    const live = await until('live samples of hog', 10_000, async () => {
      const r = await api('/jobs/hog/resources');
      return r.live.length === 1 && r.live[0].series.length >= 2 ? r.live[0] : null;
    });
    expect(hog.pids).toContain(live.pid);
    expect(live.current.rss_bytes).toBeGreaterThan(0);
    await expect
      .poll(() => ui.page.locator('[data-testid=resources-live]').first().getAttribute('data-pid'))
      .toBe(String(live.pid));
    await expect
      .poll(() => ui.page.locator('[data-testid=resources-rss]').textContent())
      .toMatch(/\d+(\.\d)? (B|KiB|MiB)/);
    await expect.poll(() => ui.page.locator('[data-testid=resources-live] svg.reschart').count()).toBe(1);
    // The drawer header shows the same live figures.
    await expect
      .poll(() => ui.page.locator('[data-testid=live-usage]').textContent())
      .toMatch(/%.*(B|KiB|MiB)/);
    // The refresh choice is honoured: at 1 s the page asks at least twice as often.
    await ui.page.locator('[data-testid=resources-every]').selectOption('1');
    const before = Number(await ui.page.locator('[data-testid=resources]').getAttribute('data-fetches'));
    const t0 = Date.now();
    await expect
      .poll(
        async () =>
          Number(await ui.page.locator('[data-testid=resources]').getAttribute('data-fetches')) - before,
        {
          timeout: 5000,
        },
      )
      .toBeGreaterThanOrEqual(2);
    // Two more fetches in well under the 4 s two 2-second intervals would take.
    expect(Date.now() - t0).toBeLessThan(3500);
    await shot(ui.page, 'resources.png');
    // A finished monitored run keeps its samples, joined with its run record.
    const brief = await until('the sampled run of brief', 10_000, async () => {
      const r = await api('/jobs/brief/resources');
      return r.runs.length === 1 ? r.runs[0] : null;
    });
    expect(brief).toMatchObject({ outcome: 'success', exit_code: 0 });
    expect(brief.resources.samples).toBeGreaterThanOrEqual(2);
    // /jobs/brief/runs carries the same figures on the run and in the stats.
    const briefRuns = await api('/jobs/brief/runs');
    expect(briefRuns.runs[0].resources.max_rss_bytes).toBe(brief.resources.max_rss_bytes);
    expect(briefRuns.stats.max_rss_bytes).toBe(brief.resources.max_rss_bytes);
    expect(briefRuns.stats.last_cpu_seconds).toBe(brief.resources.cpu_total_seconds);
    await ui.page.goto(`${ui.base}/#job/brief/resources`);
    await expect.poll(() => ui.page.locator('[data-testid=resources-runs] tbody tr').count()).toBe(1);
    expect(await ui.page.locator('[data-testid=resources-runs] tbody tr').textContent()).toContain('success');
    expect(await axeViolations(ui.page, '[data-testid=drawer]')).toEqual([]);
    expect(ui.pageErrors).toEqual([]);
  }, 30_000);
});

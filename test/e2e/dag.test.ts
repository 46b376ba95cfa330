// The dashboard's DAG card and drawer end to end (spec 06 §9.2, spec 04 §9): a real daemon
// (dist/cronstable.mjs) with one DAG (a task pushing an XCom list, a fan-out mapped over it, an approval
// gate, a final task printing slowly) driven by headless Chromium: trigger from the card, watch the graph
// colour, approve from the Tasks tab, follow the live log, see the run succeed, read the XCom; then the 409
// message when a gate was already decided. Screenshots (CRONSTABLE_SCREENSHOTS=1) go to test/e2e/screenshots/.
// DOM types for the callbacks that run in the page (evaluate, $$eval).
/// <reference lib="dom" />
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/fleet/ports.ts';
import { axeViolations } from '../helpers/axe.ts';
import { openContext } from '../helpers/browser.ts';
import { type E2eDaemon, requireE2ePrereqs, startE2eDaemon, tearDownE2e } from '../helpers/e2e-daemon.ts';
import { shot } from '../helpers/shots.ts';
import { until } from '../helpers/until.ts';

const CONFIG = (port: number, stateDir: string): string => `# e2e fixture for the DAG card and drawer
state:
  path: ${stateDir}
  topology: single-node
jobs:
  - name: idle-job
    command: "true"
    schedule: "0 0 1 1 *"
web:
  listen:
    - http://127.0.0.1:${port}
dags:
  - name: ship
    tasks:
      - id: prep
        command: echo '["alpha","beta","gamma"]' | cronstable xcom push --key parts; echo prepared
      - id: work
        dependsOn:
          - prep
        expand:
          fromTask: prep
          key: parts
        command: echo "part $CRONSTABLE_DAG_MAP_ITEM"
      - id: gate
        type: approval
        dependsOn:
          - work
        onReject: fail
      - id: finish
        dependsOn:
          - gate
        captureStdout: true
        command: for i in 1 2 3 4 5 6 7 8; do echo "finish line $i"; sleep 0.5; done
  - name: nightly
    schedule: "0 3 * * *"
    tasks:
      - id: tick
        command: "true"
  - name: watch
    tasks:
      - id: canary
        type: sensor
        pokeIntervalSeconds: 2
        pokeTimeoutSeconds: 600
        command: test -f ${stateDir}-ready
      - id: flaky
        retries: 1
        retryDelaySeconds: 120
        command: exit 3
`;

interface RunDoc {
  state: string;
  tasks: Record<
    string,
    { state: string; awaitingApproval?: boolean; approval?: { decision: string } | null }
  >;
}

describe('DAG card and drawer (real daemon + headless Chromium)', () => {
  let dir = '';
  let daemon: E2eDaemon | null = null;
  let base = '';
  let context: BrowserContext | null = null;
  let page: Page;
  let firstRun = '';
  const pageErrors: string[] = [];

  const runDoc = async (key: string): Promise<RunDoc> =>
    (await (await fetch(`${base}/dags/ship/runs/${key}`)).json()) as RunDoc;
  const nodeState = (id: string) => page.locator(`[data-testid=dag-node-${id}]`).getAttribute('data-state');

  beforeAll(async () => {
    requireE2ePrereqs();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    dir = mkdtempSync(join(tmpdir(), 'cronstable-e2e-dag-'));
    writeFileSync(join(dir, 'cronstable.yaml'), CONFIG(port, join(dir, 'state')));
    daemon = await startE2eDaemon(dir, {
      base,
      what: `the daemon's DAG API on ${base}`,
      ready: async (b) => {
        const res = await fetch(`${b}/dags`);
        return res.ok && ((await res.json()) as unknown[]).length === 3;
      },
    });
    context = await openContext({
      viewport: { width: 1600, height: 1000 },
      colorScheme: 'light',
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (e) => pageErrors.push(String(e)));
  }, 60_000);

  afterAll(async () => {
    await tearDownE2e(context, daemon, dir);
  }, 30_000);

  it('shows the DAG card and triggers a run from it', async () => {
    await page.goto(`${base}/`);
    const row = page.locator('[data-testid=dag-row-ship]');
    await row.waitFor();
    await expect.poll(() => row.locator('[data-testid=dag-last]').textContent()).toContain('never run');
    expect(await row.locator('[data-testid=dag-status]').textContent()).toBe('no runs');
    expect(await row.textContent()).toContain('manual');
    expect(await row.locator('[data-testid=dag-shape]').textContent()).toBe('4 tasks · 1 approval · fan-out');
    await row.locator('[data-testid=dag-trigger]').click();
    await expect
      .poll(() => page.locator('[data-testid=dag-note]').textContent())
      .toMatch(/triggered ship: manual-/);
    const note = (await page.locator('[data-testid=dag-note]').textContent()) ?? '';
    firstRun = note.replace(/^.*triggered ship: /, '').trim();
    const runs = (await (await fetch(`${base}/dags/ship/runs`)).json()) as { runs: { runKey: string }[] };
    expect(runs.runs.map((r) => r.runKey)).toEqual([firstRun]);
    await expect
      .poll(() => row.locator('[data-testid=dag-running]').textContent(), { timeout: 10_000 })
      .toBe('1');
    await expect.poll(() => row.locator('[data-testid=dag-total]').textContent()).toBe('1');
    await expect.poll(() => row.locator('[data-testid=dag-last]').textContent()).toContain('running');
    expect(await row.locator('[data-testid=dag-status]').textContent()).toBe('running');
    expect(await row.locator('[data-testid=dag-last]').textContent()).toMatch(/manual · (just now|\d+s ago)/);
    expect(await row.locator('[data-testid=dag-outcomes]').getAttribute('aria-label')).toBe(
      '1 running of 1 run',
    );
    await shot(page, 'dag-card.png');
  });

  it('colours the graph by task state, with the fan-out instance count', async () => {
    await page.locator('[data-testid=dag-row-ship] [data-testid=dag-open]').click();
    await page.locator('[data-testid=dag-drawer]').waitFor();
    await expect.poll(() => page.locator('[data-testid=dag-run-row]').count()).toBe(1);
    expect(await page.locator('[data-testid=dag-backfill]').isDisabled()).toBe(true);
    await page.locator('[data-testid=dag-tab-graph]').click();
    await expect.poll(() => nodeState('gate'), { timeout: 15_000 }).toBe('running');
    expect(await nodeState('prep')).toBe('success');
    expect(await nodeState('work')).toBe('success');
    expect(await nodeState('finish')).toBe('pending');
    expect(await page.locator('[data-testid=dag-node-work]').textContent()).toContain('[×3] 3/3');
    // Columns by dependency depth: prep, work, gate, finish left to right.
    const xs: number[] = [];
    for (const id of ['prep', 'work', 'gate', 'finish']) {
      const box = await page.locator(`[data-testid=dag-node-${id}] rect`).boundingBox();
      xs.push(box?.x ?? -1);
    }
    expect([...xs].sort((a, b) => a - b)).toEqual(xs);
    expect(new Set(xs).size).toBe(4);
    const fill = (id: string) =>
      page.evaluate(
        `getComputedStyle(document.querySelector('[data-testid=dag-node-${id}] rect')).stroke`,
      ) as Promise<string>;
    const [ok, run, idle] = [await fill('prep'), await fill('gate'), await fill('finish')];
    expect(new Set([ok, run, idle]).size).toBe(3);
    await shot(page, 'dag-graph-waiting.png');
  });

  it('approves the gate from the Tasks tab, follows the live log, and the run succeeds', async () => {
    await page.locator('[data-testid=dag-tab-tasks]').click();
    const gateRow = page.locator('[data-testid=dag-task-gate]');
    await expect.poll(() => gateRow.textContent()).toContain('awaiting approval');
    expect(await page.locator('[data-testid=dag-task-prep] [data-testid=dag-approve]').count()).toBe(0);
    expect(await page.locator('[data-testid=dag-task-work\\#1]').textContent()).toContain('work#1 (beta)');
    // The mapped task's row carries a fan-out meter over its instances.
    expect(await page.locator('[data-testid=dag-fanout-text-work]').textContent()).toBe('3/3 done');
    expect(await page.locator('[data-testid=dag-fanout-work] [role=img]').getAttribute('aria-label')).toBe(
      'fan-out of work: 3 of 3 instances done',
    );
    await shot(page, 'dag-tasks-approval.png');
    await gateRow.locator('[data-testid=dag-approve]').click();
    await expect
      .poll(() => page.locator('[data-testid=dag-decision-message]').textContent())
      .toBe('decision recorded');
    expect((await runDoc(firstRun)).tasks.gate?.approval?.decision).toBe('approved');
    await expect.poll(() => gateRow.locator('[data-testid=dag-approve]').count()).toBe(0);

    await page.locator('[data-testid=dag-tab-logs]').click();
    await expect
      .poll(() => page.locator('[data-testid=dag-log]').textContent(), { timeout: 10_000 })
      .toContain('finish line 1');
    expect(await page.locator('[data-testid=dag-log-task]').inputValue()).toBe('finish');
    await shot(page, 'dag-logs-live.png');
    await expect
      .poll(() => page.locator('[data-testid=dag-log-end]').textContent(), { timeout: 15_000 })
      .toBe('Task finished.');
    const text = (await page.locator('[data-testid=dag-log]').textContent()) ?? '';
    for (let i = 1; i <= 8; i++) expect(text).toContain(`finish line ${i}`);

    await expect
      .poll(() => page.locator('[data-testid=dag-run-state]').textContent(), { timeout: 10_000 })
      .toBe('success');
    expect((await runDoc(firstRun)).state).toBe('success');
    await page.locator('[data-testid=dag-tab-graph]').click();
    for (const id of ['prep', 'work', 'gate', 'finish'])
      await expect.poll(() => nodeState(id)).toBe('success');
    await shot(page, 'dag-graph-success.png');
  });

  it('lists the run XCom with sizes and small values', async () => {
    await page.locator('[data-testid=dag-tab-xcom]').click();
    const table = page.locator('[data-testid=dag-xcom]');
    await table.waitFor();
    const text = (await table.textContent()) ?? '';
    expect(text).toContain('prep');
    expect(text).toContain('parts');
    expect(text).toContain('["alpha","beta","gamma"]');
    expect(text).toContain(`${'["alpha","beta","gamma"]\n'.length} B`);
    await shot(page, 'dag-xcom.png');
  });

  it('shows the 409 message when the gate was already decided elsewhere', async () => {
    await page.locator('[data-testid=dag-close]').click();
    await page.locator('[data-testid=dag-row-ship] [data-testid=dag-trigger]').click();
    const noteRun = async () =>
      ((await page.locator('[data-testid=dag-note]').textContent()) ?? '').replace(/^.*triggered ship: /, '');
    await expect.poll(noteRun).not.toBe(firstRun);
    const second = await noteRun();
    expect(second).toMatch(/^manual-/);
    await page.locator('[data-testid=dag-row-ship] [data-testid=dag-open]').click();
    await page.locator('[data-testid=dag-tab-tasks]').click();
    const gateRow = page.locator('[data-testid=dag-task-gate]');
    await expect.poll(() => gateRow.locator('[data-testid=dag-reject]').count(), { timeout: 15_000 }).toBe(1);
    // Another operator approves through the API while this page still shows the buttons: the decision and
    // the stale click run back to back in the page, well inside one 1 s poll of the drawer.
    const url = `${base}/dags/ship/runs/${second}/tasks/gate/decision`;
    const otherStatus = (await page.evaluate(`(async () => {
      const res = await fetch(${JSON.stringify(url)}, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ decision: 'approve', by: 'someone-else' }),
      });
      document.querySelector('[data-testid=dag-task-gate] [data-testid=dag-reject]').click();
      return res.status;
    })()`)) as number;
    expect(otherStatus).toBe(200);
    await expect
      .poll(() => page.locator('[data-testid=dag-decision-message]').textContent())
      .toBe('Already decided: task is not awaiting approval');
    await shot(page, 'dag-decision-409.png');
    // The first decision stands.
    expect((await runDoc(second)).tasks.gate?.approval?.decision).toBe('approved');
    // The Runs tab lists both runs, newest first; picking the older one shows it in the graph.
    await page.locator('[data-testid=dag-tab-runs]').click();
    const rows = page.locator('[data-testid=dag-run-row]');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(0).textContent()).toContain(second);
    expect(await rows.nth(1).textContent()).toContain(firstRun);
    expect(await rows.nth(1).textContent()).toContain('success');
    await rows.nth(1).locator('button').click();
    await expect.poll(() => page.locator('[data-testid=dag-facts]').textContent()).toContain(firstRun);
    await expect.poll(() => nodeState('finish')).toBe('success');
    await shot(page, 'dag-runs-older.png');
    expect(pageErrors).toEqual([]);
  });

  it('backfills a scheduled DAG from the drawer, idempotently', async () => {
    await page.locator('[data-testid=dag-close]').click();
    const row = page.locator('[data-testid=dag-row-nightly]');
    expect(await row.locator('code').textContent()).toBe('0 3 * * *');
    await row.locator('[data-testid=dag-open]').click();
    const button = page.locator('[data-testid=dag-backfill]');
    expect(await button.isDisabled()).toBe(false);
    await button.click();
    await page.locator('[data-testid=dag-backfill-from]').fill('2026-07-05T00:00:00Z');
    await page.locator('[data-testid=dag-backfill-to]').fill('2026-07-07T00:00:00Z');
    await page.locator('[data-testid=dag-backfill-form] button[type=submit]').click();
    const message = page.locator('[data-testid=dag-backfill-message]');
    await expect.poll(() => message.textContent()).toContain('backfill: 2 run(s) in the window');
    await expect.poll(() => page.locator('[data-testid=dag-run-row]').count()).toBe(2);
    expect(await page.locator('[data-testid=dag-runs]').textContent()).toContain('backfill');
    await shot(page, 'dag-backfill.png');
    // The same window again creates nothing new.
    const again = page.waitForResponse((r) => r.url().endsWith('/dags/nightly/backfill'));
    await page.locator('[data-testid=dag-backfill-form] button[type=submit]').click();
    expect((await again).status()).toBe(200);
    await page.waitForTimeout(1500); // one drawer poll
    expect(await page.locator('[data-testid=dag-run-row]').count()).toBe(2);
    const runs = (await (await fetch(`${base}/dags/nightly/runs`)).json()) as { runs: unknown[] };
    expect(runs.runs).toHaveLength(2);
    expect(pageErrors).toEqual([]);
  });

  it('the card row: a stacked outcome bar over the kept runs, and an Open button', async () => {
    await page.goto(`${base}/`);
    const row = page.locator('[data-testid=dag-row-ship]');
    await expect
      .poll(() => row.locator('[data-testid=dag-outcomes]').getAttribute('aria-label'), { timeout: 15_000 })
      .toBe('2 success of 2 runs');
    expect(await row.locator('[data-testid=dag-status]').textContent()).toBe('success');
    await row.locator('[data-testid=dag-open-button]').click();
    await page.locator('[data-testid=dag-drawer]').waitFor();
    expect(await page.locator('#dag-drawer-title').textContent()).toBe('ship');
    await page.locator('[data-testid=dag-close]').click();
    await expect.poll(() => page.locator('[data-testid=dag-drawer]').count()).toBe(0);
  });

  it('opens the drawer on a run from a #dag/<name>/<runKey> link, and Back closes it', async () => {
    await page.goto(`${base}/#dag/ship/${firstRun}`);
    await page.locator('[data-testid=dag-drawer]').waitFor();
    await expect.poll(() => page.locator('[data-testid=dag-facts]').textContent()).toContain(firstRun);
    expect(await page.locator('[data-testid=dag-run-state]').textContent()).toBe('success');
    await page.locator('[data-testid=dag-close]').click();
    await expect.poll(() => page.locator('[data-testid=dag-drawer]').count()).toBe(0);
    await page.locator('[data-testid=dag-row-ship] [data-testid=dag-open]').click();
    await expect.poll(() => page.evaluate('location.hash')).toBe('#dag/ship');
    await page.goBack();
    await expect.poll(() => page.locator('[data-testid=dag-drawer]').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });

  it("shows a sensor's pokes and next poke, and a retry's due time, in the Tasks tab", async () => {
    const res = await fetch(`${base}/dags/watch/trigger`, { method: 'POST' });
    const key = ((await res.json()) as { runKey: string }).runKey;
    await page.goto(`${base}/#dag/watch/${key}`);
    await page.locator('[data-testid=dag-drawer]').waitFor();
    await page.locator('[data-testid=dag-tab-tasks]').click();
    const detail = (k: string) => page.locator(`[data-testid=dag-detail-${k}]`).textContent();
    await expect
      .poll(() => detail('flaky'), { timeout: 15_000 })
      .toMatch(
        /^ · retry due \d\d:\d\d:\d\d \(in (1m\d\ds|2m00s|\d{1,2}s)\) after failsWhen=nonzeroReturn and retcode=3$/,
      );
    await expect
      .poll(() => detail('canary'), { timeout: 15_000 })
      .toMatch(
        /^ · poke #[1-9]\d* · next poke \d\d:\d\d:\d\d \(in [0-2]s\)$|^ · poke #[1-9]\d* · next poke .*due now/,
      );
    await shot(page, 'dag-tasks-sensor-retry.png');
    writeFileSync(join(dir, 'state-ready'), '');
    await expect
      .poll(() => detail('canary'), { timeout: 15_000 })
      .toMatch(/^ · succeeded on poke #[1-9]\d*$/);
    const doc = (await (await fetch(`${base}/dags/watch/runs/${key}`)).json()) as {
      tasks: Record<string, { state: string; pokeCount?: number; nextRetryAt?: number }>;
    };
    expect(doc.tasks.canary?.state).toBe('success');
    expect(await detail('canary')).toBe(` · succeeded on poke #${doc.tasks.canary?.pokeCount}`);
    expect(doc.tasks.flaky?.state).toBe('up_for_retry');
    await page.locator('[data-testid=dag-close]').click();
    expect(pageErrors).toEqual([]);
  });

  it('the DAG card and drawer pass axe (WCAG 2 A/AA rules)', async () => {
    await page.goto(`${base}/#dag/ship/${firstRun}`);
    await page.locator('[data-testid=dag-drawer]').waitFor();
    await page.locator('[data-testid=dag-tab-tasks]').click();
    await page.locator('[data-testid=dag-fanout-work]').waitFor();
    const run = (selector: string) => axeViolations(page, selector);
    expect(await run('[data-testid=dag-drawer]')).toEqual([]);
    await page.locator('[data-testid=dag-close]').click();
    await page.locator('[data-testid=dag-card]').waitFor();
    expect(await run('[data-testid=dag-card]')).toEqual([]);
    expect(await run('[data-testid=dags-button]')).toEqual([]);
  });

  it('toggles the DAG card with the keyboard-reachable ⧉ dags button, shown only while /dags is non-empty', async () => {
    const button = page.locator('[data-testid=dags-button]');
    const card = page.locator('[data-testid=dag-card]');
    await button.waitFor();
    expect(await button.getAttribute('aria-pressed')).toBe('true');
    expect(await card.count()).toBe(1);
    // Reachable with Tab from the filter box.
    await page.locator('#job-filter').focus();
    let reached = false;
    for (let i = 0; i < 30 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = (await page.evaluate(`document.activeElement?.dataset?.testid ?? ''`)) === 'dags-button';
    }
    expect(reached).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(() => card.count()).toBe(0);
    expect(await button.getAttribute('aria-pressed')).toBe('false');
    await shot(page, 'dag-card-hidden.png');
    await page.keyboard.press('Space');
    await expect.poll(() => card.count()).toBe(1);
    expect(await button.getAttribute('aria-pressed')).toBe('true');
    // A configuration without DAGs: /dags answers [] and the button goes away.
    const port = Number(new URL(base).port);
    writeFileSync(
      join(dir, 'cronstable.yaml'),
      CONFIG(port, join(dir, 'state')).replace(/\ndags:[\s\S]*$/, '\n'),
    );
    daemon!.child.kill('SIGHUP');
    await until('an empty /dags after the reload', 15_000, async () => {
      const list = (await (await fetch(`${base}/dags`)).json()) as unknown[];
      return list.length === 0 ? true : null;
    });
    await expect.poll(() => button.count(), { timeout: 10_000 }).toBe(0);
    expect(await card.count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});

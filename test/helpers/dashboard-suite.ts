// One browser e2e file's fixture: a real daemon on a temp config directory and a page of the run's shared
// Chromium pointed at nothing yet, started in the file's beforeAll and torn down in its afterAll. The file
// keeps the returned handle and reads `ui.page`, `ui.base` and the rest once beforeAll has run.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { firstPage } from '../../scripts/chromium.ts';
import { freePort } from '../../scripts/fleet/ports.ts';
import { openContext } from './browser.ts';
import { type E2eDaemon, requireE2ePrereqs, startE2eDaemon, tearDownE2e } from './e2e-daemon.ts';

export interface DashboardSuiteOptions {
  /** Names the temp directory (`cronstable-e2e-<name>-…`). */
  name: string;
  /** The `cronstable.yaml` the daemon loads, given its web port and the temp directory. */
  config: (port: number, dir: string) => string;
  env?: NodeJS.ProcessEnv;
  /** The browser context's options over the shared defaults (viewport, colour scheme, time zone). */
  context?: BrowserContextOptions;
  /** Before the daemon starts: seed its state directory. */
  seed?: (dir: string) => Promise<void> | void;
  /** Once daemon and page are up: set the page up, wait for the state the file's tests start from. */
  ready?: (ui: DashboardSuite) => Promise<void>;
  /** Before teardown: stop what the file started (long runs). */
  cleanup?: (ui: DashboardSuite) => Promise<void>;
  /** Whether console errors count as page errors too (default true; a file that makes the page see a 401 on purpose says false). */
  consoleErrors?: boolean;
  /** Playwright's default wait per action on this page (ms); Playwright's own when absent. */
  actionTimeoutMs?: number;
}

export interface DashboardSuite {
  readonly base: string;
  readonly dir: string;
  readonly daemon: E2eDaemon;
  readonly context: BrowserContext;
  readonly page: Page;
  /** Page errors and console errors the page reported so far. */
  readonly pageErrors: string[];
  /** GET `path` on the daemon as JSON; a non-2xx answer throws naming the path and status. */
  api<T = unknown>(path: string, token?: string): Promise<T>;
}

/** Registers the file's beforeAll/afterAll; the handle's fields throw when read before beforeAll ran. */
export function dashboardSuite(opts: DashboardSuiteOptions): DashboardSuite {
  let base = '';
  let dir = '';
  let daemon: E2eDaemon | null = null;
  let context: BrowserContext | null = null;
  let page: Page | null = null;
  const pageErrors: string[] = [];
  const must = <T>(v: T | null, what: string): T => {
    if (v === null) throw new Error(`${what} is not up: read it inside a test, after beforeAll`);
    return v;
  };
  const ui: DashboardSuite = {
    get base() {
      return must(base || null, 'the daemon');
    },
    get dir() {
      return must(dir || null, 'the temp directory');
    },
    get daemon() {
      return must(daemon, 'the daemon');
    },
    get context() {
      return must(context, 'the browser context');
    },
    get page() {
      return must(page, 'the page');
    },
    pageErrors,
    async api<T>(path: string, token?: string): Promise<T> {
      const res = await fetch(ui.base + path, token ? { headers: { authorization: `Bearer ${token}` } } : {});
      if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
      return (await res.json()) as T;
    },
  };

  beforeAll(async () => {
    requireE2ePrereqs();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    dir = mkdtempSync(join(tmpdir(), `cronstable-e2e-${opts.name}-`));
    await opts.seed?.(dir);
    writeFileSync(join(dir, 'cronstable.yaml'), opts.config(port, dir));
    daemon = await startE2eDaemon(dir, { base, ...(opts.env ? { env: opts.env } : {}) });
    context = await openContext(opts.context ?? {});
    if (opts.consoleErrors === false) {
      page = context.pages()[0] ?? (await context.newPage());
      page.on('pageerror', (e) => pageErrors.push(String(e)));
    } else page = await firstPage(context, pageErrors);
    if (opts.actionTimeoutMs !== undefined) page.setDefaultTimeout(opts.actionTimeoutMs);
    await opts.ready?.(ui);
  }, 60_000);

  afterAll(async () => {
    if (daemon !== null) await opts.cleanup?.(ui).catch(() => {});
    await tearDownE2e(context, daemon, dir);
  }, 30_000);

  return ui;
}

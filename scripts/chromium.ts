// Headless Chromium for the dashboard's e2e tests, the webui bench and the tour screenshot: the
// Debian package's binary driven by playwright-core, with the flags a container without a GPU,
// a sandbox or a network needs. One place, so every caller starts the browser the same way.
import {
  type BrowserContext,
  type BrowserContextOptions,
  type BrowserServer,
  chromium,
  type LaunchOptions,
  type Page,
} from 'playwright-core';

export const CHROMIUM = process.env.CRONSTABLE_CHROMIUM ?? '/usr/bin/chromium';

/**
 * The features playwright-core itself turns off (its chromiumSwitches: no network to Google at
 * start, no HTTPS upgrades of the tests' loopback pages, no paint holding, ...). Chromium keeps only
 * the last --disable-features switch it is given, and a launch's own args come after Playwright's,
 * so a list of ours must repeat these; test/unit/chromium-args.test.ts checks them against the
 * installed playwright-core.
 */
export const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
] as const;

/**
 * Chromium's new headless mode runs the whole browser, and for every page it preloaded the address
 * bar's suggestion popup, a web page of its own (chrome://omnibox-popup.top-chrome, Lit and ~200
 * modules) in a renderer of its own. A dashboard page load cost the browser 2.6 CPU-s with it and
 * 1.5 without (0.88 s and 0.57 s of wall time per load), an idle dashboard 0.11 and 0.05 CPU-s a
 * second (bench/RESULTS.md, "Suite time"). Names a Chromium does not know are ignored.
 */
export const OMNIBOX_POPUP_FEATURES = [
  'PreloadTopChromeWebUI',
  'WebUIOmniboxPopup',
  'WebUIOmniboxFullPopup',
  'WebUIOmniboxAimPopup',
] as const;

export const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...OMNIBOX_POPUP_FEATURES].join(',')}`,
];

/** A context's defaults, whichever way the browser was started; a caller's options override them. */
export const CONTEXT_DEFAULTS: BrowserContextOptions = {
  viewport: { width: 1600, height: 1000 },
  deviceScaleFactor: 1,
  locale: 'en-US',
};

type ContextOptions = Omit<Parameters<typeof chromium.launchPersistentContext>[1], keyof LaunchOptions>;

/** A persistent context on `profile` ('' for a throwaway one); options override the defaults. */
export function launchChromium(profile: string, opts: ContextOptions = {}): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    ...CONTEXT_DEFAULTS,
    ...opts,
  });
}

/** A browser that other processes connect to (`chromium.connect(server.wsEndpoint())`). */
export function launchChromiumServer(): Promise<BrowserServer> {
  return chromium.launchServer({ executablePath: CHROMIUM, headless: true, args: ARGS });
}

/** The context's first page, with page errors and console errors collected into `errors`. */
export async function firstPage(context: BrowserContext, errors: string[]): Promise<Page> {
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  return page;
}

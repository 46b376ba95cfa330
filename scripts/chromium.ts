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

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
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

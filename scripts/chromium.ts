// Headless Chromium for the dashboard's e2e tests, the webui bench and the tour screenshot: the
// Debian package's binary driven by playwright-core, with the flags a container without a GPU,
// a sandbox or a network needs. One place, so every caller starts the browser the same way.
import { type BrowserContext, chromium, type LaunchOptions } from 'playwright-core';

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

type ContextOptions = Omit<Parameters<typeof chromium.launchPersistentContext>[1], keyof LaunchOptions>;

/** A persistent context on `profile` ('' for a throwaway one); options override the defaults. */
export function launchChromium(profile: string, opts: ContextOptions = {}): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1600, height: 1000 },
    deviceScaleFactor: 1,
    locale: 'en-US',
    ...opts,
  });
}

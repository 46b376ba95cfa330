// A fresh browser context for one test file, in the run's shared Chromium (started once by the
// system project's global setup, test/helpers/chromium-broker.ts): no browser start per file, and
// no state (storage, permissions, cookies) shared with another file. Outside a vitest run that
// provides the broker, the file starts a browser of its own. Closing the file's last context
// lets go of the shared browser.
import { type Browser, type BrowserContext, type BrowserContextOptions, chromium } from 'playwright-core';
import { inject } from 'vitest';
import { CONTEXT_DEFAULTS, launchChromium } from '../../scripts/chromium.ts';

let shared: Promise<Browser> | null = null;

/**
 * Reduced motion: the dashboard then runs no CSS animation (its prefers-reduced-motion rule). A
 * GPU-less headless Chromium paints every frame of an animation on the CPU, and the e2e files keep
 * pages open for minutes of a run that is CPU-bound on 2 cores; a file that tests motion asks for
 * `reducedMotion: 'no-preference'` itself.
 */
const TEST_DEFAULTS: BrowserContextOptions = { reducedMotion: 'reduce' };

async function connect(broker: string): Promise<Browser> {
  const res = await fetch(broker);
  const endpoint = await res.text();
  if (!res.ok) throw new Error(`the shared Chromium did not start: ${endpoint}`);
  return chromium.connect(endpoint);
}

export async function openContext(opts: BrowserContextOptions = {}): Promise<BrowserContext> {
  const broker = inject('chromiumBroker');
  if (!broker) return launchChromium('', { ...TEST_DEFAULTS, ...opts });
  shared ??= connect(broker).catch((e) => {
    shared = null;
    throw e;
  });
  const browser = await shared;
  const context = await browser.newContext({ ...CONTEXT_DEFAULTS, ...TEST_DEFAULTS, ...opts });
  // Once the context has closed (not on its 'close' event: the close is still being answered
  // then), the file's last one disconnects from the shared browser, which keeps running.
  const close = context.close.bind(context);
  context.close = async (options) => {
    await close(options);
    if (browser.contexts().length > 0) return;
    shared = null;
    await browser.close();
  };
  return context;
}

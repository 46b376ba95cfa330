// The dashboard as the browser tests leave it, as PNGs under test/e2e/screenshots/ for a person to
// look at (no test compares them). A 1600x1000 screenshot costs the browser and the test's process
// ~0.2 CPU-s, a full-page or 2560-wide one more, and a run took ~45 of them on a CPU-bound suite
// (bench/RESULTS.md, "Suite time"): they are written only when CRONSTABLE_SCREENSHOTS=1.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';

export const SHOTS = join(import.meta.dirname, '..', 'e2e', 'screenshots');

/** Whether this run writes its screenshots. */
export const SCREENSHOTS = process.env.CRONSTABLE_SCREENSHOTS === '1';

/** Writes `name` under SHOTS from a page (optionally whole) or one element, when screenshots are on. */
export async function shot(
  target: Page | Locator,
  name: string,
  opts: { fullPage?: boolean } = {},
): Promise<void> {
  if (!SCREENSHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  const path = join(SHOTS, name);
  if ('goto' in target) await target.screenshot({ path, ...opts });
  else await target.screenshot({ path });
}

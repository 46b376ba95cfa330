// `node --import tsx scripts/tour/screenshot.ts [OUT.png]`: the README's grand-tour picture. Starts
// the nine-node tour (short timings, free ports), waits until every node names the same owner for
// every job, then shoots two nodes' dashboards in headless Chromium with the Owner column in view
// and sets them side by side in one PNG (default docs/grand-tour-owners.png).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM, launchChromium } from '../chromium.ts';
import { waitUntil } from '../fleet/fleet.ts';
import { startTour } from './tour.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const OUT = process.argv[2] ?? join(ROOT, 'docs', 'grand-tour-owners.png');
const PAIR = ['meridian-a', 'meridian-b'] as const;
/** One dashboard's viewport; the picture is two of them side by side. */
const W = 1200; // the dashboard hides the Owner column below 1120 px
const H = 900;

if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
const tour = await startTour({ nodes: 9, note: (l) => process.stderr.write(`${l}\n`) });
const profile = mkdtempSync(join(tmpdir(), 'cronstable-tour-shot-'));
try {
  await tour.waitConverged(90_000);
  // Converged is not yet settled ownership: wait until all nine report the same owners.
  await waitUntil(
    async () => {
      const views = await Promise.all(tour.nodes.map((n) => n.jobs()));
      const key = (v: (typeof views)[number]) =>
        JSON.stringify(Object.values(v).map((j) => [j.name, j.clusterOwner ?? null]));
      return (
        views.every((v) => key(v) === key(views[0]!)) && Object.values(views[0]!).some((j) => j.clusterOwner)
      );
    },
    { timeoutMs: 60_000, label: 'every node to report the same owners' },
  );
  // Past a minute boundary, so the every-minute jobs have a last run to show.
  const boundary = Math.ceil(Date.now() / 60_000) * 60_000;
  await new Promise((r) => setTimeout(r, boundary + 15_000 - Date.now()));
  const context = await launchChromium(profile, {
    viewport: { width: W, height: H },
    colorScheme: 'dark',
  });
  const shots: string[] = [];
  for (const id of PAIR) {
    const page = await context.newPage();
    await page.goto(`${tour.node(id).url}/`);
    await page.locator('th.c-owner').waitFor({ timeout: 30_000 });
    await page.locator('tr.job td.c-owner .owner').first().waitFor({ timeout: 30_000 });
    // Each node highlights the jobs it owns itself: wait until that has rendered.
    await page.locator('tr.job .owner-self').first().waitFor({ state: 'attached', timeout: 30_000 });
    await page.waitForTimeout(400);
    shots.push((await page.screenshot({ type: 'png' })).toString('base64'));
    await page.close();
  }
  // Side by side: a plain page holding the two shots, captured at their exact size.
  const sheet = await context.newPage();
  await sheet.setViewportSize({ width: 2 * W + 8, height: H });
  await sheet.setContent(
    `<body style="margin:0;background:#555;display:flex;gap:8px">${shots
      .map((b) => `<img src="data:image/png;base64,${b}" width="${W}" height="${H}">`)
      .join('')}</body>`,
  );
  await sheet.screenshot({ path: OUT, type: 'png' });
  await context.close();
  process.stdout.write(`wrote ${OUT} (${PAIR.join(' | ')})\n`);
} finally {
  await tour.stop();
  rmSync(profile, { recursive: true, force: true });
}

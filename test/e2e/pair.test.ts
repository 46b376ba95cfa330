// The dashboard's "Pair a device" panel (spec 10 §6.5) end to end: opened from the palette and
// from settings, its QR code read back from the page's pixels (pngjs + jsQR) decodes to
// `<pairLinkBase>#<base64url(payload)>`, the all-scopes warning and the no-token note. One real
// daemon with a `push:` section, one headless Chromium.
/// <reference lib="dom" />
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jsQRImport from 'jsqr';
import type { BrowserContext, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/fleet/ports.ts';
import { axeViolations } from '../helpers/axe.ts';
import { openContext } from '../helpers/browser.ts';
import { type E2eDaemon, requireE2ePrereqs, startE2eDaemon, tearDownE2e } from '../helpers/e2e-daemon.ts';

const CONFIG = (port: number, dir: string) => `jobs:
  - name: nightly
    command: "true"
    schedule: "15 3 * * *"
web:
  listen:
    - http://127.0.0.1:${port}
  authToken:
    value: admin
  anonymousScopes:
    - view
push:
  relay:
    url: https://relay-user:pw@relay.test:8443/v1/alert
  devicesFile: ${join(dir, 'devices.json')}
`;

// jsqr is CommonJS with an ES-style default in its types: under NodeNext the import is its namespace.
type Decode = typeof jsQRImport.default;
const jsQR = ((jsQRImport as unknown as { default?: Decode }).default ?? jsQRImport) as Decode;

/** What the QR code in the panel says, read from a screenshot of it. */
async function readQr(page: Page): Promise<string | null> {
  const shot = await page.locator('[data-testid=pair-qr]').screenshot();
  const png = PNG.sync.read(shot);
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data ?? null;
}

const decodePayload = (link: string) =>
  JSON.parse(Buffer.from(link.slice(link.indexOf('#') + 1), 'base64url').toString('utf8'));

describe('pairing panel (real daemon + headless Chromium)', () => {
  let dir = '';
  let daemon: E2eDaemon | null = null;
  let base = '';
  let host = '';
  let context: BrowserContext | null = null;

  beforeAll(async () => {
    requireE2ePrereqs();
    const port = await freePort();
    host = `127.0.0.1:${port}`;
    base = `http://${host}`;
    dir = mkdtempSync(join(tmpdir(), 'cronstable-e2e-pair-'));
    writeFileSync(join(dir, 'cronstable.yaml'), CONFIG(port, dir));
    daemon = await startE2eDaemon(dir, { base });
    context = await openContext({ viewport: { width: 1200, height: 900 } });
  }, 60_000);
  afterAll(async () => {
    await tearDownE2e(context, daemon, dir);
  });

  it('from the palette, with an all-scopes token: the QR decodes to the link and the panel warns', async () => {
    const page = await context!.newPage();
    page.setDefaultTimeout(15_000);
    await page.addInitScript(() => sessionStorage.setItem('cronstable_token', 'admin'));
    await page.goto(base);
    await page.waitForSelector('tr.job');
    await page.keyboard.press('Control+k');
    await page.waitForSelector('[data-testid=palette]');
    await page.keyboard.type('pair a device');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-testid=pair-qr]');
    const payload = { v: 1, name: host, url: base, token: 'admin' };
    const expected = `https://relay.test:8443/pair#${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
    expect(await readQr(page)).toBe(expected);
    expect(decodePayload(expected)).toEqual(payload);
    expect(JSON.parse(await page.locator('[data-testid=pair-json]').inputValue())).toEqual(payload);
    expect(await page.locator('[data-testid=pair-warning]').textContent()).toContain('holds every scope');
    expect(await axeViolations(page, '[data-testid=pair-panel]', { label: 'pair panel' })).toEqual([]);
    await page.close();
  }, 30_000);

  it('from settings, with no token stored: the link carries none and the panel says so', async () => {
    const page = await context!.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(base);
    await page.waitForSelector('tr.job');
    await page.locator('[data-testid=settings-button]').click();
    await page.locator('[data-testid=open-pair]').click();
    await page.waitForSelector('[data-testid=pair-qr]');
    const link = await readQr(page);
    expect(link).toMatch(/^https:\/\/relay\.test:8443\/pair#[A-Za-z0-9_-]+$/);
    expect(decodePayload(link!)).toEqual({ v: 1, name: host, url: base, token: null });
    expect(await page.locator('[data-testid=pair-note]').textContent()).toContain('No token is stored');
    expect(await page.locator('[data-testid=pair-warning]').count()).toBe(0);
    await page.close();
  }, 30_000);
});

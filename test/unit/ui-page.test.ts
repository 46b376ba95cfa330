// The served dashboard page: one self-contained, CSP-friendly document built from src/webui
// (npm test runs `npm run build` first, which writes src/web/generated/assets.ts).
import { beforeAll, describe, expect, it } from 'vitest';
import { dashboardHtml } from '../../src/web/page.ts';

describe('dashboard page', () => {
  let html = '';
  beforeAll(async () => {
    html = await dashboardHtml();
  });

  it('is a complete HTML document with the bundle and stylesheet inlined', async () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('<div id="app">');
    expect(html).toMatch(/<style>[^<]*--accent/);
    expect(html).toMatch(/<script>[\s\S]{20000,}<\/script>/);
    expect(html.match(/<script>/g)?.length).toBe(1);
    expect(html.match(/<\/script>/gi)?.length).toBe(1);
    expect(await dashboardHtml()).toBe(html);
  });

  it('makes no external requests and has no inline event handlers', () => {
    expect(html).not.toMatch(/<script[^>]*\ssrc=/i);
    expect(html).not.toMatch(/<link[^>]*rel="stylesheet"/i);
    expect(html).not.toMatch(/\s(href|src)="https?:/i);
    expect(html).not.toMatch(/<[a-z][^>]*\son[a-z]+=/i);
    expect(html).toMatch(/<link rel="icon" href="data:image\/svg\+xml,/);
  });

  it('bundles the cron engine and the API routes it polls', () => {
    for (const needle of [
      '/jobs',
      '/cluster',
      '/job-set-id',
      '/version',
      'cronstable_token',
      'last weekday',
    ]) {
      expect(html).toContain(needle);
    }
  });
});

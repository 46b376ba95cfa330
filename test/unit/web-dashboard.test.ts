// GET / without a built UI: a clear 503 naming the fix (no placeholder page), logged once;
// with the page, the HTML and its security headers.
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { Logger, type LogRecord, setSink } from '../../src/util/log.ts';
import type { WebEnv } from '../../src/web/respond.ts';
import { DASHBOARD_SECURITY_HEADERS, dashboardRoute } from '../../src/web/routes/dashboard.ts';

afterEach(() => setSink(null));

function appWith(render: () => string | Promise<string>): { app: Hono<WebEnv>; logs: string[] } {
  const logs: string[] = [];
  setSink((r: LogRecord) => logs.push(`${r.levelName} ${r.message}`));
  const app = new Hono<WebEnv>();
  dashboardRoute(app, { log: new Logger('cronstable.web') }, render);
  return { app, logs };
}

describe('dashboard route', () => {
  it('answers 503 with the build hint when the UI assets are missing, logging it once', async () => {
    const { app, logs } = appWith(() => {
      throw new Error('dashboard assets are missing: run npm run build');
    });
    for (let i = 0; i < 2; i++) {
      const res = await app.request('/');
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ error: 'dashboard assets are missing: run npm run build' });
    }
    expect(logs).toEqual(['ERROR web: dashboard assets are missing: run npm run build']);
  });

  it('answers 503 the same when the page is built on first request and that fails', async () => {
    const { app, logs } = appWith(async () => {
      throw new Error('dashboard assets are missing: run npm run build');
    });
    const res = await app.request('/');
    expect(res.status).toBe(503);
    expect(logs).toEqual(['ERROR web: dashboard assets are missing: run npm run build']);
  });

  it('serves the page with its security headers', async () => {
    const { app, logs } = appWith(() => '<!doctype html><title>t</title>');
    const res = await app.request('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    for (const [k, v] of Object.entries(DASHBOARD_SECURITY_HEADERS)) expect(res.headers.get(k)).toBe(v);
    expect(await res.text()).toBe('<!doctype html><title>t</title>');
    expect(logs).toEqual([]);
  });
});

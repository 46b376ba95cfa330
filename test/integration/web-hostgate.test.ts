// Issue 14 item 4: no DNS rebinding. Without an authToken, a request whose Host is not a name the
// daemon answers to gets 403 on every route; web.allowedHosts adds names; with a token the
// bearer check is the protection. API answers carry nosniff and no-store.
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, job, LOOPBACK, startHarness } from './web-harness.ts';

const JOBS = job('a', 'true', '0 0 1 1 *');

/** A raw request with a chosen Host header (fetch does not let a caller set Host). */
function withHost(
  base: string,
  path: string,
  host: string,
  method = 'GET',
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path, method, headers: { host, ...headers } },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => {
          body += c.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

let h: Harness | null = null;
afterEach(async () => {
  await h?.stop();
  h = null;
});

describe('Host gate without an authToken', () => {
  it('refuses a foreign Host on every route with a JSON 403, and answers loopback names', async () => {
    h = await startHarness(JOBS);
    for (const [path, method] of [
      ['/version', 'GET'],
      ['/jobs', 'GET'],
      ['/status', 'GET'],
      ['/metrics', 'GET'],
      ['/', 'GET'],
      ['/jobs/a/start', 'POST'],
      ['/nope', 'GET'],
    ] as const) {
      const r = await withHost(h.base, path, 'evil.example', method);
      expect([path, r.status]).toEqual([path, 403]);
      expect(JSON.parse(r.body).error).toMatch(/DNS rebinding/);
    }
    for (const host of [
      '127.0.0.1',
      `127.0.0.1:${new URL(h.base).port}`,
      'localhost:8080',
      '[::1]:1',
      'app.localhost',
    ])
      expect([host, (await withHost(h.base, '/version', host)).status]).toEqual([host, 200]);
  });

  it('answers the names in web.allowedHosts', async () => {
    h = await startHarness(JOBS, `${LOOPBACK}\n  allowedHosts:\n    - cron.internal.example`);
    expect((await withHost(h.base, '/version', 'cron.internal.example:8080')).status).toBe(200);
    expect((await withHost(h.base, '/version', 'CRON.internal.example')).status).toBe(200);
    expect((await withHost(h.base, '/version', 'other.example')).status).toBe(403);
  });

  it('leaves the protection to the bearer token when one is set', async () => {
    h = await startHarness(JOBS, `${LOOPBACK}\n  authToken:\n    value: s3cret`);
    expect((await withHost(h.base, '/version', 'evil.example')).status).toBe(401);
    const ok = await withHost(h.base, '/version', 'evil.example', 'GET', { authorization: 'Bearer s3cret' });
    expect(ok.status).toBe(200);
  });

  it('marks API answers nosniff and no-store', async () => {
    h = await startHarness(JOBS);
    for (const path of ['/version', '/jobs', '/status', '/nope']) {
      const r = await h.get(path);
      expect([path, r.headers.get('x-content-type-options')]).toEqual([path, 'nosniff']);
      expect([path, r.headers.get('cache-control')]).toEqual([path, 'no-store']);
    }
  });
});

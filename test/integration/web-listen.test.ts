// Listeners and start-up: unix sockets, https (a throwaway CA minted at test time, test/helpers/pki.ts),
// per-address failures, and the fail-closed token check.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Logger, type LogRecord, setSink } from '../../src/util/log.ts';
import { startWebServer, WebConfigError } from '../../src/web/server.ts';
import { hasOpenssl, mintPki } from '../helpers/pki.ts';
import { writeTree } from '../helpers/tmp.ts';
import { buildContext, job, loadWebConfig } from './web-harness.ts';

const JOBS = job('a', 'true', '0 0 1 1 *');

function get(
  opts: { socketPath?: string; url?: string; ca?: Buffer; headers?: Record<string, string> },
  path: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const done = (res: import('node:http').IncomingMessage) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    };
    const req = opts.url
      ? httpsRequest(`${opts.url}${path}`, { ca: opts.ca, headers: opts.headers }, done)
      : httpRequest({ socketPath: opts.socketPath, path, headers: opts.headers }, done);
    req.on('error', reject);
    req.end();
  });
}

async function start(webYaml: string, files: Record<string, string> = {}) {
  const logs: string[] = [];
  setSink((r: LogRecord) => logs.push(`${r.levelName} ${r.message}`));
  const { cfg, dir } = loadWebConfig(JOBS, webYaml, files);
  const { ctx, scheduler } = buildContext(cfg);
  const cleanup = async () => {
    await scheduler.stop(1000);
    setSink(null);
  };
  try {
    const server = await startWebServer(ctx, cfg.web!, new Logger('cronstable'));
    return { server, logs, dir, cleanup };
  } catch (e) {
    await cleanup();
    throw e;
  }
}

describe('web listeners', () => {
  it('serves on a unix socket with socketMode applied, and removes it on stop', async () => {
    const dir = writeTree({ 'keep.txt': '' });
    const sock = join(dir, 'web.sock');
    const { server, logs, cleanup } = await start(`  listen:\n    - unix://${sock}\n  socketMode: "0600"`);
    try {
      expect(server.urls).toEqual([`unix://${sock}`]);
      expect(logs).toContain(`INFO web: started listening on unix://${sock}`);
      expect(statSync(sock).mode & 0o777).toBe(0o600);
      const res = await get({ socketPath: sock }, '/status');
      expect(res.status).toBe(200);
      expect(res.body).toMatch(/^a: scheduled \(in \d+ days\)$/);
    } finally {
      await server.stop();
      await cleanup();
    }
    expect(existsSync(sock)).toBe(false);
  });

  it('replaces a stale socket file left behind by a previous run', async () => {
    const dir = writeTree({ 'keep.txt': '' });
    const sock = join(dir, 'stale.sock');
    // A crashed daemon: the socket file stays, nothing listens on it.
    execFileSync(process.execPath, [
      '-e',
      `require('node:net').createServer().listen(${JSON.stringify(sock)}, () => process.exit(0))`,
    ]);
    expect(statSync(sock).isSocket()).toBe(true);
    const { server, cleanup } = await start(`  listen:\n    - unix://${sock}`);
    try {
      expect(server.urls).toEqual([`unix://${sock}`]);
      expect((await get({ socketPath: sock }, '/version')).body).toBe('9.9.9-test');
    } finally {
      await server.stop();
      await cleanup();
    }
  });

  it.skipIf(!hasOpenssl)('serves https with web.tls (a certificate from a throwaway CA)', async () => {
    const { cert, key, ca: caPath } = mintPki(writeTree({ 'keep.txt': '' }));
    const { server, logs, cleanup } = await start(
      `  listen:\n    - https://127.0.0.1:0\n    - http://127.0.0.1:0\n  tls:\n    cert: ${cert}\n    key: ${key}\n  authToken:\n    value: tok`,
    );
    try {
      const https = server.urls.find((u) => u.startsWith('https://'))!;
      expect(https).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(server.urls.some((u) => u.startsWith('http://'))).toBe(true);
      expect(logs).toContain(`INFO web: started listening on ${https}`);
      const ca = readFileSync(caPath);
      expect((await get({ url: https, ca }, '/status')).status).toBe(401);
      const ok = await get({ url: https, ca, headers: { authorization: 'Bearer tok' } }, '/job-set-id');
      expect(ok.status).toBe(200);
      expect(ok.body).toMatch(/^v1:/);
    } finally {
      await server.stop();
      await cleanup();
    }
  });

  it('skips bad addresses and busy ports with a log line, and still binds the others', async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = (busy.address() as import('node:net').AddressInfo).port;
    const { server, logs, cleanup } = await start(
      [
        '  listen:',
        '    - http://127.0.0.1',
        '    - ftp://127.0.0.1:21',
        `    - http://127.0.0.1:${port}`,
        // An https:// address without web.tls no longer loads (spec 09 §7.4, v34 in config-tighten.test.ts).
        '    - http://127.0.0.1:0',
      ].join('\n'),
    );
    try {
      expect(server.urls).toHaveLength(1);
      expect(server.urls[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(logs).toContain(
        'WARNING web: could not listen on http://127.0.0.1: http url needs host and port',
      );
      expect(logs).toContain('WARNING web: could not listen on ftp://127.0.0.1:21: scheme ftp not supported');
      expect(
        logs.some((l) => l.startsWith(`ERROR web: could not listen on http://127.0.0.1:${port}: `)),
      ).toBe(true);
      expect((await fetch(`${server.urls[0]}/version`)).status).toBe(200);
    } finally {
      await server.stop();
      await cleanup();
      busy.close();
    }
  });
});

describe('fail-closed token resolution', () => {
  it('refuses to start when authToken resolves to an empty token, binding nothing', async () => {
    const dir = writeTree({ 'keep.txt': '' });
    const sock = join(dir, 'never.sock');
    delete process.env.CRONSTABLE_TEST_WEB_TOKEN_UNSET;
    await expect(
      start(`  listen:\n    - unix://${sock}\n  authToken:\n    fromEnvVar: CRONSTABLE_TEST_WEB_TOKEN_UNSET`),
    ).rejects.toThrow(WebConfigError);
    await expect(
      start(`  listen:\n    - unix://${sock}\n  authToken:\n    fromEnvVar: CRONSTABLE_TEST_WEB_TOKEN_UNSET`),
    ).rejects.toThrow(
      /authToken is configured but resolved to an empty token.*CRONSTABLE_TEST_WEB_TOKEN_UNSET/,
    );
    expect(existsSync(sock)).toBe(false);
    await expect(
      start(`  listen:\n    - unix://${sock}\n  authToken:\n    fromFile: ${join(dir, 'empty.txt')}`, {}),
    ).rejects.toThrow(/web\.authToken\.fromFile could not be read/);
  });

  it('reads fromFile (trimmed) and fromEnvVar, value first', async () => {
    process.env.CRONSTABLE_TEST_WEB_TOKEN = 'from-env';
    const dir = writeTree({ 'token.txt': '  from-file\n' });
    const s = await start(
      `  listen:\n    - http://127.0.0.1:0\n  authToken:\n    fromFile: ${join(dir, 'token.txt')}\n    fromEnvVar: CRONSTABLE_TEST_WEB_TOKEN`,
    );
    try {
      const base = s.server.urls[0]!;
      expect(
        (await fetch(`${base}/version`, { headers: { authorization: 'Bearer from-file' } })).status,
      ).toBe(200);
      expect((await fetch(`${base}/version`, { headers: { authorization: 'Bearer from-env' } })).status).toBe(
        401,
      );
    } finally {
      await s.server.stop();
      await s.cleanup();
    }
    const e = await start(
      `  listen:\n    - http://127.0.0.1:0\n  authToken:\n    fromEnvVar: CRONSTABLE_TEST_WEB_TOKEN`,
    );
    try {
      expect(
        (await fetch(`${e.server.urls[0]}/version`, { headers: { authorization: 'Bearer from-env' } }))
          .status,
      ).toBe(200);
    } finally {
      await e.server.stop();
      await e.cleanup();
      delete process.env.CRONSTABLE_TEST_WEB_TOKEN;
    }
  });
});

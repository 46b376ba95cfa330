// Webhook reporter against a real node:http listener.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultReportBlock } from '../../src/config/builtins.ts';
import { dispatchReports } from '../../src/report/index.ts';
import { sendWebhookReport, type WebhookConfig } from '../../src/report/webhook.ts';
import { refusedPort } from '../helpers/refused-port.ts';
import { RecordingLogger, reportContext } from '../helpers/report-kit.ts';

interface Req {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}
interface Listener {
  base: string;
  requests: Req[];
  server: Server;
}

const open: Server[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function listen(respond: (req: Req) => { status: number; body: string } | null): Promise<Listener> {
  const requests: Req[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Req = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(r);
      const out = respond(r);
      if (!out) return; // never answer (timeout test)
      res.writeHead(out.status, { 'content-type': 'text/plain' });
      res.end(out.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  open.push(server);
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, server };
}

const TOKEN = 'T0KEN-abc123';
function cfg(url: string, over: Partial<WebhookConfig> = {}): WebhookConfig {
  return { ...defaultReportBlock().webhook!, url: { value: url, fromFile: null, fromEnvVar: null }, ...over };
}
const failed = reportContext({
  success: false,
  fail_reason: 'failsWhen=always',
  exit_code: 69,
  stderr: 'boom\n',
});

describe('webhook reporter', () => {
  it('POSTs the default body as application/json', async () => {
    const l = await listen(() => ({ status: 200, body: 'ok' }));
    const log = new RecordingLogger();
    await sendWebhookReport(cfg(`${l.base}/hooks/${TOKEN}`), reportContext(), { logger: log, env: {} });
    expect(l.requests).toHaveLength(1);
    const r = l.requests[0]!;
    expect(r.method).toBe('POST');
    expect(r.url).toBe(`/hooks/${TOKEN}`);
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.body).toBe(
      '{"text": "Cron job \\u0027j\\u0027 completed\\n\\n\\n(no output was captured)\\n\\n"}',
    );
    expect(JSON.parse(r.body).text).toBe("Cron job 'j' completed\n\n\n(no output was captured)\n\n");
    expect(log.at('error')).toEqual([]);
    expect(log.at('debug').join('\n')).toContain('HTTP 200');
    expect(log.all().join('\n')).not.toContain(TOKEN);
  });

  it('sends custom method, headers (overriding Content-Type case-insensitively) and a rendered body', async () => {
    const l = await listen(() => ({ status: 204, body: '' }));
    await sendWebhookReport(
      cfg(`${l.base}/x`, {
        method: 'put',
        contentType: 'application/json',
        headers: {
          'content-type': 'application/vnd.alert+json',
          'X-Team': 'data-{{ name }}',
          Authorization: 'Bearer q',
        },
        body: '{"host": "{{ environment.HOSTNAME }}", "code": {{ exit_code }}, "job": "{{ name }}", "ok": "success={{ success }}"}\n',
      }),
      failed,
      { logger: new RecordingLogger(), env: {} },
    );
    const r = l.requests[0]!;
    expect(r.method).toBe('PUT');
    expect(r.headers['content-type']).toBe('application/vnd.alert+json');
    expect(r.headers['x-team']).toBe('data-{{ name }}'); // header values are literal
    expect(r.headers.authorization).toBe('Bearer q');
    expect(JSON.parse(r.body)).toEqual({ host: 'host1', code: 69, job: 'j', ok: 'success=False' });
  });

  it('drops the body for GET', async () => {
    const l = await listen(() => ({ status: 200, body: 'ok' }));
    await sendWebhookReport(cfg(`${l.base}/g?token=${TOKEN}`, { method: 'GET' }), failed, {
      logger: new RecordingLogger(),
      env: {},
    });
    expect(l.requests[0]!.method).toBe('GET');
    expect(l.requests[0]!.body).toBe('');
  });

  it('logs an HTTP error status with the first 1024 chars of the response, never the URL', async () => {
    const long = `${TOKEN} says no: ${'x'.repeat(2000)}`;
    const l = await listen(() => ({ status: 500, body: long }));
    const log = new RecordingLogger();
    const url = `${l.base}/hooks/${TOKEN}?key=${TOKEN}`;
    await sendWebhookReport(cfg(url), failed, { logger: log, env: {} });
    const errors = log.at('error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.startsWith('webhook reporter of job j: server returned HTTP 500: ')).toBe(true);
    for (const line of log.all()) {
      expect(line).not.toContain(url);
      expect(line).not.toContain(TOKEN);
    }
  });

  it('turns a refused connection into an error that does not contain the URL', async () => {
    const port = await refusedPort();
    const url = `http://127.0.0.1:${port}/hooks/${TOKEN}`;
    const err = await sendWebhookReport(cfg(url), failed, { logger: new RecordingLogger(), env: {} }).then(
      () => null,
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(err!.message).toMatch(/^webhook reporter of job j: request failed: .*ECONNREFUSED/);
    expect(err!.message).not.toContain(TOKEN);
    expect(err!.message).not.toContain(`127.0.0.1:${port}`);
    expect(err!.stack ?? '').not.toContain(TOKEN);

    // and through the dispatcher: one ERROR line, nothing anywhere with the URL
    const log = new RecordingLogger();
    await dispatchReports('failure', { ...defaultReportBlock(), webhook: cfg(url) }, failed, {
      logger: log,
      env: {},
    });
    expect(log.at('error')).toHaveLength(1);
    expect(log.at('error')[0]).toMatch(
      /^Problem reporting job j failure: webhook reporter of job j: request failed/,
    );
    for (const line of log.all()) expect(line).not.toContain(TOKEN);
  });

  it('describes a refused localhost connection (several addresses tried) without the host', async () => {
    const port = await refusedPort();
    const err = await sendWebhookReport(cfg(`http://localhost:${port}/hooks/${TOKEN}`), failed, {
      logger: new RecordingLogger(),
      env: {},
    }).then(
      () => null,
      (e: Error) => e,
    );
    expect(err!.message).toMatch(/^webhook reporter of job j: request failed: fetch failed: .*ECONNREFUSED/);
    expect(err!.message).not.toContain(TOKEN);
    expect(err!.message).not.toContain(`localhost:${port}`);
  });

  it('does not echo an unparsable URL', async () => {
    const err = await sendWebhookReport(cfg(`not a url ${TOKEN}`), failed, {
      logger: new RecordingLogger(),
    }).then(
      () => null,
      (e: Error) => e,
    );
    expect(err!.message).toBe('webhook reporter of job j: the url is not a valid URL');
  });

  it('times out after `timeout` seconds', async () => {
    const l = await listen(() => null);
    const started = Date.now();
    const err = await sendWebhookReport(cfg(`${l.base}/slow/${TOKEN}`, { timeout: 0.3 }), failed, {
      logger: new RecordingLogger(),
      env: {},
    }).then(
      () => null,
      (e: Error) => e,
    );
    expect(Date.now() - started).toBeLessThan(3000);
    expect(err!.message).toBe('webhook reporter of job j: request failed: request timed out');
  });

  it('resolves the URL from an env var, and skips with an ERROR naming the variable when unset', async () => {
    const l = await listen(() => ({ status: 200, body: 'ok' }));
    const c = cfg('', { url: { value: null, fromFile: null, fromEnvVar: 'HOOK_URL' } });
    const log = new RecordingLogger();
    await sendWebhookReport(c, failed, { logger: log, env: {} });
    expect(log.at('error')).toEqual(["webhook: url env var 'HOOK_URL' is not set; not reporting"]);
    await sendWebhookReport(c, failed, { logger: log, env: { HOOK_URL: `${l.base}/e` } });
    expect(l.requests.map((r) => r.url)).toEqual(['/e']);
  });
});

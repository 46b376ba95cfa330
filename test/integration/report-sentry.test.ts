// Sentry reporter against a real node:http listener standing in for the DSN endpoint.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultReportBlock } from '../../src/config/builtins.ts';
import { dispatchReports } from '../../src/report/index.ts';
import { type SentryConfig, sendSentryReport } from '../../src/report/sentry.ts';
import { RecordingLogger, reportContext } from '../helpers/report-kit.ts';

interface Req {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const open: Server[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function listen(status = 200): Promise<{ port: number; requests: Req[] }> {
  const requests: Req[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(status < 400 ? '{"id":"x"}' : '{"detail":"bad"}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  open.push(server);
  return { port: (server.address() as AddressInfo).port, requests };
}

const KEY = 'f00dfeedpublickey';
function cfg(dsn: string, over: Partial<SentryConfig> = {}): SentryConfig {
  return { ...defaultReportBlock().sentry!, dsn: { value: dsn, fromFile: null, fromEnvVar: null }, ...over };
}
const failed = reportContext({
  success: false,
  fail_reason: 'failsWhen=nonzeroReturn and retcode=2',
  exit_code: 2,
  command: ['python3', '-c', 'x'],
  stderr: 'Traceback\n',
});

function parseEnvelope(body: string) {
  const lines = body.split('\n');
  expect(lines).toHaveLength(4);
  expect(lines[3]).toBe('');
  const header = JSON.parse(lines[0]!);
  const item = JSON.parse(lines[1]!);
  const event = JSON.parse(lines[2]!);
  expect(item.type).toBe('event');
  expect(item.length).toBe(Buffer.byteLength(lines[2]!));
  expect(header.event_id).toBe(event.event_id);
  return event;
}

describe('sentry reporter', () => {
  it('POSTs an event envelope with auth header, default body and fingerprint, and the extras', async () => {
    const { port, requests } = await listen();
    const log = new RecordingLogger();
    const now = Date.UTC(2026, 0, 2, 3, 4, 5);
    await sendSentryReport(cfg(`http://${KEY}@127.0.0.1:${port}/42`), failed, {
      logger: log,
      env: {},
      now: () => now,
    });
    expect(requests).toHaveLength(1);
    const r = requests[0]!;
    expect(r.method).toBe('POST');
    expect(r.url).toBe('/api/42/envelope/');
    expect(r.headers['content-type']).toBe('application/x-sentry-envelope');
    expect(r.headers['x-sentry-auth']).toMatch(
      new RegExp(
        `^Sentry sentry_version=7, sentry_client=cronstable/\\d+\\.\\d+\\.\\d+\\S*, sentry_key=${KEY}$`,
      ),
    );
    const event = parseEnvelope(r.body);
    expect(event.event_id).toMatch(/^[0-9a-f]{32}$/);
    expect(event.timestamp).toBe(now / 1000);
    expect(event).toMatchObject({
      platform: 'node',
      level: 'error',
      logger: 'cronstable',
      server_name: hostname(),
      message:
        "Cron job 'j' failed\n\n(job failed because failsWhen=nonzeroReturn and retcode=2)\n\nTraceback\n\n",
      fingerprint: ['cronstable', 'host1', 'j'],
      extra: { job: 'j', exit_code: 2, command: ['python3', '-c', 'x'], shell: '/bin/sh', success: false },
    });
    expect(event.environment).toBeUndefined();
    expect(log.at('error')).toEqual([]);
    expect(log.at('debug').some((l) => l.includes('fingerprint=["cronstable","host1","j"]'))).toBe(true);
    expect(log.all().join('\n')).not.toContain(KEY);
  });

  it('honours a path prefix, level mapping, configured fingerprint, extra, environment, body and maxStringLength', async () => {
    const { port, requests } = await listen();
    await sendSentryReport(
      cfg(`http://${KEY}@127.0.0.1:${port}/sentry/prefix/7`, {
        level: 'critical',
        fingerprint: ['{{ name }}-{{ exit_code }}', 'static'],
        extra: { team: 'data', job: 'overr...' },
        environment: 'production',
        body: '{{ name }}: {{ stderr }}',
        maxStringLength: 8,
      }),
      failed,
      { logger: new RecordingLogger(), env: {} },
    );
    expect(requests[0]!.url).toBe('/sentry/prefix/api/7/envelope/');
    const event = parseEnvelope(requests[0]!.body);
    expect(event.level).toBe('fatal');
    expect(event.fingerprint).toEqual(['j-2', 'static']);
    expect(event.environment).toBe('production');
    expect(event.extra).toMatchObject({ team: 'data', job: 'overr...', exit_code: 2 });
    expect(event.message).toBe('j: Tr...');
  });

  it('keeps other levels as they are', async () => {
    const { port, requests } = await listen();
    await sendSentryReport(cfg(`http://${KEY}@127.0.0.1:${port}/1`, { level: 'warning' }), reportContext(), {
      logger: new RecordingLogger(),
      env: {},
    });
    expect(parseEnvelope(requests[0]!.body).level).toBe('warning');
  });

  it('reads the DSN from the environment, and skips with an ERROR naming the variable when unset', async () => {
    const { port, requests } = await listen();
    const c = cfg('', { dsn: { value: null, fromFile: null, fromEnvVar: 'SENTRY_DSN' } });
    const log = new RecordingLogger();
    await sendSentryReport(c, failed, { logger: log, env: {} });
    expect(log.at('error')).toEqual(["sentry: dsn env var 'SENTRY_DSN' is not set; not reporting"]);
    expect(requests).toHaveLength(0);
    await sendSentryReport(c, failed, {
      logger: log,
      env: { SENTRY_DSN: `http://${KEY}@127.0.0.1:${port}/3` },
    });
    expect(requests.map((r) => r.url)).toEqual(['/api/3/envelope/']);
  });

  it('turns a refused connection into a reporter error without the key', async () => {
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const port = (s.address() as AddressInfo).port;
    await new Promise((r) => s.close(r));
    const err = await sendSentryReport(cfg(`http://${KEY}@127.0.0.1:${port}/9`), failed, {
      logger: new RecordingLogger(),
      env: {},
    }).then(
      () => null,
      (e: Error) => e,
    );
    expect(err!.message).toMatch(/^sentry: sending the event failed: fetch failed: connect ECONNREFUSED/);
    expect(err!.message).not.toContain(KEY);
  });

  it('turns an HTTP error into a reporter error without the key', async () => {
    const { port } = await listen(500);
    const log = new RecordingLogger();
    await dispatchReports(
      'failure',
      { ...defaultReportBlock(), sentry: cfg(`http://${KEY}@127.0.0.1:${port}/9`) },
      failed,
      { logger: log, env: {} },
    );
    expect(log.at('error')).toEqual([
      'Problem reporting job j failure: sentry: server returned HTTP 500: {"detail":"bad"}',
    ]);
    expect(log.all().join('\n')).not.toContain(KEY);
  });
});

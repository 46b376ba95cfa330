// Spec 09 §8 on one real daemon: the statsd datagrams of a run under a prefix with `:` and `|`
// (vector 38, a real UDP socket), archived output redacted by the widened rules (vector 39, read
// back from the store), and a mail report to an SMTP server that accepts and never answers given
// up after the overall budget while the job's retry is still armed (vector 40). The daemon gets
// a short mail budget through its test hook; the product's is 60 s, and so is its log text.
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.ts';
import { udpSink, waitFor } from '../helpers/sinks.ts';
import { writeTree } from '../helpers/tmp.ts';

const BUNDLE = join(import.meta.dirname, '..', '..', 'dist', 'cronstable.mjs');
const BUDGET_MS = 1500;

const LEAKY_LINES = [
  'PGPASSWORD=hunter2 psql',
  'REDISCLI_AUTH=abc redis-cli',
  'Authorization: Bearer abc+def/ghi~jkl==',
  'Authorization: Basic dXNlcjpwYXNz-_x',
  'oauth: on',
];

let dir: string;
let child: ChildProcess;
let err = '';
let udp: Awaited<ReturnType<typeof udpSink>>;
let silent: Server;
const silentSockets: Socket[] = [];
let startedAt = 0;

beforeAll(async () => {
  udp = await udpSink();
  silent = createServer((s) => {
    silentSockets.push(s);
  });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  const smtpPort = (silent.address() as { port: number }).port;
  dir = writeTree({}, true);
  writeFileSync(
    join(dir, 'c.yaml'),
    `state:
  path: ${join(dir, 'state')}
  topology: single-node
  deploymentId: spec09
web:
  listen:
    - http://127.0.0.1:0
jobs:
  - name: metered
    command: "true"
    schedule: "@reboot"
    statsd:
      prefix: "a:b|c"
      host: 127.0.0.1
      port: "${udp.port}"
  - name: leaky
    command: |-
      printf '%s\\n' ${LEAKY_LINES.map((l) => `'${l}'`).join(' ')}
    schedule: "@reboot"
    captureStdout: true
    archiveOutput: true
  - name: J
    command: exit 1
    schedule: "@reboot"
    onFailure:
      retry:
        maximumRetries: 2
        initialDelay: 3600
        maximumDelay: 3600
        backoffMultiplier: 1
      report:
        mail:
          from: cron@example.com
          to: ops@example.com
          smtpHost: 127.0.0.1
          smtpPort: "${smtpPort}"
`,
  );
  startedAt = Date.now();
  child = spawn(process.execPath, [BUNDLE, '-c', join(dir, 'c.yaml')], {
    cwd: dir,
    env: { ...process.env, CRONSTABLE_TEST_MAIL_BUDGET_MS: String(BUDGET_MS) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr!.on('data', (c: Buffer) => {
    err += c.toString();
  });
  await waitFor(
    () => /web: started listening on/.test(err) || child.exitCode !== null,
    15_000,
    'the web listener',
  );
  if (child.exitCode !== null) throw new Error(`the daemon exited: ${err}`);
}, 30_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  for (const s of silentSockets) s.destroy();
  silent?.close();
  await udp?.close();
});

describe('spec 09 §8 on a daemon', () => {
  it('sends statsd datagrams without a sample rate, the prefix stripped of : and | (vector 38)', async () => {
    await waitFor(() => udp.datagrams.length >= 2, 10_000, 'two datagrams');
    expect(udp.datagrams[0]).toBe('abc.start:1|g\n');
    expect(udp.datagrams[1]).toMatch(/^abc\.stop:1\|g\nabc\.success:1\|g\nabc\.duration:\d+\|ms\n$/);
  });

  it('redacts the archived lines by the widened rules (vector 39)', async () => {
    const store = await openStore({
      path: join(dir, 'state'),
      namespace: 'spec09',
      topology: 'single-node',
      inline: true,
    });
    try {
      let lines: string[] = [];
      await waitFor(
        () => {
          void store.newest('logs/leaky').then((r) => {
            const data = r?.data as { lines?: { line: string }[] } | undefined;
            lines = (data?.lines ?? []).map((l) => l.line.replace(/\n$/, ''));
          });
          return lines.length === LEAKY_LINES.length;
        },
        10_000,
        'the archived output',
      );
      expect(lines).toEqual([
        'PGPASSWORD=***REDACTED***',
        'REDISCLI_AUTH=***REDACTED***',
        'Authorization: Bearer ***REDACTED***',
        'Authorization: Basic ***REDACTED***',
        'oauth: on',
      ]);
    } finally {
      await store.close();
    }
  });

  it('gives up a mail report after the overall budget and still arms the retry (vector 40)', async () => {
    const text = 'mail: report for job J did not complete within 60 seconds; giving up on it';
    await waitFor(() => err.includes(text), 15_000, 'the give-up ERROR');
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(BUDGET_MS);
    expect(err).toMatch(new RegExp(`ERROR.*${text.replace(/[.;]/g, '\\$&')}`));
    // The connection was closed by the daemon, not left to the server.
    await waitFor(
      () => silentSockets.length > 0 && silentSockets.every((s) => s.destroyed || s.readableEnded),
      5000,
      'the closed SMTP connection',
    );
    const base = /web: started listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(err)![1]!;
    let retries: { job: string; attempt: number }[] = [];
    await waitFor(
      () => {
        void fetch(`${base}/state`)
          .then((r) => r.json())
          .then((b) => {
            retries = (b as { node?: { retries?: { job: string; attempt: number }[] } }).node?.retries ?? [];
          });
        return retries.some((r) => r.job === 'J');
      },
      10_000,
      'the armed retry of J',
    );
  });
});

// dispatchReports: the four reporters run concurrently and fail independently.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultReportBlock } from '../../src/config/builtins.ts';
import type { ReportBlock } from '../../src/config/types.ts';
import { dispatchReports } from '../../src/report/index.ts';
import type { ReportLogger } from '../../src/report/types.ts';
import { refusedPort } from '../helpers/refused-port.ts';
import { RecordingLogger, reportContext } from '../helpers/report-kit.ts';
import { writeTree } from '../helpers/tmp.ts';

const open: Server[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function sink(delayMs = 0): Promise<{ port: number; paths: string[]; times: number[] }> {
  const paths: string[] = [];
  const times: number[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      paths.push(req.url ?? '');
      times.push(Date.now());
      setTimeout(() => res.end('ok'), delayMs);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  open.push(server);
  return { port: (server.address() as AddressInfo).port, paths, times };
}

const secret = (value: string) => ({ value, fromFile: null, fromEnvVar: null });
const ctx = reportContext({ success: false, fail_reason: 'failsWhen=always', exit_code: 1 });

describe('dispatchReports', () => {
  it('keeps running the other reporters when one fails', async () => {
    const sentry = await sink();
    const dead = await refusedPort();
    const out = join(writeTree({}), 'shell-ran');
    const base = defaultReportBlock();
    const block: ReportBlock = {
      ...base,
      sentry: { ...base.sentry!, dsn: secret(`http://key@127.0.0.1:${sentry.port}/5`) },
      shell: { command: `echo "$CRONSTABLE_JOB_NAME" > '${out}'` },
      webhook: { ...base.webhook!, url: secret(`http://127.0.0.1:${dead}/hook`) },
      mail: {
        ...base.mail!,
        from: 'a@example.com',
        to: 'b@example.com',
        smtpHost: '127.0.0.1',
        smtpPort: dead,
      },
    };
    const log = new RecordingLogger();
    await expect(
      dispatchReports('failure', block, ctx, { logger: log, env: { PATH: process.env.PATH } }),
    ).resolves.toBeUndefined();
    expect(sentry.paths).toEqual(['/api/5/envelope/']);
    expect(readFileSync(out, 'utf8')).toBe('j\n');
    const errors = log.at('error').sort();
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/^Problem reporting job j failure: .*ECONNREFUSED/); // mail
    expect(errors[1]).toMatch(/^Problem reporting job j failure: webhook reporter of job j: request failed/);
    expect(log.at('debug').some((l) => l.includes('    at '))).toBe(true); // stacks at DEBUG
  });

  it('runs the reporters concurrently', async () => {
    const slow = await sink(400);
    const base = defaultReportBlock();
    const block: ReportBlock = {
      ...base,
      sentry: { ...base.sentry!, dsn: secret(`http://key@127.0.0.1:${slow.port}/1`) },
      webhook: { ...base.webhook!, url: secret(`http://127.0.0.1:${slow.port}/hook`) },
    };
    const started = Date.now();
    await dispatchReports('success', block, reportContext(), { logger: new RecordingLogger(), env: {} });
    expect(slow.paths.sort()).toEqual(['/api/1/envelope/', '/hook']);
    expect(Date.now() - started).toBeLessThan(750);
  });

  it('does nothing for an unconfigured or missing block', async () => {
    const log = new RecordingLogger();
    await dispatchReports('failure', defaultReportBlock(), ctx, { logger: log, env: {} });
    await dispatchReports('failure', null, ctx, { logger: log, env: {} });
    expect(log.entries).toEqual([]);
  });

  it('never rejects, even with a template error and a throwing logger', async () => {
    const base = defaultReportBlock();
    const block: ReportBlock = {
      ...base,
      webhook: { ...base.webhook!, url: secret('http://127.0.0.1:1/x'), body: '{% if %}' },
    };
    const throwing: ReportLogger = {
      debug() {
        throw new Error('x');
      },
      info() {
        throw new Error('x');
      },
      warning() {
        throw new Error('x');
      },
      error() {
        throw new Error('x');
      },
    };
    await expect(
      dispatchReports('failure', block, ctx, { logger: throwing, env: {} }),
    ).resolves.toBeUndefined();
    const log = new RecordingLogger();
    await dispatchReports('failure', block, ctx, { logger: log, env: {} });
    expect(log.at('error')).toEqual([
      expect.stringMatching(/^Problem reporting job j failure: template syntax error/),
    ]);
  });
});

// A pause defers a pending retry (spec 10 §1.3, vector 19) on a real daemon with a store: a job fails
// at boot with a 5 s retry delay, is paused inside the delay, and no attempt runs while it is paused
// (the retry is re-checked every max(delay, 1 s), neither consumed nor cancelled); after the resume the
// attempt runs at the next re-check, within one delay.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort } from '../../scripts/fleet/ports.ts';
import { until } from '../helpers/until.ts';

const BUNDLE = join(import.meta.dirname, '..', '..', 'dist', 'cronstable.mjs');
const DELAY_S = 5;

let dir: string;
let base: string;
let child: ChildProcess;
let log = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cronstable-pause-retry-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  writeFileSync(
    join(dir, 'c.yaml'),
    `web:
  listen:
    - http://127.0.0.1:${port}
state:
  path: ${join(dir, 'state')}
jobs:
  - name: flaky
    command: date +%s%3N >> ${join(dir, 'attempts')}; exit 1
    schedule: '@reboot'
    onFailure:
      retry:
        maximumRetries: 3
        initialDelay: ${DELAY_S}
        maximumDelay: ${DELAY_S}
        backoffMultiplier: 1
`,
  );
  child = spawn(process.execPath, [BUNDLE, '-c', join(dir, 'c.yaml')], { stdio: ['ignore', 'pipe', 'pipe'] });
  for (const s of [child.stdout!, child.stderr!])
    s.on('data', (c: Buffer) => {
      log += c.toString();
    });
}, 30_000);
afterAll(async () => {
  if (child.exitCode === null) {
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await gone;
  }
  rmSync(dir, { recursive: true, force: true });
});

const attempts = (): number[] =>
  existsSync(join(dir, 'attempts'))
    ? readFileSync(join(dir, 'attempts'), 'utf8').trim().split('\n').filter(Boolean).map(Number)
    : [];
// biome-ignore lint/suspicious/noExplicitAny: the test reads the daemon's JSON loosely
const row = async (): Promise<any> => (await fetch(`${base}/jobs/flaky`).catch(() => null))?.json();

it('v19: a retry waits out the pause and runs within one delay of the resume', async () => {
  // The boot run failed and its first retry is armed: pause inside the delay.
  await until(`the first failure and its retry (log: ${log})`, 20_000, async () =>
    attempts().length === 1 && (await row())?.retry?.nextRetryAt ? true : null,
  );
  const r = await fetch(`${base}/jobs/flaky/pause`, { method: 'POST', body: '{"durationSeconds":600}' });
  expect(r.status).toBe(200);
  const firstDue = Date.parse((await row()).retry.nextRetryAt);

  // The retry comes due while paused: deferred, logged once, and re-armed again and again.
  await until('the deferral', 15_000, async () =>
    /Cron job flaky retry \(#1\) deferred: the job is paused until \S+; re-checking in 5 seconds/.test(log)
      ? true
      : null,
  );
  await until('a second re-check while paused', 20_000, async () => {
    const next = Date.parse((await row())?.retry?.nextRetryAt ?? '');
    return next >= firstDue + 2 * DELAY_S * 1000 - 500 ? true : null;
  });
  expect(attempts()).toHaveLength(1);
  expect((await row()).retry.attempt).toBe(1);
  expect(log.match(/retry \(#1\) deferred/g)).toHaveLength(1);

  const resumedAt = Date.now();
  expect((await fetch(`${base}/jobs/flaky/resume`, { method: 'POST' })).status).toBe(200);
  const second = await until('the attempt after the resume', 15_000, async () =>
    attempts().length >= 2 ? attempts()[1]! : null,
  );
  expect(second).toBeGreaterThanOrEqual(resumedAt - 50);
  expect(second - resumedAt).toBeLessThanOrEqual(DELAY_S * 1000 + 1500);
}, 90_000);

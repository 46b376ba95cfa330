// Issue 33 (terminal dashboard items): what a user hit at 120x40 and 80x24 with a dozen jobs, each pinned
// against the loopback fixture daemon and a real Controller.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApiJob } from '../../src/dashboard/types.ts';
import { apiJob } from '../helpers/api-job.ts';
import { FIXTURE_NOW, FixtureDaemon, fixtureJobs, type Harness, mountTui } from '../helpers/tui-fixture.ts';

const daemon = new FixtureDaemon();
beforeAll(() => daemon.start());
afterAll(() => daemon.stop());

let h: Harness;
afterEach(() => {
  h?.close();
  daemon.jobs = fixtureJobs();
});

const iso = (secondsAgo: number) => new Date(FIXTURE_NOW - secondsAgo * 1000).toISOString();
const okRun = (secondsAgo: number) => ({
  outcome: 'success' as const,
  exit_code: 0,
  started_at: iso(secondsAgo + 1),
  finished_at: iso(secondsAgo),
  duration: 1,
  fail_reason: null,
  resources: null,
});

describe('item 1: the cpu/mem column at 120x40', () => {
  it('shows a running job’s running_resources as the daemon sends them', async () => {
    daemon.jobs = fixtureJobs().map((j) =>
      j.name === 'long-sleep'
        ? ({
            ...j,
            running_resources: {
              cpu_percent: 12,
              cpu_seconds: 0.5,
              rss_bytes: 5 * 1024 * 1024,
              instances: 1,
            },
          } as ApiJob)
        : j,
    );
    h = mountTui(daemon, { cols: 120, rows: 40 });
    await h.shows('cpu/mem');
    const row = h
      .text()
      .split('\n')
      .find((r) => r.includes('long-sleep'));
    expect(row).toMatch(/12% 5\.0 ?MiB/);
  });
});

describe('item 2: wallboard tiles keep their order across polls', () => {
  it('OK tiles are ordered by name, whatever finished last', async () => {
    const jobs = (order: string[]) =>
      ['alpha', 'bravo', 'charlie', 'delta'].map((n) => apiJob(n, { last_run: okRun(order.indexOf(n) + 1) }));
    h = mountTui(daemon, { wallboard: true, cols: 120, rows: 40 });
    const tileOrder = () =>
      h
        .text()
        .split('\n')
        .flatMap((l) => [...l.matchAll(/● (alpha|bravo|charlie|delta)/g)].map((m) => m[1]));
    h.ctl.acceptJobs(jobs(['delta', 'charlie', 'bravo', 'alpha']));
    await h.shows('● delta');
    expect(tileOrder()).toEqual(['alpha', 'bravo', 'charlie', 'delta']);
    h.ctl.acceptJobs(jobs(['bravo', 'alpha', 'delta', 'charlie']));
    await h.settle();
    expect(tileOrder()).toEqual(['alpha', 'bravo', 'charlie', 'delta']);
  });
});

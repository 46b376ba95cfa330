// Issue 33 (terminal dashboard items): what a user hit at 120x40 and 80x24 with a dozen jobs, each pinned
// against the loopback fixture daemon and a real Controller.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApiJob } from '../../src/dashboard/types.ts';
import { cellWidth } from '../../src/tui/text/width.ts';
import { apiJob } from '../helpers/api-job.ts';
import {
  FIXTURE_NOW,
  FixtureDaemon,
  fixtureJobs,
  type Harness,
  KEY,
  mountTui,
} from '../helpers/tui-fixture.ts';

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

describe('item 11: a resumed process reconnects quietly', () => {
  /** The next `/jobs` request meets a dropped connection, as a kept-alive socket the daemon closed meanwhile. */
  function dropNextJobs(): () => number {
    let dropped = 0;
    daemon.extra = (req, url) => {
      if (url !== '/jobs' || dropped > 0) return false;
      dropped++;
      req.socket.destroy();
      return true;
    };
    return () => dropped;
  }
  afterEach(() => {
    daemon.extra = null;
  });

  it('after SIGCONT the first failed poll is retried without the error state', async () => {
    h = mountTui(daemon);
    await h.shows('● live');
    const dropped = dropNextJobs();
    const errors: (string | null)[] = [];
    const off = h.store.subscribe(() => errors.push(h.store.get().data.error));
    daemon.requests.length = 0;
    h.ctl.resumed();
    await until(() => dropped() === 1 && daemon.requests.filter((r) => r.url === '/jobs').length >= 2);
    await h.shows('● live');
    off();
    expect(errors.filter((e) => e !== null)).toEqual([]);
    expect(h.text().split('\n')[0]).not.toContain('◌');
  });

  it('without a resume the same failure shows (the grace is for resumes only)', async () => {
    h = mountTui(daemon);
    await h.shows('● live');
    dropNextJobs();
    h.ctl.wake();
    await until(() => h.text().split('\n')[0]!.includes('◌'));
  });
});

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('item 4: padded columns count terminal cells', () => {
  it('a palette entry for a CJK or emoji job name keeps its icon inside the panel', async () => {
    daemon.jobs = [
      apiJob('日本語のバックアップ', { last_run: okRun(5) }),
      apiJob('🚀-deploy', { last_run: okRun(5) }),
    ];
    h = mountTui(daemon, { cols: 120, rows: 40 });
    h.ctl.acceptJobs(daemon.jobs);
    await h.press(KEY.ctrlK, 'L', 'o', 'g', 's', ':');
    await h.shows('Logs: 日本語のバックアップ', 'Logs: 🚀-deploy');
    const lines = h.text().split('\n');
    for (const name of ['日本語のバックアップ', '🚀-deploy']) {
      const row = lines.find((l) => l.includes(`Logs: ${name}`))!;
      // the status hint sits right before the panel's right border, which stays in its column
      expect(row).toMatch(/ ok │/);
      const plain = lines.find((l) => l.includes('Refresh now') || l.includes('command palette'))!;
      expect(cellWidth(row)).toBe(cellWidth(plain));
    }
  });
});

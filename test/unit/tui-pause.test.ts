// The TUI's pause control (spec 10 §1.5): `p` on the board pauses the selected job with an empty body
// (one hour) or resumes a paused one, with the spec's toasts; a paused row reads Paused with `⏸` and
// its Next cell `⏸ til HH:MM` (UTC); against a daemon older than pauses (rows without `paused`) the
// key is inert; a 401 opens the token prompt. ink-testing-library around a real Controller and the
// loopback fixture daemon, its pause routes answering as the daemon does.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { ApiJob } from '../../src/dashboard/types.ts';
import { FixtureDaemon, fixtureJobs, type Harness, mountTui } from '../helpers/tui-fixture.ts';

const daemon = new FixtureDaemon();
const UNTIL = '2026-03-02T14:05:00.000000+00:00';
const bodies: string[] = [];

beforeAll(async () => {
  // The pause routes flip the fixture's row as the daemon would, and record the body they got.
  daemon.extra = (req, url, res) => {
    const m = /^\/jobs\/([^/]+)\/(pause|resume)$/.exec(url);
    if (!m || req.method !== 'POST') return false;
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      bodies.push(body);
      const job = daemon.jobs.find((j) => j.name === decodeURIComponent(m[1]!));
      if (!job) return void res.writeHead(404).end('{"error":"nope"}');
      const paused =
        m[2] === 'pause'
          ? {
              since: '2026-03-02T13:05:00.000000+00:00',
              until: UNTIL,
              note: '',
              by: 'api',
              channel: 'api' as const,
            }
          : null;
      job.paused = paused;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ paused }));
    });
    return true;
  };
  await daemon.start();
});
afterAll(() => daemon.stop());

let h: Harness;
afterEach(() => {
  h?.close();
  daemon.jobs = fixtureJobs();
  daemon.token = null;
  daemon.requests.length = 0;
  bodies.length = 0;
});

const posts = () => daemon.requests.filter((r) => r.method === 'POST').map((r) => r.url);
const withPaused = (jobs: ApiJob[]): ApiJob[] => jobs.map((j) => ({ ...j, paused: null }));

async function until(test: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!test() && Date.now() < end) await h.settle(25);
  expect(test()).toBe(true);
}

it('p pauses the selected job for an hour and resumes a paused one', async () => {
  daemon.jobs = withPaused(fixtureJobs());
  h = mountTui(daemon);
  await h.settle();
  h.store.set({ selected: 'report-daily' });
  await h.press('p');
  await until(() => h.text().includes('⏸ paused report-daily'));
  expect(posts()).toEqual(['/jobs/report-daily/pause']);
  expect(bodies).toEqual(['']);
  // The next poll shows the row paused, its Next cell the expiry in UTC.
  await h.press('g');
  await until(() => /⏸ Paused/.test(h.text()) && h.text().includes('⏸ til 14:05'));
  await h.press('p');
  await until(() => h.text().includes('⏵ resumed report-daily'));
  expect(posts()).toEqual(['/jobs/report-daily/pause', '/jobs/report-daily/resume']);
  await h.press('g');
  await until(() => !h.text().includes('til 14:05'));
});

it('p is inert against a daemon whose rows have no `paused`', async () => {
  h = mountTui(daemon);
  await h.settle();
  h.store.set({ selected: 'report-daily' });
  await h.press('p');
  await h.settle(150);
  expect(posts()).toEqual([]);
});

it('a 401 on pause opens the token prompt', async () => {
  daemon.jobs = withPaused(fixtureJobs());
  h = mountTui(daemon);
  await h.settle();
  h.store.set({ selected: 'report-daily' });
  daemon.token = 'sekrit';
  await h.press('p');
  await until(() => h.store.get().stack.some((s) => s.kind === 'token'));
});

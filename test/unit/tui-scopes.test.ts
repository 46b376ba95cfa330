// The terminal dashboard hides what the presented token cannot do (spec 10 §5.4, like the browser dashboard):
// it asks `GET /whoami` after the first load and on every token change; without `control` the run / cancel /
// pause keys send nothing and the palette leaves out Run, Cancel, run-failing and Mitigate; a daemon without
// `/whoami` (404) keeps everything. ink-testing-library around a real Controller and the loopback fixture daemon.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import {
  FixtureDaemon,
  fixtureJobs,
  type Harness,
  KEY,
  mountTui,
  whoamiFor,
} from '../helpers/tui-fixture.ts';

const daemon = new FixtureDaemon();

beforeAll(async () => {
  // The pause route answers as the daemon does, so a `p` that is let through has somewhere to land.
  daemon.extra = (req, url, res) => {
    if (req.method !== 'POST' || !/^\/jobs\/[^/]+\/(pause|resume)$/.test(url)) return false;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"paused":null}');
    return true;
  };
  await daemon.start();
});
afterAll(() => daemon.stop());

let h: Harness;
afterEach(() => {
  h?.close();
  daemon.jobs = fixtureJobs();
  daemon.routes = {};
  daemon.requests.length = 0;
});

const posts = () => daemon.requests.filter((r) => r.method === 'POST').map((r) => r.url);
const whoamiAsks = () => daemon.requests.filter((r) => r.url === '/whoami').length;

/** Mounted with every row pausable, the answer to `/whoami` already taken in. */
async function mounted(): Promise<Harness> {
  daemon.jobs = fixtureJobs().map((j) => ({ ...j, paused: null }));
  const t = mountTui(daemon);
  await t.ctl.loadAccess();
  await t.settle();
  return t;
}

/** Presses r on an idle job, x on a running one and p, on the board, then r and x in the job drawer (whose x
 * posts whether or not the job runs), then r and y on a marked job: six POSTs when all are let through. */
async function pressActions(t: Harness): Promise<void> {
  t.store.set({ selected: 'report-daily' });
  await t.press('r', 'p');
  t.store.set({ selected: 'long-sleep' });
  await t.press('x');
  t.ctl.openDrawer('report-daily');
  await t.press('r', 'x');
  t.ctl.close('drawer');
  // With jobs marked, r asks to confirm a bulk run and y sweeps it.
  t.store.set({ marked: new Set(['colour-probe']) });
  await t.press('r', 'y');
  t.store.set({ marked: new Set() });
  await t.settle();
}

/** The palette's entries for a query, as shown. */
async function palette(t: Harness, query: string): Promise<string> {
  await t.press(KEY.ctrlK, ...query);
  await t.shows(`⌕ ${query}`);
  const shown = t.text();
  await t.press(KEY.esc);
  return shown;
}

it('a view-only token: r / x / p send nothing and the palette leaves out the run, cancel and mitigate entries', async () => {
  daemon.routes['/whoami'] = whoamiFor('view');
  h = await mounted();
  expect(h.store.get().data.access).toMatchObject({ control: false, approve: false });
  await pressActions(h);
  // A `g` poll after the keys: had any been let through, its POST would be recorded before this GET.
  await h.press('g');
  await expect.poll(() => daemon.requests.filter((r) => r.url === '/jobs').length).toBeGreaterThan(0);
  expect(posts()).toEqual([]);
  const runs = await palette(h, 'run');
  expect(runs).not.toContain('Run all failing jobs');
  expect(runs).not.toContain('Run: report-daily');
  expect(await palette(h, 'cancel')).not.toContain('Cancel: long-sleep');
  expect(await palette(h, 'mitigate')).not.toContain('Mitigate failing jobs');
  // What the token may still do stays listed.
  expect(await palette(h, 'logs: report')).toContain('Logs: report-daily');
});

it('a control-only token keeps r / x / p and the palette entries', async () => {
  daemon.routes['/whoami'] = whoamiFor('view', 'control');
  h = await mounted();
  expect(h.store.get().data.access).toMatchObject({ control: true, approve: false });
  await pressActions(h);
  await expect.poll(() => posts().length).toBe(6);
  expect(posts().sort()).toEqual(
    [
      '/jobs/report-daily/start',
      '/jobs/report-daily/pause',
      '/jobs/long-sleep/cancel',
      '/jobs/report-daily/start',
      '/jobs/report-daily/cancel',
      '/jobs/colour-probe/start',
    ].sort(),
  );
  const runs = await palette(h, 'run');
  expect(runs).toContain('Run all failing jobs');
  expect(runs).toContain('Run: report-daily');
});

it('a daemon without /whoami (404) keeps everything', async () => {
  h = await mounted();
  expect(whoamiAsks()).toBe(1);
  expect(h.store.get().data.access).toMatchObject({ control: true, approve: true });
  await pressActions(h);
  await expect.poll(() => posts().length).toBe(6);
  expect(await palette(h, 'run')).toContain('Run all failing jobs');
  expect(await palette(h, 'cancel')).toContain('Cancel: long-sleep');
});

it('asks /whoami after the first load and again when the token changes', async () => {
  daemon.routes['/whoami'] = whoamiFor('view');
  h = mountTui(daemon);
  h.ctl.start(null);
  await expect.poll(() => h.store.get().data.access.control).toBe(false);
  expect(whoamiAsks()).toBe(1);
  daemon.routes['/whoami'] = whoamiFor('view', 'control', 'approve');
  h.ctl.setToken('s3cret');
  await expect.poll(() => h.store.get().data.access.control).toBe(true);
  expect(whoamiAsks()).toBe(2);
  expect(daemon.requests.filter((r) => r.url === '/whoami').at(-1)?.auth).toBe('Bearer s3cret');
});

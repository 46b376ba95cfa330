// ASCII mode (spec 08 §6.1 [better]): with `--ascii` every cell of every view is printable ASCII — the board,
// each drawer tab, every surface kind in the registry, the wallboard, zen, the boot screen, the size notice —
// even with a CJK job name and Unicode job output on screen. A new view kind without a case here fails the
// coverage check. ink-testing-library around a real Controller and a loopback fixture daemon.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { asciiRow } from '../../src/tui/text/asciify.ts';
import { cellWidth } from '../../src/tui/text/width.ts';
import { runBoot } from '../../src/tui/views/boot/boot.ts';
import { VIEW_KINDS } from '../../src/tui/views/registry.ts';
import { dagAndStateRoutes } from '../helpers/tui-extra-routes.ts';
import {
  FixtureDaemon,
  fixtureJobs,
  type Harness,
  KEY,
  mountTui,
  ONE_RUN_STATS,
} from '../helpers/tui-fixture.ts';
import { fleet, gossipCluster, nodeHistory, scheduleRoutes } from '../helpers/tui-panel-fixtures.ts';

const daemon = new FixtureDaemon();
const posts: string[] = [];
beforeAll(async () => {
  daemon.extra = dagAndStateRoutes(posts);
  daemon.jobs = [
    ...fixtureJobs(),
    { ...fixtureJobs()[0]!, name: '備份-ジョブ', command: 'echo “quoted” — ünïcode ✓' },
  ];
  daemon.logs['colour-probe'] = 'plain line\nÜnïcode ✓ 漢字 → done\nE:warn ⚠ on stderr';
  Object.assign(daemon.routes, scheduleRoutes(), {
    '/fleet': fleet(),
    '/cluster': gossipCluster(),
    '/node/history': nodeHistory(),
  });
  await daemon.start();
});
afterAll(() => daemon.stop());

let h: Harness;
afterEach(() => h?.close());

const SGR_AND_MOVES = /\u001b\[[0-9;?]*[A-Za-z]/g;
/** Rows of the screen that hold a character outside printable ASCII. */
function nonAscii(): string[] {
  return h
    .frame()
    .replace(SGR_AND_MOVES, '')
    .split('\n')
    .filter((row) => !/^[\x20-\x7e]*$/.test(row));
}

async function expectAscii(what: string): Promise<void> {
  await h.settle(60);
  expect(nonAscii(), what).toEqual([]);
}

/** How to reach each surface kind from a fresh board, and a text that shows it is drawn. */
const OPEN: Record<string, { keys: string[]; shows: string; wait?: number }> = {
  palette: { keys: [KEY.ctrlK], shows: 'command palette' },
  token: { keys: [KEY.ctrlK, ...'set access', KEY.enter, ...'abc'], shows: 'access token' },
  settings: { keys: [KEY.ctrlK, ...'open settings', KEY.enter], shows: 'prefs file' },
  help: { keys: ['?'], shows: 'keyboard shortcuts' },
  drawer: { keys: [KEY.enter], shows: 'plain line', wait: 300 },
  bulk: { keys: [' ', ' ', 'r'], shows: 'marked job(s)' },
  dags: { keys: [KEY.ctrlK, ...'toggle dags', KEY.enter], shows: 'etl', wait: 200 },
  dag: { keys: [KEY.ctrlK, ...'dag: etl', KEY.enter, KEY.right], shows: 'etl', wait: 200 },
  timeline: { keys: ['i'], shows: 'ago' },
  mitigate: { keys: [KEY.ctrlK, ...'mitigate failing', KEY.enter], shows: 'job(s) in the set' },
  multitail: { keys: ['m', 'a', ...'colour', KEY.enter], shows: 'multi-tail', wait: 300 },
  state: { keys: [KEY.ctrlK, ...'toggle state', KEY.enter], shows: 'state', wait: 200 },
  cluster: { keys: ['C'], shows: 'node-a', wait: 200 },
  fleet: { keys: ['F'], shows: 'nodes', wait: 200 },
  node: { keys: ['N'], shows: 'node', wait: 200 },
  heatmap: { keys: ['H'], shows: 'activity heatmap', wait: 300 },
  radar: { keys: ['R'], shows: 'upcoming' },
  pressure: { keys: ['P'], shows: 'busiest', wait: 300 },
  week: { keys: ['v'], shows: 'next 7 days' },
  sandbox: { keys: ['E'], shows: 'cron sandbox' },
};

describe('ASCII mode', () => {
  it('has a case for every surface kind the registry knows', () => {
    expect(VIEW_KINDS.filter((k) => !(k in OPEN))).toEqual([]);
  });

  it('folds every glyph to ASCII of the same cell width', () => {
    for (const text of ['┌─╴x╶─┐', '▎● OK ✕ ◌ ▶ ⚠ …', '漢字 ab', 'e\u0301 café', '▁▂▃▄▅▆▇█ ░▒▓']) {
      const out = asciiRow(text);
      expect(out).toMatch(/^[\x20-\x7e]*$/);
      expect(out.length).toBe(cellWidth(text));
    }
    expect(asciiRow('\u001b[1m▶ run\u001b[0m')).toBe('\u001b[1m> run\u001b[0m');
  });

  it('the board, with a CJK job name, and its marks and toasts', async () => {
    h = mountTui(daemon, { ascii: true });
    await h.press(' ', 't');
    expect(h.text()).toContain('1 marked');
    await expectAscii('board');
  });

  for (const [kind, how] of Object.entries(OPEN))
    it(`the ${kind} surface`, async () => {
      h = mountTui(daemon, { ascii: true, rows: 36 });
      await h.ctl.poll();
      await h.ctl.loadDags();
      await h.press(...how.keys);
      const end = Date.now() + 5000;
      while (!h.text().includes(how.shows) && Date.now() < end) await h.settle(50);
      await h.settle(how.wait ?? 0);
      expect(h.store.get().stack.map((s) => s.kind)).toContain(kind);
      expect(h.text()).toContain(how.shows);
      await expectAscii(kind);
    });

  it('every drawer tab', async () => {
    daemon.routes['/jobs/colour-probe/runs'] = {
      name: 'colour-probe',
      runs: [
        { ...fixtureJobs()[4]!.last_run!, resources: { cpu_total_seconds: 1.25, max_rss_bytes: 2_000_000 } },
      ],
      stats: { ...ONE_RUN_STATS, avg_cpu_seconds: 1.25, max_rss_bytes: 2_000_000 },
    };
    try {
      h = mountTui(daemon, { ascii: true });
      await h.press(KEY.enter);
      for (const tab of ['history', 'resources', 'schedule']) {
        await h.press(KEY.right);
        await h.settle(150);
        expect((h.store.get().stack.at(-1) as { tab?: string }).tab).toBe(tab);
        await expectAscii(`drawer ${tab}`);
      }
    } finally {
      delete daemon.routes['/jobs/colour-probe/runs'];
    }
  });

  it('the wallboard, zen, the boot screen and the size notice', async () => {
    h = mountTui(daemon, { ascii: true });
    await h.press('w');
    expect(h.store.get().wallboard).toBe(true);
    await expectAscii('wallboard');
    h.close();

    const saved = daemon.jobs;
    daemon.jobs = fixtureJobs().filter((j) => !j.running && j.last_run?.outcome !== 'failure');
    try {
      h = mountTui(daemon, { ascii: true });
      await h.press('w');
      const later = h.store.get().mono + 10 * 60_000;
      (h.ctl.deps as { mono: () => number }).mono = () => later;
      h.store.set({ mono: later });
      h.store.setData({ fetchedAt: later });
      await h.settle(60);
      expect(h.text()).toContain('all clear');
      await expectAscii('zen');
      h.close();
    } finally {
      daemon.jobs = saved;
    }

    h = mountTui(daemon, { ascii: true });
    const done = runBoot(h.ctl, daemon.base);
    for (let i = 0; i < 40 && !h.text().includes('POWER-ON'); i++) await h.settle(25);
    await expectAscii('boot');
    await h.press('x');
    await done;
    h.close();

    h = mountTui(daemon, { ascii: true, cols: 30, rows: 8 });
    await h.settle(40);
    expect(h.text()).toContain('terminal too small');
    await expectAscii('too small');
  });
});

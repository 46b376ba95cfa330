// Issue 33 items 5-9 (terminal dashboard): the log pane's PgUp, the help sheet from the TUI's own key map, the
// board at 80x24, DAG schedules in the week view and `…` on every cut line, each against the loopback
// fixture daemon and a real Controller at the sizes the issue names.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApiDag } from '../../src/dashboard/dag.ts';
import { weekJobs } from '../../src/dashboard/week.ts';
import { parseCron } from '../../src/schedule/parse.ts';
import { GLOBAL_KEYS } from '../../src/tui/app/dispatch.ts';
import { Line } from '../../src/tui/text/line.ts';
import { Theme } from '../../src/tui/text/theme.ts';
import { cellWidth, clip } from '../../src/tui/text/width.ts';
import { helpLines } from '../../src/tui/views/help/help.ts';
import { innerWidth } from '../../src/tui/views/panel.ts';
import { VIEWS } from '../../src/tui/views/registry.ts';
import { ETL_DAG } from '../helpers/tui-extra-routes.ts';
import { FixtureDaemon, fixtureJobs, type Harness, KEY, mountTui } from '../helpers/tui-fixture.ts';
import { gossipCluster } from '../helpers/tui-panel-fixtures.ts';

const daemon = new FixtureDaemon();
beforeAll(() => daemon.start());
afterAll(() => daemon.stop());

let h: Harness;
afterEach(() => {
  h?.close();
  daemon.jobs = fixtureJobs();
  daemon.logs = {};
  daemon.extra = null;
});

const lines = () => h.text().split('\n');

describe('item 7: the board at 80x24 follows spec 08 §4.3', () => {
  it('keeps the command column and gives name its 24 cells', async () => {
    h = mountTui(daemon, { cols: 80, rows: 24 });
    await h.shows('● live');
    const titles = lines().find((l) => /status\s+name/.test(l))!;
    expect(titles).toMatch(/^ status\s+name\s+last\s+next\s+command\s*$/);
    expect(titles).not.toMatch(/schedule|dur|runs/);
    // name is 24 cells plus the space before `last`
    expect(titles.indexOf('last') - titles.indexOf('name')).toBe(25);
    const row = lines().find((l) => l.includes('heartbeat'))!;
    expect(row).toContain('echo "beat');
    for (const l of lines()) expect(cellWidth(l)).toBe(80);
  });

  it('at 120x40 the row is used to its last cell: the leftover goes to name and command', async () => {
    h = mountTui(daemon, { cols: 120, rows: 40 });
    await h.shows('● live');
    const titles = lines().find((l) => /status\s+name/.test(l))!;
    expect(titles).toMatch(/schedule\s+last\s+next\s+dur\s+runs\s+command/);
    // 1 marker + 11+24+14+10+10+8+11+20 + 7 spaces = 116: four cells left, two each to name and command
    expect(titles.indexOf('schedule') - titles.indexOf('name')).toBe(27);
    expect(cellWidth(titles.slice(titles.indexOf('command')))).toBe(22);
  });
});

describe('item 5: PgUp on a log a little longer than the pane', () => {
  const PGUP = '\u001b[5~';
  const PGDN = '\u001b[6~';
  /** the drawer's rows (right of its divider) */
  const pane = () => lines().map((l) => l.slice(l.indexOf('│') + 1));

  it('stops with the oldest line on top and no blank rows at the bottom (120x40)', async () => {
    // 40 rows of drawer: header, tabs, rule and the search row leave 36 for the log; 42 lines + the end marker
    daemon.logs.heartbeat = Array.from(
      { length: 42 },
      (_, i) => `line ${String(i + 1).padStart(2, '0')}`,
    ).join('\n');
    h = mountTui(daemon, { cols: 120, rows: 40 });
    h.ctl.openDrawer('heartbeat');
    await h.shows('line 42', 'end of run output');
    await h.press(PGUP);
    const rows = pane();
    expect(rows.find((r) => r.includes('line '))).toContain('line 01');
    expect(rows.at(-1)).toMatch(/line \d\d/);
    expect(rows.at(-1)).not.toContain('line 42');
    // a second PgUp has nowhere further to go; one PgDn is back at the newest lines
    await h.press(PGUP);
    expect(pane()).toEqual(rows);
    await h.press(PGDN);
    expect(h.text()).toContain('end of run output');
    expect(pane().at(-1)).toContain('end of run output');
  });

  it('a log that fits does not move at all', async () => {
    daemon.logs.heartbeat = 'only\nthree\nlines';
    h = mountTui(daemon, { cols: 80, rows: 24 });
    h.ctl.openDrawer('heartbeat');
    await h.shows('lines', 'end of run output');
    const before = h.text();
    await h.press(PGUP, PGUP);
    expect(h.text()).toBe(before);
  });
});

describe('item 8: the week view charts the scheduled DAGs', () => {
  const dag = (name: string, over: Partial<ApiDag>): ApiDag => ({ ...ETL_DAG, name, ...over }) as ApiDag;

  it('a scheduled DAG is one more schedule, with its fires in the grid and the agenda (120x40)', async () => {
    const dags = [
      dag('nightly-etl', { scheduled: true, schedule: '30 4 * * *' }),
      // neither a manual nor a disabled DAG fires
      dag('adhoc', {}),
      dag('paused-etl', { scheduled: true, schedule: '0 1 * * *', enabled: false }),
    ];
    daemon.extra = (_req, url, res) => {
      if (url !== '/dags') return false;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(dags));
      return true;
    };
    h = mountTui(daemon, { cols: 120, rows: 40 });
    await h.press('v');
    // the fixture alone: 12 fires from 5 schedules; the DAG adds 7 fires and a sixth schedule
    await h.shows('next 7 days: 19 fires from 6 schedules');
    await h.press(...Array.from({ length: 12 }, () => 'j'));
    await h.shows(/Mon 07-06 04:30\s+dag:nightly-etl/);
    expect(h.text()).not.toContain('adhoc');
    expect(h.text()).not.toContain('paused-etl');
  });

  it('an H field in a DAG schedule hashes on dag:<name>, the daemon’s key, in UTC', () => {
    const [entry] = weekJobs([], [dag('etl-h', { scheduled: true, schedule: 'H 4 * * *' })]);
    expect(entry!.name).toBe('dag:etl-h');
    expect(entry!.compiled.sched).toEqual(parseCron('H 4 * * *', { hashKey: 'dag:etl-h' }));
    expect(entry!.compiled.frameLabel).toBe('UTC');
  });
});

describe('item 9: a cut line ends in …', () => {
  const row = (part: string | RegExp) =>
    lines().find((l) => (typeof part === 'string' ? l.includes(part) : part.test(l)))!;
  const longReason = 'failsWhen=nonzeroReturn and retcode=69 while the disk at /var/lib/app was full again';
  const failingWithLongReason = () =>
    fixtureJobs().map((j) =>
      j.name === 'nightly-backup' && j.last_run
        ? { ...j, last_run: { ...j.last_run, fail_reason: longReason } }
        : j,
    );

  it('the verdict bar at 80x24', async () => {
    daemon.jobs = failingWithLongReason();
    h = mountTui(daemon, { cols: 80, rows: 24 });
    await h.shows('JOB FAILING — nightly-backup');
    const bar = row('JOB FAILING');
    expect(cellWidth(bar)).toBe(80);
    expect(bar.endsWith('…')).toBe(true);
  });

  it('the cluster-alert bar says a job is failing, and is cut with … at 80x24 (whole at 120x40)', async () => {
    h = mountTui(daemon, { cols: 80, rows: 24 });
    h.store.setData({ cluster: gossipCluster({ quorate: false }) });
    await h.shows('CLUSTER ALERT — NO QUORUM');
    const bar = row('CLUSTER ALERT');
    expect(bar).toContain('nightly-backup also failing');
    expect(bar.endsWith('…')).toBe(true);
    h.close();
    daemon.jobs = fixtureJobs().map((j) =>
      j.name === 'report-daily' && j.last_run
        ? { ...j, last_run: { ...j.last_run, outcome: 'failure' as const } }
        : j,
    );
    h = mountTui(daemon, { cols: 120, rows: 40 });
    h.store.setData({ cluster: gossipCluster({ quorate: false }) });
    await h.shows('CLUSTER ALERT — NO QUORUM');
    expect(row('CLUSTER ALERT')).not.toContain('…');
    expect(row('CLUSTER ALERT')).toMatch(
      /☢ CLUSTER ALERT — NO QUORUM — LEADER JOBS PAUSED — 2 jobs also failing · this node: node-a {3}\(i timeline\)/,
    );
  });

  it('a state value in the inspector at 80x24', async () => {
    const stats = { ops: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`operation${i}`, i])) };
    daemon.extra = (_req, url, res) => {
      if (url !== '/state') return false;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ enabled: true, view: 'metadata', backend: 'sqlite', stats }));
      return true;
    };
    h = mountTui(daemon, { cols: 80, rows: 24 });
    await h.press(KEY.ctrlK, ...'toggle state', KEY.enter);
    await h.shows('stats.ops:');
    expect(row('stats.ops:')).toMatch(/stats\.ops: \{"operation0":0,.*… │/);
  });

  it('the settings hint fits its panel at 80x24, and is cut with … when the panel is narrower', async () => {
    h = mountTui(daemon, { cols: 80, rows: 24 });
    await h.press(KEY.ctrlK, ...'open settings', KEY.enter);
    await h.shows('prefs file');
    expect(row('j/k select')).toMatch(/j\/k select · enter\/space\/→ next · ← prev · esc close\s+│/);
    h.close();
    h = mountTui(daemon, { cols: 44, rows: 24 });
    await h.press(KEY.ctrlK, ...'open settings', KEY.enter);
    await h.shows('prefs file');
    expect(row('j/k select')).toMatch(/j\/k select · [^│]*… │/);
  });
});

describe('item 9: one cut for every row (Line, clip)', () => {
  const theme = new Theme('carolina', 'none');
  const plain = (spans: Array<[string, number?]>, width: number) => {
    const l = new Line(theme, width);
    for (const [t, cells] of spans) l.add(t, {}, cells);
    return l.done().replace(/\u001b\[[0-9;]*m/g, '');
  };

  it('a span cut at the edge ends in …; a cut through padding alone does not', () => {
    expect(plain([['JOB FAILING — a very long reason']], 12)).toBe('JOB FAILING…');
    expect(plain([['name'], ['   ']], 6)).toBe('name  ');
    expect(plain([['cmd', 20]], 10)).toBe('cmd       ');
    expect(clip('日本語のバックアップ', 7)).toBe('日本語…');
    expect(clip('日本語のバックアップ', 6)).toBe('日本 …');
  });

  it('a span left out because the row was already full turns its last cell into …', () => {
    expect(plain([['0123456789'], ['   (i timeline)']], 10)).toBe('012345678…');
    expect(plain([['0123456789'], ['   ']], 10)).toBe('0123456789');
    // a wide character in the last two cells gives way whole
    expect(plain([['abcdefgh日'], ['x']], 10)).toBe('abcdefgh …');
  });
});

describe('item 6: the help sheet is the terminal’s own key map', () => {
  const PGDN = '\u001b[6~';

  /** Every row of the sheet at this size, read off the screen page by page (the panel's inner text). */
  async function sheet(cols: number, rows: number): Promise<string[]> {
    h = mountTui(daemon, { cols, rows });
    await h.press('?');
    await h.shows('keyboard shortcuts');
    const total = helpLines(innerWidth(64, cols), VIEWS).length;
    const visible = Math.max(4, rows - 6);
    const all: string[] = [];
    for (let page = 0; all.length < total; page++) {
      const screen = lines();
      const top = screen.findIndex((l) => l.includes('╴keyboard shortcuts╶'));
      const body = screen
        .slice(top + 1, top + 1 + visible)
        .map((l) => l.slice(l.indexOf('│') + 2, l.lastIndexOf('│') - 1));
      const offset = Math.min(page * 10, total - visible);
      body.forEach((r, i) => {
        all[offset + i] = r;
      });
      await h.press(PGDN);
    }
    h.close();
    return all;
  }

  /** The sheet's rows as [keys, description] pairs, wrapped descriptions joined again. */
  function pairs(rows: string[], keyCol: number): Array<[string, string]> {
    const out: Array<[string, string]> = [];
    for (const r of rows) {
      if (r.trim() === '' || /^(shared with the web dashboard|terminal extras)\s*$/.test(r)) continue;
      const keys = r.slice(0, keyCol).trim();
      const text = r.slice(keyCol).trim();
      if (keys !== '') out.push([keys, text]);
      else out.at(-1)![1] = `${out.at(-1)![1]} ${text}`.trim();
    }
    return out;
  }

  for (const [cols, rows] of [
    [120, 40],
    [80, 24],
    [44, 24],
  ] as const) {
    it(`lists exactly the keys the terminal takes, with their own text, whole words, at ${cols}x${rows}`, async () => {
      const all = await sheet(cols, rows);
      const text = all.join('\n');
      // nothing only the web page has
      for (const webOnly of ['1 / 2 / 3 / 4', 'Tab / Enter', 'column header', 'tab strip', 'high-contrast'])
        expect(text).not.toContain(webOnly);
      expect(text).not.toContain('…');
      // every key label has two clear cells before its description
      const keyCol = all.find((r) => r.startsWith('Ctrl-K / Ctrl-P'))!.indexOf('Command palette');
      expect(keyCol).toBe(17);
      const heading = /^(shared with the web dashboard|terminal extras)\s*$/;
      for (const r of all)
        if (!heading.test(r) && r.slice(0, keyCol).trim() !== '')
          expect(r.slice(keyCol - 2, keyCol)).toBe('  ');
      // the key map, and nothing else, word for word
      const expected = [...GLOBAL_KEYS, ...VIEWS.helpRows()].map(([k, w]) => [k, w]);
      expect(pairs(all, keyCol).sort()).toEqual(expected.sort());
      expect(pairs(all, keyCol)).toContainEqual([
        't',
        'Next theme: standard, carolina, amber, green, modern',
      ]);
      expect(pairs(all, keyCol)).toContainEqual(['T', 'Dark (phosphor) ⇄ light (paper)']);
      // the shared section holds only keys the web sheet lists too: `a`, `q` and the panels' capitals are extras
      const extras = all.findIndex((r) => r.startsWith('terminal extras'));
      const sharedKeys = all.slice(0, extras).map((r) => r.slice(0, keyCol).trim());
      for (const k of ['q', 'a', 'C', 'R', 'PgDn', 'Ctrl-C']) expect(sharedKeys).not.toContain(k);
      for (const k of ['Ctrl-K / Ctrl-P', 'j / ↓', 'r', 't', 'v', '?']) expect(sharedKeys).toContain(k);
    });
  }

  it('every board key has a description, and every row names a key something takes', () => {
    for (const d of VIEWS.descriptors)
      for (const k of d.keys ?? []) expect(k.what.trim(), k.keys.join()).not.toBe('');
    for (const [label] of VIEWS.helpRows().filter(([l]) => /^\S( \/ \S)*$/.test(l)))
      for (const k of label.split(' / '))
        expect(VIEWS.boardKey(k === '↓' ? 'down' : k === '↑' ? 'up' : k)).toBeDefined();
  });
});

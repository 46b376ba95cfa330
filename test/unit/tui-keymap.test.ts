// The key map of spec 08 §5, row by row: KEYMAP below is the spec's table (context -> keys), and every key of
// every row names the test that presses it — one here, or a named test in another tui-*.test.ts file (the
// coverage check reads that file and fails when the title is gone). A key added to the spec's table without a
// test shows up as a failing coverage check. ink-testing-library around a real Controller and a loopback
// fixture daemon (test/helpers/tui-fixture.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Surface } from '../../src/tui/app/state.ts';
import { dagAndStateRoutes } from '../helpers/tui-extra-routes.ts';
import { FixtureDaemon, fixtureJobs, type Harness, KEY, mountTui } from '../helpers/tui-fixture.ts';
import { fleet, gossipCluster, nodeHistory, scheduleRoutes } from '../helpers/tui-panel-fixtures.ts';

/** Spec 08 §5's table (and, last, the keys this dashboard adds), exactly as listed there. */
const KEYMAP: Record<string, readonly string[]> = {
  Anywhere: ['Ctrl-C', 'Ctrl-K', 'Ctrl-P', 'Esc'],
  Board: [
    'j',
    '↓',
    'k',
    '↑',
    'PgDn',
    'PgUp',
    'Home',
    'End',
    'Enter',
    '/',
    '?',
    'r',
    'x',
    'p',
    'c',
    'g',
    't',
    'T',
    'i',
    'w',
    'a',
    'm',
    's',
    'S',
    'f',
    'q',
  ],
  'Any input': ['printable', 'Backspace', 'Ctrl-U', 'Enter'],
  Filter: ['Tab'],
  'Job drawer': ['←', '→', 'Tab', 'Shift-Tab', 'r', 'x'],
  'Logs tab': ['/', 'n', 'N', 'j', '↓', 'k', '↑', 'PgUp', 'PgDn', 'Home', 'End', 'f', 't', 'w', 'd'],
  'Other drawer tabs': ['j', 'k', 'PgUp', 'PgDn'],
  'DAG drawer': ['←', '→', 't', 'b'],
  'DAG runs, tasks': ['j', 'k', 'Enter', 'a', 'R'],
  Palette: ['↑', '↓', 'Enter'],
  Help: ['j', 'k', '↑', '↓', '?'],
  Settings: ['j', 'k', '↑', '↓', 'Enter', 'Space', '←', '→'],
  Timeline: ['j', 'k', 'Enter', 'f', 'm'],
  Mitigate: ['s', 'x', 'a', 'y'],
  'Multi-tail': ['a', 'x', 'j', 'k', 't', 'w', 'PgUp', 'PgDn', 'End'],
  'DAGs panel': ['j', 'k', 'Enter', 't', 'r'],
  Fleet: ['f', 'r', 'j', 'k', 'PgUp', 'PgDn', 'Home'],
  State: ['←', '→', 'Tab', 'Shift-Tab', 'j', 'k', 'Enter', 'r'],
  'Heatmap, pressure, week': ['r', 'scroll keys'],
  'Radar, node, cluster': ['scroll keys'],
  'Wallboard / zen / boot': ['w', 'Esc', 'a', 'Ctrl-C', 'any (zen)', 'any (boot)'],
  // ours, beyond the reference: bulk run / cancel of marked jobs
  'Board (bulk)': ['Space', 'r marked', 'x marked', 'Esc clears marks'],
  'Bulk confirm': ['y', 'Enter', 'n', 'Esc'],
};

/** Which test presses each key: `here` = a test below of that title; else `[file, title]`. */
const COVERED = new Map<string, string | readonly [string, string]>();
function covers(context: string, keys: readonly string[], by: string | readonly [string, string]): void {
  for (const k of keys) COVERED.set(`${context} ${k}`, by);
}

// ---- the fixture ------------------------------------------------------------------------------------------

const daemon = new FixtureDaemon();
const posts: string[] = [];

beforeAll(async () => {
  daemon.extra = dagAndStateRoutes(posts);
  await daemon.start();
});
afterAll(() => daemon.stop());

let h: Harness;
afterEach(() => {
  h?.close();
  daemon.jobs = fixtureJobs();
  daemon.logs = {};
  daemon.routes = {};
  daemon.token = null;
  posts.length = 0;
  daemon.requests.length = 0;
});

const PGUP = '\u001b[5~';
const PGDN = '\u001b[6~';
const HOME = '\u001b[H';
const BACKTAB = '\u001b[Z';
const CTRL_P = '\u0010';

const top = <S = Surface & Record<string, unknown>>(): S => h.store.get().stack.at(-1) as unknown as S;
const kinds = () => h.store.get().stack.map((x) => x.kind);
const selected = () => h.store.get().selected;
const postUrls = () => daemon.requests.filter((r) => r.method === 'POST').map((r) => r.url);

async function until(test: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!test() && Date.now() < end) await h.settle(25);
  expect(test()).toBe(true);
}

/** The `· a-b/n` position a scrolled panel's hint shows, or null when it does not scroll. */
function panelPos(): number | null {
  const m = /· (\d+)-\d+\/\d+/.exec(h.text());
  return m ? Number(m[1]) : null;
}

// ---- coverage ---------------------------------------------------------------------------------------------

const HERE: string[] = [];
function keyTest(title: string, context: string, keys: readonly string[], fn: () => Promise<void>): void {
  covers(context, keys, title);
  HERE.push(title);
  it(title, fn);
}

describe('spec 08 §5 key map coverage', () => {
  it('every key of every context names a test that exists', () => {
    const missing: string[] = [];
    for (const [context, keys] of Object.entries(KEYMAP))
      for (const k of keys) {
        const by = COVERED.get(`${context} ${k}`);
        if (by === undefined) missing.push(`${context}: ${k} (no test)`);
        else if (typeof by === 'string') {
          if (!HERE.includes(by)) missing.push(`${context}: ${k} (no test titled '${by}' here)`);
        } else {
          const text = readFileSync(join(import.meta.dirname, by[0]), 'utf8');
          if (
            !text.includes(`it('${by[1]}`) &&
            !text.includes(`it("${by[1]}`) &&
            !text.includes(`it(\`${by[1]}`)
          )
            missing.push(`${context}: ${k} (no test '${by[1]}' in ${by[0]})`);
        }
      }
    expect(missing).toEqual([]);
  });

  it('names no key the spec table does not have', () => {
    const known = new Set(Object.entries(KEYMAP).flatMap(([c, keys]) => keys.map((k) => `${c} ${k}`)));
    expect([...COVERED.keys()].filter((k) => !known.has(k))).toEqual([]);
  });
});

// ---- keys tested in their view's own file ------------------------------------------------------------------

covers(
  'Anywhere',
  ['Ctrl-C'],
  ['tui-board.test.ts', 'q quits from the bare board, Ctrl-C quits from anywhere'],
);
covers('Board', ['q'], ['tui-board.test.ts', 'q quits from the bare board, Ctrl-C quits from anywhere']);
covers('Board', ['j', '↓', 'k', '↑'], ['tui-board.test.ts', 'j moves the selection and wraps around (T8)']);
covers('Board', ['/'], ['tui-board.test.ts', '/ filters, Enter blurs and keeps the text']);
covers('Board', ['s', 'S'], ['tui-board.test.ts', 's cycles the sort key with a toast']);
covers('Board', ['f'], ['tui-board.test.ts', 'f cycles the segments (T18)']);
covers('Board', ['c'], ['tui-board.test.ts', 'c copies the command through OSC 52 (T25)']);
covers('Board', ['t', 'T'], ['tui-board.test.ts', 't cycles the theme hue and T flips light/dark (T26)']);
covers('Board', ['r', 'x'], ['tui-board.test.ts', 'r on a running job and x on an idle one send nothing']);
// Spec 10 §1.5: `p` pauses / resumes the selected job.
covers(
  'Board',
  ['p'],
  ['tui-pause.test.ts', 'p pauses the selected job for an hour and resumes a paused one'],
);
covers('Filter', ['Tab'], ['tui-board.test.ts', '/ filters, Enter blurs and keeps the text']);
covers(
  'Logs tab',
  ['/', 'n', 'N', 'd'],
  ['tui-surfaces.test.ts', 'search with / highlights, Enter jumps, n/N cycle'],
);
covers('Help', ['?'], ['tui-surfaces.test.ts', '? opens the shortcuts with the shared rows']);
covers(
  'Timeline',
  ['Enter', 'f'],
  ['tui-surfaces.test.ts', 'i lists latest runs newest first with the blast radius'],
);
covers('Timeline', ['m'], ['tui-incident.test.ts', '`m` from the timeline opens on the incident set']);
covers('Mitigate', ['s'], ['tui-incident.test.ts', '`m` from the timeline opens on the incident set']);
covers('Mitigate', ['x'], ['tui-incident.test.ts', '`x` with nothing of the set running says so']);
covers('Mitigate', ['y'], ['tui-incident.test.ts', '`y` writes the Markdown write-up']);
covers(
  'Settings',
  ['Enter', 'Space', '→'],
  ['tui-settings.test.ts', 'lists every preference and the prefs file'],
);
covers('Settings', ['←'], ['tui-settings.test.ts', '← steps a row back']);
covers('DAG runs, tasks', ['Enter', 'a'], ['tui-dags.test.ts', 'runs → Enter loads the run into tasks']);
covers(
  'DAG runs, tasks',
  ['R'],
  ['tui-dags.test.ts', 'Q16: `R` on a task that is not a waiting gate sends nothing'],
);
covers('DAGs panel', ['Enter'], ['tui-dags.test.ts', 'lists each DAG with its task count']);
covers('DAGs panel', ['t'], ['tui-dags.test.ts', '`t` in the panel triggers the DAG']);
covers('Fleet', ['f', 'r'], ['tui-fleet.test.ts', 'f shows only jobs failing somewhere']);
covers('State', ['Enter'], ['tui-state.test.ts', 'documents lists fetchable namespaces']);
covers('State', ['r'], ['tui-state.test.ts', 'says so when durable state is off; `r` reloads']);
covers(
  'Heatmap, pressure, week',
  ['r'],
  ['tui-heat.test.ts', 'w cycles the window; r fetches every job again'],
);
covers('Radar, node, cluster', ['scroll keys'], ['tui-cluster.test.ts', 'scrolls with j/k/End/Home']);
covers(
  'Wallboard / zen / boot',
  ['w', 'Esc', 'a'],
  ['tui-surfaces.test.ts', 'w: failing tile first, alarm in the foot'],
);
covers(
  'Wallboard / zen / boot',
  ['any (boot)'],
  ['tui-boot.test.ts', 'the screen shows the typed lines; a key skips'],
);

covers('DAG runs, tasks', ['j', 'k'], 'DAGs panel: j/k move, r reloads; runs tab: j/k select');
covers(
  'Bulk confirm',
  ['y'],
  'Space marks and moves down; r asks, y runs the eligible marked jobs one by one',
);
covers('Bulk confirm', ['Enter'], 'x asks to cancel the running marked jobs; Enter confirms');
covers(
  'Board (bulk)',
  ['Esc clears marks'],
  'n and Esc decline and send nothing; Esc on the board clears the marks',
);

// ---- keys tested here --------------------------------------------------------------------------------------

describe('anywhere', () => {
  keyTest(
    'Ctrl-K and Ctrl-P open the palette, not on the wallboard',
    'Anywhere',
    ['Ctrl-K', 'Ctrl-P'],
    async () => {
      h = mountTui(daemon);
      await h.press(KEY.ctrlK);
      expect(kinds()).toEqual(['palette']);
      await h.press(KEY.esc, CTRL_P);
      expect(kinds()).toEqual(['palette']);
      expect(h.text()).toContain('command palette');
      await h.press(KEY.esc, 'w', KEY.ctrlK, CTRL_P);
      expect(kinds()).toEqual([]);
      expect(h.store.get().wallboard).toBe(true);
    },
  );

  keyTest(
    'Esc: palette, then the search box, then the visible top, then the filter, then the wallboard',
    'Anywhere',
    ['Esc'],
    async () => {
      h = mountTui(daemon);
      await h.press(KEY.enter, '/', 'x');
      expect(top<{ searchFocused: boolean }>().searchFocused).toBe(true);
      await h.press(KEY.ctrlK, KEY.esc);
      expect(kinds()).toEqual(['drawer']);
      await h.press(KEY.esc);
      expect(kinds()).toEqual(['drawer']);
      expect(top<{ searchFocused: boolean; search: string }>()).toMatchObject({
        searchFocused: false,
        search: 'x',
      });
      // Q13: a panel opened over the drawer is what Esc closes first
      await h.press(KEY.ctrlK, ...'keyboard shortcuts', KEY.enter);
      expect(kinds()).toEqual(['drawer', 'help']);
      await h.press(KEY.esc);
      expect(kinds()).toEqual(['drawer']);
      await h.press(KEY.esc);
      expect(kinds()).toEqual([]);
      await h.press('/', 'b', KEY.esc);
      expect(h.store.get()).toMatchObject({ filterFocused: false, filter: 'b' });
      await h.press('w', KEY.esc);
      expect(h.store.get().wallboard).toBe(false);
    },
  );
});

describe('board', () => {
  keyTest(
    'PgDn / PgUp move ten clamped; End / Home jump to the last / first job',
    'Board',
    ['PgDn', 'PgUp', 'Home', 'End'],
    async () => {
      h = mountTui(daemon);
      expect(selected()).toBe('colour-probe');
      await h.press(PGDN);
      expect(selected()).toBe('report-daily');
      await h.press(PGUP);
      expect(selected()).toBe('colour-probe');
      await h.press(KEY.end);
      expect(selected()).toBe('report-daily');
      await h.press(HOME);
      expect(selected()).toBe('colour-probe');
    },
  );

  keyTest('Enter opens the drawer on Logs; ? opens help', 'Board', ['Enter', '?'], async () => {
    h = mountTui(daemon);
    await h.press('j', KEY.enter);
    expect(top()).toMatchObject({ kind: 'drawer', job: 'heartbeat', tab: 'logs' });
    await h.press(KEY.esc, '?');
    expect(kinds()).toEqual(['help']);
  });

  keyTest('g refreshes now with a toast', 'Board', ['g'], async () => {
    h = mountTui(daemon);
    daemon.requests.length = 0;
    await h.press('g');
    await until(() => daemon.requests.some((r) => r.url === '/jobs'));
    expect(h.text()).toContain('↻ refreshing');
  });

  keyTest(
    'i toggles the timeline, w the wallboard, m opens the multi-tail, a acknowledges the alarm',
    'Board',
    ['i', 'w', 'm', 'a'],
    async () => {
      h = mountTui(daemon);
      await h.press('i');
      expect(kinds()).toEqual(['timeline']);
      await h.press('i');
      expect(kinds()).toEqual([]);
      await h.press('w');
      expect(h.store.get().wallboard).toBe(true);
      await h.press('w');
      expect(h.store.get().wallboard).toBe(false);
      expect(h.store.get().data.alarmAcked).toBe(false);
      await h.press('a');
      expect(h.store.get().data.alarmAcked).toBe(true);
      expect(h.text()).toContain('◔ alarm acknowledged');
      await h.press('m');
      expect(kinds()).toEqual(['multitail']);
    },
  );
});

describe('inputs', () => {
  /** Each focused input: how to focus it, and its text now. */
  const inputs: Array<[string, string[], () => string]> = [
    ['filter', ['/'], () => h.store.get().filter],
    ['logs search', [KEY.enter, '/'], () => top<{ search: string }>().search],
    ['palette', [KEY.ctrlK], () => top<{ query: string }>().query],
    ['token', [KEY.ctrlK, ...'set access', KEY.enter], () => top<{ text: string }>().text],
    ['multi-tail add', ['m', 'a'], () => top<{ adding: string }>().adding],
  ];
  keyTest(
    'every input: printable keys append, Backspace deletes, Ctrl-U clears',
    'Any input',
    ['printable', 'Backspace', 'Ctrl-U'],
    async () => {
      for (const [name, open, text] of inputs) {
        h = mountTui(daemon);
        await h.press(...open);
        await h.press('q', 'j', 'k');
        expect(text(), name).toBe('qjk');
        await h.press(KEY.backspace);
        expect(text(), name).toBe('qj');
        await h.press(KEY.ctrlU);
        expect(text(), name).toBe('');
        h.close();
      }
    },
  );

  keyTest(
    'Enter commits: filter blurs and keeps, search jumps, token applies, add tails, backfill posts',
    'Any input',
    ['Enter'],
    async () => {
      h = mountTui(daemon);
      await h.press('/', ...'beat', KEY.enter);
      expect(h.store.get()).toMatchObject({ filter: 'beat', filterFocused: false });
      h.close();

      daemon.logs['colour-probe'] = 'alpha\nbeta\ngamma';
      h = mountTui(daemon);
      await h.press(KEY.enter);
      await until(() => (h.ctl.tail?.entries.length ?? 0) >= 3);
      await h.press('/', ...'beta', KEY.enter);
      expect(top()).toMatchObject({ searchFocused: false, match: 1 });
      h.close();

      h = mountTui(daemon);
      await h.press(KEY.ctrlK, ...'set access', KEY.enter, ...'s3cret', KEY.enter);
      expect(kinds()).toEqual([]);
      expect(h.ctl.deps.client.token).toBe('s3cret');
      h.close();

      h = mountTui(daemon);
      await h.press('m', 'a', ...'nightly', KEY.enter);
      expect(top<{ panes: { job: string }[]; adding: string | null }>()).toMatchObject({ adding: null });
      expect(top<{ panes: { job: string }[] }>().panes.map((p) => p.job)).toEqual(['nightly-backup']);
      h.close();

      h = mountTui(daemon);
      await h.ctl.loadDags();
      await h.press(KEY.ctrlK, ...'dag: etl', KEY.enter, 'b', ...'2026-01-01..2026-01-03', KEY.enter);
      await until(() => posts.includes('/dags/etl/backfill'));
      expect(top()).toMatchObject({ kind: 'dag', backfill: null });
    },
  );
});

describe('job drawer', () => {
  keyTest(
    '← → Tab Shift-Tab switch tabs, wrapping',
    'Job drawer',
    ['←', '→', 'Tab', 'Shift-Tab'],
    async () => {
      h = mountTui(daemon);
      await h.press(KEY.enter);
      const tab = () => top<{ tab: string }>().tab;
      await h.press(KEY.right);
      expect(tab()).toBe('history');
      await h.press(KEY.tab);
      expect(tab()).toBe('resources');
      await h.press(BACKTAB);
      expect(tab()).toBe('history');
      await h.press(KEY.left, KEY.left);
      expect(tab()).toBe('schedule');
      await h.press(KEY.tab);
      expect(tab()).toBe('logs');
    },
  );

  keyTest(
    'r and x act on the drawer job unguarded (the daemon answers 409)',
    'Job drawer',
    ['r', 'x'],
    async () => {
      h = mountTui(daemon);
      await h.press('j', 'j', KEY.enter); // legacy-sync: disabled, idle
      daemon.requests.length = 0;
      await h.press('r');
      await until(() => h.text().includes('legacy-sync is disabled'));
      await h.press('x');
      await until(() => h.text().includes('legacy-sync is not running'));
      expect(postUrls()).toEqual(['/jobs/legacy-sync/start', '/jobs/legacy-sync/cancel']);
    },
  );

  keyTest(
    'Logs: j/k/arrows one line, PgUp/PgDn ten, Home oldest, End bottom',
    'Logs tab',
    ['j', '↓', 'k', '↑', 'PgUp', 'PgDn', 'Home', 'End'],
    async () => {
      daemon.logs['colour-probe'] = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join('\n');
      h = mountTui(daemon);
      await h.press(KEY.enter);
      await until(() => (h.ctl.tail?.entries.length ?? 0) >= 40);
      const total = h.ctl.tail!.entries.length;
      const scroll = () => top<{ scroll: number }>().scroll;
      await h.press('k', KEY.up);
      expect(scroll()).toBe(2);
      await h.press('j');
      expect(scroll()).toBe(1);
      await h.press(KEY.down);
      expect(scroll()).toBe(0);
      await h.press(PGUP);
      expect(scroll()).toBe(10);
      expect(h.text()).toContain('line 30');
      expect(h.text()).not.toContain('line 40');
      await h.press(PGDN);
      expect(scroll()).toBe(0);
      // Home: the oldest page, its first line on the top row and the pane full (26 log rows in a 30-row drawer)
      await h.press(HOME);
      expect(scroll()).toBe(total - 26);
      expect(h.text()).toContain('line 1 ');
      await h.press(PGUP);
      expect(scroll()).toBe(total - 26);
      await h.press(KEY.end);
      expect(scroll()).toBe(0);
      expect(h.text()).toContain('line 40');
    },
  );

  keyTest(
    'Logs: f toggles re-attach, t timestamps, w wrap (both saved)',
    'Logs tab',
    ['f', 't', 'w'],
    async () => {
      h = mountTui(daemon);
      await h.press(KEY.enter);
      await h.press('f');
      expect(h.text()).toContain('follow: off');
      expect(h.ctl.tail?.follow).toBe(false);
      await h.press('f');
      expect(h.ctl.tail?.follow).toBe(true);
      await h.press('t', 'w');
      expect(h.store.get().prefs).toMatchObject({ timestamps: true, wrap: true });
      await h.press('t', 'w');
      expect(h.store.get().prefs).toMatchObject({ timestamps: false, wrap: false });
    },
  );

  keyTest(
    'other tabs: j/k one row, PgUp/PgDn ten, stopping at the ends',
    'Other drawer tabs',
    ['j', 'k', 'PgUp', 'PgDn'],
    async () => {
      h = mountTui(daemon, { rows: 12 });
      await h.press(KEY.enter, KEY.left); // schedule: longer than the pane
      const scroll = () => top<{ tabScroll: number }>().tabScroll;
      const first = () => h.text().split('\n')[3]!;
      const start = first();
      await h.press('j');
      expect(scroll()).toBe(1);
      expect(first()).not.toBe(start);
      await h.press('k');
      expect(scroll()).toBe(0);
      expect(first()).toBe(start);
      await h.press(PGDN, PGDN);
      const max = scroll();
      expect(max).toBeGreaterThan(0);
      expect(max).toBeLessThan(20);
      expect(h.text()).toContain('daemon says: next fire in');
      await h.press(PGUP);
      expect(scroll()).toBe(Math.max(0, max - 10));
      await h.press(PGUP);
      expect(scroll()).toBe(0);
    },
  );
});

describe('DAGs', () => {
  keyTest(
    'DAG drawer: ← → switch tabs, t triggers, b asks for the backfill range',
    'DAG drawer',
    ['←', '→', 't', 'b'],
    async () => {
      h = mountTui(daemon);
      await h.ctl.loadDags();
      await h.press(KEY.ctrlK, ...'dag: etl', KEY.enter);
      expect(top()).toMatchObject({ kind: 'dag', tab: 'runs' });
      await h.press(KEY.right);
      expect(top()).toMatchObject({ tab: 'graph' });
      await h.press(KEY.left, KEY.left);
      expect(top<{ tab: string }>().tab).not.toBe('runs');
      await h.press(KEY.right, 't');
      await until(() => posts.includes('/dags/etl/trigger'));
      await h.press('b');
      expect(top()).toMatchObject({ backfill: '' });
      expect(h.text()).toContain('backfill');
    },
  );

  keyTest(
    'DAGs panel: j/k move, r reloads; runs tab: j/k select',
    'DAGs panel',
    ['j', 'k', 'r'],
    async () => {
      h = mountTui(daemon);
      await h.press(KEY.ctrlK, ...'toggle dags', KEY.enter);
      await until(() => h.text().includes('etl'));
      await h.press('j', 'k');
      expect(top()).toMatchObject({ kind: 'dags', sel: 0 });
      daemon.requests.length = 0;
      await h.press('r');
      await until(() => daemon.requests.some((r) => r.url === '/dags'));
      expect(h.text()).toContain('reloading DAGs');
      await h.press(KEY.enter, 'j', 'k');
      expect(top()).toMatchObject({ kind: 'dag', runSel: 0 });
    },
  );
});

describe('overlays', () => {
  keyTest(
    'palette: ↓ ↑ move the selection, Enter runs the selected entry',
    'Palette',
    ['↑', '↓', 'Enter'],
    async () => {
      h = mountTui(daemon);
      await h.press(KEY.ctrlK, KEY.down, KEY.down);
      expect(top()).toMatchObject({ kind: 'palette', sel: 2 });
      await h.press(KEY.up);
      expect(top()).toMatchObject({ sel: 1 }); // Run all failing jobs
      daemon.requests.length = 0;
      await h.press(KEY.enter);
      expect(kinds()).toEqual([]);
      await until(() => postUrls().length === 1);
      expect(postUrls()).toEqual(['/jobs/nightly-backup/start']);
    },
  );

  keyTest('help: j/k/arrows scroll and stop at the end', 'Help', ['j', 'k', '↑', '↓'], async () => {
    h = mountTui(daemon, { rows: 14 });
    await h.press('?');
    const scroll = () => top<{ scroll: number }>().scroll;
    await h.press('j', KEY.down);
    expect(scroll()).toBe(2);
    await h.press('k');
    expect(scroll()).toBe(1);
    await h.press(KEY.up, KEY.up);
    expect(scroll()).toBe(0);
    for (let i = 0; i < 8; i++) await h.press(PGDN);
    const max = scroll();
    expect(h.text()).toContain('Cron sandbox');
    await h.press('k');
    expect(scroll()).toBe(max - 1);
  });

  keyTest('settings: j/k/arrows select a row, wrapping', 'Settings', ['j', 'k', '↑', '↓'], async () => {
    h = mountTui(daemon);
    await h.press(KEY.ctrlK, ...'open settings', KEY.enter);
    await h.press('j', KEY.down);
    expect(top()).toMatchObject({ kind: 'settings', sel: 2 });
    await h.press('k', KEY.up, KEY.up);
    expect(top<{ sel: number }>().sel).toBeGreaterThan(2);
  });

  keyTest('timeline: j/k move the selection', 'Timeline', ['j', 'k'], async () => {
    h = mountTui(daemon);
    await h.press('i', 'j', 'j');
    expect(top()).toMatchObject({ kind: 'timeline', sel: 2 });
    await h.press('k');
    expect(top()).toMatchObject({ sel: 1 });
  });

  keyTest('mitigate: a aborts a sweep between requests', 'Mitigate', ['a'], async () => {
    daemon.jobs = fixtureJobs().map((j) =>
      j.enabled && !j.running ? { ...j, last_run: { ...j.last_run!, outcome: 'failure', exit_code: 1 } } : j,
    );
    h = mountTui(daemon);
    await h.press(KEY.ctrlK, ...'mitigate failing', KEY.enter);
    expect(top()).toMatchObject({ kind: 'mitigate' });
    daemon.requests.length = 0;
    await h.press('s', 'a');
    await until(() => h.text().includes('aborted ('));
    await h.settle(400);
    expect(postUrls().length).toBeLessThan(4);
  });

  keyTest(
    'multi-tail: j/k pick, x removes, t/w flip, PgUp/PgDn/End scroll',
    'Multi-tail',
    ['a', 'x', 'j', 'k', 't', 'w', 'PgUp', 'PgDn', 'End'],
    async () => {
      daemon.logs.heartbeat = Array.from({ length: 40 }, (_, i) => `beat ${i + 1}`).join('\n');
      daemon.logs['report-daily'] = Array.from({ length: 40 }, (_, i) => `report ${i + 1}`).join('\n');
      h = mountTui(daemon);
      await h.press('m', 'a', ...'heartbeat', KEY.enter, 'a', ...'report-daily', KEY.enter);
      await until(() => h.text().includes('report 40'));
      const m = () =>
        top<{ panes: { job: string }[]; pick: number; scroll: number; timestamps: boolean; wrap: boolean }>();
      expect(m().panes.map((p) => p.job)).toEqual(['heartbeat', 'report-daily']);
      await h.press('j');
      expect(m().pick).toBe(1);
      await h.press('k');
      expect(m().pick).toBe(0);
      await h.press('t', 'w');
      expect(m()).toMatchObject({ timestamps: true, wrap: true });
      await h.press(PGUP);
      expect(m().scroll).toBe(10);
      await h.press(PGDN);
      expect(m().scroll).toBe(0);
      await h.press(PGUP, PGUP, KEY.end);
      expect(m().scroll).toBe(0);
      // past the oldest line PgUp stops, so one PgDn answers at once
      for (let i = 0; i < 12; i++) await h.press(PGUP);
      const max = m().scroll;
      expect(h.text()).toContain('beat 1 ');
      await h.press(PGDN);
      expect(m().scroll).toBe(max - 10);
      await h.press('x');
      expect(m().panes.map((p) => p.job)).toEqual(['report-daily']);
    },
  );

  keyTest(
    'state: ← → Tab Shift-Tab switch tabs; j/k move',
    'State',
    ['←', '→', 'Tab', 'Shift-Tab', 'j', 'k'],
    async () => {
      daemon.routes['/state'] = {
        enabled: true,
        view: 'metadata',
        documents: ['kv/a', 'kv/b', 'kv/c'].map((namespace) => ({ namespace, count: 1, updatedAt: 1 })),
      };
      h = mountTui(daemon);
      await h.press(KEY.ctrlK, ...'toggle state', KEY.enter);
      const tab = () => top<{ tab: string }>().tab;
      await h.press(KEY.right);
      expect(tab()).toBe('documents');
      await h.press(KEY.tab);
      expect(tab()).toBe('records');
      await h.press(BACKTAB);
      expect(tab()).toBe('documents');
      await h.press(KEY.left, KEY.left);
      expect(tab()).toBe('records');
      await h.press(KEY.right, KEY.right); // records -> view -> documents: three namespaces
      await until(() => h.text().includes('kv/c'));
      await h.press('j', 'j', 'j');
      expect(top<{ sel: number }>().sel).toBe(2);
      await h.press('k');
      expect(top<{ sel: number }>().sel).toBe(1);
    },
  );
});

describe('panels scroll', () => {
  /** Opens a panel at 10 rows, then every scroll key moves its window. */
  async function scrolls(open: string[], ready: string, routes: Record<string, unknown> = {}): Promise<void> {
    Object.assign(daemon.routes, routes);
    h = mountTui(daemon, { rows: 10 });
    await h.ctl.poll();
    await h.press(...open);
    await until(() => h.text().includes(ready) && panelPos() !== null);
    expect(panelPos()).toBe(1);
    await h.press('j');
    expect(panelPos()).toBe(2);
    await h.press(KEY.down, 'k');
    expect(panelPos()).toBe(2);
    await h.press(KEY.up);
    expect(panelPos()).toBe(1);
    await h.press(PGDN);
    const far = panelPos()!;
    expect(far).toBeGreaterThan(1);
    await h.press(PGUP);
    expect(panelPos()).toBe(1);
    await h.press(KEY.end);
    expect(panelPos()).toBeGreaterThanOrEqual(far);
    await h.press(HOME);
    expect(panelPos()).toBe(1);
  }

  keyTest('fleet: j k PgUp PgDn Home scroll', 'Fleet', ['j', 'k', 'PgUp', 'PgDn', 'Home'], () =>
    scrolls(['F'], 'nodes', { '/fleet': fleet() }),
  );
  keyTest(
    'heatmap, pressure, week: the scroll keys scroll',
    'Heatmap, pressure, week',
    ['scroll keys'],
    async () => {
      daemon.jobs = [...fixtureJobs(), ...fixtureJobs().map((j) => ({ ...j, name: `${j.name}-2` }))];
      await scrolls(['H'], 'heartbeat');
      h.close();
      await scrolls(['P'], 'busiest', scheduleRoutes());
      h.close();
      await scrolls(['v'], 'next 7 days');
    },
  );
  keyTest('radar and node: the scroll keys scroll', 'Radar, node, cluster', ['scroll keys'], async () => {
    daemon.jobs = [...fixtureJobs(), ...fixtureJobs().map((j) => ({ ...j, name: `${j.name}-2` }))];
    await scrolls(['R'], 'upcoming');
    h.close();
    await scrolls(['N'], 'node', { '/node/history': nodeHistory() });
    h.close();
    await scrolls(['C'], 'node-a', { '/cluster': gossipCluster() });
  });
});

describe('wallboard, zen', () => {
  keyTest(
    'Ctrl-C quits from the wallboard; any key wakes zen and does nothing else',
    'Wallboard / zen / boot',
    ['Ctrl-C', 'any (zen)'],
    async () => {
      daemon.jobs = fixtureJobs().filter((j) => !j.running && j.last_run?.outcome !== 'failure');
      h = mountTui(daemon);
      let code: number | null = null;
      (h.ctl.deps as { quit: (c: number) => void }).quit = (c) => {
        code = c;
      };
      await h.press('w');
      const s = h.store.get();
      const later = s.mono + s.prefs.zen_idle_s * 1000 + 1000;
      (h.ctl.deps as { mono: () => number }).mono = () => later;
      h.store.set({ mono: later });
      h.store.setData({ fetchedAt: later });
      await h.settle(60);
      expect(h.text()).toContain('all clear');
      await h.press('w'); // wakes only: still on the wallboard
      expect(h.store.get().wallboard).toBe(true);
      expect(h.text()).not.toContain('all clear');
      await h.press(KEY.ctrlC);
      expect(code).toBe(0);
    },
  );
});

describe('bulk run / cancel (ours)', () => {
  keyTest(
    'Space marks and moves down; r asks, y runs the eligible marked jobs one by one',
    'Board (bulk)',
    ['Space', 'r marked'],
    async () => {
      h = mountTui(daemon);
      await h.press(' ', ' ', ' '); // colour-probe, heartbeat, legacy-sync (disabled)
      expect([...h.store.get().marked].sort()).toEqual(['colour-probe', 'heartbeat', 'legacy-sync']);
      expect(selected()).toBe('long-sleep');
      expect(h.text()).toContain('3 marked');
      expect(h.text()).toMatch(/◆● OK\s+colour-probe/);
      daemon.requests.length = 0;
      await h.press('r');
      expect(kinds()).toEqual(['bulk']);
      expect(h.text()).toContain('run 2 of 3 marked job(s)?');
      expect(h.text()).toContain('skipped (disabled or running): legacy-sync');
      expect(postUrls()).toEqual([]);
      await h.press('y');
      await until(() => h.text().includes('done: 2 ok'));
      expect(postUrls()).toEqual(['/jobs/colour-probe/start', '/jobs/heartbeat/start']);
      expect(h.store.get().marked.size).toBe(0);
      expect(top()).toMatchObject({ kind: 'mitigate', label: 'marked jobs' });
    },
  );

  keyTest(
    'x asks to cancel the running marked jobs; Enter confirms',
    'Board (bulk)',
    ['x marked'],
    async () => {
      h = mountTui(daemon);
      await h.press('j', 'j', 'j', ' ', ' '); // long-sleep (running), nightly-backup
      await h.press('x');
      expect(h.text()).toContain('cancel 1 of 2 marked job(s)?');
      daemon.requests.length = 0;
      await h.press(KEY.enter);
      await until(() => h.text().includes('done: 1 ok'));
      expect(postUrls()).toEqual(['/jobs/long-sleep/cancel']);
    },
  );

  keyTest(
    'n and Esc decline and send nothing; Esc on the board clears the marks',
    'Bulk confirm',
    ['n', 'Esc'],
    async () => {
      h = mountTui(daemon);
      await h.press(' ', 'r', 'n');
      expect(kinds()).toEqual([]);
      await h.press('r', KEY.esc);
      expect(kinds()).toEqual([]);
      await h.settle(100);
      expect(postUrls()).toEqual([]);
      expect(h.store.get().marked.size).toBe(1);
      await h.press(' '); // Space again on the next job, then un-mark it
      await h.press('k', ' ');
      expect([...h.store.get().marked]).toEqual(['colour-probe']);
      await h.press(KEY.esc);
      expect(h.store.get().marked.size).toBe(0);
      expect(h.text()).toContain('marks cleared');
      // with nothing marked, r is the single-job run again
      await h.press(HOME, 'r');
      await until(() => postUrls().length === 1);
      expect(postUrls()).toEqual(['/jobs/colour-probe/start']);
    },
  );
});

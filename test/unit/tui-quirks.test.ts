// The reference's quirks we fix (spec 08 §9, [better]): where each fix is shown by a test. Q11 (log time
// labels) and Q25 (bracketed paste) belong to the key-decoder work and are not listed here. Tests in this file
// cover the fixes no other test showed. ink-testing-library around a real Controller and a loopback fixture
// daemon, like the other tui-*.test.ts files; the e2e rows run `cronstable tui` in a pseudo-terminal.
//
// | Q   | fix                                                   | test (file › name)                                         |
// |-----|-------------------------------------------------------|------------------------------------------------------------|
// | Q1  | SIGTERM/SIGHUP restore, exit 143/129                  | e2e/tui › T5: SIGTERM …; SIGHUP restores … exits 129       |
// | Q2  | Ctrl-Z/SIGTSTP suspend, SIGCONT repaint               | e2e/tui › Ctrl-Z restores the terminal and stops … (Q2)    |
// | Q3  | rows cut, header sheds chips, 40×10 notice            | tui-board › below 40x10 only a notice …; here › Q3;        |
// |     |                                                       | e2e/tui › T24 (header on one row at 80×24)                 |
// | Q4  | --poll nan/inf/out of range: usage error              | tui-args › "%j is a usage error"; e2e/tui › T2             |
// | Q5  | --theme saved; --poll/--ascii run-only                | here › Q5                                                  |
// | Q6  | escapes stripped before controls (BEL-OSC), C1, bidi  | tui-sanitize › keeps the text after a BEL-terminated OSC;  |
// |     |                                                       | removes 8-bit CSI; bidi; e2e/tui › T10 + T11               |
// | Q7  | Resources `live:` from live[-1].current               | here › Q7                                                  |
// | Q8  | every run sets theme fg + bg; a job's reset → theme   | tui-sanitize › a reset goes back to the theme colours (Q8) |
// | Q9  | cell-based wrap, SGR kept, row-accurate jumps         | tui-args › wrapping is cell based …; here › Q9             |
// | Q10 | scrolled-back log holds still, `↓ N new`              | tui-surfaces › a scrolled-back log holds still … (Q10)     |
// | Q12 | Ctrl-C during boot quits                              | e2e/tui-ops › Q12: Ctrl-C during the boot self-test quits  |
// | Q13 | Esc closes the visible top                            | here › Q13                                                 |
// | Q14 | LOCKED on 401; token confirmed after a good poll;     | tui-boot › Q14: … LOCKED; tui-surfaces › token modal (T22);|
// |     | chips reloaded                                        | here › Q14                                                 |
// | Q15 | --job unknown: toast, stay on the board               | tui-surfaces › --job … an unknown name toasts … (Q15)      |
// | Q16 | DAG a/R on waiting gates only; Tab switches tabs      | tui-dags › Q16: `R` on a task …; Tab switches tabs (Q16)   |
// | Q17 | cluster scroll, multi-tail wrap work                  | tui-cluster › scrolls … (Q17); tui-multitail › `w` wraps … |
// | Q18 | History, Resources, DAG drawer, DAG list, node follow | tui-surfaces › History is fetched again … (Q18); tui-node  |
// |     | the daemon while shown                                | › refreshes /node/history …; e2e/tui-ops › DAG drawer;     |
// |     |                                                       | here › Q18                                                 |
// | Q19 | saved-log file name sanitised                         | here › Q19                                                 |
// | Q20 | NO_COLOR / depth detection; automatic ASCII           | tui-args › colour depth; e2e/tui › NO_COLOR and --ascii;   |
// |     |                                                       | tui-week › ASCII mode; here › Q20                          |
// | Q21 | stderr held while on screen, printed after restore    | here › Q21                                                 |
// | Q22 | SSE asks for text/event-stream                        | here › Q22                                                 |
// | Q23 | poll backoff; `1 job`; `in <1s`; cpu/mem stays        | here › Q23 (four tests)                                    |
// | Q24 | zen places every dot; wallboard says `+N more`        | here › Q24 (two tests)                                     |
//
// Also here: the terminal face reads the shared model (spec 08 §3: status cells from health.ts, the header's
// connection state from connection.ts), and beyond the reference (§4.15 [opt]) OSC 52 wrapped for tmux/screen.
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { liveForMs } from '../../src/dashboard/connection.ts';
import { health } from '../../src/dashboard/health.ts';
import type { ApiJobResources } from '../../src/dashboard/resources.ts';
import type { ApiJob, ApiNode } from '../../src/dashboard/types.ts';
import { osc52 } from '../../src/tui/data/clipboard.ts';
import { DEFAULT_PREFS, loadPrefs, startPrefs } from '../../src/tui/data/prefs.ts';
import { ENTER, LEAVE, Terminal } from '../../src/tui/terminal.ts';
import { asciiByDefault } from '../../src/tui/text/glyphs.ts';
import { cellWidth } from '../../src/tui/text/width.ts';
import { toggleDags } from '../../src/tui/views/dags/list.ts';
import { zenDots } from '../../src/tui/views/wallboard/wallboard.ts';
import { apiJob } from '../helpers/api-job.ts';
import { FixtureDaemon, fixtureJobs, type Harness, KEY, mountTui } from '../helpers/tui-fixture.ts';

const daemon = new FixtureDaemon();
const home = mkdtempSync(join(tmpdir(), 'tui-quirks-'));
/** Accept headers of the log streams asked for (Q22), and whether `/jobs` answers 500 (Q23). */
const streamAccepts: Array<string | undefined> = [];
let failJobs = false;

beforeAll(async () => {
  daemon.extra = (req, url, res) => {
    if (url.endsWith('/logs')) streamAccepts.push(req.headers.accept);
    if (failJobs && url === '/jobs') {
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"store is busy"}');
      return true;
    }
    return false;
  };
  await daemon.start();
});
afterAll(async () => {
  await daemon.stop();
  rmSync(home, { recursive: true, force: true });
});

let h: Harness;
let extra: Harness | null = null;
afterEach(() => {
  h?.close();
  extra?.close();
  extra = null;
  daemon.jobs = fixtureJobs();
  daemon.routes = {};
  daemon.token = null;
  failJobs = false;
});

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rows = (t: string) => t.split('\n');
const hits = (url: string) => daemon.requests.filter((r) => r.url === url).length;
const top = () => h.store.get().stack.map((s) => s.kind);
/** Waits (on a loaded machine, up to `ms`) until `check` holds; the assertion after it says what was wanted. */
async function eventually(check: () => boolean, ms = 4000): Promise<void> {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await wait(25);
}

const NODE: ApiNode = {
  node_name: 'n1',
  resources: {
    cpu_percent: 29,
    cpu_count: 2,
    mem_percent: 2.3,
    mem_used_bytes: 94_000_000,
    mem_total_bytes: 4_096_000_000,
    proc_rss_bytes: 60_000_000,
    proc_cpu_percent: 0.4,
  },
  overload: {
    overloaded: false,
    missed_fires: 0,
    last_missed_at: null,
    waiting_launches: 0,
    launch_lag_seconds: 0,
  },
};

describe('Q3: every row fits; the header sheds chips instead of wrapping', () => {
  it('drops node load, then the job-set id, then the version, keeping live and the clock', async () => {
    const headerAt = async (cols: number) => {
      h?.close();
      h = mountTui(daemon, { cols });
      h.store.setData({ version: '1.2.3', jobSetId: 'v1:ec249bf0123', node: NODE });
      await h.settle();
      const screen = rows(h.text());
      for (const r of screen) expect(cellWidth(r)).toBeLessThanOrEqual(cols);
      return screen[0]!;
    };
    const wide = await headerAt(100);
    expect(wide).toMatch(
      /cronstable ⌁ tui v1\.2\.3 · v1:ec249bf · 29% cpu 2\.3% mem\s+● live 09:00:00 UTC $/,
    );
    const mid = await headerAt(70);
    expect(mid).toContain('v1.2.3 · v1:ec249bf');
    expect(mid).not.toContain('cpu');
    const narrow = await headerAt(55);
    expect(narrow).toContain('v1.2.3');
    expect(narrow).not.toContain('ec249bf');
    const least = await headerAt(45);
    expect(least).not.toContain('v1.2.3');
    for (const head of [wide, mid, narrow, least]) {
      expect(head).toContain('● live');
      expect(head.trimEnd()).toMatch(/09:00:00 UTC$/);
    }
  });
});

describe('Q5: which flags are saved', () => {
  it('--theme is saved at start-up; without it nothing is written', () => {
    const saved = { ...DEFAULT_PREFS, theme: 'green' as const, poll_ms: 5000 };
    expect(startPrefs(saved, null)).toEqual({ prefs: saved, save: false });
    const themed = startPrefs(saved, { hue: 'amber', light: true });
    expect(themed.save).toBe(true);
    expect(themed.prefs).toEqual({ ...saved, theme: 'amber', light: true });
    expect(saved.theme).toBe('green');
  });

  it('--poll and --ascii last for the run: a later save (here `t`) does not write them', async () => {
    const path = join(home, 'q5', 'tui.json');
    h = mountTui(daemon, { pollMs: 1000, ascii: true });
    h.ctl.deps.prefsPath = path;
    await h.press('t');
    expect(existsSync(path)).toBe(true);
    const prefs = loadPrefs(path);
    expect(prefs.theme).toBe('amber');
    expect(prefs.poll_ms).toBe(DEFAULT_PREFS.poll_ms);
    expect(prefs.ascii).toBe(false);
    expect(h.store.get().pollMs).toBe(1000);
  });
});

describe('Q7: the Resources tab reads the live sample', () => {
  it('live: shows the newest live instance’s current cpu and rss', async () => {
    const res: ApiJobResources = {
      name: 'long-sleep',
      monitored: true,
      interval: 1,
      live: [
        {
          started_at: '2026-01-01T00:00:01.000Z',
          pid: 41,
          current: { cpu_seconds: 1, cpu_percent: 50, rss_bytes: 1024 },
          series: [],
        },
        {
          started_at: '2026-01-01T00:00:02.000Z',
          pid: 42,
          current: { cpu_seconds: 2, cpu_percent: 4.25, rss_bytes: 3 * 1024 * 1024 },
          series: [],
        },
      ],
      runs: [],
    };
    daemon.routes['/jobs/long-sleep/resources'] = res;
    h = mountTui(daemon);
    h.ctl.openDrawer('long-sleep');
    await h.press(KEY.right, KEY.right);
    await eventually(() => h.text().includes('live:'));
    expect(h.text()).toMatch(/live: 4\.3% cpu · 3\.0 ?MiB rss/);
  });
});

describe('Q9: wrapped log lines keep their colour and a search jump shows the whole match', () => {
  it('every row of a wrapped red line is red; Enter on a match shows all its rows', async () => {
    daemon.logs['report-daily'] = [
      `needle ${'¤'.repeat(150)}`,
      ...Array.from({ length: 40 }, (_, i) => `filler ${i}`),
      `\u001b[31m${'§'.repeat(150)}\u001b[0m`,
    ].join('\n');
    h = mountTui(daemon, { cols: 100, rows: 24 });
    h.ctl.openDrawer('report-daily');
    await eventually(() => h.text().includes('end of run output'));
    await h.press('w');
    expect(h.store.get().prefs.wrap).toBe(true);
    const count = (ch: string) => [...h.text()].filter((c) => c === ch).length;
    expect(count('§')).toBe(150);
    const red = rows(h.frame()).filter((r) => r.includes('§'));
    expect(red.length).toBeGreaterThan(2);
    for (const r of red) expect(r).toMatch(/38;2;255;93;93[0-9;]*m§/);
    await h.press('/', ...'needle', KEY.enter);
    expect(h.text()).toContain('needle');
    expect(count('¤')).toBe(150);
  });
});

describe('Q13: Esc closes what is on top', () => {
  it('a panel opened from the palette over the drawer closes first; the drawer stays', async () => {
    h = mountTui(daemon);
    h.ctl.openDrawer('heartbeat');
    await h.settle();
    await h.press(KEY.ctrlK, ...'cluster panel');
    await h.press(KEY.enter);
    expect(top()).toEqual(['drawer', 'cluster']);
    await h.press(KEY.esc);
    expect(top()).toEqual(['drawer']);
    expect(h.text()).toContain('logs  history  resources  schedule');
    await h.press(KEY.esc);
    expect(top()).toEqual([]);
  });
});

describe('Q14: a token is confirmed only by a good poll, and the chips follow', () => {
  it('a wrong token asks again without "token set"; the right one says so and reloads version and id', async () => {
    daemon.token = 's3cret';
    h = mountTui(daemon);
    await h.ctl.poll();
    await eventually(() => h.text().includes('access token'));
    expect(h.text()).toContain('access token');
    expect(rows(h.text())[0]).not.toContain('v1.2.3');
    const asked = hits('/jobs');
    await h.press(...'nope', KEY.enter);
    await eventually(() => hits('/jobs') > asked && h.text().includes('access token'));
    expect(h.text()).toContain('access token');
    expect(h.text()).not.toContain('token set');
    await h.press(...'s3cret', KEY.enter);
    await eventually(() => rows(h.text())[0]!.includes('v1.2.3') && h.text().includes('token set'));
    expect(h.text()).not.toContain('access token');
    expect(h.text()).toContain('⚿ token set');
    expect(rows(h.text())[0]).toContain('v1.2.3 · v1:ec249bf');
  });
});

describe('Q18: panels follow the daemon while they show', () => {
  it('the Resources tab is fetched again on each poll, and not once another tab shows', async () => {
    h = mountTui(daemon);
    h.ctl.openDrawer('long-sleep');
    const url = '/jobs/long-sleep/resources';
    const before = hits(url);
    await h.press(KEY.right, KEY.right);
    await eventually(() => hits(url) > before);
    const first = hits(url);
    expect(first).toBe(before + 1);
    await h.ctl.poll();
    await eventually(() => hits(url) > first);
    expect(hits(url)).toBe(first + 1);
    await h.press(KEY.right);
    await h.ctl.poll();
    await wait(150);
    expect(hits(url)).toBe(first + 1);
  });

  it('the DAG list is fetched again on each poll while open, not after it closes', async () => {
    daemon.routes['/dags'] = [];
    h = mountTui(daemon);
    const before = hits('/dags');
    toggleDags(h.ctl);
    await eventually(() => hits('/dags') > before);
    const opened = hits('/dags');
    await h.ctl.poll();
    await eventually(() => hits('/dags') > opened);
    expect(hits('/dags')).toBe(opened + 1);
    await h.press(KEY.esc);
    await h.ctl.poll();
    await wait(150);
    expect(hits('/dags')).toBe(opened + 1);
  });
});

describe('Q19: a saved log never takes its path from a raw job name', () => {
  it('separators, spaces, leading dots and escapes become a plain file in the home directory', async () => {
    const dir = mkdtempSync(join(home, 'q19-'));
    const name = '../evil/na me\u001b]0;t\u0007';
    daemon.jobs = [apiJob(name, { command: 'echo hi' }), ...fixtureJobs()];
    daemon.logs[name] = 'hello from a hostile name';
    h = mountTui(daemon, {}, dir);
    h.ctl.openDrawer(name);
    await eventually(() => h.text().includes('hello from a hostile name'));
    await h.press('d');
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^cronstable-__evil_na_me-\d{8}-\d{6}\.log$/);
    expect(readFileSync(join(dir, files[0]!), 'utf8')).toContain('hello from a hostile name');
    expect(readdirSync(home).some((f) => f.includes('evil'))).toBe(false);
  });
});

describe('Q20: ASCII turns itself on where Unicode cannot be drawn', () => {
  it('a non-UTF-8 locale or a terminal without the glyphs; LC_ALL, then LC_CTYPE, then LANG', () => {
    expect(asciiByDefault({ LANG: 'en_US.UTF-8' })).toBe(false);
    expect(asciiByDefault({ LANG: 'C.utf8' })).toBe(false);
    expect(asciiByDefault({ LANG: 'C' })).toBe(true);
    expect(asciiByDefault({ LANG: 'de_DE.ISO-8859-1' })).toBe(true);
    expect(asciiByDefault({ LC_ALL: 'C', LANG: 'en_US.UTF-8' })).toBe(true);
    expect(asciiByDefault({ LC_CTYPE: 'en_US.UTF-8', LANG: 'C' })).toBe(false);
    expect(asciiByDefault({ LC_ALL: 'en_US.UTF-8', LC_CTYPE: 'C' })).toBe(false);
    for (const TERM of ['linux', 'vt100', 'vt220', 'dumb'])
      expect(asciiByDefault({ TERM, LANG: 'en_US.UTF-8' })).toBe(true);
    expect(asciiByDefault({ TERM: 'xterm-256color', LANG: 'en_US.UTF-8' })).toBe(false);
  });
});

describe('Q21: stderr waits while the dashboard owns the screen', () => {
  it('held between enter and restore, printed at restore (a suspend) and at release; passes through off screen', () => {
    const screenFile = join(home, 'q21-screen');
    const fd = openSync(screenFile, 'w');
    const seen: string[] = [];
    const real = process.stderr.write;
    const capture = ((chunk: string | Uint8Array) => {
      seen.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    process.stderr.write = capture;
    try {
      const term = new Terminal({ isTTY: false } as NodeJS.ReadStream, fd);
      term.holdStderr();
      process.stderr.write('before\n');
      expect(seen).toEqual(['before\n']);
      term.enter();
      process.stderr.write('during 1\n');
      process.stderr.write(Buffer.from('during 2\n'));
      expect(seen).toEqual(['before\n']);
      term.restore();
      expect(seen).toEqual(['before\n', 'during 1\n', 'during 2\n']);
      term.enter();
      process.stderr.write('later\n');
      expect(seen).toHaveLength(3);
      term.restore();
      term.releaseStderr();
      expect(seen.at(-1)).toBe('later\n');
      expect(process.stderr.write).toBe(capture);
    } finally {
      process.stderr.write = real;
      closeSync(fd);
    }
    expect(readFileSync(screenFile, 'utf8')).toBe(ENTER + LEAVE + ENTER + LEAVE);
  });
});

describe('Q22: log streams ask for an event stream', () => {
  it('the drawer’s SSE request sends Accept: text/event-stream', async () => {
    streamAccepts.length = 0;
    h = mountTui(daemon);
    h.ctl.openDrawer('heartbeat');
    await eventually(() => streamAccepts.length > 0);
    expect(streamAccepts.length).toBeGreaterThan(0);
    for (const a of streamAccepts) expect(a).toBe('text/event-stream');
  });
});

describe('Q23: small lies of the reference', () => {
  it('failed polls back off 1, 2, 4, 8, 16, 30, 30 s; the header says when; a good poll resets it', async () => {
    h = mountTui(daemon, { pollMs: 1000 });
    failJobs = true;
    const waits: number[] = [];
    for (let i = 0; i < 7; i++) {
      await h.ctl.poll();
      const d = h.store.get().data;
      waits.push(d.retryAt - h.ctl.deps.mono());
    }
    expect(waits).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
    await h.settle();
    expect(rows(h.text())[0]).toMatch(/◌ HTTP 500.*retry in \d+s/);
    failJobs = false;
    await h.ctl.poll();
    await h.settle();
    expect(h.store.get().data.failures).toBe(0);
    expect(rows(h.text())[0]).toContain('● live');
  });

  it('one job is "1 job"', async () => {
    h = mountTui(daemon);
    await h.press('/', ...'report', KEY.enter);
    expect(rows(h.text())[1]).toMatch(/ 1 job(?!s)/);
    await h.press('/', KEY.ctrlU, KEY.enter);
    expect(rows(h.text())[1]).toContain(' 6 jobs');
  });

  it('a fire under a second away reads "in <1s", never "in 0s"', async () => {
    h = mountTui(daemon);
    const heartbeat = () => rows(h.text()).find((r) => r.includes('heartbeat'))!;
    for (const mono of [1000, 1300, 1499]) {
      h.store.set({ mono });
      await h.settle();
      expect(heartbeat()).toMatch(/ in <1s /);
      expect(heartbeat()).not.toContain('in 0s');
    }
  });

  it('the cpu/mem column stays once seen, so the table does not jump; a new dashboard starts without it', async () => {
    const withRes = fixtureJobs().map((j) =>
      j.name === 'long-sleep'
        ? ({ ...j, running_resources: { cpu_percent: 12, rss_bytes: 5 * 1024 * 1024 } } as ApiJob)
        : j,
    );
    extra = mountTui(daemon, { cols: 140 });
    await extra.settle();
    expect(rows(extra.text())[3]).not.toContain('cpu/mem');
    daemon.jobs = withRes;
    h = mountTui(daemon, { cols: 140 });
    await h.settle();
    expect(rows(h.text())[3]).toContain('cpu/mem');
    expect(rows(h.text()).find((r) => r.includes('long-sleep'))).toMatch(/12% 5\.0 ?MiB/);
    h.ctl.acceptJobs(fixtureJobs());
    await h.settle();
    expect(rows(h.text())[3]).toContain('cpu/mem');
  });
});

describe('Q24: nothing is dropped without a word', () => {
  it('the wallboard says how many tiles did not fit', async () => {
    h = mountTui(daemon, { wallboard: true, cols: 60, rows: 10 });
    await h.settle();
    const t = h.text();
    const names = fixtureJobs().map((j) => j.name);
    // the verdict bar (row 0) names the failing job too; tiles start below it
    const shown = names.filter((n) =>
      rows(t)
        .slice(1)
        .some((r) => r.includes(` ${n}`)),
    ).length;
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(6);
    expect(t).toContain(`+${6 - shown} more`);
    expect(t).toMatch(/ 6 jobs · 1 fail/);
  });

  it('zen places a dot for every job, moving on past taken cells, only running out with the field', async () => {
    const names = Array.from({ length: 250 }, (_, i) => ({ name: `job-${i}`, soon: false }));
    const dots = zenDots(names, 40, 10);
    expect(dots).toHaveLength(250);
    expect(new Set(dots.map((d) => `${d.row}:${d.col}`)).size).toBe(250);
    for (const d of dots) {
      expect(d.row).toBeGreaterThanOrEqual(1);
      expect(d.row).toBeLessThanOrEqual(7);
      expect(d.col).toBeGreaterThanOrEqual(0);
      expect(d.col).toBeLessThan(38);
    }
    expect(zenDots([...names, ...names.map((n) => ({ ...n, name: `${n.name}b` }))], 40, 10)).toHaveLength(
      7 * 38,
    );

    const calm = names.slice(0, 120).map((n) =>
      apiJob(n.name, {
        scheduled_in: 3600,
        last_run: {
          outcome: 'success',
          exit_code: 0,
          started_at: null,
          finished_at: '2026-07-05T08:00:00Z',
          duration: 1,
          fail_reason: null,
          resources: null,
        },
      }),
    );
    daemon.jobs = calm;
    h = mountTui(daemon, { wallboard: true, cols: 40, rows: 10, lastKeyAt: -1_000_000 });
    await h.settle();
    const screen = rows(h.text());
    expect(screen[8]).toContain('all clear');
    const field = screen.filter((_, i) => i !== 8).join('');
    expect([...field].filter((c) => c === '∙' || c === '·').length).toBe(120);
  });
});

describe('OSC 52 through a multiplexer (§4.15 [opt])', () => {
  const plain = (t: string) => `\u001b]52;c;${Buffer.from(t, 'utf8').toString('base64')}\u0007`;

  it('plain without TMUX/STY; tmux gets it plain and wrapped once with ESC doubled; screen in pieces of at most 76 bytes', () => {
    expect(osc52('echo 日本')).toBe(plain('echo 日本'));
    expect(osc52('echo 日本', { TERM: 'xterm' })).toBe(plain('echo 日本'));
    const tmux = osc52('echo hi', { TMUX: '/tmp/tmux-1000/default,123,0' });
    // issue 33 item 12: tmux drops the passthrough-wrapped copy unless allow-passthrough is on, and takes the
    // plain one itself (set-clipboard), so both go
    expect(tmux).toBe(`${plain('echo hi')}\u001bPtmux;\u001b${plain('echo hi')}\u001b\\`);
    const long = 'x'.repeat(200);
    const screen = osc52(long, { STY: '123.pts-0.host' });
    const pieces = [...screen.matchAll(/\u001bP([^\u001b]*(?:\u001b(?!\\)[^\u001b]*)*)\u001b\\/g)].map(
      (m) => m[1]!,
    );
    expect(pieces.join('')).toBe(plain(long));
    for (const p of pieces) expect(p.length).toBeLessThanOrEqual(76);
    expect(pieces.length).toBe(Math.ceil(plain(long).length / 76));
  });

  it('`c` under tmux writes the plain and the wrapped sequence, once, and claims no confirmed copy', async () => {
    h = mountTui(daemon);
    h.ctl.deps.terminalEnv = { TMUX: '/tmp/tmux-1000/default,123,0' };
    h.raw.length = 0;
    await h.press('c');
    const sent = h.raw.filter((r) => r.includes('52;c;'));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(
      /^\u001b\]52;c;[A-Za-z0-9+/=]+\u0007\u001bPtmux;\u001b\u001b\]52;c;[A-Za-z0-9+/=]+\u0007\u001b\\$/,
    );
    expect(h.text()).toContain('❏ command sent to clipboard');
    expect(h.text()).not.toContain('copied');
  });
});

describe('one model, two faces (spec 08 §3)', () => {
  it('each status cell is the shared health glyph and label, in Unicode and in ASCII', async () => {
    for (const ascii of [false, true]) {
      h?.close();
      h = mountTui(daemon, { ascii });
      await h.settle();
      const screen = rows(h.text());
      for (const j of fixtureJobs()) {
        const hl = health(j);
        const row = screen.find((r) => r.includes(` ${j.name} `) && !r.includes('FAILING'))!;
        expect(row).toContain(`${ascii ? hl.ascii : hl.glyph} ${hl.label}`);
      }
    }
  });

  it('the header turns stale by the web header’s rule when answers stop arriving', async () => {
    h = mountTui(daemon, { pollMs: 3000 });
    const fetchedAt = h.store.get().data.fetchedAt;
    h.store.set({ mono: fetchedAt + liveForMs(3000) });
    await h.settle();
    expect(rows(h.text())[0]).toContain('● live');
    h.store.set({ mono: fetchedAt + liveForMs(3000) + 1000 });
    await h.settle();
    expect(rows(h.text())[0]).toContain('◌ stale 12s ago');
  });
});

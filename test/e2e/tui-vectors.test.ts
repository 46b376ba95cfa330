// Spec 08 §8's test vectors that the other TUI files left open, and the bracketed-paste (Q25), time-label (Q11)
// and one-read key-decoding fixes, end to end: `cronstable tui` in a real pseudo-terminal (node-pty, CI unset
// for Ink) read through a headless xterm, against the real daemon running the §7 fixture behind a recording
// proxy (the vectors' "fixture": it sees each request and when a log tail's connection ends).
//
// Every vector and the pseudo-terminal test that shows it (a component test does not count):
//
// | #   | test                                                                                         |
// |-----|----------------------------------------------------------------------------------------------|
// | T1  | tui.test.ts        "T1: without a tty it prints one stderr line and exits 2"                  |
// | T2  | tui.test.ts        "T2: a bad --theme or --poll is a usage error naming the value, ..."       |
// | T3  | tui.test.ts        "T3: q exits 0 and restores the terminal ..." (+ here: Q25 paste mode off) |
// | T4  | tui.test.ts        "T4: Ctrl-C exits 0 with the terminal restored"                            |
// | T5  | tui.test.ts        "T5: SIGTERM restores the terminal and exits 143"                          |
// | T6  | tui.test.ts        "T6: the board lists the jobs, live, with the failing verdict"             |
// | T7  | tui.test.ts        "T7: an unreachable daemon: a frame at once, the error in the header, ..." |
// | T8  | here               "T8: j six times wraps the marker back to the first job"                   |
// | T9  | tui.test.ts        "T17 + T9: / filter, Enter, Enter opens the drawer ..." and here           |
// |     |                    "T9: ... the stderr line's marker in the fail colour"                      |
// | T10 | tui.test.ts        "T10 + T11: a job printing title, clipboard and clear-screen sequences ..." |
// | T11 | tui.test.ts        (same test: 100%, no 55%, CJK columns) and here                            |
// |     |                    "T11: WARN is bold in the theme's pending colour, never the job's raw SGR" |
// | T12 | here               "T12: Esc closes the drawer, the board is full width, the tail is closed"  |
// | T13 | tui.test.ts        "T13: ? shows the keyboard shortcuts; ? closes; Esc closes"                |
// | T14 | here               "T14: the palette offers runs only for idle enabled jobs, failing first"   |
// | T15 | tui.test.ts        "T15: the palette runs a job on the daemon and says so" and here           |
// |     |                    "T15 + T16: the daemon gets the palette's run, and no POST for ..."        |
// | T16 | here               (same test)                                                                |
// | T17 | here               "T17: / beat Enter keeps only heartbeat; j then moves instead of typing"   |
// | T18 | here               "T18: f f keeps only the failing job; three more f show all six"           |
// | T19 | here               "T19: s sorts by status: running first, the failure before OK, ..."        |
// | T20 | tui.test.ts        "T20 / --tv: the wallboard, failing tile first, the alarm, a acks, ..."    |
// | T21 | here               "T21: --tv, the daemon stops: NO SIGNAL about 15 s after the last poll"   |
// | T22 | tui.test.ts        "T22: a 401 opens the token prompt; ..." (+ tui-ops.test.ts "T22: ...")    |
// | T23 | tui.test.ts        "T23: --token-env names the variable holding the token; no prompt"        |
// | T24 | tui.test.ts        "T24: a resize to 80x24 repaints at the new size with narrower columns"    |
// | T25 | tui.test.ts        "T25: c copies the selected command through one OSC 52"                   |
// | T26 | tui.test.ts        "T26: t cycles the theme, saves it, and a restart paints it"               |
// | T27 | here               "T27: d saves the heartbeat tail, run blocks stacked, none repeated"      |
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tearDownE2e } from '../helpers/e2e-daemon.ts';
import { FIXTURE_NAMES, startTuiFixture, type TuiFixture } from '../helpers/tui-e2e-fixture.ts';
import { RecordingProxy } from '../helpers/tui-proxy.ts';
import { TuiPty } from '../helpers/tui-pty.ts';
import { until } from '../helpers/until.ts';

const ESC = '\u001b';
const ENTER = '\r';
const CTRL_K = '\u000b';
const CTRL_U = '\u0015';
const PASTE = (text: string) => `${ESC}[200~${text}${ESC}[201~`;
/** standard (the default theme, spec 10 §5.3) roles, as xterm reports a 24-bit colour */
const STANDARD = { fail: 0xe74856, pending: 0xc19c00, dim: 0x707070 } as const;
/** the board's rows in its default order (name, ascending) */
const BY_NAME = [...FIXTURE_NAMES].sort();
/** a zone five hours and 45 minutes off UTC: any local-time label shows at once */
const FAR_TZ = 'Asia/Kathmandu';

let fx: TuiFixture;
let proxy: RecordingProxy;
const ttys: TuiPty[] = [];

function tui(args: string[], env: NodeJS.ProcessEnv = {}, url = proxy.base): TuiPty {
  const t = new TuiPty(['--url', url, '--no-boot', ...args], {
    cwd: fx.home,
    env: { HOME: fx.home, XDG_CONFIG_HOME: join(fx.home, '.config'), LANG: 'C.UTF-8', ...env },
  });
  ttys.push(t);
  return t;
}

/** The name on the row the `▎` marker is on. */
const selected = (screen: string): string | undefined =>
  screen
    .split('\n')
    .find((l) => l.startsWith('▎'))
    ?.split(/\s+/)
    .find((w) => FIXTURE_NAMES.includes(w));

/** The board is live and its rows are painted: `● live` can reach the screen a frame before the first row does. */
async function boardReady(t: TuiPty): Promise<void> {
  await t.waitFor((s) => s.includes('● live') && selected(s) !== undefined, 8000);
}

/** Moves the marker down to `name` with `j`, one key at a time, each move seen on the screen. */
async function selectJob(t: TuiPty, name: string): Promise<void> {
  for (let i = 0; i <= FIXTURE_NAMES.length; i++) {
    const now = selected(await t.screen());
    if (now === name) return;
    t.write('j');
    await t.waitFor((s) => selected(s) !== now);
  }
  throw new Error(`no row ${name} on the board`);
}

/** Row and column of the first cell showing `text` on the screen. */
async function find(t: TuiPty, text: string): Promise<{ row: number; col: number }> {
  const lines = await t.lines();
  const row = lines.findIndex((l) => l.includes(text));
  if (row < 0) throw new Error(`${text} is not on the screen:\n${lines.join('\n')}`);
  // translateToString gives one character per cell for these rows (no wide characters before the text)
  return { row, col: lines[row]!.indexOf(text) };
}

/** The 24-bit foreground of a cell, or null when the cell uses a palette colour or the default. */
async function fgOf(t: TuiPty, row: number, col: number): Promise<number | null> {
  const c = await t.cell(row, col);
  return c?.isFgRGB() ? c.getFgColor() : null;
}

/** The names on the board's job rows (` ● OK        heartbeat …`), top to bottom. */
const boardNames = (screen: string): string[] =>
  screen
    .split('\n')
    .map((l) => /^[ ▎]\S \S+\s+(\S+)/.exec(l)?.[1])
    .filter((n): n is string => n !== undefined && FIXTURE_NAMES.includes(n));

/** SGR parameter lists in `bytes` that carry a basic ANSI foreground (30-37, 90-97), outside 38/48 colours. */
function basicColourSgrs(bytes: string): string[] {
  const out: string[] = [];
  for (const m of bytes.matchAll(/\u001b\[([0-9;]*)m/g)) {
    const p = m[1]!.split(';');
    for (let i = 0; i < p.length; i++) {
      if (p[i] === '38' || p[i] === '48') {
        i += p[i + 1] === '2' ? 4 : 2;
        continue;
      }
      const n = Number(p[i]);
      if ((n >= 30 && n <= 37) || (n >= 90 && n <= 97)) out.push(m[0]);
    }
  }
  return out;
}

/** `HH:MM:SS` as seconds of the day. */
const secs = (hms: string): number => {
  const [h, m, s] = hms.split(':').map(Number);
  return h! * 3600 + m! * 60 + s!;
};
/** Distance between two times of day, across midnight. */
const apart = (a: number, b: number): number => Math.min(Math.abs(a - b), 86_400 - Math.abs(a - b));
const utcNowSecs = (): number => Math.floor((Date.now() % 86_400_000) / 1000);

/** What T21's dashboard showed once its daemon was gone. */
interface NoSignal {
  /** seconds from the daemon's stop to the first frame with NO SIGNAL */
  after: number;
  screen: string;
  /** the foreground of a tile's name on that frame */
  tileFg: number | null;
}

/**
 * T21 and T27 wait on the clock (15 s of silence, runs stacking up): their dashboards start with the file and
 * are checked by the last tests, so the waiting overlaps the other vectors instead of adding to them.
 */
const slow: { own?: TuiFixture; t21?: TuiPty; noSignal?: Promise<NoSignal>; t27?: TuiPty } = {};

async function watchNoSignal(): Promise<NoSignal> {
  const own = await startTuiFixture({ runs: false });
  slow.own = own;
  const t = new TuiPty(['--url', own.base, '--no-boot', '--tv'], {
    cwd: own.home,
    env: { HOME: own.home, XDG_CONFIG_HOME: join(own.home, '.config'), LANG: 'C.UTF-8' },
  });
  slow.t21 = t;
  await t.waitFor((s) => s.includes('heartbeat') && s.includes('esc/w exit'), 10_000);
  await tearDownE2e(null, own.daemon);
  const stopped = Date.now();
  const screen = await t.waitFor('NO SIGNAL', 30_000);
  const after = (Date.now() - stopped) / 1000;
  const tile = await find(t, 'legacy-sync');
  return { after, screen, tileFg: await fgOf(t, tile.row, tile.col) };
}

beforeAll(async () => {
  slow.noSignal = watchNoSignal();
  slow.noSignal.catch(() => {}); // asserted by T21; a failure must not surface before it
  fx = await startTuiFixture();
  proxy = new RecordingProxy(fx.base);
  await proxy.start();
  slow.t27 = new TuiPty(['--url', proxy.base, '--no-boot', '--job', 'heartbeat'], {
    cwd: fx.home,
    env: { HOME: fx.home, XDG_CONFIG_HOME: join(fx.home, '.config'), LANG: 'C.UTF-8', TZ: FAR_TZ },
  });
}, 40_000);

afterEach(() => {
  for (const t of ttys.splice(0)) t.kill('SIGKILL');
});

afterAll(async () => {
  slow.t21?.kill('SIGKILL');
  slow.t27?.kill('SIGKILL');
  await proxy?.stop();
  await tearDownE2e(null, fx?.daemon ?? null, fx?.dir ?? '', fx?.home ?? '');
  await tearDownE2e(null, slow.own?.daemon ?? null, slow.own?.dir ?? '', slow.own?.home ?? '');
});

describe('spec 08 §8 vectors on the §7 fixture', () => {
  it('T8: j six times wraps the marker back to the first job', async () => {
    const t = tui([]);
    await boardReady(t);
    expect(selected(await t.screen())).toBe(BY_NAME[0]);
    for (let i = 1; i <= 6; i++) {
      t.write('j');
      await t.waitFor((s) => selected(s) === BY_NAME[i % BY_NAME.length]);
    }
    expect(selected(await t.screen())).toBe('colour-probe');
  });

  it("T9: nightly-backup's drawer: both streams, the end marker, the stderr line's marker in the fail colour", async () => {
    const t = tui([]);
    await boardReady(t);
    await selectJob(t, 'nightly-backup');
    t.write(ENTER);
    await t.waitFor('end of run output', 5000);
    const err = await find(t, 'rsync: write failed: No space left on device');
    const out = await find(t, 'backing up /var/lib/app ...');
    // the `▏` marker sits just left of the text
    expect((await t.lines())[err.row]![err.col - 1]).toBe('▏');
    expect(await fgOf(t, err.row, err.col - 1)).toBe(STANDARD.fail);
    expect(await fgOf(t, out.row, out.col - 1)).not.toBe(STANDARD.fail);
    expect(await t.screen()).toContain('logs  history  resources  schedule');
  });

  it("T11: WARN is bold in the theme's pending colour, never the job's raw SGR", async () => {
    const t = tui([]);
    await boardReady(t);
    const mark = t.raw.length;
    t.write(ENTER); // colour-probe is the first row
    await t.waitFor('WARN slow disk', 5000);
    const warn = await find(t, 'WARN slow disk');
    const cell = await t.cell(warn.row, warn.col);
    expect(cell?.isBold()).toBeTruthy();
    expect(await fgOf(t, warn.row, warn.col)).toBe(STANDARD.pending);
    // " slow disk" after the job's reset is not bold
    expect((await t.cell(warn.row, warn.col + 5))?.isBold()).toBeFalsy();
    expect(t.raw.slice(mark)).toContain('38;2;193;156;0'); // standard's pending c19c00
    expect(basicColourSgrs(t.raw.slice(mark))).toEqual([]);
  });

  it('T12: Esc closes the drawer, the board is full width again, and the tail is closed at the fixture', async () => {
    const t = tui([]);
    await boardReady(t);
    await selectJob(t, 'long-sleep'); // running for an hour: its tail stays open
    const before = proxy.requests.length;
    t.write(ENTER);
    await t.waitFor('logs  history  resources  schedule', 5000);
    const tail = await proxy.waitFor('GET', '/jobs/long-sleep/logs', 5000, before);
    expect(tail.closedAt).toBeNull();
    t.write(ESC);
    // A repaint may land in pieces on a loaded machine: wait for the whole full-width board.
    const screen = await t.waitFor(
      (s) =>
        !s.includes('logs  history') &&
        /long-sleep\s.*sleep 3600/.test(s) &&
        !s.split('\n').some((l) => l.includes('│')),
      8000,
    );
    // full width: the command column is back and no row carries the drawer's divider
    expect(screen).toMatch(/long-sleep\s.*sleep 3600/);
    expect(screen.split('\n').some((l) => l.includes('│'))).toBe(false);
    await until('the tail connection to close', 8000, async () => (tail.closedAt !== null ? true : null));
    expect(tail.clientClosed).toBe(true);
  });

  it('T14: the palette offers runs only for idle enabled jobs, failing first', async () => {
    const t = tui([]);
    await boardReady(t);
    t.write(CTRL_K);
    await t.waitFor('command palette');
    t.write('run');
    const screen = await t.waitFor('Run: report-daily');
    const entries = screen
      .split('\n')
      .filter((l) => l.includes('│ ') && !l.includes('⌕'))
      .map((l) =>
        l
          .split('│')[1]!
          .replace(/^\s*▎?\s*/, '')
          .trim(),
      );
    expect(entries[0]).toMatch(/^Run all failing jobs/);
    expect(screen).not.toContain('Run: long-sleep');
    expect(screen).not.toContain('Run: legacy-sync');
  });

  it('T15 + T16: the daemon gets the palette run; r on a running job and x on an idle one send nothing', async () => {
    const t = tui([]);
    await boardReady(t);
    const mark = proxy.requests.length;
    await selectJob(t, 'long-sleep');
    t.write('r');
    await selectJob(t, 'report-daily');
    t.write('x');
    // `g` after them: its toast proves both keys were handled
    t.write('g');
    await t.waitFor('↻ refreshing');
    expect(proxy.requests.slice(mark).filter((r) => r.method === 'POST')).toEqual([]);
    t.write(CTRL_K);
    await t.waitFor('command palette');
    t.write('run: rep');
    await t.waitFor('Run: report-daily');
    t.write(ENTER);
    await t.waitFor('▶ started report-daily', 5000);
    const posts = proxy.requests.slice(mark).filter((r) => r.method === 'POST');
    expect(posts.map((p) => p.url)).toEqual(['/jobs/report-daily/start']);
  });

  it('T17: / beat Enter keeps only heartbeat; j then moves instead of typing', async () => {
    const t = tui([]);
    await boardReady(t);
    t.write('/');
    await t.waitFor('/▌');
    t.write('beat');
    await t.waitFor('/beat▌');
    t.write(ENTER);
    const screen = await t.waitFor((s) => !s.includes('▌') && s.includes('1 job'));
    expect(boardNames(screen)).toEqual(['heartbeat']);
    expect(screen).toMatch(/^ \/beat /m);
    t.write('j');
    t.write('g'); // a toast after `j`: the key was handled as a move
    const after = await t.waitFor('↻ refreshing');
    expect(after).toMatch(/^ \/beat /m);
    expect(after).not.toContain('/beatj');
    expect(selected(after)).toBe('heartbeat');
  });

  it('T18: f f keeps only the failing job; three more f show all six', async () => {
    const t = tui([]);
    await boardReady(t);
    t.write('f');
    await t.waitFor((s) => !boardNames(s).includes('nightly-backup'));
    t.write('f');
    const fail = await t.waitFor((s) => boardNames(s).join() === 'nightly-backup');
    expect(fail).toContain('1 job');
    for (let i = 0; i < 3; i++) t.write('f');
    const all = await t.waitFor((s) => boardNames(s).length === 6);
    expect(all).toContain('6 jobs');
  });

  it('T19: s sorts by status: running first, the failure before OK, the disabled job last', async () => {
    const t = tui([]);
    await boardReady(t);
    t.write('s');
    const screen = await t.waitFor('sort: status');
    const rows = boardNames(screen);
    expect(rows).toHaveLength(6);
    const at = (n: string) => rows.indexOf(n);
    // running first: long-sleep, and heartbeat when the snapshot caught it mid-run (it runs every second)
    expect(rows.slice(0, at('long-sleep'))).toEqual(at('long-sleep') === 0 ? [] : ['heartbeat']);
    expect(rows.at(-1)).toBe('legacy-sync');
    expect(at('nightly-backup')).toBeGreaterThan(at('long-sleep'));
    expect(at('nightly-backup')).toBeLessThan(at('report-daily'));
    expect(at('nightly-backup')).toBeLessThan(at('colour-probe'));
  });
});

describe('keys in one read, bracketed paste (Q25), times in UTC (Q11)', () => {
  it('Ctrl-U and text in one write clear the input and type: filter, palette, log search', async () => {
    const t = tui([]);
    await boardReady(t);
    t.write('/nightly');
    await t.waitFor('/nightly▌');
    t.write(`${CTRL_U}beat`);
    await t.waitFor('/beat▌');
    t.write(`${CTRL_U}${ENTER}`);
    await t.waitFor((s) => !s.includes('▌') && s.includes('6 jobs'));
    t.write(`${CTRL_K}run`);
    await t.waitFor('⌕ run▌');
    t.write(`${CTRL_U}dag`);
    await t.waitFor('⌕ dag▌');
    t.write(ESC);
    await t.waitFor((s) => !s.includes('command palette'));
    t.write(ENTER); // colour-probe's drawer
    await t.waitFor('WARN slow disk', 5000);
    t.write('/warn');
    await t.waitFor('/warn▌');
    t.write(`${CTRL_U}clear`);
    await t.waitFor('/clear▌');
  });

  it('Q25: bracketed paste is on while the dashboard runs; a paste types into inputs and fires no keys', async () => {
    const t = tui([]);
    await boardReady(t);
    expect(t.raw.slice(0, t.raw.indexOf('● live'))).toContain(`${ESC}[?2004h`);
    const mark = proxy.requests.length;
    // on the bare board a paste is ignored: `r` does not run, `q` does not quit, `w` no wallboard
    t.write(PASTE('rqw'));
    t.write('g');
    await t.waitFor('↻ refreshing');
    expect(proxy.requests.slice(mark).filter((r) => r.method === 'POST')).toEqual([]);
    expect(await t.screen()).toMatch(/status\s+name/);
    // into the filter it types, newlines flattened; keys after it in the same read still count
    t.write('/');
    await t.waitFor('/▌');
    t.write(`${PASTE('night\n')}ly`);
    await t.waitFor('/nightly▌');
    t.write(ENTER);
    await t.waitFor((s) => boardNames(s).join() === 'nightly-backup');
    // into the palette, split across two reads
    t.write(CTRL_K);
    await t.waitFor('command palette');
    t.write(`${ESC}[200~run: re`);
    t.write(`port${ESC}[201~`);
    await t.waitFor('⌕ run: report▌');
    t.write(ESC);
    await t.waitFor((s) => !s.includes('command palette'));
    const quitAt = t.raw.length;
    t.write('q');
    expect((await t.exitWithin(3000)).exitCode).toBe(0);
    const tail = t.raw.slice(quitAt);
    expect(tail).toContain(`${ESC}[?2004l`);
    expect(tail).toContain(`${ESC}[?1049l`);
  });

  it('Q11: log times and history times are UTC and say so, whatever the local zone', async () => {
    const t = tui(['--job', 'heartbeat'], { TZ: FAR_TZ });
    await t.waitFor(/▏beat \d\d:\d\d:\d\d/, 8000);
    t.write('t');
    const screen = await t.waitFor(/times: received, UTC[\s\S]*▏\d\d:\d\d:\d\d beat \d\d:\d\d:\d\d/);
    // each line's receipt time is close to the UTC time the job printed in it (replays show the attach time)
    const [, got, printed] = /▏(\d\d:\d\d:\d\d) beat (\d\d:\d\d:\d\d)/.exec(screen)!;
    expect(apart(secs(got!), secs(printed!))).toBeLessThan(30);
    expect(apart(secs(got!), utcNowSecs())).toBeLessThan(30);
    t.write('t'); // timestamps back off in the prefs file shared by these tests
    await t.waitFor((s) => !s.includes('times: received'));
    t.write(`${ESC}[C`); // History
    const history = await t.waitFor(/times UTC[\s\S]*\d\d-\d\d \d\d:\d\d:\d\d/, 5000);
    const started = /\d\d-\d\d (\d\d:\d\d:\d\d)/.exec(history)![1]!;
    expect(apart(secs(started), utcNowSecs())).toBeLessThan(120);
  });
});

describe('spec 08 §8 vectors that wait on the clock (started with the file)', () => {
  it('T21: --tv, the daemon stops: NO SIGNAL about 15 s after the last poll, tiles dimmed', async () => {
    const r = await slow.noSignal!;
    // the last good poll was at most one 3 s interval before the stop; the banner follows 15 s after it
    expect(r.after).toBeGreaterThan(15 - 3 - 1);
    expect(r.after).toBeLessThan(15 + 1 + 5);
    expect(r.screen).toContain('legacy-sync');
    expect(r.tileFg).toBe(STANDARD.dim);
    slow.t21!.write(ESC);
    await slow.t21!.waitFor(/status\s+name/);
  }, 40_000);

  it('T27: d saves the heartbeat tail, run blocks stacked, none repeated; the file name is stamped in UTC (Q11)', async () => {
    const t = slow.t27!;
    await t.waitFor('logs  history  resources  schedule', 8000);
    // the re-attaches every 5 s stack runs between end markers (the vector's "wait 12 s")
    await t.waitFor((s) => s.split('end of run output').length - 1 >= 3, 25_000);
    t.write('d');
    await t.waitFor('saved ', 5000);
    const file = readdirSync(fx.home).find((f) => /^cronstable-heartbeat-\d{8}-\d{6}\.log$/.test(f));
    expect(file).toBeDefined();
    const name = /(\d{8})-(\d{6})/.exec(file!)!;
    // Q11: the stamp is UTC, as the header clock, not the far zone's local time
    const stamp = name[2]!.replace(/(\d\d)(\d\d)(\d\d)/, '$1:$2:$3');
    expect(apart(secs(stamp), utcNowSecs())).toBeLessThan(60);
    const text = readFileSync(join(fx.home, file!), 'utf8');
    expect(text).toMatch(/^\[stdout\] beat \d\d:\d\d:\d\d$/m);
    expect(text).toContain('[meta] end of run output');
    const blocks = text
      .split('[meta] end of run output')
      .map((b) => b.trim())
      .filter(Boolean);
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < blocks.length; i++) expect(blocks[i]).not.toBe(blocks[i - 1]);
  }, 40_000);
});

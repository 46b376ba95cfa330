// `cronstable tui` end to end (spec 08 §8): the built CLI in a real pseudo-terminal against a real daemon on
// loopback, its output fed to a headless xterm; the assertions read the screen a person sees and the raw
// bytes the program wrote. The daemon runs the §7 fixture (hostile output included).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/fleet/ports.ts';
import { DAEMON, type E2eDaemon, startE2eDaemon, tearDownE2e } from '../helpers/e2e-daemon.ts';
import { FIXTURE_NAMES, startTuiFixture } from '../helpers/tui-e2e-fixture.ts';
import { TuiPty } from '../helpers/tui-pty.ts';
import { until } from '../helpers/until.ts';

const NAMES = FIXTURE_NAMES;

let dir = '';
let home = '';
let base = '';
let daemon: E2eDaemon | null = null;
const ttys: TuiPty[] = [];

function tui(args: string[], opts: { cols?: number; rows?: number; env?: NodeJS.ProcessEnv } = {}): TuiPty {
  const t = new TuiPty(['--url', base, '--no-boot', ...args], {
    ...opts,
    cwd: home,
    env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), LANG: 'C.UTF-8', ...opts.env },
  });
  ttys.push(t);
  return t;
}

async function exitOf(t: TuiPty, ms = 3000): Promise<{ exitCode: number; signal?: number }> {
  return Promise.race([
    t.exited,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no exit within ${ms} ms`)), ms)),
  ]);
}

beforeAll(async () => {
  if (!existsSync(DAEMON)) throw new Error(`${DAEMON} is missing: run npm run build`);
  ({ dir, home, base, daemon } = await startTuiFixture());
}, 40_000);

afterEach(() => {
  for (const t of ttys.splice(0)) t.kill('SIGKILL');
});

afterAll(async () => {
  await tearDownE2e(null, daemon, dir, home);
});

describe('cronstable tui in a pseudo-terminal', () => {
  it('T1: without a tty it prints one stderr line and exits 2', () => {
    const r = spawnSync(process.execPath, [DAEMON, 'tui', '--url', base], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(r.status).toBe(2);
    expect(r.stdout.toString()).toBe('');
    const err = r.stderr.toString().trim().split('\n');
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(/interactive terminal/);
  });

  it('T2: a bad --theme or --poll is a usage error naming the value, no traceback', () => {
    for (const args of [
      ['--theme', 'plaid'],
      ['--poll', 'nan'],
      ['--poll', 'abc'],
    ]) {
      const r = spawnSync(process.execPath, [DAEMON, 'tui', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      expect(r.status).toBe(2);
      expect(r.stderr.toString()).toContain(args[1]!);
      expect(r.stderr.toString()).not.toMatch(/at .*\.mjs:\d+/);
    }
  });

  it('T6: the board lists the jobs, live, with the failing verdict', async () => {
    const t = tui([]);
    const screen = await t.waitFor((s) => NAMES.every((n) => s.includes(n)) && s.includes('● live'), 5000);
    expect(screen).toContain('6 jobs');
    expect(screen).toMatch(/✕ Failed\s+nightly-backup/);
    expect(screen).toMatch(/JOB FAILING — nightly-backup — exit 69/);
    expect(screen).toMatch(/▶ Running\s+long-sleep/);
    writeFileSync(join(home, 'board.txt'), screen);
  });

  it('T3: q exits 0 and restores the terminal (alt screen left, cursor shown, termios as before)', async () => {
    // The shell around the dashboard records the pty's termios before and after.
    const sh = new TuiShell(base, home);
    ttys.push(sh.pty);
    await sh.pty.waitFor('● live', 5000);
    expect(sh.pty.raw).toContain('\u001b[?1049h');
    expect(sh.pty.raw).toContain('\u001b[?25l');
    sh.pty.write('q');
    const { exitCode } = await exitOf(sh.pty);
    expect(exitCode).toBe(0);
    const tail = sh.pty.raw.slice(sh.pty.raw.lastIndexOf('\u001b[?1049h'));
    expect(tail).toContain('\u001b[?1049l');
    expect(tail.lastIndexOf('\u001b[?25h')).toBeGreaterThan(tail.lastIndexOf('\u001b[?25l'));
    expect(sh.result()).toEqual({ code: '0', same: true });
  });

  it('T4: Ctrl-C exits 0 with the terminal restored', async () => {
    const sh = new TuiShell(base, home);
    ttys.push(sh.pty);
    await sh.pty.waitFor('● live', 5000);
    sh.pty.write('\u0003');
    expect((await exitOf(sh.pty)).exitCode).toBe(0);
    expect(sh.pty.raw).toContain('\u001b[?1049l');
    expect(sh.result()).toEqual({ code: '0', same: true });
  });

  it('T5: SIGTERM restores the terminal and exits 143', async () => {
    const sh = new TuiShell(base, home, true);
    ttys.push(sh.pty);
    await sh.pty.waitFor('● live', 5000);
    const pid = Number(readFileSync(join(home, 'tui.pid'), 'utf8').trim());
    process.kill(pid, 'SIGTERM');
    expect((await exitOf(sh.pty)).exitCode).toBe(0);
    expect(sh.pty.raw).toContain('\u001b[?1049l');
    expect(sh.result()).toEqual({ code: '143', same: true });
  });

  it('SIGHUP restores the terminal and exits 129', async () => {
    const sh = new TuiShell(base, home, true);
    ttys.push(sh.pty);
    await sh.pty.waitFor('● live', 5000);
    const pid = Number(readFileSync(join(home, 'tui.pid'), 'utf8').trim());
    process.kill(pid, 'SIGHUP');
    expect((await exitOf(sh.pty)).exitCode).toBe(0);
    expect(sh.pty.raw).toContain('\u001b[?1049l');
    expect(sh.result()).toEqual({ code: '129', same: true });
  });

  it('Ctrl-Z restores the terminal and stops; SIGCONT re-enters and repaints (Q2)', async () => {
    const t = tui([]);
    await t.waitFor('● live');
    const state = () => readFileSync(`/proc/${t.pid}/stat`, 'utf8').split(') ')[1]![0];
    const mark = t.raw.length;
    t.write('\u001a');
    await until('the dashboard to stop', 3000, async () => (state() === 'T' ? true : null));
    // The restore is written before the stop, but the pty can hand it to us a moment after /proc says T.
    await until('the restore to arrive', 3000, async () =>
      t.raw.slice(mark).includes('\u001b[?1049l') && t.raw.slice(mark).includes('\u001b[?25h') ? true : null,
    );
    expect(state()).toBe('T');
    const resumedAt = t.raw.length;
    process.kill(t.pid, 'SIGCONT');
    await until('the dashboard to repaint', 3000, async () =>
      t.raw.slice(resumedAt).includes('\u001b[?1049h') && t.raw.slice(resumedAt).includes('\u001b[2J')
        ? true
        : null,
    );
    const screen = await t.waitFor('● live');
    expect(screen).toContain('nightly-backup');
    t.write('q');
    expect((await exitOf(t)).exitCode).toBe(0);
  });

  it('T25: c copies the selected command through one OSC 52', async () => {
    const t = tui([]);
    await t.waitFor('● live');
    t.write('j'); // heartbeat
    await t.waitFor(/▎● OK\s+heartbeat|▎▶ Running\s+heartbeat/);
    const mark = t.raw.length;
    t.write('c');
    await t.waitFor('❏ command sent to clipboard');
    const oscs = [...t.raw.slice(mark).matchAll(/\u001b\]52;c;([A-Za-z0-9+/=]*)\u0007/g)];
    expect(oscs).toHaveLength(1);
    expect(Buffer.from(oscs[0]![1]!, 'base64').toString()).toBe('echo "beat $(date -u +%H:%M:%S)"');
  });

  it('T26: t cycles the theme, saves it, and a restart paints it', async () => {
    const own = mkdtempSync(join(tmpdir(), 'tui-theme-'));
    try {
      const env = { HOME: own, XDG_CONFIG_HOME: join(own, '.config') };
      const t = tui([], { env });
      await t.waitFor('● live');
      // from the default, standard (spec 10 §5.3), to the next hue
      t.write('t');
      await t.waitFor('◐ theme: carolina');
      const prefs = readFileSync(join(own, '.config', 'cronstable', 'tui.json'), 'utf8');
      expect(prefs).toContain('"theme": "carolina"');
      t.write('q');
      await exitOf(t);
      const again = tui([], { env });
      await again.waitFor('● live');
      // carolina's background 06131d = 6;19;29
      expect(again.raw).toContain('48;2;6;19;29');
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });

  it('T15: the palette runs a job on the daemon and says so', async () => {
    const t = tui([]);
    await t.waitFor('● live');
    t.write('\u000b');
    await t.waitFor('command palette');
    t.write('run: rep');
    await t.waitFor('Run: report-daily');
    t.write('\r');
    await t.waitFor('▶ started report-daily', 3000);
  });

  it('NO_COLOR and --ascii: no colour SGR, ASCII glyphs and borders', async () => {
    const t = new TuiPty(['--url', base, '--no-boot', '--ascii'], {
      cwd: home,
      env: { HOME: home, NO_COLOR: '1' },
    });
    ttys.push(t);
    const screen = await t.waitFor((s) => s.includes('x Failed') && s.includes('nightly-backup'), 5000);
    expect(screen).not.toMatch(/[▎✕●◌│]/);
    expect(t.raw).not.toMatch(/\u001b\[[0-9;]*(38|48);[25];/);
  });

  it('T7: an unreachable daemon: a frame at once, the error in the header, q still quits', async () => {
    const t = new TuiPty(['--url', 'http://127.0.0.1:9', '--no-boot'], { cwd: home, env: { HOME: home } });
    ttys.push(t);
    // "At once" counts from the TUI's first paint, not from the spawn: starting Node, Ink and React
    // in a pty took over 1.5 s on a loaded CI machine (a clean clone lost both attempts to it).
    await t.waitFor((s) => s.trim() !== '');
    const screen = await t.waitFor('waiting for the daemon…', 1500);
    expect(screen).toContain('◌');
    t.write('q');
    expect((await exitOf(t, 5000)).exitCode).toBe(0);
  });

  it('T17 + T9: / filter, Enter, Enter opens the drawer with both streams and the end marker', async () => {
    const t = tui([]);
    await t.waitFor('● live');
    t.write('/');
    t.write('nightly');
    await t.waitFor('/nightly▌');
    t.write('\r');
    let screen = await t.waitFor((s) => !s.includes('/nightly▌') && s.includes('1 job'));
    expect(screen).not.toContain('heartbeat');
    t.write('\r');
    screen = await t.waitFor('end of run output', 3000);
    expect(screen).toContain('logs  history  resources  schedule');
    expect(screen).toContain('backing up /var/lib/app ...');
    expect(screen).toContain('rsync: write failed: No space left on device');
    t.write('\u001b');
    await t.waitFor((s) => !s.includes('logs  history'));
  });

  it('T10 + T11: a job printing title, clipboard and clear-screen sequences shows its text and none of them', async () => {
    const t = tui([]);
    await t.waitFor('● live');
    const before = t.raw.length;
    t.write('\r'); // colour-probe is the first row
    // the lines arrive over several frames: wait for the run's end marker, drawn after the last of them
    const screen = await t.waitFor('end of run output', 5000);
    for (const s of ['WARN slow disk', 'title attempt', 'clear attempt', '100% progress', '日本語 wide'])
      expect(screen).toContain(s);
    expect(screen).not.toContain('55%');
    const bytes = t.raw.slice(before);
    expect(bytes).not.toMatch(/\u001b[\]P_^Xc78]/);
    expect(bytes).not.toContain('pwned-title');
    expect(bytes).not.toContain('aGVsbG8=');
    expect(bytes).not.toContain('\u001b[?1049l');
    // the divider and the pane edge keep their columns on the CJK line
    const lines = screen.split('\n');
    const cjk = lines.find((l) => l.includes('日本語'))!;
    const plain = lines.find((l) => l.includes('clear attempt'))!;
    expect(cjk.indexOf('│')).toBe(plain.indexOf('│'));
  });

  it('T13: ? shows the keyboard shortcuts; ? closes; Esc closes', async () => {
    const t = tui([]);
    await t.waitFor('● live');
    t.write('?');
    // The frame may arrive in several reads: wait for its last row, then check the rest.
    const screen = await t.waitFor('esc close · j/k scroll');
    expect(screen).toContain('keyboard shortcuts');
    expect(screen).toContain('Command palette');
    expect(screen).toContain('terminal extras');
    t.write('?');
    await t.waitFor((s) => !s.includes('keyboard shortcuts'));
    t.write('?');
    await t.waitFor('keyboard shortcuts');
    t.write('\u001b');
    await t.waitFor((s) => !s.includes('keyboard shortcuts'));
  });

  it('T20 / --tv: the wallboard, failing tile first, the alarm, a acks, Esc back to the board', async () => {
    const t = tui(['--tv']);
    const screen = await t.waitFor('ALARM (a to ack)', 5000);
    const firstTile = screen.split('\n').find((l) => /[◌▶✕⊘◍●◔] \S/.test(l))!;
    expect(firstTile.trim().startsWith('✕ nightly-backup')).toBe(true);
    t.write('a');
    await t.waitFor((s) => !s.includes('ALARM (a to ack)'));
    // `q` is inert on the wallboard: the Esc after it still finds the dashboard running and leaves to the board
    let exited = false;
    void t.exited.then(() => {
      exited = true;
    });
    t.write('q');
    t.write('\u001b');
    await t.waitFor(/status\s+name/);
    expect(exited).toBe(false);
  });

  it('--job opens that job’s drawer after the first load', async () => {
    const t = tui(['--job', 'nightly-backup']);
    const screen = await t.waitFor('end of run output', 5000);
    expect(screen).toContain('✕ nightly-backup');
    expect(screen).toContain('logs  history  resources  schedule');
  });

  it('T24: a resize to 80x24 repaints at the new size with narrower columns', async () => {
    const t = tui([]);
    await t.waitFor('● live');
    t.resize(80, 24);
    const screen = await t.waitFor(
      (s) => s.split('\n').length === 24 && /status\s+name/.test(s) && !/runs/.test(s),
      2000,
    );
    expect(screen).not.toMatch(/\bschedule\b/);
    expect(screen).not.toMatch(/\bdur\b/);
    // issue 33 item 7: the command column stays at 80 columns and name keeps its 24 cells
    const titles = screen.split('\n').find((l) => /status\s+name/.test(l))!;
    expect(titles).toMatch(/name\s+last\s+next\s+command/);
    expect(titles.indexOf('last') - titles.indexOf('name')).toBe(25);
    for (const line of screen.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    expect(screen.split('\n')[0]).toContain('cronstable');
  });
});

/** The dashboard under `sh`, which saves `stty -g` before and after it and its exit code. */
class TuiShell {
  readonly pty: TuiPty;
  constructor(
    url: string,
    private readonly dir: string,
    pidFile = false,
  ) {
    const script = [
      `stty -g > ${dir}/stty.before`,
      // A background command reads /dev/null unless told otherwise: give it the terminal back.
      pidFile
        ? `${process.execPath} ${DAEMON} tui --url ${url} --no-boot < /dev/tty & echo $! > ${dir}/tui.pid; wait $!`
        : `${process.execPath} ${DAEMON} tui --url ${url} --no-boot`,
      `echo $? > ${dir}/tui.code`,
      `stty -g > ${dir}/stty.after`,
    ].join('; ');
    this.pty = new TuiPty([], { cwd: dir, env: { HOME: dir }, shell: script });
  }

  result(): { code: string; same: boolean } {
    const read = (f: string) => readFileSync(join(this.dir, f), 'utf8').trim();
    return { code: read('tui.code'), same: read('stty.before') === read('stty.after') };
  }
}

describe('cronstable tui against a daemon with a token', () => {
  let authDir = '';
  let authBase = '';
  let authDaemon: E2eDaemon | null = null;

  beforeAll(async () => {
    authDir = mkdtempSync(join(tmpdir(), 'tui-auth-'));
    const port = await freePort();
    authBase = `http://127.0.0.1:${port}`;
    writeFileSync(
      join(authDir, 'cronstable.yaml'),
      `jobs:\n  - name: guarded-job\n    command: echo guarded\n    schedule: "0 3 * * *"\nweb:\n  listen:\n    - ${authBase}\n  authToken:\n    value: s3cret\n`,
    );
    authDaemon = await startE2eDaemon(authDir, {
      base: authBase,
      ready: async (b) => (await fetch(`${b}/jobs`)).status === 401,
    });
  }, 30_000);

  afterAll(async () => {
    await tearDownE2e(null, authDaemon, authDir);
  });

  it('T22: a 401 opens the token prompt; the typed token (dots only) unlocks the board and is never saved', async () => {
    const t = new TuiPty(['--url', authBase, '--no-boot'], {
      cwd: home,
      env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), CRONSTABLE_WEB_TOKEN: '' },
    });
    ttys.push(t);
    await t.waitFor('access token', 5000);
    t.write('s3cret');
    const typed = await t.waitFor('••••••▌');
    expect(typed).not.toContain('s3cret');
    t.write('\r');
    const screen = await t.waitFor((s) => s.includes('guarded-job') && s.includes('● live'), 5000);
    expect(screen).not.toContain('access token');
    t.write('t'); // a prefs write, to be sure nothing of the token lands in the file
    await t.waitFor('◐ theme:');
    expect(readFileSync(join(home, '.config', 'cronstable', 'tui.json'), 'utf8')).not.toContain('s3cret');
  });

  it('T23: --token-env names the variable holding the token; no prompt', async () => {
    const t = new TuiPty(['--url', authBase, '--no-boot', '--token-env', 'MYTOK'], {
      cwd: home,
      env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), MYTOK: 's3cret' },
    });
    ttys.push(t);
    const screen = await t.waitFor((s) => s.includes('guarded-job') && s.includes('● live'), 5000);
    expect(screen).not.toContain('access token');
  });
});

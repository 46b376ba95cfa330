// `cronstable tui` flags (spec 08 §1.1), the tty check (§1.2), prefs (§4.7) and cell widths (§6.5).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseTuiArgs, TuiArgError } from '../../src/tui/args.ts';
import { runTuiCommand } from '../../src/tui/cli.ts';
import { clipboardTool, osc52 } from '../../src/tui/data/clipboard.ts';
import { DEFAULT_PREFS, loadPrefs, prefsPath, savePrefs } from '../../src/tui/data/prefs.ts';
import { colourDepth, HUES, Theme } from '../../src/tui/text/theme.ts';
import { cellWidth, fit, truncate, wrapCells } from '../../src/tui/text/width.ts';

describe('parseTuiArgs', () => {
  it('defaults', () => {
    expect(parseTuiArgs([], {})).toEqual({
      url: 'http://127.0.0.1:8080',
      token: null,
      theme: null,
      tv: false,
      job: null,
      pollMs: null,
      boot: null,
      ascii: false,
      tls: null,
    });
  });

  it('reads every flag', () => {
    const o = parseTuiArgs(
      [
        '--url',
        'http://h:1/',
        '--token',
        't',
        '--theme',
        'amber-light',
        '--tv',
        '--job',
        'a/b',
        '--poll',
        '0.5',
        '--boot',
        '--ascii',
      ],
      {},
    );
    expect(o).toMatchObject({
      url: 'http://h:1',
      token: 't',
      theme: 'amber-light',
      tv: true,
      job: 'a/b',
      pollMs: 500,
      boot: true,
      ascii: true,
    });
  });

  it('token: --token wins, else the named env var, an empty name means the default', () => {
    expect(parseTuiArgs(['--token-env', 'MYTOK'], { MYTOK: 's3cret' }).token).toBe('s3cret');
    expect(parseTuiArgs(['--token-env', ''], { CRONSTABLE_WEB_TOKEN: 'd' }).token).toBe('d');
    expect(parseTuiArgs(['--token', 'x'], { CRONSTABLE_WEB_TOKEN: 'd' }).token).toBe('x');
    expect(parseTuiArgs([], { CRONSTABLE_WEB_TOKEN: '' }).token).toBeNull();
  });

  it('both --boot and --no-boot: skip', () => {
    expect(parseTuiArgs(['--boot', '--no-boot'], {}).boot).toBe(false);
  });

  it.each([
    [['--theme', 'plaid'], /plaid.*choose from standard, standard-light, carolina, carolina-light, amber/],
    [['--poll', 'nan'], /--poll.*nan/],
    [['--poll', 'inf'], /--poll/],
    [['--poll', 'abc'], /--poll.*abc/],
    [['--poll', '0.1'], /--poll/],
    [['--poll', '-1'], /--poll/],
    [['--poll', '3601'], /--poll/],
    [['--url', 'not-a-url'], /--url.*not-a-url/],
    [['--bogus'], /bogus/],
    [['extra'], /extra/],
  ])('%j is a usage error', (argv, msg) => {
    expect(() => parseTuiArgs(argv as string[], {})).toThrow(TuiArgError);
    expect(() => parseTuiArgs(argv as string[], {})).toThrow(msg as RegExp);
  });

  it('--poll 0 pauses', () => {
    expect(parseTuiArgs(['--poll', '0'], {}).pollMs).toBe(0);
  });
});

describe('runTuiCommand', () => {
  const io = () => {
    const out: string[] = [];
    const err: string[] = [];
    return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err };
  };
  it('no tty: one stderr line, exit 2, nothing on stdout', async () => {
    const c = io();
    expect(await runTuiCommand([], c.io, { stdin: false, stdout: true })).toBe(2);
    expect(c.out).toEqual([]);
    expect(c.err).toHaveLength(1);
    expect(c.err[0]).toMatch(/interactive terminal.*stdin is not a tty/);
  });
  it('argument errors come before the tty check', async () => {
    const c = io();
    expect(await runTuiCommand(['--theme', 'plaid'], c.io, { stdin: false, stdout: false })).toBe(2);
    expect(c.err.join('')).toMatch(/invalid choice 'plaid'/);
    expect(c.err.join('')).not.toMatch(/tty/);
  });
});

describe('prefs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tui-prefs-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  it('path: XDG_CONFIG_HOME, else ~/.config, APPDATA on Windows', () => {
    expect(prefsPath({ XDG_CONFIG_HOME: '/x', HOME: '/h' }, 'linux')).toBe('/x/cronstable/tui.json');
    expect(prefsPath({ HOME: '/h' }, 'linux')).toBe('/h/.config/cronstable/tui.json');
    expect(prefsPath({ APPDATA: 'C:/a' }, 'win32')).toBe(join('C:/a', 'cronstable', 'tui.json'));
  });
  it('the default theme is standard (spec 10 §5.3): first hue, the prefs default, the unknown-name fallback', () => {
    expect(DEFAULT_PREFS.theme).toBe('standard');
    expect(HUES).toEqual(['standard', 'carolina', 'amber', 'green', 'modern']);
    expect(new Theme('plaid', '24').hex('bg')).toBe(new Theme('standard', '24').hex('bg'));
    expect(parseTuiArgs([], {}).theme).toBeNull(); // no --theme: the saved choice, else the default
  });

  it('round-trips sorted; bad values fall back; unknown keys dropped; corrupt file = defaults', () => {
    const p = join(dir, 'sub', 'tui.json');
    expect(savePrefs(p, { ...DEFAULT_PREFS, theme: 'amber' })).toBeNull();
    const text = readFileSync(p, 'utf8');
    expect(text).toContain('"theme": "amber"');
    expect(Object.keys(JSON.parse(text))).toEqual(Object.keys(JSON.parse(text)).sort());
    expect(loadPrefs(p).theme).toBe('amber');
    writeFileSync(p, JSON.stringify({ theme: 'plaid', poll_ms: 7, wrap: 'yes', token: 'x', ascii: true }));
    const loaded = loadPrefs(p);
    expect(loaded).toMatchObject({ theme: 'standard', poll_ms: 3000, wrap: false, ascii: true });
    expect('token' in loaded).toBe(false);
    writeFileSync(p, '{not json');
    expect(loadPrefs(p)).toEqual(DEFAULT_PREFS);
  });
});

describe('colour depth', () => {
  it('NO_COLOR, dumb, truecolor, 256, 16', () => {
    expect(colourDepth({ NO_COLOR: '1', COLORTERM: 'truecolor' })).toBe('none');
    expect(colourDepth({ TERM: 'dumb' })).toBe('none');
    expect(colourDepth({ COLORTERM: 'truecolor', TERM: 'xterm' })).toBe('24');
    expect(colourDepth({ TERM: 'xterm-256color' })).toBe('256');
    expect(colourDepth({ TERM: 'xterm' })).toBe('16');
  });
});

describe('cell widths', () => {
  it('CJK counts 2, combining marks 0, SGR 0', () => {
    expect(cellWidth('日本語')).toBe(6);
    expect(cellWidth('e\u0301')).toBe(1);
    expect(cellWidth('\u001b[1mab\u001b[0m')).toBe(2);
  });
  it('truncation never splits a wide character and keeps edges aligned', () => {
    expect(truncate('日本語', 4)).toBe('日 …');
    expect(cellWidth(fit('tab here 日本語 wide', 13))).toBe(13);
    expect(cellWidth(fit('日本語', 5))).toBe(5);
  });
  it('wrapping is cell based and carries colour to the next row', () => {
    const rows = wrapCells('\u001b[31mabcdef', 4);
    expect(rows).toEqual(['\u001b[31mabcd', '\u001b[31mef']);
    expect(wrapCells('日本語日本', 4).map(cellWidth)).toEqual([4, 4, 2]);
  });
});

describe('clipboard', () => {
  it('OSC 52 carries the text base64-encoded, UTF-8', () => {
    expect(osc52('echo 日本')).toBe(`\u001b]52;c;${Buffer.from('echo 日本').toString('base64')}\u0007`);
  });
  it('picks the local tool by platform and session, none over a bare SSH session', () => {
    expect(clipboardTool({}, 'darwin')).toEqual(['pbcopy', []]);
    expect(clipboardTool({}, 'win32')).toEqual(['clip.exe', []]);
    expect(clipboardTool({ WAYLAND_DISPLAY: 'wayland-0', DISPLAY: ':0' }, 'linux')).toEqual(['wl-copy', []]);
    expect(clipboardTool({ DISPLAY: ':0' }, 'linux')).toEqual(['xclip', ['-selection', 'clipboard']]);
    expect(clipboardTool({}, 'linux')).toBeNull();
  });
});

// The surfaces over the board (spec 08 §4.4-§4.8, §4.13): the job drawer and its tabs, the palette, help,
// the token modal and the wallboard, with their keys. ink-testing-library around a real Controller and a
// loopback fixture daemon.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FixtureDaemon, type Harness, KEY, mountTui } from '../helpers/tui-fixture.ts';

const daemon = new FixtureDaemon();
const home = mkdtempSync(join(tmpdir(), 'tui-home-'));
beforeAll(async () => {
  daemon.logs['nightly-backup'] =
    'backing up /var/lib/app ...\nE:rsync: write failed: No space left on device';
  daemon.logs['colour-probe'] = [
    '\u001b[1;33mWARN\u001b[0m slow disk',
    '\u001b]0;pwned-title\u0007title attempt',
    '\u001b]52;c;aGVsbG8=\u0007clipboard attempt',
    '\u001b[2J\u001b[Hclear attempt',
    '55%\r100% progress',
    'tab\there 日本語 wide',
  ].join('\n');
  daemon.logs.heartbeat = 'beat 1\nbeat 2\nneedle one\nbeat 3\nneedle two\nbeat 4';
  await daemon.start();
});
afterAll(async () => {
  await daemon.stop();
  rmSync(home, { recursive: true, force: true });
});

let h: Harness;
afterEach(() => h?.close());

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('job drawer', () => {
  it('Enter opens the Logs tab with both streams and the end marker (T9); Esc closes it (T12)', async () => {
    h = mountTui(daemon, { cols: 100 });
    await h.press('j', 'j', 'j', 'j', KEY.enter);
    await h.shows('── end of run output ──');
    const t = h.text();
    expect(t).toContain('✕ nightly-backup');
    expect(t).toContain('logs  history  resources  schedule');
    expect(t).toContain('backing up /var/lib/app ...');
    expect(t).toContain('rsync: write failed: No space left on device');
    expect(t).toContain('── end of run output ──');
    expect(daemon.requests.some((r) => r.url === '/jobs/nightly-backup/logs')).toBe(true);
    // the stderr line's bar is in the fail colour (carolina ff5d5d = 255;93;93)
    const frame = h.frame();
    const errLine = frame.split('\n').find((l) => l.includes('rsync: write failed'))!;
    expect(errLine).toMatch(/38;2;255;93;93;[0-9;]*m ▏/);
    await h.press(KEY.esc);
    expect(h.text()).not.toContain('logs  history');
    expect(h.ctl.tail).toBeNull();
  });

  it('hostile output shows its text and none of its sequences (T10, T11)', async () => {
    h = mountTui(daemon);
    await h.press(KEY.enter); // colour-probe is first
    await h.shows('── end of run output ──');
    const t = h.text();
    for (const s of [
      'WARN slow disk',
      'title attempt',
      'clipboard attempt',
      'clear attempt',
      '100% progress',
      'tab    here 日本語 wide',
    ])
      expect(t).toContain(s);
    expect(t).not.toContain('55%');
    const frame = h.frame();
    expect(frame).not.toMatch(/\u001b[\]P_^Xc78]/);
    expect(frame).not.toContain('pwned-title');
    expect(frame).not.toContain('aGVsbG8=');
    expect(frame).not.toContain('\u001b[2J');
    // WARN is bold in the pending colour (carolina c9a94a), never a raw CSI 33m
    expect(frame).toMatch(/\u001b\[0;1;38;2;201;169;74;[0-9;]*mWARN/);
    expect(frame).not.toContain('\u001b[1;33m');
    // the divider keeps its column on the CJK line
    const lines = t.split('\n');
    const cjk = lines.find((l) => l.includes('日本語'))!;
    const plain = lines.find((l) => l.includes('clear attempt'))!;
    expect(cjk.indexOf('│')).toBe(plain.indexOf('│'));
  });

  it('tabs switch with ←/→/Tab; History and Schedule show their data', async () => {
    h = mountTui(daemon);
    await h.press('j', KEY.enter, KEY.right);
    await h.shows(/1 runs\s+1 ok/);
    await h.press(KEY.right, KEY.right);
    await h.shows('next runs:');
    expect(h.text()).toContain('* * * * * * *');
    expect(h.text()).toContain('next runs:');
    await h.press(KEY.tab);
    expect(h.text()).toMatch(/⌕ \/ to search/);
  });

  it('search with / highlights, Enter jumps, n/N cycle; t/w toggle and d saves (T27)', async () => {
    h = mountTui(daemon, {}, home);
    await h.press('j', KEY.enter);
    await h.shows('── end of run output ──');
    await h.press('/', 'n', 'e', 'e', 'd', 'l', 'e');
    expect(h.text()).toContain('2 matches');
    await h.press(KEY.enter);
    const d = () => h.store.get().stack.at(-1) as unknown as { match: number; searchFocused: boolean };
    const first = d().match;
    expect(d().searchFocused).toBe(false);
    await h.press('n');
    expect(d().match).toBeGreaterThan(first);
    await h.press('n');
    expect(d().match).toBe(first);
    await h.press('N');
    expect(d().match).toBeGreaterThan(first);
    await h.press('t');
    expect(h.store.get().prefs.timestamps).toBe(true);
    expect(h.text()).toMatch(/▏\d\d:\d\d:\d\d beat 1/);
    await h.press('w');
    expect(h.store.get().prefs.wrap).toBe(true);
    await h.press('d');
    expect(h.text()).toContain('saved ');
    const file = readdirSync(home).find((f) => /^cronstable-heartbeat-\d{8}-\d{6}\.log$/.test(f));
    expect(file).toBeDefined();
    const body = readFileSync(join(home, file!), 'utf8');
    expect(body).toContain('[stdout] beat 1');
    expect(body).toContain('[meta] end of run output');
  });

  it('a scrolled-back log holds still as lines arrive and says how many are new (Q10)', async () => {
    h = mountTui(daemon);
    await h.press('j', KEY.enter);
    await h.shows('── end of run output ──');
    // longer than the pane, so there is somewhere to scroll back to (issue 33: never past the oldest page)
    for (let i = 1; i <= 30; i++) h.ctl.tail!.push('stdout', `filler ${i}`);
    h.ctl.repaint();
    await h.shows('filler 30');
    await h.press('k', 'k');
    const bottom = () =>
      h
        .text()
        .split('\n')
        .filter((l) => l.includes('▏'))
        .at(-1);
    const before = bottom();
    expect(before).toContain('filler 28');
    h.ctl.tail!.push('stdout', 'fresh one');
    h.ctl.tail!.push('stdout', 'fresh two');
    h.ctl.repaint();
    await h.shows('↓ 2 new');
    expect(bottom()).toBe(before);
    await h.press(KEY.end);
    expect(h.text()).not.toContain('new');
    expect(bottom()).toContain('fresh two');
  });

  it('--job opens the drawer after the first load; an unknown name toasts and stays on the board (Q15)', async () => {
    h = mountTui(daemon);
    h.ctl.start('no-such');
    await h.shows('no such job: no-such');
    expect(h.text()).not.toContain('logs  history');
    h.close();
    h = mountTui(daemon);
    h.ctl.start('report-daily');
    await h.shows('● report-daily', 'logs  history  resources  schedule');
  });
});

describe('palette', () => {
  it('Ctrl-K, "run": Run all failing jobs first, only runnable jobs listed (T14)', async () => {
    h = mountTui(daemon);
    await h.press(KEY.ctrlK, 'r', 'u', 'n');
    const t = h.text();
    expect(t).toContain('command palette');
    const lines = t.split('\n').filter((l) => l.includes('│'));
    const first = lines.findIndex((l) => l.includes('▎'));
    expect(lines[first]).toContain('Run all failing jobs');
    expect(t).toContain('Run: report-daily');
    expect(t).not.toContain('Run: long-sleep');
    expect(t).not.toContain('Run: legacy-sync');
    await h.press(KEY.esc);
    expect(h.text()).not.toContain('command palette');
  });

  it('"run: rep" + Enter starts report-daily (T15); printable keys type, q included', async () => {
    h = mountTui(daemon);
    daemon.requests.length = 0;
    await h.press(KEY.ctrlK, ...'run: rep', KEY.enter);
    await h.shows('▶ started report-daily');
    expect(daemon.requests.filter((r) => r.method === 'POST').map((r) => r.url)).toEqual([
      '/jobs/report-daily/start',
    ]);
    expect(h.text()).toContain('▶ started report-daily');
    await h.press(KEY.ctrlK, 'q', 'j');
    expect(h.text()).toContain('⌕ qj▌');
  });
});

describe('incident timeline', () => {
  it('i lists latest runs newest first with the blast radius; f failing only; Enter opens the drawer', async () => {
    h = mountTui(daemon, { rows: 40 });
    await h.press('i');
    let t = h.text();
    expect(t).toContain('incident timeline');
    const rows = t.split('\n').filter((l) => /ago\s+[◌▶✕⊘◍●◔] /.test(l));
    expect(rows.map((l) => /[◌▶✕⊘◍●◔] (\S+)/.exec(l)![1])).toEqual([
      'heartbeat',
      'colour-probe',
      'nightly-backup',
      'report-daily',
    ]);
    expect(rows[2]).toMatch(/exit 69.*◉ blast radius/);
    expect(t).toContain('(i timeline)');
    await h.press('f');
    t = h.text();
    expect(t).toContain('incident timeline — failing only');
    expect(t.split('\n').filter((l) => /ago\s+[◌▶✕⊘◍●◔] /.test(l))).toHaveLength(1);
    await h.press(KEY.enter);
    await h.shows('✕ nightly-backup  Failed');
    expect(h.text()).not.toContain('incident timeline');
  });
});

describe('settings', () => {
  it('palette "Open settings": rows change at once, ← steps back, the interval and ASCII apply now', async () => {
    h = mountTui(daemon, { rows: 40 });
    await h.press(KEY.ctrlK, ...'settings', KEY.enter);
    let t = h.text();
    expect(t).toContain('settings');
    expect(t).toMatch(/▎ Theme\s+carolina/);
    await h.press(KEY.enter);
    expect(h.store.get().prefs.theme).toBe('amber');
    await h.press(KEY.left, KEY.left);
    expect(h.store.get().prefs.theme).toBe('standard');
    await h.press('j', 'j', 'j', KEY.right);
    expect(h.store.get().prefs.poll_ms).toBe(5000);
    expect(h.store.get().pollMs).toBe(5000);
    await h.press('k', 'k', 'k', 'k', ' ');
    expect(h.store.get().prefs.ascii).toBe(true);
    expect(h.store.get().ascii).toBe(true);
    t = h.text();
    expect(t).toMatch(/ASCII glyphs\s+on/);
    expect(t).toContain('prefs file:');
    await h.press(KEY.esc);
    expect(h.text()).toMatch(/x Failed\s+nightly-backup/);
  });
});

describe('drawer data follows the daemon', () => {
  it('History is fetched again after each poll while it is on screen (Q18)', async () => {
    h = mountTui(daemon);
    await h.press('j', KEY.enter, KEY.right);
    await h.shows(/1 runs\s+1 ok/);
    const count = () => daemon.requests.filter((r) => r.url === '/jobs/heartbeat/runs').length;
    const before = count();
    await h.ctl.poll();
    await expect.poll(count).toBe(before + 1);
    await h.press(KEY.left);
    await h.ctl.poll();
    await wait(100);
    expect(count()).toBe(before + 1);
  });
});

describe('help', () => {
  it('? opens the shortcuts with the shared rows and the terminal extras; ? and Esc close (T13)', async () => {
    h = mountTui(daemon, { rows: 40 });
    await h.press('?');
    const t = h.text();
    expect(t).toContain('keyboard shortcuts');
    expect(t).toContain('Command palette');
    expect(t).toContain('terminal extras');
    await h.press('?');
    expect(h.text()).not.toContain('keyboard shortcuts');
    await h.press('?', KEY.esc);
    expect(h.text()).not.toContain('keyboard shortcuts');
  });
});

describe('token modal', () => {
  it('opens on a 401; dots per character; Enter retries with the token (T22)', async () => {
    daemon.token = 's3cret';
    try {
      h = mountTui(daemon);
      await h.ctl.poll();
      await h.shows('access token', '◌ unauthorized');
      await h.press(...'s3cret');
      expect(h.text()).toContain('••••••▌');
      expect(h.text()).not.toContain('s3cret');
      await h.press(KEY.enter);
      await h.shows('⚿ token set');
      expect(h.text()).not.toContain('access token');
      expect(daemon.requests.at(-1)?.auth).toBe('Bearer s3cret');
    } finally {
      daemon.token = null;
    }
  });
});

describe('wallboard', () => {
  it('w: failing tile first, alarm in the foot, a acks, q inert, Esc back (T20)', async () => {
    h = mountTui(daemon);
    await h.press('w');
    let t = h.text();
    const firstTile = t.split('\n').find((l) => /[◌▶✕⊘◍●◔] \S/.test(l))!;
    expect(firstTile.trim().startsWith('✕ nightly-backup')).toBe(true);
    expect(t).toContain('ALARM (a to ack)');
    await h.press('a');
    t = h.text();
    expect(t).not.toContain('ALARM (a to ack)');
    expect(h.store.get().data.alarmAcked).toBe(true);
    let quit = false;
    (h.ctl.deps as { quit: (c: number) => void }).quit = () => {
      quit = true;
    };
    await h.press('q', KEY.ctrlK);
    expect(quit).toBe(false);
    expect(h.text()).not.toContain('command palette');
    await h.press(KEY.esc);
    expect(h.text()).toContain('status');
    expect(h.store.get().wallboard).toBe(false);
  });

  it('NO SIGNAL once the data is stale, tiles dimmed (T21)', async () => {
    h = mountTui(daemon, { wallboard: true });
    h.store.set((s) => ({ mono: s.mono + 16_000 }));
    await h.settle();
    expect(h.text()).toContain('NO SIGNAL — data is stale');
  });
});

// Settings and preferences (spec 08 §4.7): each row steps its value and the prefs file is written at once,
// sorted 2-space JSON, with the 13 keys and never the token; the poll interval and ASCII take effect at once.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PREFS, loadPrefs, prefsPath } from '../../src/tui/data/prefs.ts';
import { FixtureDaemon, type Harness, KEY, mountTui } from '../helpers/tui-fixture.ts';

const daemon = new FixtureDaemon();
const dir = mkdtempSync(join(tmpdir(), 'tui-settings-'));
beforeAll(() => daemon.start());
afterAll(async () => {
  await daemon.stop();
  rmSync(dir, { recursive: true, force: true });
});

let h: Harness;
afterEach(() => h?.close());

function withPrefsFile(t: Harness, path: string): void {
  (t.ctl.deps as { prefsPath: string | null }).prefsPath = path;
}

describe('settings panel', () => {
  it('lists every preference and the prefs file; Enter/Space/arrows step and save at once', async () => {
    const path = join(dir, 'a', 'cronstable', 'tui.json');
    h = mountTui(daemon, { cols: 100, rows: 30 });
    withPrefsFile(h, path);
    h.ctl.deps.client.token = 's3cret';
    await h.press(KEY.ctrlK, ...'open settings', KEY.enter);
    const t = h.text();
    for (const label of [
      'Theme',
      'Light / dark',
      'Color vision',
      'Refresh interval',
      'Wrap log lines',
      'Log timestamps',
      'Compact density',
      'Audible cues (bell)',
      'Zen screensaver',
      'Zen idle',
      'Boot self-test',
      'ASCII glyphs',
    ])
      expect(t).toContain(label);
    expect(t).toContain(`prefs file: ${path.slice(0, 20)}`);
    await h.press(KEY.enter); // theme carolina -> amber
    expect(JSON.parse(readFileSync(path, 'utf8')).theme).toBe('amber');
    await h.press('j', 'j', 'j', ' '); // refresh interval 3 s -> 5 s
    expect(h.store.get().pollMs).toBe(5000);
    expect(h.text()).toMatch(/Refresh interval\s+5 s/);
    await h.press('j', 'j', 'j', 'j', 'j', 'j', 'j', 'j', KEY.right); // ASCII glyphs on
    expect(h.store.get().ascii).toBe(true);
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain('s3cret');
    const saved = JSON.parse(text);
    expect(Object.keys(saved)).toEqual(Object.keys(DEFAULT_PREFS).sort());
    expect(saved).toMatchObject({ theme: 'amber', poll_ms: 5000, ascii: true });
    expect(text).toBe(`${JSON.stringify(saved, null, 2)}\n`);
    expect(loadPrefs(path)).toMatchObject({ theme: 'amber', poll_ms: 5000, ascii: true });
  });

  it('the refresh interval cycles 1 2 3 5 10 s, paused, and an unlisted value jumps to 1 s', async () => {
    const path = join(dir, 'b.json');
    h = mountTui(daemon, { cols: 100, rows: 30 });
    withPrefsFile(h, path);
    h.ctl.setPrefs({ poll_ms: 7000 });
    await h.press(KEY.ctrlK, ...'open settings', KEY.enter, 'j', 'j', 'j');
    const seen: number[] = [];
    for (let i = 0; i < 6; i++) {
      await h.press(KEY.enter);
      seen.push(h.store.get().prefs.poll_ms);
    }
    expect(seen).toEqual([1000, 2000, 3000, 5000, 10_000, 0]);
    expect(h.text()).toMatch(/Refresh interval\s+paused/);
  });

  it('← steps a row back ([better]: the reference steps forward on both arrows)', async () => {
    h = mountTui(daemon, { cols: 100, rows: 30 });
    await h.press(KEY.ctrlK, ...'open settings', KEY.enter, KEY.left);
    expect(h.store.get().prefs.theme).toBe('standard');
    await h.press(KEY.right, KEY.right);
    expect(h.store.get().prefs.theme).toBe('amber');
  });

  it('the palette toggles the boot self-test with a toast', async () => {
    h = mountTui(daemon, { cols: 100, rows: 30 });
    await h.press(KEY.ctrlK, ...'toggle boot', KEY.enter);
    expect(h.store.get().prefs.boot).toBe(false);
    expect(h.text()).toContain('▮ boot self-test: off');
  });
});

describe('prefs file', () => {
  it('lives under $XDG_CONFIG_HOME, else ~/.config', () => {
    expect(prefsPath({ XDG_CONFIG_HOME: '/x', HOME: '/h' }, 'linux')).toBe('/x/cronstable/tui.json');
    expect(prefsPath({ HOME: '/h' }, 'linux')).toBe('/h/.config/cronstable/tui.json');
  });

  it('drops unknown keys (a stray token included) and bad values on load', () => {
    const path = join(dir, 'c.json');
    writeFileSync(path, JSON.stringify({ theme: 'plaid', token: 'x', poll_ms: 'fast', wrap: true }));
    const p = loadPrefs(path);
    expect(p).toEqual({ ...DEFAULT_PREFS, wrap: true });
    expect('token' in p).toBe(false);
  });
});

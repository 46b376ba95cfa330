// The board, its chrome and keys (spec 08 §4.2, §4.3, §5), rendered by ink-testing-library around a real
// Controller and a loopback fixture daemon.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FixtureDaemon, type Harness, KEY, mountTui } from '../helpers/tui-fixture.ts';

const daemon = new FixtureDaemon();
beforeAll(() => daemon.start());
afterAll(() => daemon.stop());

let h: Harness;
afterEach(() => h?.close());

/** Board rows (the lines after the column titles) in order, by job name. */
function names(text: string): string[] {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => /^\s*status\s+name/.test(l));
  return lines
    .slice(at + 1)
    .map((l) => /^.[◌▶✕⊘◍●◔] \S+\s+(\S+)/.exec(l)?.[1])
    .filter((n): n is string => n !== undefined);
}

describe('board', () => {
  it('lists the jobs with status, verdict, counts and the live chip (T6)', async () => {
    h = mountTui(daemon);
    await h.settle();
    const t = h.text();
    for (const n of [
      'heartbeat',
      'nightly-backup',
      'long-sleep',
      'report-daily',
      'colour-probe',
      'legacy-sync',
    ])
      expect(t).toContain(n);
    expect(t).toContain('● live');
    expect(t).toContain('6 jobs');
    expect(t).toMatch(/✕ Failed\s+nightly-backup/);
    expect(t).toMatch(/JOB FAILING — nightly-backup — exit 69/);
    expect(t).toMatch(/▶ Running\s+long-sleep/);
    expect(t).toMatch(/◌ Disabled\s+legacy-sync/);
    expect(names(t)).toEqual([
      'colour-probe',
      'heartbeat',
      'legacy-sync',
      'long-sleep',
      'nightly-backup',
      'report-daily',
    ]);
  });

  it('j moves the selection and wraps around (T8)', async () => {
    h = mountTui(daemon);
    await h.settle();
    expect(h.text()).toMatch(/▎● OK\s+colour-probe/);
    await h.press('j');
    expect(h.text()).toMatch(/▎● OK\s+heartbeat/);
    await h.press('j', 'j', 'j', 'j', 'j');
    expect(h.text()).toMatch(/▎● OK\s+colour-probe/);
    await h.press('k');
    expect(h.text()).toMatch(/▎● OK\s+report-daily/);
    await h.press(KEY.up, KEY.down);
    expect(h.text()).toMatch(/▎● OK\s+report-daily/);
  });

  it('/ filters, Enter blurs and keeps the text, then j moves instead of typing (T17)', async () => {
    h = mountTui(daemon);
    await h.press('/', 'b', 'e', 'a', 't');
    expect(h.text()).toContain('/beat▌');
    expect(names(h.text())).toEqual(['heartbeat']);
    await h.press(KEY.enter);
    expect(h.text()).toContain('/beat ');
    expect(h.text()).not.toContain('/beat▌');
    await h.press('j');
    expect(h.text()).toContain('/beat ');
    expect(names(h.text())).toEqual(['heartbeat']);
    await h.press('/', KEY.ctrlU, KEY.tab);
    expect(names(h.text())).toHaveLength(6);
  });

  it('f cycles the segments (T18)', async () => {
    h = mountTui(daemon);
    await h.press('f', 'f');
    expect(names(h.text())).toEqual(['nightly-backup']);
    await h.press('f');
    expect(names(h.text())).toEqual(['long-sleep']);
    await h.press('f');
    expect(names(h.text())).toEqual(['legacy-sync']);
    await h.press('f');
    expect(names(h.text())).toHaveLength(6);
  });

  it('s cycles the sort key with a toast; status puts running, then failed first, disabled last (T19)', async () => {
    h = mountTui(daemon);
    await h.press('s');
    const t = h.text();
    expect(t).toContain('sort: status');
    expect(t).toContain('sort:status↑');
    const order = names(t);
    expect(order[0]).toBe('long-sleep');
    expect(order[1]).toBe('nightly-backup');
    expect(order.at(-1)).toBe('legacy-sync');
    await h.press('S');
    expect(h.text()).toContain('sort:status↓');
    expect(names(h.text())[0]).toBe('legacy-sync');
  });

  it('r on a running job and x on an idle one send nothing; r on an idle job starts it (T16, T15)', async () => {
    h = mountTui(daemon);
    daemon.requests.length = 0;
    await h.press('j', 'j', 'j', 'r'); // long-sleep (running)
    await h.press('j', 'j', 'x'); // report-daily (idle)
    await h.settle(100);
    expect(daemon.requests.filter((r) => r.method === 'POST')).toEqual([]);
    await h.press('r');
    await h.settle(150);
    expect(daemon.requests.filter((r) => r.method === 'POST').map((r) => r.url)).toEqual([
      '/jobs/report-daily/start',
    ]);
    expect(h.text()).toContain('▶ started report-daily');
  });

  it('c copies the command through OSC 52 (T25)', async () => {
    h = mountTui(daemon);
    await h.press('j', 'c');
    const osc = h.raw.find((r) => r.startsWith('\u001b]52;c;'));
    expect(osc).toBeDefined();
    const b64 = /\u001b\]52;c;([^\u0007]*)\u0007/.exec(osc!)![1]!;
    expect(Buffer.from(b64, 'base64').toString()).toBe('echo "beat $(date -u)"');
    expect(h.text()).toContain('❏ command sent to clipboard');
  });

  it('t cycles the theme hue and T flips light/dark (T26)', async () => {
    h = mountTui(daemon);
    await h.press('t');
    expect(h.text()).toContain('◐ theme: amber');
    expect(h.store.get().prefs.theme).toBe('amber');
    await h.press('T');
    expect(h.store.get().prefs.light).toBe(true);
    expect(h.text()).toContain('◑ paper');
  });

  it('q quits from the bare board, Ctrl-C quits from anywhere', async () => {
    h = mountTui(daemon);
    let code: number | null = null;
    (h.ctl.deps as { quit: (c: number) => void }).quit = (c) => {
      code = c;
    };
    await h.press('?', 'q');
    expect(code).toBeNull();
    await h.press(KEY.ctrlC);
    expect(code).toBe(0);
  });

  it('empty states: waiting for the daemon, no match', async () => {
    h = mountTui(daemon);
    await h.press('/', 'z', 'z', 'z');
    expect(h.text()).toContain('no jobs match the filter');
    expect(h.text()).toContain('0 jobs');
  });

  it('a hostile job name reaches the screen flattened, without escapes', async () => {
    const saved = daemon.jobs;
    daemon.jobs = [...saved, { ...saved[0]!, name: 'evil\u001b]0;owned\u0007\u001b[2Jname\nx' }];
    try {
      h = mountTui(daemon);
      await h.settle();
      const frame = h.frame();
      expect(frame).not.toMatch(/\u001b\]|\u001b\[2J/);
      expect(h.text()).toContain('evilname x');
    } finally {
      daemon.jobs = saved;
    }
  });

  it('below 40x10 only a notice shows, and q still quits; under 80 columns the drawer takes the width', async () => {
    h = mountTui(daemon, { cols: 39, rows: 12 });
    await h.settle();
    expect(h.text()).toContain('terminal too small (39×12, need 40×10)');
    let code: number | null = null;
    (h.ctl.deps as { quit: (c: number) => void }).quit = (c) => {
      code = c;
    };
    await h.press('q');
    expect(code).toBe(0);
    h.close();
    h = mountTui(daemon, { cols: 70, rows: 20 });
    await h.press(KEY.enter);
    const rows = h.text().split('\n');
    expect(rows[0]!.startsWith('│ ● colour-probe')).toBe(true);
    expect(rows.every((r) => r.length <= 70)).toBe(true);
  });
});

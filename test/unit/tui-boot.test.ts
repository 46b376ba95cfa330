// The boot self-test (spec 08 §4.14): when it is due, what it reports against a daemon (a failing job, a
// locked one, none at all), that a key skips it, and that `boot_last` is saved either way.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PREFS } from '../../src/tui/data/prefs.ts';
import { bootDue, runBoot } from '../../src/tui/views/boot/boot.ts';
import { FIXTURE_NOW, FixtureDaemon, type Harness, mountTui } from '../helpers/tui-fixture.ts';

const daemon = new FixtureDaemon();
beforeAll(() => daemon.start());
afterAll(() => daemon.stop());

let h: Harness;
afterEach(() => {
  daemon.token = null;
  h?.close();
});

/** Runs the test to the end, returning every text line it typed. */
async function report(t: Harness): Promise<string[]> {
  let lines: string[] = [];
  const off = t.store.subscribe(() => {
    const b = t.store.get().boot;
    if (b) lines = b.lines.map((l) => l.text);
  });
  await runBoot(t.ctl, daemon.base);
  off();
  return lines;
}

describe('boot self-test', () => {
  it('is due by flag, else by the pref at most every 12 hours', () => {
    const now = FIXTURE_NOW;
    expect(bootDue(true, { ...DEFAULT_PREFS, boot: false }, now)).toBe(true);
    expect(bootDue(false, DEFAULT_PREFS, now)).toBe(false);
    expect(bootDue(null, { ...DEFAULT_PREFS, boot_last: now / 1000 - 3600 }, now)).toBe(false);
    expect(bootDue(null, { ...DEFAULT_PREFS, boot_last: now / 1000 - 13 * 3600 }, now)).toBe(true);
    expect(bootDue(null, { ...DEFAULT_PREFS, boot: false }, now)).toBe(false);
  });

  it('reports the link, firmware, job set, schedules, cluster and the failing verdict', async () => {
    h = mountTui(daemon, { cols: 100, rows: 30 });
    const lines = await report(h);
    expect(lines[0]).toBe(' CRONSTABLE TUI — POWER-ON SELF-TEST');
    expect(lines[1]).toMatch(new RegExp(`^ link \\.+ OK ${daemon.base} \\(\\d+ms\\)$`));
    expect(lines[2]).toBe(' firmware .... 1.2.3');
    expect(lines[3]).toBe(' job set ..... 6 job(s) · v1:ec249bf01');
    expect(lines[4]).toMatch(/^ schedules \.\.\. next fire in /);
    expect(lines[5]).toBe(' cluster ..... standalone');
    expect(lines[6]).toBe(' 1 JOB(S) FAILING — the board wants you');
    expect(h.store.get().boot).toBeNull();
    expect(h.store.get().prefs.boot_last).toBe(Math.floor(FIXTURE_NOW / 1000));
  });

  it('Q14: a daemon that wants a token is LOCKED, not passed', async () => {
    daemon.token = 'tok';
    h = mountTui(daemon, { cols: 100, rows: 30 });
    const lines = await report(h);
    expect(lines).toContain(' firmware .... locked (token needed)');
    expect(lines[lines.length - 1]).toBe(' LOCKED — token needed');
  });

  it('an unreachable daemon is DEGRADED', async () => {
    h = mountTui(daemon, { cols: 100, rows: 30 });
    (h.ctl.deps.client as { base: string }).base = 'http://127.0.0.1:9';
    const lines = await report(h);
    expect(lines[1]).toBe(` link ........ FAIL ${daemon.base} unreachable`);
    expect(lines[lines.length - 1]).toBe(' DEGRADED — daemon unreachable');
  });

  it('the screen shows the typed lines; a key skips and is consumed; boot_last is saved', async () => {
    h = mountTui(daemon, { cols: 100, rows: 30 });
    h.ctl.setPrefs({ boot_last: 0 });
    const done = runBoot(h.ctl, daemon.base);
    for (let i = 0; i < 40 && !h.text().includes('POWER-ON'); i++) await h.settle(25);
    expect(h.text()).toContain('CRONSTABLE TUI — POWER-ON');
    expect(h.text()).not.toContain('nightly-backup');
    await h.press('q');
    await done;
    expect(h.store.get().boot).toBeNull();
    expect(h.store.get().prefs.boot_last).toBe(Math.floor(FIXTURE_NOW / 1000));
    expect(h.text()).toContain('nightly-backup'); // back on the board, `q` did not quit
  });
});

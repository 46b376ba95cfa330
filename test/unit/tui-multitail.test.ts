// The multi-tail console (spec 08 §4.10): adding by exact or fuzzy name, merged lines behind labels, the
// four-pane limit, removing, wrap (Q17) and closing every stream with Esc.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { matchJob, paneJobs } from '../../src/tui/views/multitail/multitail.ts';
import { FixtureDaemon, type Harness, KEY, mountTui } from '../helpers/tui-fixture.ts';

const daemon = new FixtureDaemon();
beforeAll(async () => {
  daemon.logs['nightly-backup'] =
    'backing up /var/lib/app ...\nE:rsync: write failed: No space left on device';
  daemon.logs.heartbeat = `beat 1\n${'x'.repeat(150)}END`;
  await daemon.start();
});
afterAll(() => daemon.stop());

let h: Harness;
afterEach(() => h?.close());

describe('multi-tail', () => {
  it('`m` opens it empty; `a` adds by fuzzy name; lines show behind the job label', async () => {
    h = mountTui(daemon, { cols: 100, rows: 30 });
    await h.press('m');
    expect(h.text()).toContain('multi-tail (0/4)');
    expect(h.text()).toContain('empty — a to add a job');
    await h.press('a', ...'nightly', KEY.enter);
    await h.shows(/nightly-backup\s*▏rsync: write failed/);
    const t = h.text();
    expect(t).toContain('multi-tail (1/4)');
    expect(t).toMatch(/nightly-backup\s*▏backing up \/var\/lib\/app \.\.\./);
    expect(t).toMatch(/nightly-backup\s*▏rsync: write failed/);
    expect(paneJobs(h.ctl)).toEqual(['nightly-backup']);
  });

  it('unknown names, duplicates and a fifth pane are refused with a toast', async () => {
    h = mountTui(daemon, { cols: 100, rows: 30 });
    await h.press('m', 'a', ...'zzzz', KEY.enter);
    expect(h.text()).toContain("no job matches 'zzzz'");
    for (const n of ['heartbeat', 'heartbeat', 'report-daily', 'colour-probe', 'long-sleep', 'legacy-sync'])
      await h.press('a', ...n, KEY.enter);
    expect(paneJobs(h.ctl)).toEqual(['heartbeat', 'report-daily', 'colour-probe', 'long-sleep']);
    expect(h.text()).toContain('multi-tail is full (4)');
    await h.press('x');
    expect(paneJobs(h.ctl)).toEqual(['report-daily', 'colour-probe', 'long-sleep']);
  });

  it('`w` wraps long lines (Q17) and `t` adds times; Esc closes the console and its streams', async () => {
    h = mountTui(daemon, { cols: 100, rows: 30 });
    await h.press('m', 'a', ...'heartbeat', KEY.enter);
    await h.shows(/heartbeat\s*▏x{20}/);
    expect(h.text()).not.toContain('END');
    await h.press('w');
    expect(h.text()).toContain('END');
    await h.press('t');
    expect(h.text()).toMatch(/heartbeat\s*▏\d\d:\d\d:\d\d beat 1/);
    await h.press(KEY.esc);
    expect(h.text()).not.toContain('multi-tail');
    expect(paneJobs(h.ctl)).toEqual([]);
  });

  it('the palette presets tail the failing jobs', async () => {
    h = mountTui(daemon, { cols: 100, rows: 30 });
    await h.press(KEY.ctrlK, ...'multi-tail: failing', KEY.enter);
    expect(paneJobs(h.ctl)).toEqual(['nightly-backup']);
  });
});

describe('matchJob', () => {
  it('prefers the exact name, then the best fuzzy match', () => {
    const names = ['heartbeat', 'nightly-backup', 'beat'];
    expect(matchJob(names, 'beat')).toBe('beat');
    expect(matchJob(names, 'nb')).toBe('nightly-backup');
    expect(matchJob(names, 'qqq')).toBeNull();
  });
});

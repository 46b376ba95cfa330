// The command palette's entry order (spec 08 §4.5): the global entries in the order the spec lists them, then
// per DAG `DAG: d` and `Trigger DAG: d`, then per job Logs, Run / Cancel, Copy command, Schedule, Tail — and the
// order the palette paints with an empty query is that list.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { paletteEntries } from '../../src/tui/views/palette/palette.ts';
import { VIEWS } from '../../src/tui/views/registry.ts';
import { dagAndStateRoutes } from '../helpers/tui-extra-routes.ts';
import { FixtureDaemon, type Harness, KEY, mountTui } from '../helpers/tui-fixture.ts';

const SPEC_GLOBALS = [
  'Refresh now',
  'Run all failing jobs',
  'Cycle theme',
  'Toggle light / dark',
  'Cycle color vision mode',
  'Toggle compact density',
  'Toggle audible cues',
  'Toggle next-fire radar',
  'Toggle activity heatmap',
  'Toggle schedule pressure',
  'Toggle week calendar',
  'Toggle fleet view',
  'Toggle cluster panel',
  'Toggle node resources',
  'Multi-tail console',
  'Multi-tail: failing jobs',
  'Multi-tail: running jobs',
  'Wallboard / TV mode',
  'Incident timeline',
  'Mitigate failing jobs',
  'Cron sandbox',
  'Toggle boot self-test',
  'Copy version',
  'Copy job set id',
  'Open settings',
  'Keyboard shortcuts',
  'Set access token',
  'Toggle DAGs panel',
  'Toggle state inspector',
  'Focus filter',
];

const daemon = new FixtureDaemon();
beforeAll(async () => {
  daemon.extra = dagAndStateRoutes([]);
  await daemon.start();
});
afterAll(() => daemon.stop());
let h: Harness;
afterEach(() => h?.close());

describe('palette order', () => {
  it('lists the global entries in the spec order, then each DAG, then each job in the spec order', async () => {
    h = mountTui(daemon);
    await h.ctl.loadDags();
    const titles = paletteEntries({ ctl: h.ctl, views: VIEWS }, '').map((c) => c.title);
    expect(titles.slice(0, SPEC_GLOBALS.length)).toEqual(SPEC_GLOBALS);
    expect(titles.slice(SPEC_GLOBALS.length, SPEC_GLOBALS.length + 2)).toEqual([
      'DAG: etl',
      'Trigger DAG: etl',
    ]);
    const jobs = titles.slice(SPEC_GLOBALS.length + 2);
    // the daemon's first two jobs: heartbeat (idle), nightly-backup (failed, idle), then long-sleep (running)
    expect(jobs.slice(0, 15)).toEqual([
      'Logs: heartbeat',
      'Run: heartbeat',
      'Copy command: heartbeat',
      'Schedule: heartbeat',
      'Tail: heartbeat',
      'Logs: nightly-backup',
      'Run: nightly-backup',
      'Copy command: nightly-backup',
      'Schedule: nightly-backup',
      'Tail: nightly-backup',
      'Logs: long-sleep',
      'Cancel: long-sleep',
      'Copy command: long-sleep',
      'Schedule: long-sleep',
      'Tail: long-sleep',
    ]);
  });

  it('paints that order: the first rows under the query are the first global entries', async () => {
    h = mountTui(daemon, { rows: 40 });
    await h.press(KEY.ctrlK);
    const rows = h
      .text()
      .split('\n')
      .filter((l) => l.includes('│'))
      .map((l) => l.replace(/[│▎]/g, '').trim());
    const at = rows.findIndex((r) => r.startsWith('⌕'));
    expect(rows[at + 1]).toMatch(/^Refresh now\s+↻$/);
    expect(rows[at + 2]).toMatch(/^Run all failing jobs/);
    expect(rows[at + 8]).toMatch(/^Toggle next-fire radar/);
  });
});

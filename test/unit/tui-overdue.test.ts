// The TUI's OVERDUE marker (spec 09 §2.8), rendered by ink-testing-library around a real Controller and a
// loopback fixture daemon: the bold ` OVERDUE` badge after the status cell of a job whose `sla.state` is
// `late` (only from spare width), and ` · OVERDUE` on its wallboard tile.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { layoutColumns } from '../../src/tui/views/board/rows.ts';
import { FixtureDaemon, type Harness, mountTui } from '../helpers/tui-fixture.ts';

const daemon = new FixtureDaemon();
daemon.jobs = daemon.jobs.map((j) =>
  j.name === 'heartbeat'
    ? {
        ...j,
        sla: {
          thresholds: { lateAfterSeconds: 900 },
          state: 'late' as const,
          breaches: [
            {
              check: 'lateAfter' as const,
              since: '2026-07-20T04:15:00+00:00',
              observed_seconds: 960.25,
              threshold_seconds: 900,
            },
          ],
        },
      }
    : j.name === 'report-daily'
      ? { ...j, sla: { thresholds: { maxRuntimeSeconds: 60 }, state: 'ok' as const, breaches: [] } }
      : j,
);
beforeAll(() => daemon.start());
afterAll(() => daemon.stop());

let h: Harness;
afterEach(() => h?.close());

const rowOf = (text: string, name: string) =>
  text.split('\n').find((l) => new RegExp(`\\s${name}\\s`).test(l)) ?? '';

describe('OVERDUE in the TUI', () => {
  it('badges the overdue job after its status cell, and no other', async () => {
    h = mountTui(daemon);
    await h.settle();
    const t = h.text();
    expect(rowOf(t, 'heartbeat')).toMatch(/● OK\s+OVERDUE\s+heartbeat/);
    expect(rowOf(t, 'report-daily')).not.toContain('OVERDUE');
    expect(rowOf(t, 'colour-probe')).not.toContain('OVERDUE');
  });

  it('appends · OVERDUE to the wallboard tile', async () => {
    h = mountTui(daemon);
    await h.settle();
    await h.press('w');
    const t = h.text();
    const at = t.indexOf('heartbeat');
    expect(at).toBeGreaterThanOrEqual(0);
    expect(t).toMatch(/· OVERDUE/);
    expect(t.split('· OVERDUE')).toHaveLength(2);
  });

  it('takes the badge column only from spare width', () => {
    const wide = layoutColumns({ cols: 160, compact: false, res: false, owner: false, overdue: true });
    expect(wide.map((c) => c.id).slice(0, 3)).toEqual(['status', 'late', 'name']);
    expect(wide.find((c) => c.id === 'late')?.width).toBe(8);
    const plain = layoutColumns({ cols: 160, compact: false, res: false, owner: false });
    expect(plain.map((c) => c.id)).not.toContain('late');
    // At 80 columns the other columns already fill the line: no badge column, nothing dropped for it.
    const narrow = layoutColumns({ cols: 80, compact: false, res: false, owner: false, overdue: true });
    const narrowPlain = layoutColumns({ cols: 80, compact: false, res: false, owner: false });
    expect(narrow.map((c) => c.id)).toEqual(narrowPlain.map((c) => c.id));
  });
});

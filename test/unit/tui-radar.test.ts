// The next-fire radar (spec 08 §4.12): the soonest fires of the enabled jobs from the shared engine, live
// countdowns that follow the clock without a request, and the ten-minute track.
import { describe, expect, it } from 'vitest';
import { radarAt } from '../../src/tui/views/radar/radar.ts';
import { apiJob } from '../helpers/api-job.ts';
import { FIXTURE_NOW, type Harness, KEY } from '../helpers/tui-fixture.ts';
import { panelSuite } from '../helpers/tui-panel-fixtures.ts';

const { daemon, mount } = panelSuite();

let h: Harness;

describe('next-fire radar', () => {
  it('lists the soonest fires with countdowns, skips disabled jobs, and draws the track', async () => {
    h = mount({ rows: 30 });
    const requests = daemon.requests.length;
    await h.press('R');
    const t = h.text();
    expect(t).toContain('╴next-fire radar╶');
    expect(t).toContain('5 upcoming · 5 scheduled jobs');
    const lines = t.split('\n');
    const at = (name: string) => lines.findIndex((l) => l.includes(name) && l.includes('│'));
    expect(lines[at('heartbeat')]).toMatch(
      /1 ◆ heartbeat\s+\* \* \* \* \* \* \*\s+09:00:01\s+in 1s\s+×600\/10m/,
    );
    expect(lines[at('colour-probe')]).toMatch(
      /2 ◆ colour-probe\s+\*\/5 \* \* \* \*\s+09:05:00\s+in 5m 00s\s+×2\/10m/,
    );
    expect(at('long-sleep')).toBeGreaterThan(at('colour-probe'));
    expect(at('legacy-sync')).toBe(-1);
    expect(t).toMatch(/now\s+\+2m\s+\+4m\s+\+6m\s+\+8m\s+\+10m/);
    const track = lines.find((l) => /◆─+◆/.test(l) || /◆{5,}/.test(l));
    expect(track).toBeDefined();
    // computed locally: opening it sent nothing
    expect(daemon.requests.length).toBe(requests);
    // the clock moves the countdowns
    h.store.set({ now: FIXTURE_NOW + 61_000 });
    await h.settle(50);
    expect(h.text()).toMatch(/colour-probe\s+\*\/5 \* \* \* \*\s+09:05:00\s+in 3m 59s/);
    await h.press(KEY.esc);
    expect(h.text()).not.toContain('next-fire radar');
  });

  it('keeps the ten soonest and says when nothing is scheduled', () => {
    const jobs = Array.from({ length: 14 }, (_, i) => apiJob(`j${i}`, { schedule: `${i + 1} * * * *` }));
    const r = radarAt(jobs, FIXTURE_NOW);
    expect(r.next.map((f) => f.name)).toEqual(['j0', 'j1', 'j2', 'j3', 'j4', 'j5', 'j6', 'j7', 'j8', 'j9']);
    expect(r.scheduled).toBe(14);
    expect(radarAt([apiJob('off', { enabled: false })], FIXTURE_NOW).next).toEqual([]);
  });

  it('switches to the week calendar with v', async () => {
    h = mount({ rows: 30 });
    await h.press('R', 'v');
    expect(h.text()).toContain('╴week (UTC)╶');
    expect(h.store.get().stack.map((s) => s.kind)).toEqual(['week']);
  });
});

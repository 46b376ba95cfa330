// Schedule pressure (spec 08 §4.12): the daemon's `/schedule/pressure`, `/schedule/duplicates` and
// `/schedule/suggest` drawn as the summary, the minute histogram, the suggestions, the duplicate groups and the
// hour × minute grid; `r` recomputes, a reload every 60 s while open, `e` takes the slot to the sandbox.
import { describe, expect, it } from 'vitest';
import { type Harness, KEY } from '../helpers/tui-fixture.ts';
import { panelSuite, panelText, scheduleRoutes, waitPanel } from '../helpers/tui-panel-fixtures.ts';

const { daemon, mount } = panelSuite();

let h: Harness;

const pressureGets = () => daemon.requests.filter((r) => r.url === '/schedule/pressure').length;

describe('schedule pressure', () => {
  it('draws the summary, histogram, suggestions, duplicates and the 24 × 60 grid', async () => {
    daemon.routes = scheduleRoutes();
    h = mount({ rows: 60 });
    await h.press('P');
    const t = await waitPanel(h, 'next 24h');
    expect(t).toContain('next 24h: 53 fires from 5 schedules · busiest :00 (4 jobs) · 58/60 minutes empty');
    expect(t).toContain('busiest cell 03:00 · 6 fires · not counted: 1 disabled, 0 @reboot · UTC');
    expect(t).toMatch(/suggest\s+17 \* \* \* \* \(hourly, 0 fires\) · 17 4 \* \* \* \(daily, 0 fires\)/);
    expect(t).toContain('or  18 * * * * · 18 4 * * *');
    expect(t).toMatch(/03:00\s+6 fires\s+nightly-backup, orders-ingest, report-daily/);
    expect(t).toMatch(/0 \* \* \* \*\s+×2\s+every hour · UTC\s+orders-ingest, report-hourly/);
    expect(t).toMatch(/:00\s+:10\s+:20\s+:30\s+:40\s+:50/);
    const lines = t.split('\n');
    // the grid: hour 03 has its busiest cell at :00 and one fire at :30
    const h03 = lines.find((l) => /│\s+03 /.test(l))!;
    expect(h03).toMatch(/03\s+█·{29}░·{29} 7/);
    const h05 = lines.find((l) => /│\s+05 /.test(l))!;
    expect(h05).toMatch(/05\s+▒·{59} 2/);
  });

  it('r recomputes; the panel reloads itself after 60 s while open; e opens the sandbox on the hourly slot', async () => {
    daemon.routes = scheduleRoutes();
    h = mount({ rows: 50 });
    await h.press('P');
    await waitPanel(h, 'next 24h');
    const first = pressureGets();
    await h.press('r');
    await waitPanel(h, () => pressureGets() === first + 1);
    h.store.set({ mono: h.store.get().mono + 61_000 });
    await waitPanel(h, () => pressureGets() === first + 2);
    await h.press('e');
    expect(panelText(h)).toContain('◴ 17 * * * *');
    expect(panelText(h)).toContain('Every hour at minute 17');
    await h.press(KEY.esc);
    expect(h.text()).toContain('╴schedule pressure╶');
  });

  it('reports a failed analysis', async () => {
    h = mount();
    await h.press('P');
    await waitPanel(h, 'could not load the schedule analysis: HTTP 404');
  });
});

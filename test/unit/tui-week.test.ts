// The week calendar (spec 08 §4.12): seven UTC days from today's midnight from the shared week model — the
// day × hour grid, the agenda with earlier-today fires dimmed, the background hum — and `←`/`→` weeks.
import { describe, expect, it } from 'vitest';
import { weekModel } from '../../src/tui/views/week/week.ts';
import { apiJob } from '../helpers/api-job.ts';
import { FIXTURE_NOW, fixtureJobs, type Harness, KEY } from '../helpers/tui-fixture.ts';
import { gossipCluster, panelSuite, panelText } from '../helpers/tui-panel-fixtures.ts';

const { daemon, mount } = panelSuite();

let h: Harness;

describe('week calendar', () => {
  it('draws the grid, the agenda and the hum for the fixture (today = Sun 2026-07-05, 09:00 UTC)', async () => {
    h = mount({ rows: 50 });
    await h.press('v');
    expect(h.text()).toContain('╴week (UTC)╶');
    const t = panelText(h);
    expect(t).toContain('next 7 days: 12 fires from 5 schedules · 3 frequent jobs summarized below · UTC');
    const lines = t.split('\n');
    const today = lines.find((l) => /│\s+today /.test(l))!;
    // nightly-backup at 03:00, nothing else charted today; 1 fire
    expect(today).toMatch(/today\s+(?:·· ){3}░░ (?:·· ){20}\s+1\s/);
    const mon = lines.find((l) => /│\s+Mon 07-06 /.test(l))!;
    expect(mon).toMatch(/Mon 07-06\s+(?:·· ){3}░░ (?:·· ){2}░░ (?:·· ){17}\s+2\s/);
    expect(t).toContain('Sat 07-11');
    expect(t).toMatch(/Sun 07-05 03:00\s+nightly-backup/);
    expect(t).toMatch(/Mon 07-06 06:00\s+report-daily/);
    expect(t).toMatch(/heartbeat\s+every second/);
    expect(t).not.toContain('legacy-sync');
    // earlier today is dim (carolina dim 3f6d8c = 63;109;140)
    const frame = h.frame();
    const past = frame.split('\n').find((l) => l.includes('Sun 07-05 03:00'))!;
    expect(past).toMatch(/38;2;63;109;140;[0-9;]*m(?:\u001b\[[0-9;]*m)*\s*Sun 07-05 03:00/);
  });

  it('→ moves a week on, ← back; Esc closes', async () => {
    h = mount({ rows: 50 });
    await h.press('v', KEY.right);
    expect(panelText(h)).toMatch(/2026-07-12 – 2026-07-18: \d+ fires from 5 schedules/);
    expect(panelText(h)).not.toMatch(/│\s+today /);
    await h.press(KEY.left);
    expect(h.text()).toContain('next 7 days:');
    await h.press(KEY.esc);
    expect(h.text()).not.toContain('week (UTC)');
  });

  it('says so when nothing fires in the week', async () => {
    daemon.jobs = [apiJob('boot', { schedule: '@reboot' }), apiJob('off', { enabled: false })];
    h = mount();
    await h.press('v');
    expect(h.text()).toContain('no scheduled fires in the next 7 days');
  });

  it('rebuilds only when the schedules, the day or the week change, not on every poll', () => {
    const jobs = fixtureJobs();
    const a = weekModel(jobs, FIXTURE_NOW, 0);
    expect(weekModel(jobs, FIXTURE_NOW + 60_000, 0)).toBe(a);
    // a new poll: a new array, the same schedules
    expect(weekModel(fixtureJobs(), FIXTURE_NOW, 0)).toBe(a);
    expect(weekModel(jobs, FIXTURE_NOW + 86_400_000, 0)).not.toBe(a);
    expect(weekModel(jobs, FIXTURE_NOW, 1)).not.toBe(a);
    const changed = fixtureJobs().map((j) => (j.name === 'heartbeat' ? { ...j, schedule: '0 12 * * *' } : j));
    const b = weekModel(changed, FIXTURE_NOW, 0);
    expect(b).not.toBe(a);
    expect(b.hum.map((h) => h.name)).not.toContain('heartbeat');
  });
});

describe('ASCII mode (spec 08 §6.1)', () => {
  it('draws the week grid, the heat shades and the cluster marks without block or box glyphs', async () => {
    let h = mount({ rows: 50, ascii: true });
    await h.press('v');
    let t = h.text();
    expect(t).toMatch(/\|\s+today\s+(?:\.\. ){3}:: (?:\.\. ){20}\s+1\s+\|/);
    expect(t).not.toMatch(/[░▒▓█│─]/);
    h = mount({ rows: 40, ascii: true });
    daemon.routes['/cluster'] = gossipCluster();
    await h.ctl.poll();
    await h.press('C');
    t = h.text();
    expect(t).toMatch(/\+ 127\.0\.0\.12:7946\s+node-b\s+agreed/);
    expect(t).toMatch(/x 127\.0\.0\.13:7946\s+node-c\s+unreachable/);
    expect(t).not.toMatch(/[✓✕│]/);
  });
});

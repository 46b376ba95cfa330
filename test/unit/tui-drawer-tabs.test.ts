// The drawer's History and Schedule tabs (spec 08 §4.4): History's `cpu avg · peak rss` line and each run's
// CPU seconds; Schedule's lint findings from the payload, else linted here with the daemon's own linter
// (`✕` never fires, `⚠` warning, `·` note, at most 3, wrapped to the pane).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { apiJob } from '../helpers/api-job.ts';
import { FixtureDaemon, fixtureJobs, type Harness, KEY, mountTui } from '../helpers/tui-fixture.ts';

const daemon = new FixtureDaemon();
beforeAll(() => daemon.start());
afterAll(() => daemon.stop());
let h: Harness;
afterEach(() => {
  h?.close();
  daemon.jobs = fixtureJobs();
  daemon.routes = {};
});

const pane = () =>
  h
    .text()
    .split('\n')
    .map((l) => l.slice(l.indexOf('│') + 1))
    .join('\n');

async function openTab(job: string, tab: 'history' | 'schedule', shows: string): Promise<void> {
  h = mountTui(daemon, { cols: 120, rows: 40 });
  h.ctl.openDrawer(job, tab === 'schedule' ? 'schedule' : 'logs');
  await h.settle(30);
  if (tab === 'history') await h.press(KEY.right);
  const end = Date.now() + 5000;
  while (!pane().includes(shows) && Date.now() < end) await h.settle(50);
  expect(pane()).toContain(shows);
}

const stats = {
  total: 2,
  success: 2,
  failure: 0,
  cancelled: 0,
  unknown: 0,
  success_rate: 1,
  avg_duration: 1,
  min_duration: 0.5,
  max_duration: 1.5,
  last_duration: 1.5,
};
const run = (finished: string, cpu: number | null) => ({
  outcome: 'success',
  exit_code: 0,
  started_at: finished,
  finished_at: finished,
  duration: 1,
  fail_reason: null,
  resources: cpu === null ? null : { cpu_total_seconds: cpu, max_rss_bytes: 3 * 1024 * 1024 },
});

describe('History tab', () => {
  it('shows cpu avg · peak rss and each run’s CPU seconds when the daemon sampled them', async () => {
    daemon.routes['/jobs/heartbeat/runs'] = {
      name: 'heartbeat',
      runs: [run('2026-07-05T08:00:00Z', 1.25), run('2026-07-05T08:30:00Z', 2.5)],
      stats: { ...stats, avg_cpu_seconds: 1.875, max_rss_bytes: 3 * 1024 * 1024 },
    };
    await openTab('heartbeat', 'history', 'cpu avg');
    const t = pane();
    expect(t).toContain('cpu avg 1.9s · peak rss 3.0 MiB');
    expect(t).toMatch(/exit 0 · 2\.5s cpu[\s\S]*exit 0 · 1\.3s cpu/); // newest first
  });

  it('has no cpu line when nothing was sampled', async () => {
    daemon.routes['/jobs/heartbeat/runs'] = {
      name: 'heartbeat',
      runs: [run('2026-07-05T08:00:00Z', null)],
      stats: { ...stats, avg_cpu_seconds: null, max_rss_bytes: null },
    };
    await openTab('heartbeat', 'history', 'success 100%');
    expect(pane()).not.toContain('cpu avg');
    expect(pane()).not.toContain('s cpu');
  });
});

describe('Schedule tab lint', () => {
  it('lints locally when the daemon sent no findings, wrapping long ones', async () => {
    daemon.jobs = [apiJob('every-seven', { schedule: '*/7 * * * *' })];
    await openTab('every-seven', 'schedule', 'next runs:');
    const t = pane();
    expect(t).toContain("⚠ '*/7' in the minute field: 60 is not a multiple of 7");
    expect(t).toContain('4 minutes'); // the rest of the finding, on its wrapped row
  });

  it('uses the daemon’s findings when present, an empty list meaning clean', async () => {
    daemon.jobs = [
      apiJob('every-seven', {
        schedule: '*/7 * * * *',
        schedule_findings: [{ code: 'x', level: 'note', message: 'the daemon says hello' }],
      }),
      apiJob('clean', { schedule: '*/7 * * * *', schedule_findings: [] }),
    ];
    await openTab('every-seven', 'schedule', 'next runs:');
    expect(pane()).toContain('· the daemon says hello');
    expect(pane()).not.toContain('not a multiple');
    h.close();
    await openTab('clean', 'schedule', 'next runs:');
    expect(pane()).not.toContain('not a multiple');
  });

  it('a date that never comes is ✕ never fires', async () => {
    daemon.jobs = [apiJob('feb-30', { schedule: '0 0 30 2 *', never_fires: true, scheduled_in: null })];
    await openTab('feb-30', 'schedule', 'reference frame');
    expect(pane()).toContain('✕ never fires');
  });
});

describe('Schedule tab countdown and stamps (issue 33 item 10)', () => {
  it('says the next fire as every other countdown does, and each stamp names its zone', async () => {
    daemon.jobs = [
      apiJob('seconds', { schedule: '*/10 * * * * * *', scheduled_in: 7.52 }),
      apiJob('berlin', { schedule: '0 6 * * *', timezone: 'Europe/Berlin', utc: false, scheduled_in: 12780 }),
    ];
    await openTab('seconds', 'schedule', 'daemon says');
    expect(pane()).toContain('daemon says: next fire in 8s');
    expect(pane()).not.toContain('7.52s');
    expect(pane()).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
    h.close();
    await openTab('berlin', 'schedule', 'daemon says');
    expect(pane()).toContain('daemon says: next fire in 3h');
    expect(pane()).not.toContain('3h 33m');
    expect(pane()).toMatch(/\d{4}-\d\d-\d\d 06:00:00 Europe\/Berlin/);
  });
});

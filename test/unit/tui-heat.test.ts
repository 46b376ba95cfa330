// The activity heatmap (spec 08 §4.12): per-job buckets from `/jobs/{name}/runs`, shades against the busiest
// bucket, the worst outcome's colour, the 40-job cap, `w` windows, `r` reload and re-fetching only after a
// job's new finish.
import { describe, expect, it } from 'vitest';
import { bucketRuns } from '../../src/dashboard/heat.ts';
import type { ApiRun } from '../../src/dashboard/types.ts';
import { apiJob } from '../helpers/api-job.ts';
import { FIXTURE_NOW, fixtureJobs, type Harness } from '../helpers/tui-fixture.ts';
import { panelSuite } from '../helpers/tui-panel-fixtures.ts';

const { daemon, mount } = panelSuite();

let h: Harness;

const runsGets = () => daemon.requests.filter((r) => /^\/jobs\/[^/]+\/runs$/.test(r.url)).length;

async function openHeat(): Promise<void> {
  h = mount({ rows: 30 });
  await h.press('H');
  for (let i = 0; i < 40 && h.text().includes('loading'); i++) await h.settle(50);
}

describe('activity heatmap', () => {
  it('draws one row per job with its runs in the newest bucket, coloured by the worst outcome', async () => {
    await openHeat();
    const t = h.text();
    expect(t).toContain('╴activity heatmap╶');
    expect(t).toContain('4 runs · 6 jobs · last 24h in 24 buckets of 1 h · UTC');
    const row = (n: string) => t.split('\n').find((l) => l.includes(n) && l.includes('│'))!;
    expect(row('heartbeat')).toMatch(/██\s+1\s/);
    expect(row('long-sleep')).toMatch(/long-sleep\s+0\s/);
    // enabled first, the disabled job last
    const panel = t
      .split('\n')
      .filter((l) => l.includes('│'))
      .join('\n');
    expect(panel.indexOf('report-daily')).toBeLessThan(panel.indexOf('legacy-sync'));
    const frame = h.frame();
    const failed = frame.split('\n').find((l) => l.includes('nightly-backup') && l.includes('│'))!;
    // carolina fail = ff5d5d
    expect(failed).toMatch(/38;2;255;93;93;[0-9;]*m(?:\u001b\[[0-9;]*m)*██/);
  });

  it('w cycles the window; r fetches every job again; a poll re-fetches only jobs with a new finish', async () => {
    await openHeat();
    await h.press('w');
    expect(h.text()).toContain('last 7d in 24 buckets of 7 h');
    await h.press('w');
    expect(h.text()).toContain('last 6h in 24 buckets of 15 min');
    const before = runsGets();
    await h.ctl.poll();
    await h.settle(150);
    expect(runsGets()).toBe(before);
    const jobs = fixtureJobs();
    jobs[0] = {
      ...jobs[0]!,
      last_run: { ...jobs[0]!.last_run!, finished_at: new Date(FIXTURE_NOW).toISOString() },
    };
    daemon.jobs = jobs;
    await h.ctl.poll();
    await h.settle(150);
    expect(runsGets()).toBe(before + 1);
    await h.press('r');
    for (let i = 0; i < 40 && runsGets() < before + 7; i++) await h.settle(50);
    expect(runsGets()).toBe(before + 7);
  });

  it('reads at most 40 jobs and says so', async () => {
    daemon.jobs = Array.from({ length: 45 }, (_, i) => apiJob(`job-${String(i).padStart(2, '0')}`));
    const before = runsGets();
    await openHeat();
    for (let i = 0; i < 60 && runsGets() < before + 40; i++) await h.settle(50);
    await h.settle(100);
    expect(runsGets()).toBe(before + 40);
    expect(h.text()).toContain('40 jobs (first 40 of 45)');
    expect(daemon.requests.some((r) => r.url === '/jobs/job-44/runs')).toBe(false);
  });

  it('a bucket keeps its worst outcome (failure > cancelled > unknown > success)', () => {
    const run = (outcome: ApiRun['outcome'], minutesAgo: number): ApiRun => ({
      outcome,
      exit_code: 0,
      started_at: null,
      finished_at: new Date(FIXTURE_NOW - minutesAgo * 60_000).toISOString(),
      duration: 1,
      fail_reason: null,
      resources: null,
    });
    const cells = bucketRuns(
      [run('success', 1), run('cancelled', 2), run('unknown', 70)],
      FIXTURE_NOW,
      6 * 3_600_000,
    );
    expect(cells[23]!.worst).toBe('cancelled');
    expect(cells[19]!.worst).toBe('unknown');
    expect(cells[0]!.worst).toBeNull();
  });
});

// Pure logic of the dashboard's schedule, state and resource views (spec 06 §9.2): radar, pressure shading,
// heatmap buckets, sandbox preview, state-inspector paging and namespaces, chart paths.
import { Cron } from 'croner';
import { describe, expect, it } from 'vitest';
import { compileJob } from '../../src/dashboard/engine.ts';
import {
  activityRuns,
  bucketRuns,
  heatJobs,
  heatLevel,
  runsSignature,
  staleRuns,
} from '../../src/dashboard/heat.ts';
import { busiestCell, cellShade, frameQuery, histogram, shadeRange } from '../../src/dashboard/pressure.ts';
import { buildRadar, trackPosition } from '../../src/dashboard/radar.ts';
import { chartPoints, columnStats, cpuCeiling, formatBytes } from '../../src/dashboard/resources.ts';
import { sandboxPreview } from '../../src/dashboard/sandbox.ts';
import {
  type ApiState,
  docNamespaces,
  epochText,
  leaseState,
  pageOf,
  recordSummary,
  scopesOfManifests,
  streamsUnder,
} from '../../src/dashboard/state.ts';
import type { ApiJob, ApiRun } from '../../src/dashboard/types.ts';
import { apiJob } from '../helpers/api-job.ts';

const T0 = Date.UTC(2026, 6, 6, 9, 59, 58); // Mon 2026-07-06 09:59:58 UTC

/** A job that has never run, with no fire pending, on `schedule`. */
const job = (name: string, schedule: string, extra: Partial<ApiJob> = {}): ApiJob =>
  apiJob(name, { schedule, command: 'true', scheduled_in: null, ...extra });

const radarJob = (j: ApiJob) => ({ name: j.name, enabled: j.enabled, compiled: compileJob(j) });

describe('buildRadar', () => {
  const jobs = [
    job('every-5s', '*/5 * * * * * *'),
    job('top-of-hour', '0 * * * *'),
    job('b-top', '0 * * * *'),
    job('off', '* * * * *', { enabled: false }),
    job('boot', '@reboot'),
    job('nightly', '30 2 * * *'),
  ].map(radarJob);

  it('lists each enabled job once at its next fire, soonest first, ties by name', () => {
    const r = buildRadar(jobs, T0);
    expect(r.next.map((f) => [f.name, new Date(f.at).toISOString()])).toEqual([
      ['b-top', '2026-07-06T10:00:00.000Z'],
      ['every-5s', '2026-07-06T10:00:00.000Z'],
      ['top-of-hour', '2026-07-06T10:00:00.000Z'],
      ['nightly', '2026-07-07T02:30:00.000Z'],
    ]);
    expect(r.scheduled).toBe(4);
    expect(r.next.every((f, i) => i === 0 || f.at >= r.next[i - 1]!.at)).toBe(true);
  });

  it('keeps at most `count` entries', () => {
    expect(buildRadar(jobs, T0, { count: 2 }).next).toHaveLength(2);
  });

  it('puts every fire of the window on the track, capped per job, and counts what the cap hid', () => {
    const r = buildRadar(jobs, T0, { perJob: 50 });
    const fives = r.track.filter((f) => f.name === 'every-5s');
    expect(fives).toHaveLength(50);
    expect(r.windowFires.get('every-5s')).toBe(120); // 10 min / 5 s
    expect(r.windowFires.get('top-of-hour')).toBe(1);
    expect(r.track.some((f) => f.name === 'nightly')).toBe(false);
    expect(r.track.every((f) => f.at > T0 && f.at <= T0 + 600_000)).toBe(true);
  });

  it('agrees with croner on the next fire', () => {
    const expr = '*/7 * * * *';
    const r = buildRadar([radarJob(job('x', expr))], T0);
    expect(r.next[0]!.at).toBe(new Cron(expr, { timezone: 'UTC' }).nextRun(new Date(T0))!.getTime());
  });

  it('maps instants onto the track', () => {
    expect(trackPosition(T0, T0)).toBe(0);
    expect(trackPosition(T0 + 300_000, T0)).toBe(0.5);
    expect(trackPosition(T0 + 3_600_000, T0)).toBe(1);
  });
});

describe('pressure helpers', () => {
  const grid = Array.from({ length: 24 }, () => new Array<number>(60).fill(0));
  grid[3]![15] = 7;
  grid[9]![0] = 7;
  grid[4]![4] = 2;

  it('finds the busiest cell, first in time on ties', () => {
    expect(busiestCell(grid)).toEqual({ hour: 3, minute: 15, fires: 7 });
    expect(busiestCell([[0, 0]])).toBeNull();
  });

  it('shades between the quietest and the busiest non-empty cell', () => {
    const range = shadeRange(grid);
    expect(range).toEqual({ min: 2, max: 7 });
    expect(cellShade(0, range)).toBe(0);
    expect(cellShade(2, range)).toBe(1);
    expect(cellShade(7, range)).toBe(5);
    expect(cellShade(4, { min: 4, max: 4 })).toBe(3);
  });

  it('scales the histogram to its maximum', () => {
    expect(histogram([0, 2, 4])).toEqual([0, 0.5, 1]);
    expect(histogram([0, 0])).toEqual([0, 0]);
  });

  it('asks for the viewer zone only in the local frame', () => {
    expect(frameQuery('utc', 'Europe/Berlin')).toBe('');
    expect(frameQuery('local', 'Europe/Berlin')).toBe('tz=Europe%2FBerlin');
    expect(frameQuery('local', 'UTC')).toBe('');
  });
});

describe('heatmap buckets', () => {
  const now = Date.UTC(2026, 6, 6, 12, 0, 0);
  const run = (minutesAgo: number, outcome: ApiRun['outcome'] = 'success'): ApiRun => ({
    outcome,
    exit_code: outcome === 'success' ? 0 : 1,
    started_at: null,
    finished_at: new Date(now - minutesAgo * 60_000).toISOString(),
    duration: 1,
    fail_reason: null,
    resources: null,
  });

  it('counts runs and failures per bucket, oldest bucket first, outside the window ignored', () => {
    const cells = bucketRuns([run(1), run(2, 'failure'), run(14), run(16), run(400)], now, 6 * 3_600_000);
    expect(cells).toHaveLength(24);
    expect(cells[23]).toMatchObject({ runs: 3, failures: 1 }); // the last 15 minutes
    expect(cells[22]).toMatchObject({ runs: 1, failures: 0 });
    expect(cells.reduce((n, c) => n + c.runs, 0)).toBe(4);
  });

  it('reads one /activity body for every job; a skipped slot is not a run', () => {
    const at = (m: number) => new Date(now - m * 60_000).toISOString();
    const body = {
      jobs: {
        a: [
          { started_at: at(3), finished_at: at(2), outcome: 'failure' as const },
          { started_at: null, finished_at: at(1), outcome: 'skipped' as const },
        ],
        off: [],
      },
    };
    const runs = activityRuns(body, ['a', 'off', 'gone']);
    expect([...runs.keys()]).toEqual(['a', 'off', 'gone']);
    expect(runs.get('gone')).toEqual([]);
    const cells = bucketRuns(runs.get('a')!, now, 6 * 3_600_000);
    expect(cells[23]).toMatchObject({ runs: 1, failures: 1, worst: 'failure' });
  });

  it('levels against the busiest cell', () => {
    expect(heatLevel(0, 10)).toBe(0);
    expect(heatLevel(1, 10)).toBe(1);
    expect(heatLevel(10, 10)).toBe(4);
  });

  it('draws enabled jobs first, at most 80, and refetches only jobs with a new finish', () => {
    const many = Array.from({ length: 100 }, (_, i) =>
      job(`j${String(i).padStart(3, '0')}`, '* * * * *', { enabled: i % 2 === 0 }),
    );
    const shown = heatJobs(many);
    expect(shown).toHaveLength(80);
    expect(shown.slice(0, 50).every((j) => j.enabled)).toBe(true);
    const a = job('a', '* * * * *', { last_run: run(1) });
    const b = job('b', '* * * * *');
    const cache = new Map([['a', { sig: runsSignature(a) }]]);
    expect(staleRuns([a, b], cache)).toEqual(['b']);
    expect(staleRuns([{ ...a, last_run: run(0) }, b], cache)).toEqual(['a', 'b']);
  });
});

describe('sandboxPreview', () => {
  it('previews the engine fires in a zone, as croner computes them', () => {
    const r = sandboxPreview('0 9 * * 1-5', 'America/New_York', T0);
    expect(r.kind).toBe('ok');
    if (r.kind !== 'ok') return;
    expect(r.fires).toHaveLength(12);
    const c = new Cron('0 9 * * 1-5', { timezone: 'America/New_York' });
    let at = new Date(T0);
    for (const f of r.fires) {
      at = c.nextRun(at)!;
      expect(f.at).toBe(at.getTime());
      expect(f.civil.slice(11)).toBe('09:00:00');
    }
    expect(r.description.toLowerCase()).toContain('monday through friday');
  });

  it('refuses bad expressions and zones with the engine reason, accepts @reboot', () => {
    expect(sandboxPreview('61 * * * *', 'UTC', T0)).toMatchObject({ kind: 'error' });
    expect(sandboxPreview('* * * * *', 'Mars/Olympus', T0)).toEqual({
      kind: 'error',
      error: 'unknown timezone: Mars/Olympus',
    });
    expect(sandboxPreview('@reboot', 'UTC', T0).kind).toBe('reboot');
    expect(sandboxPreview('  ', 'UTC', T0).kind).toBe('empty');
  });

  it('resolves H fields from the seed', () => {
    const a = sandboxPreview('H * * * *', 'UTC', T0, { seed: 'backup' });
    const b = sandboxPreview('H * * * *', 'UTC', T0, { seed: 'backup' });
    expect(a.kind === 'ok' && a.resolved).toMatch(/^\d+ \* \* \* \*$/);
    expect(a).toEqual(b);
  });
});

describe('state inspector helpers', () => {
  const state: ApiState = {
    enabled: true,
    records: {
      streams: 4,
      records: 10,
      prefixes: {},
      list: [
        { stream: 'runs/a', count: 2, newestAt: 1 },
        { stream: 'runs/b', count: 5, newestAt: 2 },
        { stream: 'reboot/a', count: 1, newestAt: 3 },
        { stream: 'manifests/host1', count: 2, newestAt: 4 },
      ],
    },
  };

  it('lists the streams under a prefix, busiest first', () => {
    expect(streamsUnder(state, 'runs/').map((s) => s.stream)).toEqual(['runs/b', 'runs/a']);
    expect(streamsUnder(state, 'counters/')).toEqual([]);
  });

  it('takes document namespaces from the inventory, else from global, job names and manifest scopes', () => {
    expect(docNamespaces(state, 'kv/', ['b-job', 'a-job'], ['orders'])).toEqual([
      'kv/a-job',
      'kv/b-job',
      'kv/global',
      'kv/orders',
    ]);
    const withDocs: ApiState = {
      ...state,
      documents: [
        { namespace: 'kv/x', count: 1, updatedAt: 1 },
        { namespace: 'cursor/x', count: 1, updatedAt: 1 },
      ],
    };
    expect(docNamespaces(withDocs, 'kv/', ['a'], [])).toEqual(['kv/x']);
    expect(
      scopesOfManifests([
        { id: 1, writtenAt: 1, writer: 'h', data: { scopes: ['global', 'orders'] } },
        { id: 2, writtenAt: 1, writer: 'h', data: { scopes: ['orders', 7] } },
      ]),
    ).toEqual(['global', 'orders']);
  });

  it('pages a list and clamps out-of-range pages', () => {
    const items = Array.from({ length: 45 }, (_, i) => i);
    expect(pageOf(items, 0)).toMatchObject({ page: 0, pages: 3, rows: items.slice(0, 20) });
    expect(pageOf(items, 9)).toMatchObject({ page: 2, rows: [40, 41, 42, 43, 44] });
    expect(pageOf([], 0)).toEqual({ rows: [], page: 0, pages: 1 });
  });

  it('formats epochs, records and lease states', () => {
    expect(epochText(Date.UTC(2026, 0, 2, 3, 4, 5) / 1000)).toBe('2026-01-02 03:04:05');
    expect(epochText(0)).toBe('—');
    expect(recordSummary({ a: 'x'.repeat(300) }, 20)).toHaveLength(20);
    expect(leaseState(0, 100)).toBe('released');
    expect(leaseState(200, 100)).toBe('held');
    expect(leaseState(50, 100)).toBe('expired');
  });
});

describe('resource charts', () => {
  it('formats bytes in binary units', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(5.3 * 1024 * 1024)).toBe('5.3 MiB');
    expect(formatBytes(300 * 1024 * 1024)).toBe('300 MiB');
    expect(formatBytes(null)).toBe('—');
  });

  it('draws a column as polyline points over the time range', () => {
    const series = [
      [100, 0, 10],
      [101, 50, 20],
      [102, 100, 40],
    ];
    expect(chartPoints(series, 1, 200, 100, 100)).toBe('0,100 100,50 200,0');
    expect(chartPoints(series, 2, 200, 100, 40)).toBe('0,75 100,50 200,0');
    expect(chartPoints([], 1, 200, 100, 100)).toBe('');
    expect(columnStats(series, 1)).toEqual({ min: 0, mean: 50, max: 100, last: 100 });
    expect(columnStats([], 1)).toBeNull();
    expect(cpuCeiling([[1, 180, 0]], 1)).toBe(200);
    expect(cpuCeiling([[1, 12, 0]], 1)).toBe(100);
  });
});

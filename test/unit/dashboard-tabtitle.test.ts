// The live tab title's frames (spec 10 §5.1), one test per row of the spec's table, plus the rotation, the
// elapsed and next-fire wording and the first-seen tracking of running jobs.
import { describe, expect, it } from 'vitest';
import {
  FRAME_MS,
  nextFire,
  type TitleInput,
  tabTitle,
  titleBrand,
  titleElapsed,
  titleFrames,
  titleIn,
  trackRunning,
} from '../../src/dashboard/tabtitle.ts';
import type { ApiJob, ApiRun } from '../../src/dashboard/types.ts';
import { apiJob, PAUSED } from '../helpers/api-job.ts';

const NOW = Date.UTC(2026, 6, 5, 9, 0, 0);

const last = (outcome: ApiRun['outcome']): ApiRun => ({
  outcome,
  exit_code: outcome === 'failure' ? 1 : 0,
  started_at: null,
  finished_at: '2026-07-05T08:59:00Z',
  duration: 1,
  fail_reason: null,
  resources: null,
});
const ok = (name: string, over: Partial<ApiJob> = {}): ApiJob =>
  apiJob(name, { last_run: last('success'), scheduled_in: 3600, ...over });
const failed = (name: string): ApiJob => apiJob(name, { last_run: last('failure') });
const running = (name: string): ApiJob => apiJob(name, { running: true, last_run: last('success') });
const paused = PAUSED;

const input = (jobs: ApiJob[] | null, over: Partial<TitleInput> = {}): TitleInput => ({
  jobs,
  fetchedAt: NOW,
  pollFailed: false,
  clusterAlert: null,
  runningSince: new Map(),
  now: NOW,
  ...over,
});

describe('titleFrames: the worst condition first', () => {
  it('before the first answer there are no frames (the static title stays)', () => {
    expect(titleFrames(input(null))).toEqual([]);
  });

  it('failing polls: no signal, whatever the jobs say', () => {
    expect(titleFrames(input([failed('a')], { pollFailed: true }))).toEqual(['no signal']);
    expect(titleFrames(input(null, { pollFailed: true }))).toEqual(['no signal']);
  });

  it('a cluster alert, then its reason', () => {
    const frames = titleFrames(input([failed('a')], { clusterAlert: 'no quorum — Leader jobs paused' }));
    expect(frames).toEqual(['cluster alert', 'no quorum — Leader jobs paused']);
  });

  it('one failing job names it', () => {
    expect(titleFrames(input([failed('backup'), ok('b'), running('c')]))).toEqual(['backup failing']);
  });

  it('several failing jobs: the count, then each', () => {
    expect(titleFrames(input([failed('a'), ok('b'), failed('c')]))).toEqual([
      '2 jobs failing',
      'a failing',
      'c failing',
    ]);
  });

  it('a failure that is paused or disabled is not failing', () => {
    const held = { ...failed('a'), paused };
    const off = { ...failed('b'), enabled: false };
    expect(titleFrames(input([held, off, ok('c')]))[0]).not.toContain('failing');
  });

  it('one running job with its elapsed time since the dashboard first saw it', () => {
    const since = new Map([['etl', NOW - 42_000]]);
    expect(titleFrames(input([running('etl'), ok('b')], { runningSince: since }))).toEqual([
      'etl running · 42s',
    ]);
  });

  it('several running: the count, then each with 3m and 2h', () => {
    const since = new Map([
      ['a', NOW - 3 * 60_000 - 5_000],
      ['b', NOW - 2 * 3_600_000 - 60_000],
    ]);
    expect(titleFrames(input([running('a'), running('b')], { runningSince: since }))).toEqual([
      '2 running',
      'a running · 3m',
      'b running · 2h',
    ]);
  });

  it('all ok, then the next fire', () => {
    const jobs = [ok('a', { scheduled_in: 600 }), ok('b', { scheduled_in: 120 })];
    expect(titleFrames(input(jobs))).toEqual(['2 ok', 'next: b in 2m']);
  });

  it('some ok: ok/total', () => {
    const jobs = [ok('a'), ok('b'), apiJob('new', { scheduled_in: 7200 })];
    expect(titleFrames(input(jobs))).toEqual(['2/3 ok', 'next: a in 1h']);
  });

  it('none ok: the job count', () => {
    const jobs = [apiJob('a', { scheduled_in: 3 * 86_400 + 60 }), apiJob('b', { enabled: false })];
    expect(titleFrames(input(jobs))).toEqual(['2 jobs', 'next: a in 3d']);
  });

  it('no jobs', () => {
    expect(titleFrames(input([]))).toEqual(['no jobs']);
  });

  it('no next frame when nothing has a next fire', () => {
    expect(titleFrames(input([ok('a', { scheduled_in: null })]))).toEqual(['1 ok']);
  });
});

describe('the next fire', () => {
  it('ignores disabled, paused and running jobs', () => {
    const jobs = [
      ok('off', { enabled: false, scheduled_in: 10 }),
      ok('held', { paused, scheduled_in: 20 }),
      { ...running('busy'), scheduled_in: 30 },
      ok('due', { scheduled_in: 3000 }),
    ];
    expect(nextFire(jobs, NOW, NOW)).toEqual({ name: 'due', inMs: 3_000_000 });
  });

  it('counts from the answer, not from now', () => {
    expect(nextFire([ok('a', { scheduled_in: 600 })], NOW - 120_000, NOW)).toEqual({
      name: 'a',
      inMs: 480_000,
    });
  });

  it('minutes round up and are at least 1; then whole hours and days', () => {
    expect(titleIn(0)).toBe('1m');
    expect(titleIn(-5_000)).toBe('1m');
    expect(titleIn(61_000)).toBe('2m');
    expect(titleIn(59 * 60_000)).toBe('59m');
    expect(titleIn(59 * 60_000 + 1)).toBe('60m');
    expect(titleIn(3_600_000)).toBe('1h');
    expect(titleIn(23.9 * 3_600_000)).toBe('23h');
    expect(titleIn(86_400_000)).toBe('1d');
    expect(titleIn(10 * 86_400_000)).toBe('10d');
  });
});

describe('elapsed, brand, rotation', () => {
  it('elapsed reads 42s, 3m, 2h', () => {
    expect(titleElapsed(42_000)).toBe('42s');
    expect(titleElapsed(59_999)).toBe('59s');
    expect(titleElapsed(3 * 60_000 + 59_000)).toBe('3m');
    expect(titleElapsed(2 * 3_600_000 + 1)).toBe('2h');
    expect(titleElapsed(-10)).toBe('0s');
  });

  it('the brand is the cluster node name, else cronstable', () => {
    expect(titleBrand('node-a')).toBe('node-a');
    expect(titleBrand(null)).toBe('cronstable');
    expect(titleBrand('')).toBe('cronstable');
  });

  it('rotates every 4 s through the frames; no frames leaves the brand alone', () => {
    const frames = ['2 jobs failing', 'a failing', 'c failing'];
    expect(tabTitle(frames, 'node-a', 0)).toBe('2 jobs failing · node-a');
    expect(tabTitle(frames, 'node-a', 1)).toBe('a failing · node-a');
    expect(tabTitle(frames, 'node-a', 2)).toBe('c failing · node-a');
    expect(tabTitle(frames, 'node-a', 3)).toBe('2 jobs failing · node-a');
    expect(tabTitle([], 'cronstable', 7)).toBe('cronstable');
    expect(FRAME_MS).toBe(4000);
  });
});

describe('trackRunning', () => {
  it('keeps the first-seen time, adds new runs at now, forgets finished ones', () => {
    const first = trackRunning(new Map(), [running('a'), ok('b')], NOW);
    expect([...first]).toEqual([['a', NOW]]);
    const same = trackRunning(first, [running('a')], NOW + 5000);
    expect(same).toBe(first);
    const next = trackRunning(first, [running('c'), running('a')], NOW + 9000);
    expect(next.get('a')).toBe(NOW);
    expect(next.get('c')).toBe(NOW + 9000);
    expect([...trackRunning(next, [ok('a')], NOW + 10_000)]).toEqual([]);
  });
});

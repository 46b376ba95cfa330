// Dashboard text and data helpers: countdowns, ages, durations, timestamps, sparkline, status, filter/sort,
// the SSE parser, ANSI colours and log search.
import { describe, expect, it } from 'vitest';
import { parseAnsi, stripAnsi } from '../../src/dashboard/ansi.ts';
import { compileJob, frameOf } from '../../src/dashboard/engine.ts';
import {
  formatAge,
  formatCountdown,
  formatDuration,
  formatUtcClock,
  parseIso,
} from '../../src/dashboard/format.ts';
import { compileSearch } from '../../src/dashboard/logsearch.ts';
import { sparkline } from '../../src/dashboard/sparkline.ts';
import { decodeLogLine, SseParser } from '../../src/dashboard/sse.ts';
import { failureBanner, jobStatus, summarize } from '../../src/dashboard/status.ts';
import { filterRows, sortRows, toRows } from '../../src/dashboard/table.ts';
import type { ApiHistoryEntry, ApiRun } from '../../src/dashboard/types.ts';
import { apiJob } from '../helpers/api-job.ts';

describe('countdown formatting', () => {
  it('shows seconds in the last minute, rounded up, and "<1s" under a second (spec 08 Q23), never 0s', () => {
    expect(formatCountdown(0)).toBe('due');
    expect(formatCountdown(-5)).toBe('due');
    expect(formatCountdown(1)).toBe('<1s');
    expect(formatCountdown(999)).toBe('<1s');
    expect(formatCountdown(1000)).toBe('1s');
    expect(formatCountdown(1001)).toBe('2s');
    expect(formatCountdown(26_000)).toBe('26s');
    expect(formatCountdown(59_000)).toBe('59s');
  });

  it('is coarse for minute-level jobs: minutes, hours under 48 h, then days', () => {
    expect(formatCountdown(59_001)).toBe('1m');
    expect(formatCountdown(38 * 60_000)).toBe('38m');
    expect(formatCountdown(90 * 60_000)).toBe('1h');
    expect(formatCountdown(47 * 3_600_000)).toBe('47h');
    expect(formatCountdown(535 * 86_400_000)).toBe('535d');
  });

  it('keeps second resolution at every scale for second-level jobs', () => {
    expect(formatCountdown(1_400, true)).toBe('2s');
    expect(formatCountdown(65_000, true)).toBe('1m 05s');
    expect(formatCountdown(3_600_000, true)).toBe('1h 00m');
    expect(formatCountdown(3 * 86_400_000 + 3_600_000, true)).toBe('3d 1h');
  });
});

describe('ages, durations, timestamps', () => {
  it('formats relative ages', () => {
    expect(formatAge(400)).toBe('just now');
    expect(formatAge(56_000)).toBe('56s ago');
    expect(formatAge(3_700_000)).toBe('1h ago');
    expect(formatAge(3 * 86_400_000)).toBe('3d ago');
  });

  it('formats run durations with sensible precision', () => {
    expect(formatDuration(0.418)).toBe('418ms');
    expect(formatDuration(2.321)).toBe('2.32s');
    expect(formatDuration(29.04)).toBe('29.0s');
    expect(formatDuration(252)).toBe('4m 12s');
    expect(formatDuration(4800)).toBe('1h 20m');
    expect(formatDuration(null)).toBe('—');
  });

  it('parses API timestamps with microseconds and offsets', () => {
    expect(parseIso('2026-07-05T09:00:01.123456+00:00')).toBe(Date.UTC(2026, 6, 5, 9, 0, 1, 123));
    expect(parseIso('2026-07-05T09:00:02.5+00:00')).toBe(Date.UTC(2026, 6, 5, 9, 0, 2, 500));
    expect(parseIso('2026-07-05T11:00:00+02:00')).toBe(Date.UTC(2026, 6, 5, 9));
    expect(parseIso('2026-07-05T09:00:00Z')).toBe(Date.UTC(2026, 6, 5, 9));
    expect(parseIso(null)).toBeNull();
    expect(parseIso('yesterday')).toBeNull();
    expect(formatUtcClock(Date.UTC(2026, 6, 5, 3, 21, 25))).toBe('03:21:25');
  });
});

describe('sparkline data', () => {
  const h = (outcome: ApiHistoryEntry['outcome'], duration: number | null): ApiHistoryEntry => ({
    outcome,
    duration,
  });

  it('draws one bar per run, newest at the right edge, height proportional to duration', () => {
    const s = sparkline([h('success', 1), h('failure', 4), h('success', 2)], 60, 20, 20);
    expect(s.bars.map((b) => b.outcome)).toEqual(['success', 'failure', 'success']);
    expect(s.bars.map((b) => b.height)).toEqual([5, 20, 10]);
    expect(s.bars.map((b) => b.y)).toEqual([15, 0, 10]);
    expect(s.bars.map((b) => b.x)).toEqual([51, 54, 57]);
    expect(s.bars[2]!.x + 3).toBe(60);
    expect(s.label).toBe('3 runs: 2 ok, 1 failed; slowest 4.00s');
  });

  it('keeps at most the last 20 runs and a visible minimum bar', () => {
    const runs = Array.from({ length: 25 }, (_, i) =>
      h(i === 24 ? 'cancelled' : 'success', i === 0 ? null : i),
    );
    const s = sparkline(runs, 80, 18);
    expect(s.bars.length).toBe(20);
    expect(s.bars[19]!.outcome).toBe('cancelled');
    expect(Math.min(...s.bars.map((b) => b.height))).toBeGreaterThanOrEqual(2);
    expect(sparkline([h('unknown', null)], 80, 18).bars[0]!.height).toBe(2);
    expect(sparkline([], 80, 18)).toEqual({ bars: [], label: 'no runs yet' });
  });
});

function run(
  outcome: ApiRun['outcome'],
  finished: string,
  exit: number | null = 0,
  reason: string | null = null,
): ApiRun {
  return {
    outcome,
    exit_code: exit,
    started_at: null,
    finished_at: finished,
    duration: 1,
    fail_reason: reason,
    resources: null,
  };
}

describe('status, summary and failure banner', () => {
  it('derives the badge in the documented order', () => {
    expect(jobStatus(apiJob('a', { enabled: false, running: true }))).toBe('disabled');
    expect(
      jobStatus(apiJob('a', { running: true, last_run: run('failure', '2026-07-05T09:00:00Z', 1) })),
    ).toBe('running');
    expect(jobStatus(apiJob('a', { last_run: run('failure', '2026-07-05T09:00:00Z', 1) }))).toBe('failed');
    expect(jobStatus(apiJob('a', { last_run: run('cancelled', '2026-07-05T09:00:00Z') }))).toBe('cancelled');
    expect(jobStatus(apiJob('a', { last_run: run('unknown', '2026-07-05T09:00:00Z') }))).toBe('unknown');
    expect(jobStatus(apiJob('a', { last_run: run('success', '2026-07-05T09:00:00Z') }))).toBe('ok');
    expect(jobStatus(apiJob('a'))).toBe('pending');
  });

  it('counts running, failing, scheduled, disabled and paused jobs', () => {
    const jobs = [
      apiJob('r', { running: true, scheduled_in: null }),
      apiJob('f', { last_run: run('failure', '2026-07-05T09:00:00Z', 2) }),
      apiJob('ok'),
      apiJob('off', { enabled: false, scheduled_in: null }),
      apiJob('boot', { schedule: '@reboot', scheduled_in: null }),
      apiJob('held', {
        scheduled_in: 60,
        paused: {
          since: '2026-07-05T09:00:00Z',
          until: '2026-07-05T10:00:00Z',
          by: 'api',
          note: '',
          channel: 'api',
        },
      }),
    ];
    expect(summarize(jobs)).toEqual({
      total: 6,
      running: 1,
      failing: 1,
      scheduled: 4,
      disabled: 1,
      paused: 1,
    });
  });

  it('calls one failure a failing job and several a fleet event, correlated within 60 s', () => {
    const one = failureBanner([
      apiJob('a', { last_run: run('failure', '2026-07-05T09:15:01Z', 69, 'exit code 69') }),
    ]);
    expect(one?.kind).toBe('single');
    const same = failureBanner([
      apiJob('db-health-orders', { last_run: run('failure', '2026-07-05T09:15:01Z', 69, 'exit code 69') }),
      apiJob('db-health-payments', { last_run: run('failure', '2026-07-05T09:15:40Z', 69, 'exit code 69') }),
      apiJob('fine', { last_run: run('success', '2026-07-05T09:15:40Z') }),
    ]);
    expect(same).toMatchObject({ kind: 'fleet', correlated: true, signature: 'exit 69' });
    expect(same!.jobs.map((j) => j.name)).toEqual(['db-health-payments', 'db-health-orders']);
    const apart = failureBanner([
      apiJob('a', { last_run: run('failure', '2026-07-05T09:15:01Z', 69, 'exit code 69') }),
      apiJob('b', { last_run: run('failure', '2026-07-05T09:17:01Z', 69, 'exit code 69') }),
    ]);
    expect(apart?.correlated).toBe(false);
    expect(failureBanner([apiJob('a')])).toBeNull();
  });
});

describe('table filter and sort', () => {
  const jobs = [
    apiJob('zeta', { last_run: run('success', '2026-07-05T09:00:00Z'), scheduled_in: 30 }),
    apiJob('alpha', { running: true, scheduled_in: null }),
    apiJob('mid', {
      last_run: run('failure', '2026-07-05T09:10:00Z', 1),
      scheduled_in: 5,
      command: 'backup --all',
    }),
    apiJob('off', { enabled: false, scheduled_in: null }),
  ];
  const rows = toRows(jobs, 1_000_000);

  it('filters by text (name, command, schedule) and status segment', () => {
    expect(filterRows(rows, 'BACKUP', 'all').map((r) => r.job.name)).toEqual(['mid']);
    expect(filterRows(rows, '', 'fail').map((r) => r.job.name)).toEqual(['mid']);
    expect(filterRows(rows, '', 'off').map((r) => r.job.name)).toEqual(['off']);
    expect(filterRows(rows, '*/5', 'run').map((r) => r.job.name)).toEqual(['alpha']);
  });

  it('sorts by status rank, name, next fire (nulls last) and last run (newest first)', () => {
    expect(sortRows(rows, 'status', false).map((r) => r.job.name)).toEqual(['alpha', 'mid', 'zeta', 'off']);
    expect(sortRows(rows, 'name', true).map((r) => r.job.name)).toEqual(['zeta', 'off', 'mid', 'alpha']);
    expect(sortRows(rows, 'next', false).map((r) => r.job.name)).toEqual(['mid', 'zeta', 'alpha', 'off']);
    expect(sortRows(rows, 'last', false).map((r) => r.job.name)).toEqual(['mid', 'zeta', 'alpha', 'off']);
    expect(rows[2]!.nextAt).toBe(1_005_000);
  });
});

describe('engine frames', () => {
  it('maps the API timezone field to a frame', () => {
    expect(frameOf({ timezone: 'UTC', utc: true }).label).toBe('UTC');
    expect(frameOf({ timezone: 'Europe/London', utc: true }).frame).toEqual({
      kind: 'zone',
      zone: 'Europe/London',
    });
    expect(frameOf({ timezone: null, utc: false }).label).toMatch(/^daemon local/);
    expect(frameOf({ timezone: 'Not/AZone', utc: true }).label).toMatch(/unknown here/);
  });

  it('describes schedules, resolves H with the job name and flags second-level jobs', () => {
    const pulse = compileJob({ name: 'pulse', schedule: '*/2 * * * * * *', timezone: 'UTC', utc: true });
    expect(pulse.hasSeconds).toBe(true);
    expect(pulse.description).toBe('Every 2 seconds');
    const hashed = compileJob({ name: 'h', schedule: 'H 3 * * *', timezone: 'UTC', utc: true });
    const resolved = compileJob({
      name: 'h',
      schedule: 'H 3 * * *',
      schedule_resolved: '17 3 * * *',
      timezone: 'UTC',
      utc: true,
    });
    expect(hashed.sched?.resolved).toMatch(/^\d+ 3 \* \* \*$/);
    expect(resolved.description).toBe('At 03:17');
    expect(compileJob({ name: 'b', schedule: '@reboot', timezone: 'UTC', utc: true }).reboot).toBe(true);
    expect(compileJob({ name: 'x', schedule: '61 * * * *', timezone: 'UTC', utc: true }).error).toBeTruthy();
  });
});

describe('log stream parsing', () => {
  it('parses SSE split across chunks, with CRLF, comments and multi-line data', () => {
    const p = new SseParser();
    const events = [
      ...p.push('event: line\ndata: {"stream":"stdout","line":"he'),
      ...p.push('llo"}\n\n: ping\n\nevent: line\r'),
      ...p.push('\ndata: {"stream":"stderr","line":"oops"}\r\n\r\n'),
      ...p.push('data: a\ndata: b\n\nevent: end\ndata: {}\n\n'),
    ];
    expect(events).toEqual([
      { event: 'line', data: '{"stream":"stdout","line":"hello"}' },
      { event: 'line', data: '{"stream":"stderr","line":"oops"}' },
      { event: 'message', data: 'a\nb' },
      { event: 'end', data: '{}' },
    ]);
    expect(decodeLogLine(events[1]!.data)).toEqual({ stream: 'stderr', text: 'oops' });
    expect(decodeLogLine('nope')).toBeNull();
  });

  it('turns ANSI colours into spans and strips other escapes', () => {
    expect(parseAnsi('\u001b[32mINFO\u001b[0m done')).toEqual([
      { text: 'INFO', fg: 2, bold: false, dim: false },
      { text: ' done', fg: -1, bold: false, dim: false },
    ]);
    expect(parseAnsi('\u001b[1;91mERR\u001b[22m x', true)[0]).toEqual({
      text: 'ERR',
      fg: 9,
      bold: true,
      dim: false,
    });
    expect(parseAnsi('\u001b[31mred\u001b[0m', false)).toEqual([
      { text: 'red', fg: -1, bold: false, dim: false },
    ]);
    expect(stripAnsi('a\u001b[2Kb\u001b[33mc')).toBe('abc');
  });

  it('searches plain (case-insensitive) or by regular expression', () => {
    expect(compileSearch('rows', false).ranges('500 Rows, 2 rows')).toEqual([
      [4, 8],
      [12, 16],
    ]);
    expect(compileSearch('r[o]ws?', true).ranges('rows row')).toEqual([
      [0, 4],
      [5, 8],
    ]);
    expect(compileSearch('(', true).error).toBeTruthy();
    expect(compileSearch('', false).ranges('x')).toEqual([]);
  });
});

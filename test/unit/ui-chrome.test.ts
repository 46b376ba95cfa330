// The dashboard chrome's pure parts: optional columns, the extra sort keys, the palette's registry and fuzzy
// ranking, the theme cycle and the new-failure detector behind desktop notifications.
import { describe, expect, it } from 'vitest';
import {
  formatColumns,
  formatRate,
  formatWallClock,
  parseColumns,
  successRate,
  toggleColumn,
  tzLabel,
} from '../../src/dashboard/columns.ts';
import { type Command, CommandRegistry, fuzzyScore, rankCommands } from '../../src/dashboard/commands.ts';
import { appendLines, chunkLines, EMPTY_LOG, type LogBuffer } from '../../src/dashboard/logchunks.ts';
import {
  cycleTheme,
  failureNotice,
  flipLightDark,
  isDark,
  newFailures,
  resolveTheme,
  THEME_LABEL,
  THEMES,
} from '../../src/dashboard/settings.ts';
import { SHORTCUTS } from '../../src/dashboard/shortcuts.ts';
import { sortRows, toRows } from '../../src/dashboard/table.ts';
import type { ApiJob, ApiRun } from '../../src/dashboard/types.ts';
import { apiJob } from '../helpers/api-job.ts';

const job = (name: string, over: Partial<ApiJob> = {}): ApiJob =>
  apiJob(name, { schedule: '0 * * * *', command: `run-${name}`, ...over });

function run(outcome: ApiRun['outcome'], finished: string, exit: number | null = 1): ApiRun {
  return {
    outcome,
    exit_code: exit,
    started_at: null,
    finished_at: finished,
    duration: 1,
    fail_reason: exit === null ? null : `exit code ${exit}`,
    resources: null,
  };
}

describe('optional columns', () => {
  it('parses and formats the stored choice in the canonical order, dropping unknown names', () => {
    expect(parseColumns('rate,bogus,tz')).toEqual(['tz', 'rate']);
    expect(parseColumns('')).toEqual([]);
    expect(parseColumns(null)).toEqual([]);
    expect(formatColumns(['rate', 'policy'])).toBe('policy,rate');
    expect(toggleColumn(['tz'], 'policy')).toEqual(['policy', 'tz']);
    expect(toggleColumn(['policy', 'tz'], 'policy')).toEqual(['tz']);
  });

  it('labels the zone UTC, IANA or local', () => {
    expect(tzLabel({ utc: true, timezone: 'UTC' })).toBe('UTC');
    expect(tzLabel({ utc: false, timezone: 'America/New_York' })).toBe('America/New_York');
    expect(tzLabel({ utc: false, timezone: null })).toBe('local');
  });

  it('computes the success rate of the history', () => {
    expect(successRate([])).toBeNull();
    const h = [
      { outcome: 'success' as const, duration: 1 },
      { outcome: 'failure' as const, duration: 1 },
      { outcome: 'success' as const, duration: 1 },
      { outcome: 'cancelled' as const, duration: 1 },
    ];
    expect(successRate(h)).toBe(0.5);
    expect(formatRate(0.5)).toBe('50%');
    expect(formatRate(null)).toBe('—');
  });

  it('shows the next fire on the wall clock, with the date when it is not today', () => {
    const now = Date.UTC(2026, 6, 5, 9, 0, 0);
    expect(formatWallClock(Date.UTC(2026, 6, 5, 9, 30, 15), now, false, 'UTC')).toBe('09:30');
    expect(formatWallClock(Date.UTC(2026, 6, 5, 9, 30, 15), now, true, 'UTC')).toBe('09:30:15');
    expect(formatWallClock(Date.UTC(2026, 6, 6, 1, 5), now, false, 'UTC')).toBe('06 Jul 01:05');
    // 23:30 UTC is already tomorrow in Berlin
    expect(formatWallClock(Date.UTC(2026, 6, 5, 23, 30), now, false, 'Europe/Berlin')).toBe('06 Jul 01:30');
  });
});

describe('sorting by every column', () => {
  const jobs = [
    job('b', { clusterPolicy: 'Leader', timezone: 'Europe/Berlin', utc: false, scheduled_in: 30 }),
    job('a', { scheduled_in: 300, history: [{ outcome: 'failure', duration: 1 }] }),
    job('c', {
      clusterPolicy: 'EveryNode',
      timezone: null,
      utc: false,
      scheduled_in: null,
      history: [{ outcome: 'success', duration: 1 }],
    }),
  ];
  const rows = toRows(jobs, 0);
  const names = (key: Parameters<typeof sortRows>[1], desc = false): string[] =>
    sortRows(rows, key, desc).map((r) => r.job.name);

  it('sorts by policy, zone, next-at and rate, with the empties last both ways', () => {
    expect(names('policy')).toEqual(['c', 'b', 'a']);
    expect(names('policy', true)).toEqual(['b', 'c', 'a']);
    expect(names('tz')).toEqual(['b', 'a', 'c']);
    expect(names('nextat')).toEqual(['b', 'a', 'c']);
    expect(names('nextat', true)).toEqual(['a', 'b', 'c']);
    expect(names('rate')).toEqual(['a', 'c', 'b']);
    expect(names('rate', true)).toEqual(['c', 'a', 'b']);
    expect(names('name', true)).toEqual(['c', 'b', 'a']);
  });
});

describe('command palette', () => {
  const noop = (): void => {};
  const c = (id: string, title: string, keywords?: string): Command => ({ id, title, keywords, run: noop });

  it('scores subsequences, prefers word starts and contiguous runs, rejects misses', () => {
    expect(fuzzyScore('wk', 'Show the week calendar')).not.toBeNull();
    expect(fuzzyScore('xyz', 'Show the week calendar')).toBeNull();
    expect(fuzzyScore('', 'anything')).toBe(0);
    expect(fuzzyScore('week', 'Show the week calendar')!).toBeGreaterThan(
      fuzzyScore('week', 'we ekly k')! ?? Number.NEGATIVE_INFINITY,
    );
    expect(fuzzyScore('hr', 'hourly-rollup')!).toBeGreaterThan(fuzzyScore('hr', 'cache-warmer')!);
  });

  it('ranks the best match first and searches keywords too', () => {
    const all = [
      c('job.open:hourly-cache-warm', 'hourly-cache-warm'),
      c('job.open:hourly-rollup', 'hourly-rollup'),
      c('view.week', 'Show the week calendar', 'calendar 7 days'),
      c('app.settings', 'Open settings', 'preferences'),
    ];
    expect(rankCommands(all, 'rollup')[0]!.id).toBe('job.open:hourly-rollup');
    expect(rankCommands(all, 'prefs')[0]!.id).toBe('app.settings');
    expect(rankCommands(all, '')).toHaveLength(4);
    expect(rankCommands(all, 'zzz')).toEqual([]);
  });

  it('collects actions from every registered source, later ids replacing earlier ones', () => {
    const reg = new CommandRegistry();
    const off = reg.register('a', () => [c('x', 'first'), c('y', 'why')]);
    reg.register('b', () => [c('x', 'second')]);
    expect(reg.all().map((k) => k.title)).toEqual(['second', 'why']);
    const rev = reg.revision;
    off();
    expect(reg.revision).toBe(rev + 1);
    expect(reg.all().map((k) => k.id)).toEqual(['x']);
  });
});

describe('settings', () => {
  it('cycles through every theme and flips light/dark at the same contrast', () => {
    let t: (typeof THEMES)[number] = THEMES[0];
    const seen = new Set<string>();
    for (let i = 0; i < THEMES.length; i++) {
      seen.add(t);
      t = cycleTheme(t);
    }
    expect(seen.size).toBe(THEMES.length);
    expect(t).toBe(THEMES[0]);
    expect(flipLightDark('hc-light')).toBe('hc-dark');
    expect(flipLightDark('dark')).toBe('light');
    expect(flipLightDark('standard')).toBe('standard-light');
    expect(flipLightDark('standard-light')).toBe('standard');
    expect(resolveTheme('hc-light', true)).toBe('hc-light');
  });

  it('standard is the default (spec 10 §5.3): first in the cycle, what a new visitor gets', () => {
    expect(THEMES.slice(0, 2)).toEqual(['standard', 'standard-light']);
    expect(cycleTheme('standard')).toBe('standard-light');
    expect(cycleTheme('hc-dark')).toBe('standard');
    expect(resolveTheme('auto', true)).toBe('standard');
    expect(resolveTheme('auto', false)).toBe('standard-light');
    expect(isDark('standard')).toBe(true);
    expect(isDark('standard-light')).toBe(false);
    expect(THEME_LABEL.standard).toBe('standard');
  });

  it('reports only failures that are new since the previous answer', () => {
    const before = [
      job('a', { last_run: run('failure', 't1') }),
      job('b', { last_run: run('success', 't1', 0) }),
    ];
    expect(newFailures(null, before)).toEqual([]);
    const after = [
      job('a', { last_run: run('failure', 't1') }),
      job('b', { last_run: run('failure', 't2', 3) }),
      job('new', { last_run: run('failure', 't2') }),
    ];
    expect(newFailures(before, after).map((j) => j.name)).toEqual(['b']);
    const again = [job('a', { last_run: run('failure', 't3') }), after[1]!];
    expect(newFailures(after, again).map((j) => j.name)).toEqual(['a']);
    expect(failureNotice(newFailures(before, after))).toEqual({
      title: 'cronstable: b failed',
      body: 'exit 3',
    });
    const many = ['p', 'q', 'r', 's', 't'].map((n) => job(n, { last_run: run('failure', 'x') }));
    expect(failureNotice(many)!.body).toBe('p, q, r, s and 1 more');
    expect(failureNotice([])).toBeNull();
  });

  it('lists the palette keys in the shortcuts sheet', () => {
    const keys = SHORTCUTS.flatMap((s) => s.keys.flatMap((k) => k.keys));
    for (const k of ['Ctrl K', '⌘ K', 'Ctrl P', '?', '/', 't', 'T', 'c']) expect(keys).toContain(k);
  });
});

describe('log chunks', () => {
  it('appends into the last chunk, keeps earlier chunks as they are, and drops whole chunks past the limit', () => {
    let buf: LogBuffer<number> = EMPTY_LOG;
    buf = appendLines(buf, [1, 2, 3], 10, 4);
    expect(buf.chunks.map((c) => c.lines)).toEqual([[1, 2, 3]]);
    const first = appendLines(buf, [4, 5], 10, 4);
    expect(first.chunks.map((c) => c.lines)).toEqual([[1, 2, 3, 4], [5]]);
    const next = appendLines(first, [6], 10, 4);
    expect(next.chunks[0]).toBe(first.chunks[0]);
    expect(next.chunks[1]!.id).toBe(first.chunks[1]!.id);
    let big = next;
    for (let n = 7; n <= 30; n++) big = appendLines(big, [n], 10, 4);
    const all = chunkLines(big);
    expect(all.at(-1)).toBe(30);
    expect(all.length).toBeGreaterThanOrEqual(10);
    expect(all.length).toBeLessThan(14);
    expect(big.total).toBe(all.length);
    expect(all).toEqual(Array.from({ length: all.length }, (_, i) => 31 - all.length + i));
    expect(appendLines(big, [], 10, 4)).toBe(big);
    // a replay larger than the limit keeps the newest lines
    const replay = appendLines(
      EMPTY_LOG as LogBuffer<number>,
      Array.from({ length: 50 }, (_, i) => i),
      10,
      4,
    );
    expect(chunkLines(replay).at(-1)).toBe(49);
    expect(replay.total).toBeLessThan(14);
  });
});

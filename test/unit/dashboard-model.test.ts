// The shared dashboard model's newer pieces (src/dashboard): health, the connection state, the board's time
// cells, sparkline cells, the palette's command lists and the job-set id helpers. The web dashboard's current
// behaviour is the reference; the terminal dashboard renders the same values.
import { describe, expect, it } from 'vitest';
import { lastCell, nextCell, rollNextFire, tookText } from '../../src/dashboard/board.ts';
import { hasFleetView, roleLabel } from '../../src/dashboard/cluster.ts';
import { rateTone } from '../../src/dashboard/columns.ts';
import { CONNECTION_TEXT, connectionState, isStale, liveForMs } from '../../src/dashboard/connection.ts';
import { formatLocalStamp, parseJobSetId, shortJobSetId } from '../../src/dashboard/format.ts';
import {
  health,
  healthOf,
  inSegment,
  nextSegment,
  type SEGMENTS,
  STATUS_ASCII,
  STATUS_GLYPH,
} from '../../src/dashboard/health.ts';
import { bucketSpanText } from '../../src/dashboard/heat.ts';
import { type CoreContext, coreCommands, jobCommands, viewCommands } from '../../src/dashboard/palette.ts';
import { formatPercentValue } from '../../src/dashboard/resources.ts';
import { formatRoute, parseRoute } from '../../src/dashboard/route.ts';
import { SPARK_BLOCKS, sparkCells } from '../../src/dashboard/sparkline.ts';
import { bannerText, failureBanner, type JobStatus, STATUS_RANK } from '../../src/dashboard/status.ts';
import { filterRows, sortRows, toRows } from '../../src/dashboard/table.ts';
import type { ApiCluster, ApiHistoryEntry, ApiRun, Outcome } from '../../src/dashboard/types.ts';
import { TV_RANK } from '../../src/dashboard/wallboard.ts';
import { apiJob } from '../helpers/api-job.ts';

const T0 = Date.parse('2026-07-05T09:00:00Z');

function run(outcome: Outcome, finishedAt: string, exit: number | null = null, duration = 1.5): ApiRun {
  return {
    outcome,
    exit_code: exit,
    started_at: null,
    finished_at: finishedAt,
    duration,
    fail_reason: null,
    resources: null,
  };
}

/** One job of every status, named after it. */
function everyStatus() {
  return [
    apiJob('disabled', { enabled: false }),
    apiJob('running', { running: true }),
    apiJob('failed', { last_run: run('failure', '2026-07-05T08:59:00Z', 2) }),
    apiJob('cancelled', { last_run: run('cancelled', '2026-07-05T08:58:00Z') }),
    apiJob('unknown', { last_run: run('unknown', '2026-07-05T08:57:00Z') }),
    apiJob('ok', { last_run: run('success', '2026-07-05T08:56:00Z', 0) }),
    apiJob('pending'),
  ];
}

describe('health', () => {
  it('derives each status with its glyph (spec 08 §3.1, both faces), an ASCII stand-in, tone and segment', () => {
    const seen = everyStatus().map((j) => {
      const h = health(j);
      return [j.name, h.status, h.label, h.glyph, h.ascii, h.tone, h.segment];
    });
    expect(seen).toEqual([
      ['disabled', 'disabled', 'Disabled', '◌', '-', 'off', 'off'],
      ['running', 'running', 'Running', '▶', '>', 'run', 'run'],
      ['failed', 'failed', 'Failed', '✕', 'x', 'fail', 'fail'],
      ['cancelled', 'cancelled', 'Cancelled', '⊘', '/', 'off', null],
      ['unknown', 'unknown', 'Unknown', '◍', '?', 'pending', null],
      ['ok', 'ok', 'OK', '●', 'o', 'ok', 'ok'],
      ['pending', 'pending', 'Pending', '◔', '.', 'pending', null],
    ]);
  });

  it('a disabled job is disabled even while running or failed', () => {
    expect(health(apiJob('a', { enabled: false, running: true })).status).toBe('disabled');
    expect(
      health(apiJob('a', { running: true, last_run: run('failure', '2026-07-05T08:59:00Z') })).status,
    ).toBe('running');
  });

  it('carries the ranks the table sort and the wallboard use', () => {
    for (const s of Object.keys(STATUS_GLYPH) as JobStatus[]) {
      expect(healthOf(s).sortRank).toBe(STATUS_RANK[s]);
      expect(healthOf(s).tvRank).toBe(TV_RANK[s]);
    }
    // the wallboard puts failures before running jobs, the table the other way round
    expect(healthOf('failed').tvRank).toBeLessThan(healthOf('running').tvRank);
    expect(healthOf('running').sortRank).toBeLessThan(healthOf('failed').sortRank);
  });

  it('has a one-character ASCII glyph for every status, and no two statuses share a glyph', () => {
    for (const g of Object.values(STATUS_ASCII)) expect(g).toMatch(/^[\x21-\x7e]$/);
    // Seven statuses of spec 08, plus Paused and Skipped (spec 10 §1.5).
    expect(new Set(Object.values(STATUS_GLYPH)).size).toBe(9);
    expect(new Set(Object.values(STATUS_ASCII)).size).toBe(9);
    expect([STATUS_GLYPH.paused, STATUS_ASCII.paused]).toEqual(['⏸', 'p']);
  });

  it('segments filter the table exactly as the status table says', () => {
    const rows = toRows(everyStatus(), T0);
    const names = (seg: (typeof SEGMENTS)[number]) => filterRows(rows, '', seg).map((r) => r.job.name);
    expect(names('all')).toHaveLength(7);
    // cancelled, unknown and pending show under `all` only (spec 08 §3.1)
    expect(names('ok')).toEqual(['ok']);
    expect(names('fail')).toEqual(['failed']);
    expect(names('run')).toEqual(['running']);
    expect(names('off')).toEqual(['disabled']);
    for (const r of rows) expect(inSegment(r.status, 'all')).toBe(true);
  });

  it('cycles the segments all → ok → fail → run → off → all', () => {
    const order = ['all'];
    let s = nextSegment('all');
    while (s !== 'all') {
      order.push(s);
      s = nextSegment(s);
    }
    expect(order).toEqual(['all', 'ok', 'fail', 'run', 'off']);
  });

  it('the status sort follows the ranks, ties by name', () => {
    const rows = toRows(
      [...everyStatus(), apiJob('another-ok', { last_run: run('success', '2026-07-05T08:00:00Z') })],
      T0,
    );
    expect(sortRows(rows, 'status', false).map((r) => r.job.name)).toEqual([
      'running',
      'failed',
      'pending',
      'unknown',
      'cancelled',
      'another-ok',
      'ok',
      'disabled',
    ]);
  });
});

describe('verdict bar text', () => {
  const failed = (name: string, at: string, exit: number) =>
    apiJob(name, { last_run: run('failure', at, exit) });

  it('one failing job: its name and signature over the age of the failure', () => {
    const banner = failureBanner([failed('backup', '2026-07-05T08:57:00Z', 3), apiJob('fine')])!;
    expect(bannerText(banner, T0)).toEqual({ head: 'JOB FAILING — backup · exit 3', sub: 'failed 3m ago' });
  });

  it('a fleet event: the count over the correlation verdict and the first three names', () => {
    const banner = failureBanner([
      failed('a', '2026-07-05T08:59:10Z', 69),
      failed('b', '2026-07-05T08:59:20Z', 69),
      failed('c', '2026-07-05T08:59:30Z', 69),
      failed('d', '2026-07-05T08:59:40Z', 69),
    ])!;
    const text = bannerText(banner, T0);
    expect(text.head).toBe('FLEET EVENT — 4 jobs failing');
    expect(text.sub).toMatch(/^shared failure signature \(exit 69\) within 60 s — likely one cause · /);
    expect(text.sub).toMatch(/ and 1 more$/);
  });
});

describe('connection state', () => {
  const at = (over: Partial<Parameters<typeof connectionState>[0]>, now = T0) =>
    connectionState({ locked: false, fetchedAt: T0, failed: false, intervalMs: 3000, ...over }, now);

  it('is connecting, then lost, before the first answer', () => {
    expect(at({ fetchedAt: 0 })).toBe('connecting');
    expect(at({ fetchedAt: 0, failed: true })).toBe('lost');
  });

  it('is live for three intervals plus 2 s, at least 10 s, then stale', () => {
    expect(liveForMs(3000)).toBe(11_000);
    expect(liveForMs(1000)).toBe(10_000);
    expect(liveForMs(10_000)).toBe(32_000);
    expect(at({}, T0 + 11_000)).toBe('live');
    expect(at({}, T0 + 11_001)).toBe('stale');
    expect(at({ intervalMs: 1000 }, T0 + 10_000)).toBe('live');
    expect(at({ intervalMs: 1000 }, T0 + 10_001)).toBe('stale');
  });

  it('reads paused instead of live or stale while refreshing is paused', () => {
    const paused = { intervalMs: Number.POSITIVE_INFINITY };
    expect(at(paused, T0 + 1000)).toBe('paused');
    expect(at(paused, T0 + 86_400_000)).toBe('paused');
    expect(at({ ...paused, failed: true })).toBe('lost');
    expect(at({ ...paused, fetchedAt: 0 })).toBe('connecting');
  });

  it('a failed poll after data is lost; a 401 is locked whatever else holds', () => {
    expect(at({ failed: true })).toBe('lost');
    expect(at({ locked: true, failed: true, fetchedAt: 0 })).toBe('locked');
    expect(CONNECTION_TEXT.lost).toBe('no signal');
  });

  it('is never stale before the first answer', () => {
    expect(isStale(T0 + 60_000, 0, 3000)).toBe(false);
    expect(isStale(T0 + 60_000, T0, 3000)).toBe(true);
  });
});

describe('board cells', () => {
  const row = (over: Parameters<typeof apiJob>[1] = {}) => toRows([apiJob('j', over)], T0)[0]!;

  it('the Next cell: off, running, @reboot, never, none, due, a countdown', () => {
    const r = row();
    expect(nextCell(row({ enabled: false }), T0 + 5000, T0)).toMatchObject({ kind: 'off', text: '—' });
    expect(nextCell(row({ running: true }), T0 + 5000, T0)).toMatchObject({ kind: 'running', text: '—' });
    expect(nextCell(row({ schedule: '@reboot', scheduled_in: null }), null, T0)).toMatchObject({
      kind: 'reboot',
      text: '@reboot',
    });
    expect(nextCell(row({ never_fires: true, scheduled_in: null }), null, T0)).toMatchObject({
      kind: 'never',
      text: 'never',
    });
    expect(nextCell(row({ scheduled_in: null }), null, T0)).toMatchObject({ kind: 'none', text: '—' });
    expect(nextCell(r, T0, T0)).toMatchObject({ kind: 'due', text: 'due' });
    expect(nextCell(r, T0 + 38 * 60_000, T0)).toEqual({ kind: 'countdown', text: 'in 38m', seconds: false });
  });

  it('keeps second resolution for a 7-field schedule', () => {
    const r = row({ schedule: '*/5 * * * * * *' });
    expect(nextCell(r, T0 + 65_000, T0)).toEqual({ kind: 'countdown', text: 'in 1m 05s', seconds: true });
  });

  it('the Last cell: never, or the age of the finish with its exit code', () => {
    expect(lastCell(row(), T0)).toEqual({ text: 'never', exit: null, finishedAt: null });
    const done = row({ last_run: run('failure', '2026-07-05T08:56:00Z', 3) });
    expect(lastCell(done, T0)).toEqual({ text: '4m ago', exit: 3, finishedAt: '2026-07-05T08:56:00Z' });
  });

  it('a success rate is good from 99 %, bad under 80 %, a warning between', () => {
    expect([null, 1, 0.99, 0.98, 0.8, 0.79, 0].map(rateTone)).toEqual([
      '',
      'good',
      'good',
      'warn',
      'warn',
      'bad',
      'bad',
    ]);
  });

  it('the Took cell: the last duration, — without a run', () => {
    expect(tookText(row())).toBe('—');
    expect(tookText(row({ last_run: run('success', '2026-07-05T08:56:00Z', 0, 190) }))).toBe('3m 10s');
  });

  it('rolls a passed next fire forward with the engine and remembers it until that passes too', () => {
    const r = row({ schedule: '*/5 * * * *', scheduled_in: 60 });
    const cache = new Map<string, number | null>();
    expect(rollNextFire(r, T0 + 30_000, cache)).toBe(T0 + 60_000);
    expect(cache.size).toBe(0);
    // 09:01 has passed: the next */5 instant after 09:02 is 09:05
    expect(rollNextFire(r, T0 + 120_000, cache)).toBe(T0 + 5 * 60_000);
    expect(cache.get('j')).toBe(T0 + 5 * 60_000);
    cache.set('j', T0 + 4 * 60_000); // a remembered answer is used while it is in the future
    expect(rollNextFire(r, T0 + 180_000, cache)).toBe(T0 + 4 * 60_000);
    expect(rollNextFire(r, T0 + 6 * 60_000, cache)).toBe(T0 + 10 * 60_000);
  });

  it('does not roll a disabled or running job', () => {
    const cache = new Map<string, number | null>();
    expect(rollNextFire(row({ enabled: false }), T0 + 120_000, cache)).toBe(T0 + 60_000);
    expect(rollNextFire(row({ running: true }), T0 + 120_000, cache)).toBe(T0 + 60_000);
  });
});

describe('sparkline cells', () => {
  const h = (outcome: Outcome, duration: number | null): ApiHistoryEntry => ({ outcome, duration });

  it('one block per run, oldest left, scaled to the slowest shown', () => {
    const cells = sparkCells([h('success', 1), h('success', 2), h('failure', 4), h('cancelled', 3)], 10);
    expect(cells.map((c) => c.block).join('')).toBe('▃▅█▆');
    expect(cells.map((c) => c.level)).toEqual([2, 4, 7, 5]);
    expect(cells.map((c) => c.tone)).toEqual(['ok', 'ok', 'fail', 'off']);
  });

  it('shows only the last `width` runs and scales to those', () => {
    const history = [h('success', 100), ...Array.from({ length: 10 }, (_, i) => h('success', i + 1))];
    const cells = sparkCells(history, 10);
    expect(cells).toHaveLength(10);
    expect(cells[9]!.level).toBe(7);
    expect(cells[0]!.level).toBe(1);
  });

  it('a run without a duration, or all zero, is the lowest block; unknown runs are pending-coloured', () => {
    expect(sparkCells([h('unknown', null), h('success', 2)], 10).map((c) => [c.block, c.tone])).toEqual([
      ['▁', 'pending'],
      ['█', 'ok'],
    ]);
    expect(sparkCells([h('success', 0), h('success', 0)], 10).map((c) => c.level)).toEqual([0, 0]);
    expect(sparkCells([h('success', 1)], 0)).toEqual([]);
    expect(SPARK_BLOCKS).toHaveLength(8);
  });
});

describe('palette command lists', () => {
  function views(over: Partial<Parameters<typeof viewCommands>[0]> = {}) {
    const calls: string[] = [];
    const list = viewCommands({
      go: (v) => calls.push(`go:${v}`),
      openIncident: (k) => calls.push(`incident:${k}`),
      openSandbox: () => calls.push('sandbox'),
      openNodeHistory: () => calls.push('node'),
      stateEnabled: false,
      dagCount: 0,
      toggleDags: () => calls.push('dags'),
      ...over,
    });
    return { list, calls };
  }

  it('lists the views and tools, the state inspector and DAG toggle only when there is something to show', () => {
    const ids = (l: { id: string }[]) => l.map((c) => c.id);
    expect(ids(views().list)).toEqual([
      'view.radar',
      'view.pressure',
      'view.heat',
      'view.tail',
      'view.tv',
      'incident.timeline',
      'incident.mitigate',
      'incident.run-failing',
      'tool.sandbox',
      'tool.node',
    ]);
    expect(ids(views({ stateEnabled: true, dagCount: 2 }).list).slice(-2)).toEqual([
      'view.state',
      'view.dags',
    ]);
  });

  it('each entry runs its action', () => {
    const { list, calls } = views({ stateEnabled: true, dagCount: 1 });
    for (const c of list) c.run();
    expect(calls).toEqual([
      'go:radar',
      'go:pressure',
      'go:heat',
      'go:tail',
      'go:tv',
      'incident:timeline',
      'incident:mitigate',
      'incident:run-failing',
      'sandbox',
      'node',
      'go:state',
      'dags',
    ]);
    expect(list.find((c) => c.id === 'view.tv')?.hint).toBe('w');
  });

  it('per job: open, history, schedule, then cancel (running) or run (enabled idle), then copy', () => {
    const calls: string[] = [];
    const ctx = {
      open: (n: string, tab: string) => calls.push(`open:${n}:${tab}`),
      run: (n: string) => calls.push(`run:${n}`),
      cancel: (n: string) => calls.push(`cancel:${n}`),
      copy: (j: { name: string }) => calls.push(`copy:${j.name}`),
    };
    const list = jobCommands(
      [apiJob('a', { running: true }), apiJob('b'), apiJob('c', { enabled: false })],
      ctx,
    );
    expect(list.map((c) => c.title)).toEqual([
      'a',
      'a › history',
      'a › schedule',
      'a › cancel',
      'a › copy command',
      'b',
      'b › history',
      'b › schedule',
      'b › run now',
      'b › copy command',
      'c',
      'c › history',
      'c › schedule',
      'c › copy command',
    ]);
    for (const c of list.filter((x) => x.title.startsWith('a'))) c.run();
    expect(calls).toEqual(['open:a:logs', 'open:a:history', 'open:a:schedule', 'cancel:a', 'copy:a']);
  });

  it('the core list offers the fleet view only with a fleet and marks the current sort', () => {
    const noop = () => {};
    const core: CoreContext = {
      view: 'jobs',
      setView: noop,
      hasFleet: false,
      hasCluster: false,
      focusFilter: noop,
      setSegment: noop,
      refreshNow: noop,
      setRefresh: noop,
      sort: { key: 'name', desc: false },
      setSort: noop,
      cols: [],
      toggleCol: noop,
      theme: 'dark',
      setTheme: noop,
      flipTheme: noop,
      cycleTheme: noop,
      density: 'comfortable',
      setDensity: noop,
      motion: 'system',
      setMotion: noop,
      setCvd: noop,
      setScale: noop,
      openSettings: noop,
      openHelp: noop,
      openToken: noop,
      copyJobSetId: noop,
      scrollTo: noop,
    };
    const ids = coreCommands(core).map((c) => c.id);
    expect(ids).not.toContain('view.fleet');
    expect(ids).not.toContain('theme.dark');
    expect(coreCommands({ ...core, hasFleet: true, hasCluster: true }).map((c) => c.id)).toEqual(
      expect.arrayContaining(['view.fleet', 'view.cluster']),
    );
    expect(coreCommands(core).find((c) => c.id === 'table.sort.name')?.title).toBe(
      'Sort by name (now ascending: reverse)',
    );
  });
});

describe('route', () => {
  it('round-trips a job drawer in a view, names percent-encoded', () => {
    const r = { view: 'heat' as const, drawer: { name: 'nightly backup/db', tab: 'history' as const } };
    expect(formatRoute(r)).toBe('#heat/job/nightly%20backup%2Fdb/history');
    expect(parseRoute(formatRoute(r))).toEqual(r);
    expect(parseRoute('#nope/job/x/bogus')).toEqual({ view: 'jobs', drawer: null });
    expect(parseRoute('#job/x/bogus')).toEqual({ view: 'jobs', drawer: { name: 'x', tab: 'logs' } });
  });
});

describe('cluster chips', () => {
  const c = (over: Partial<ApiCluster>): ApiCluster => ({ enabled: true, ...over }) as ApiCluster;

  it('the fleet view exists for an enabled gossip cluster or one that serves /fleet', () => {
    expect(hasFleetView(null)).toBe(false);
    expect(hasFleetView(c({ enabled: false, backend: 'gossip' }))).toBe(false);
    expect(hasFleetView(c({ backend: 'gossip' }))).toBe(true);
    expect(hasFleetView(c({ backend: 'etcd' }))).toBe(false);
    expect(hasFleetView(c({ backend: 'etcd', fleet: true }))).toBe(true);
  });

  it('the header role falls back to lease or observing', () => {
    expect(roleLabel(c({ backend: 'etcd', quorate: true, is_leader: true }))).toBe('leader');
    expect(roleLabel(c({ backend: 'gossip' }))).toBe('observing');
  });
});

describe('job-set id', () => {
  it('shortens to the first 12 hex without the version prefix', () => {
    expect(shortJobSetId('v1:ec249bf0c2d1a7e3f5')).toBe('ec249bf0c2d1');
    expect(shortJobSetId('abc')).toBe('abc');
  });

  it('reads the JSON answer or an older bare one', () => {
    expect(parseJobSetId('{"job_set_id":"v1:abc"}')).toBe('v1:abc');
    expect(parseJobSetId('{}')).toBeNull();
    expect(parseJobSetId('v1:abc\n')).toBe('v1:abc');
    expect(parseJobSetId('  ')).toBeNull();
  });
});

describe('small formatters lifted out of the views', () => {
  it('a heat bucket span in minutes, then hours with at most one decimal', () => {
    expect(bucketSpanText(15 * 60_000)).toBe('15 min');
    expect(bucketSpanText(60 * 60_000)).toBe('1 h');
    expect(bucketSpanText(7 * 3_600_000)).toBe('7 h');
    expect(bucketSpanText(90 * 60_000)).toBe('1.5 h');
  });

  it('a percentage value with one decimal, — when unknown', () => {
    expect(formatPercentValue(12.345)).toBe('12.3%');
    expect(formatPercentValue(0)).toBe('0.0%');
    expect(formatPercentValue(undefined)).toBe('—');
    expect(formatPercentValue(null)).toBe('—');
  });

  it('a local stamp is MM-DD HH:MM in the host zone', () => {
    const d = new Date(2026, 0, 5, 7, 3, 59);
    expect(formatLocalStamp(d.getTime())).toBe('01-05 07:03');
  });
});

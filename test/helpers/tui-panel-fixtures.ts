// Payloads of the routes the TUI's other panels read (spec 05 §11-12, spec 06 §5.6, §5.11), shaped like the
// daemon's answers, for the component tests' fixture daemon: a 3-node gossip cluster and its fleet, an etcd
// lease view, a node history and a schedule analysis.

import { afterAll, afterEach, beforeAll } from 'vitest';
import type { ApiDuplicates, ApiPressure, ApiSuggest } from '../../src/dashboard/pressure.ts';
import type { ApiNodeHistory } from '../../src/dashboard/resources.ts';
import type { ApiCluster, ApiFleet } from '../../src/dashboard/types.ts';
import type { TuiState } from '../../src/tui/app/state.ts';
import { noConflicts } from './no-conflicts.ts';
import { FIXTURE_NOW, FixtureDaemon, fixtureJobs, type Harness, mountTui } from './tui-fixture.ts';

const iso = (offsetS: number) => new Date(FIXTURE_NOW + offsetS * 1000).toISOString();
const SET_ID = 'v1:ec249bf0123456789';
const GIB = 1024 ** 3;

/** A node's shared load: CPU and memory percent of a 4-core, 16 GiB machine. */
const load = (cpu: number, mem: number) => ({
  cpu_percent: cpu,
  cpu_count: 4,
  mem_percent: mem,
  mem_used_bytes: Math.round((mem / 100) * 16 * GIB),
  mem_total_bytes: 16 * GIB,
  proc_rss_bytes: 80 * 1024 * 1024,
  proc_cpu_percent: 0.5,
});

export function gossipCluster(over: Partial<ApiCluster> = {}): ApiCluster {
  return {
    enabled: true,
    backend: 'gossip',
    node_name: 'node-a',
    job_set_id: SET_ID,
    cluster_size: 3,
    quorum: 2,
    elect_leader: true,
    distribution: 'spread',
    ...noConflicts(),
    quorate: true,
    leader: null,
    is_leader: false,
    node_stats: load(29, 2.3),
    peers: [
      {
        host: '127.0.0.12:7946',
        status: 'agreed',
        node_name: 'node-b',
        job_set_id: SET_ID,
        last_seen: iso(-1),
        last_error: null,
        mismatch_streak: 0,
        node_stats: load(12, 40),
      },
      {
        host: '127.0.0.13:7946',
        status: 'unreachable',
        node_name: 'node-c',
        job_set_id: 'v1:0000000000ff',
        last_seen: iso(-95),
        last_error: 'connect ECONNREFUSED 127.0.0.13:7946',
        mismatch_streak: 0,
        node_stats: null,
      },
    ],
    ...over,
  };
}

export function etcdCluster(): ApiCluster {
  return {
    enabled: true,
    backend: 'etcd',
    node_name: 'node-a',
    job_set_id: SET_ID,
    cluster_size: 1,
    quorum: 1,
    elect_leader: true,
    distribution: 'single-leader',
    ...noConflicts(),
    quorate: true,
    leader: 'node-a',
    is_leader: true,
    peers: [],
    node_stats: load(29, 2.3),
    lease: {
      electionName: 'cronstable-leader',
      identity: 'node-a',
      holder: 'node-a',
      leaseId: 7587869,
      expiry: iso(10),
    },
  };
}

const summary = (outcome: string | null, agoS = 60, running = false, enabled = true) => ({
  running,
  enabled,
  scheduled_in: 30,
  last:
    outcome === null
      ? null
      : { outcome, finished_at: iso(-agoS), duration: 0.2, exit_code: outcome === 'failure' ? 3 : 0 },
});

export function fleet(): ApiFleet {
  return {
    enabled: true,
    backend: 'gossip',
    node_name: 'node-a',
    distribution: 'spread',
    elect_leader: true,
    interval: 1,
    nodes: [
      {
        node_name: 'node-a',
        host: '127.0.0.11:7946',
        self: true,
        status: 'self',
        as_of: iso(0),
        truncated: false,
        node_stats: load(29, 2.3),
        jobs: {
          'orders-ingest': summary('success', 120),
          'daily-reconcile': summary('failure', 300),
          'audit-ship': summary(null, 0, true),
        },
      },
      {
        node_name: 'node-b',
        host: '127.0.0.12:7946',
        self: false,
        status: 'agreed',
        as_of: iso(-1),
        truncated: false,
        node_stats: load(12, 40),
        jobs: { 'orders-ingest': summary('success', 60), 'daily-reconcile': summary('success', 240) },
      },
      {
        node_name: 'node-c',
        host: '127.0.0.13:7946',
        self: false,
        status: 'unreachable',
        as_of: null,
        truncated: false,
        node_stats: null,
        jobs: null,
      },
    ],
  };
}

export function nodeHistory(points = 40): ApiNodeHistory {
  const t0 = FIXTURE_NOW / 1000 - points * 5;
  return {
    node_name: 'n1',
    enabled: true,
    interval: 5,
    points: Array.from({ length: points }, (_, i) => [t0 + i * 5, (i * 7) % 100, 30 + (i % 5)]),
  };
}

/** A small next-24h analysis: two jobs at :00, one at :30 in hour 3, and so on. */
export function pressure(): ApiPressure {
  const grid = Array.from({ length: 24 }, () => new Array<number>(60).fill(0));
  for (let h = 0; h < 24; h++) grid[h]![0] = 2;
  grid[3]![0] = 6;
  grid[3]![30] = 1;
  const byMinuteFires = new Array<number>(60).fill(0);
  const byMinuteJobs = new Array<number>(60).fill(0);
  const byHour = new Array<number>(24).fill(0);
  let total = 0;
  for (const [h, row] of grid.entries())
    for (const [m, f] of row.entries()) {
      byMinuteFires[m]! += f;
      byHour[h]! += f;
      total += f;
    }
  byMinuteJobs[0] = 4;
  byMinuteJobs[30] = 1;
  return {
    start: iso(0),
    hours: 24,
    timezone: 'UTC',
    jobs: 5,
    total_fires: total,
    grid,
    by_minute_fires: byMinuteFires,
    by_minute_jobs: byMinuteJobs,
    by_hour: byHour,
    busiest_minute: { minute: 0, jobs: 4, fires: byMinuteFires[0]! },
    empty_minutes: byMinuteFires.flatMap((f, m) => (f === 0 ? [m] : [])),
    top_cells: [{ hour: 3, minute: 0, fires: 6, jobs: ['nightly-backup', 'orders-ingest', 'report-daily'] }],
    excluded: { disabled: 1, reboot: 0 },
  };
}

export function duplicates(): ApiDuplicates {
  return {
    jobs: 5,
    groups: [
      {
        expression: '0 * * * *',
        description: 'every hour',
        timezone: 'UTC',
        count: 2,
        jobs: ['orders-ingest', 'report-hourly'],
      },
    ],
  };
}

export function suggestion(period: 'hourly' | 'daily'): ApiSuggest {
  const hourly = period === 'hourly';
  return {
    period,
    timezone: 'UTC',
    based_on: { jobs: 5, start: iso(0), hours: 24 },
    minute: 17,
    ...(hourly ? {} : { hour: 4 }),
    expression: hourly ? '17 * * * *' : '17 4 * * *',
    fires_in_window: 0,
    busiest: null,
    alternatives: [{ minute: 18, expression: hourly ? '18 * * * *' : '18 4 * * *', fires_in_window: 0 }],
    hash_hint: hourly
      ? "or write 'H * * * *' to let cronstable pick a stable minute from the job's name"
      : "or write 'H H * * *' to let cronstable pick a stable time from the job's name",
  };
}

/** The schedule analysis routes, for `FixtureDaemon.routes`. */
export function scheduleRoutes(): Record<string, unknown> {
  return {
    '/schedule/pressure': pressure(),
    '/schedule/duplicates': duplicates(),
    '/schedule/suggest?period=hourly': suggestion('hourly'),
    '/schedule/suggest?period=daily': suggestion('daily'),
  };
}

/** The rows of the open panel(s) only (the board beside or behind them has no `│`). */
export function panelText(h: Harness): string {
  return h
    .text()
    .split('\n')
    .filter((l) => l.includes('│'))
    .join('\n');
}

/** Waits until the panel text passes `test` (fetches on a loaded machine take a while); returns it. */
export async function waitPanel(
  h: Harness,
  test: string | ((t: string) => boolean),
  ms = 10_000,
): Promise<string> {
  const ok = typeof test === 'string' ? (t: string) => t.includes(test) : test;
  const end = Date.now() + ms;
  let t = panelText(h);
  while (!ok(t) && Date.now() < end) {
    await h.settle(50);
    t = panelText(h);
  }
  if (!ok(t)) throw new Error(`timed out waiting for ${String(test)}; panel:\n${t}`);
  return t;
}

/**
 * One fixture daemon for a test file (started before, stopped after) and `mount`, whose harnesses are closed
 * after each test; the daemon's jobs and extra routes go back to the fixture's after each test too.
 */
export function panelSuite(): { daemon: FixtureDaemon; mount(over?: Partial<TuiState>): Harness } {
  const daemon = new FixtureDaemon();
  const open: Harness[] = [];
  beforeAll(() => daemon.start());
  afterAll(() => daemon.stop());
  afterEach(() => {
    for (const h of open.splice(0)) h.close();
    daemon.routes = {};
    daemon.jobs = fixtureJobs();
  });
  return {
    daemon,
    mount(over = {}) {
      const h = mountTui(daemon, over);
      open.push(h);
      return h;
    },
  };
}

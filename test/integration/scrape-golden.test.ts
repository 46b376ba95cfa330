// Golden scrapes (issue 23): the grand tour's job set on one node (meridian-a), a fixed clock, a fixed
// history of runs (successes, failures, retries, slots settled without a run), a gossip cluster view
// and store statistics; the full /metrics text (both formats), /calendar.ics, /jobs and /status are
// compared byte for byte with the fixtures in test/fixtures/scrape-golden/. The fixtures were
// captured before the scrape paths were rewritten for speed, so any byte the rewrite changes fails
// here. `UPDATE_GOLDEN=1` rewrites them (only for an intended change of the output).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebContext } from '../../src/api/context.ts';
import { jobSetId } from '../../src/cluster/jobset.ts';
import type { ClusterReport } from '../../src/cluster/types.ts';
import type { WebSection } from '../../src/config/file-schema.ts';
import { loadConfig } from '../../src/config/load.ts';
import type { LoadedConfig } from '../../src/config/types.ts';
import { Metrics } from '../../src/metrics/index.ts';
import { Scheduler } from '../../src/scheduler/scheduler.ts';
import type { Store, StoreStats } from '../../src/store/types.ts';
import { FakeClock } from '../../src/util/clock.ts';
import { Logger, setSink } from '../../src/util/log.ts';
import { startWebServer, type WebServer } from '../../src/web/server.ts';
import { assembledNode } from '../examples/grand-tour-kit.ts';
import { FakeLauncher } from '../helpers/fake-launcher.ts';
import { noConflicts } from '../helpers/no-conflicts.ts';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'scrape-golden');
const UPDATE = process.env.UPDATE_GOLDEN === '1';
const NOW = Date.parse('2026-11-29T12:00:00Z');
/** Fake time the scheduler runs before the scrapes: enough for every minute job, a few hourly ones. */
const RUN_FOR_MS = 75 * 60_000;

function tourConfig(): LoadedConfig {
  const dir = assembledNode('meridian-a');
  return loadConfig(dir, { nowMs: NOW, cwd: dir, euid: 0 });
}

/** A stable small number from a job name (which jobs fail, how long runs take). */
function hashOf(name: string): number {
  let h = 7;
  for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
  return h;
}

const PEERS = ['meridian-b', 'meridian-c', 'meridian-d', 'meridian-e', 'meridian-f'];
const REPORT: ClusterReport = {
  backend: 'gossip',
  node_name: 'meridian-a',
  cluster_size: 9,
  quorum: 5,
  elect_leader: true,
  distribution: 'spread',
  ...noConflicts(),
  quorate: true,
  leader: null,
  is_leader: false,
  peers: PEERS.map((name, i) => ({
    host: `${name}:8443`,
    status: i === 3 ? 'unreachable' : i === 4 ? 'syncing' : 'agreed',
    job_set_id: null,
    node_name: name,
    last_seen: null,
    last_error: null,
    mismatch_streak: 0,
    node_stats: null,
  })),
};

/** What the store's counters read (its timings are wall-clock; fixed here so the text is stable). */
const STATS: StoreStats = {
  backend: 'sqlite',
  ops: { append: 412, list: 37, newest: 9, 'lease.renew': 120 },
  errors: { append: 1, list: 0 },
  seconds: { append: 0.8125, list: 0.0625, newest: 0.0039, 'lease.renew': 0.25 },
  throttledOps: 3,
  throttleWaitSeconds: 0.5,
  timeouts: 0,
};

interface Node {
  ctx: WebContext;
  scheduler: Scheduler;
  clock: FakeClock;
  server: WebServer;
  base: string;
}

async function startNode(): Promise<Node> {
  setSink(() => {});
  const cfg = tourConfig();
  const clock = new FakeClock(NOW);
  const launcher = new FakeLauncher(clock);
  for (const job of cfg.jobs) {
    const h = hashOf(job.name);
    // One job in five fails every third launch (retries follow where configured); durations vary.
    launcher.behave(job.name, (n) => ({
      durationMs: 200 + (h % 9) * 700 + (n % 4) * 150,
      exitCode: h % 5 === 0 && n % 3 === 1 ? 2 : 0,
      stdout: h % 7 === 0 ? 'done\n' : '',
    }));
  }
  // The tour's two retry demos, as their commands behave: one never succeeds, one heals on its third try.
  launcher.behave('webhook-dispatch', { durationMs: 300, exitCode: 1 });
  launcher.behave('outbox-flush', (n) => ({ durationMs: 100, exitCode: n % 3 < 2 ? 75 : 0 }));
  const scheduler = new Scheduler({
    clock,
    log: new Logger('cronstable'),
    launch: launcher.launch,
    report: async () => {},
  });
  scheduler.load(cfg.jobs);
  const metrics = new Metrics({ version: '9.9.9-golden', startTimeMs: NOW - 3_600_000 });
  const owners = ['meridian-a', ...PEERS];
  const setId = jobSetId(cfg.jobs);
  const ctx: WebContext = {
    version: '9.9.9-golden',
    hostname: 'meridian-a',
    clock,
    config: () => cfg,
    jobSetId: () => setId,
    scheduler,
    store: { topology: 'shared', stats: () => STATS } as unknown as Store,
    cluster: () => ({
      enabled: true,
      nodeName: 'meridian-a',
      electLeader: true,
      distribution: 'spread',
      report: REPORT,
      ownerOf: (name) => owners[hashOf(name) % owners.length]!,
      transitions: { leader: 0, quorum: 2 },
    }),
    metrics,
    configReload: () => ({ successful: true, atMs: NOW - 3_500_000 }),
  };
  metrics.attach(ctx);
  scheduler.start();
  await clock.advance(RUN_FOR_MS);
  const web = { ...(cfg.web as WebSection), listen: ['http://127.0.0.1:0'] } as WebSection;
  const server = await startWebServer(ctx, web, new Logger('cronstable'));
  return { ctx, scheduler, clock, server, base: server.urls.find((u) => u.startsWith('http://'))! };
}

const SCRAPES: [file: string, path: string, accept?: string][] = [
  ['metrics.txt', '/metrics'],
  ['metrics.openmetrics.txt', '/metrics', 'application/openmetrics-text; version=1.0.0'],
  ['calendar.ics', '/calendar.ics'],
  ['calendar-3d.ics', '/calendar.ics?days=3&per_job=20'],
  ['job-calendar.ics', '/jobs/orders-ingest/calendar.ics'],
  ['jobs.json', '/jobs'],
  ['status.txt', '/status'],
  ['status.json', '/status', 'application/json'],
];

describe('golden scrapes of the grand tour node', () => {
  let node: Node;
  beforeAll(async () => {
    node = await startNode();
  }, 120_000);
  afterAll(async () => {
    await node?.server.stop();
    const stopped = node?.scheduler.stop(1_000);
    await node?.clock.advance(2_000);
    await stopped;
    setSink(null);
  });

  it('ran a realistic history first (outcomes, retries, slots)', () => {
    const runs = node.ctx.scheduler.jobNames().flatMap((n) => node.ctx.scheduler.history(n)!.recentRuns());
    const outcomes = new Set(runs.map((r) => r.outcome));
    expect(outcomes.has('success') && outcomes.has('failure')).toBe(true);
    expect(runs.some((r) => r.trigger === 'retry')).toBe(true);
    expect(node.ctx.scheduler.jobNames()).toHaveLength(63);
  });

  for (const [file, path, accept] of SCRAPES) {
    it(`${path}${accept ? ` (${accept.split(';')[0]})` : ''} is byte-identical to ${file}`, async () => {
      const res = await fetch(node.base + path, { headers: accept ? { accept } : {} });
      expect(res.status).toBe(200);
      const body = Buffer.from(await res.arrayBuffer());
      const fixture = join(FIXTURES, file);
      if (UPDATE || !existsSync(fixture)) {
        mkdirSync(FIXTURES, { recursive: true });
        writeFileSync(fixture, body);
        if (!UPDATE) throw new Error(`fixture ${file} was missing and has been written; run again`);
      }
      const want = readFileSync(fixture);
      // Compared as text first so a failure shows the differing lines, then as bytes.
      expect(body.toString('utf8')).toBe(want.toString('utf8'));
      expect(body.equals(want)).toBe(true);
      // A second scrape at the same instant answers the same bytes (no state left behind).
      const again = Buffer.from(
        await (await fetch(node.base + path, { headers: accept ? { accept } : {} })).arrayBuffer(),
      );
      expect(again.equals(want)).toBe(true);
    });
  }

  it('a scrape shows the state at its own instant: a run starting, finishing, the schedule advancing', async () => {
    // Runs after the golden scrapes (vitest keeps file order): it moves the clock on.
    const scrape = async () => (await fetch(`${node.base}/metrics`)).text();
    const sample = (text: string, line: string): number | null => {
      const at = text.indexOf(`\n${line} `);
      if (at < 0) return null;
      const end = text.indexOf('\n', at + 1);
      return Number(text.slice(at + line.length + 2, end));
    };
    const job = 'queue-depth-probe';
    const running = `cronstable_job_running{job_name="${job}"}`;
    const next = `cronstable_job_next_run_timestamp_seconds{job_name="${job}"}`;
    const runs = `cronstable_job_runs_total{job_name="${job}",status="success"}`;
    const lastAt = `cronstable_job_last_run_timestamp_seconds{job_name="${job}"}`;
    // The golden instant is on a minute: let that minute's run finish first.
    await node.clock.advance(10_000);
    const before = await scrape();
    const fire = sample(before, next)!;
    expect(sample(before, running)).toBe(0);
    const done = sample(before, runs)!;
    // Just past the next fire: the run is in progress (the fake launcher's runs last >= 200 ms).
    await node.clock.advance(fire * 1000 - node.clock.now() + 50);
    const during = await scrape();
    expect(sample(during, running)).toBe(1);
    expect(sample(during, next)).toBe(fire + 60);
    expect(sample(during, runs)).toBe(done);
    // Well after it: finished, counted, its finish time shown, the next fire unchanged.
    await node.clock.advance(10_000);
    const after = await scrape();
    expect(sample(after, running)).toBe(0);
    expect(sample(after, runs)).toBe(done + 1);
    expect(sample(after, lastAt)).toBe(node.ctx.scheduler.history(job)!.lastRun()!.finishedAt / 1000);
    expect(sample(after, lastAt)).toBeGreaterThan(fire);
    expect(sample(after, next)).toBe(fire + 60);
  });
});

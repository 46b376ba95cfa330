// The grand tour's DAG, auth, calendar and state-admin "Things to try" on one three-node gossip
// fleet of the tour's real job set with `WEB_TOKEN` on: crash-resume of an orders-etl run (8),
// API auth and the probes that present the token (5), the release DAG approved from another node
// with its canary sensor, and hotfix-release rejected (6), backfill (7), the iCal feeds with
// `?token=` against our schedule engine (12), and the offline state admin CLI (10).
//
// The crash (8) is set up first and checked last: the killed node's advance lease lapses after
// its TTL and the survivors' adoption scans run as often (30 s in the tour; 10 s here through the
// daemon's CRONSTABLE_TEST_DAG_LEASE_SECONDS hook), so the file does the other scenarios while
// that time passes instead of waiting for it.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ICAL from 'ical.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readRuns } from '../../scripts/fleet/ledger.ts';
import { EXAMPLE_DIR } from '../../scripts/tour/tour.ts';
import { occurrences, parseCron, resolveFrame } from '../../src/schedule/index.ts';
import { type FleetNode, waitUntil } from '../cluster/harness.ts';
import { call, cli, getRun, query, type RunDoc, taskStarts, trigger, waitRun } from './helpers.ts';
import { useTour } from './tour-fleet.ts';

const TOKEN = 's3cret';
const DAY = 86_400_000;

describe('grand tour DAGs, auth, calendar and state admin (WEB_TOKEN on)', () => {
  const tour = useTour({
    nodes: 3,
    backend: 'gossip',
    distribution: 'spread',
    webToken: TOKEN,
    env: { CRONSTABLE_TEST_DAG_LEASE_SECONDS: '10' },
  });

  // ---- 8, part one: an orders-etl run mid fan-out loses its node to kill -9 ----
  let crashKey = '';
  let crashed: FleetNode;

  it('8 (set-up): kill -9 the node advancing an orders-etl run while its shard loads run', async () => {
    await tour.fleet.waitConverged(45_000);
    const asked = tour.nodes[2]!;
    const loading = (r: RunDoc) =>
      [0, 1, 2].every((i) => r.tasks[`load#${i}`]?.state === 'running' && r.tasks[`load#${i}`]?.pid !== null);
    // The loads run for about 2 s; on a loaded machine a poll may miss that window: try again.
    for (let attempt = 0; ; attempt++) {
      crashKey = await trigger(asked, 'orders-etl', TOKEN);
      const r = await waitRun(asked, 'orders-etl', crashKey, (x) => loading(x) || x.state !== 'running', {
        token: TOKEN,
        timeoutMs: 20_000,
      });
      if (loading(r)) break;
      if (attempt === 2) throw new Error(`never caught orders-etl mid fan-out: ${JSON.stringify(r)}`);
    }
    // The advancer is the lease holder on the run (`<node>#…`), read from the shared store.
    const [lease] = query<{ holder: string }>(
      tour.stateDir,
      'SELECT holder FROM leases WHERE name = ?',
      `dagadvance/orders-etl/${crashKey}`,
    );
    crashed = tour.fleet.node(lease!.holder.split('#')[0]!);
    await crashed.kill();
  }, 60_000);

  const live = () => tour.nodes.filter((n) => n !== crashed);

  // ---- 5: API auth ----
  it('5: /status needs the bearer token, /metrics stays public, the pulse probes still pass', async () => {
    const [x, y] = live();
    const bare = await call(x!, '/status');
    expect(bare.status).toBe(401);
    expect(bare.json).toEqual({ error: '401: Unauthorized' });
    expect(bare.headers.get('www-authenticate')).toBe('Bearer realm="cronstable"');
    expect((await call(x!, '/status', { token: 'wrong' })).status).toBe(401);
    expect((await call(x!, '/status', { token: TOKEN })).status).toBe(200);
    expect((await call(x!, '/jobs')).status).toBe(401);
    const metrics = await call(y!, '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('cronstable_cluster_quorate');
    // pulse-liveness curls its own node's /status with $CRONSTABLE_WEB_TOKEN and fails on anything
    // but 200: every live node's runs succeed.
    await waitUntil(
      () => {
        const rows = readRuns(tour.stateDir, { ns: tour.ns, jobs: ['pulse-liveness'] });
        return live().every(
          (n) => rows.filter((r) => r.node === n.id && r.outcome === 'success').length >= 2,
        );
      },
      { timeoutMs: 20_000, label: 'pulse-liveness successes on every live node' },
    );
    const probes = readRuns(tour.stateDir, { ns: tour.ns, jobs: ['pulse-liveness'] });
    expect(probes.filter((r) => r.outcome === 'failure')).toEqual([]);
  });

  // ---- 6: the release DAG ----
  it('6: release-train triggered on one node, approved on another; the canary polls /status; publish ships', async () => {
    const [x, y] = live();
    const key = await trigger(x!, 'release-train', TOKEN);
    await waitRun(y!, 'release-train', key, (r) => r.tasks.approve?.awaitingApproval === true, {
      token: TOKEN,
      timeoutMs: 20_000,
    });
    const decided = await call(y!, `/dags/release-train/runs/${key}/tasks/approve/decision`, {
      method: 'POST',
      token: TOKEN,
      body: { decision: 'approve', by: 'release-manager' },
    });
    expect(decided.status).toBe(200);
    const run = await waitRun(x!, 'release-train', key, (r) => r.state !== 'running', {
      token: TOKEN,
      timeoutMs: 40_000,
    });
    expect(run.state).toBe('success');
    expect(run.tasks.build!.state).toBe('success');
    expect(run.tasks.approve!.approval).toMatchObject({ decision: 'approved', by: 'release-manager' });
    // The sensor succeeded by poking its node's /status with the token (it fails on a 401).
    expect(run.tasks.canary!.state).toBe('success');
    expect(run.tasks.canary!.pokeCount).toBeGreaterThanOrEqual(1);
    expect(run.tasks.publish!.state).toBe('success');
    const tag = query<{ key: string }>(
      tour.stateDir,
      "SELECT key FROM xcom WHERE dag = 'release-train' AND run_key = ? AND task_key = 'build'",
      key,
    );
    expect(tag.map((t) => t.key)).toEqual(['tag']);
  }, 60_000);

  it('6: hotfix-release rejected on another node: onReject fail cascades to deploy', async () => {
    const [x, y] = live();
    const key = await trigger(y!, 'hotfix-release', TOKEN);
    await waitRun(x!, 'hotfix-release', key, (r) => r.tasks.approve?.awaitingApproval === true, {
      token: TOKEN,
      timeoutMs: 20_000,
    });
    const decided = await call(x!, `/dags/hotfix-release/runs/${key}/tasks/approve/decision`, {
      method: 'POST',
      token: TOKEN,
      body: { decision: 'reject', by: 'security' },
    });
    expect(decided.status).toBe(200);
    const run = await waitRun(y!, 'hotfix-release', key, (r) => r.state !== 'running', { token: TOKEN });
    expect(run.state).toBe('failed');
    expect(run.tasks['build-hotfix']!.state).toBe('success');
    expect(run.tasks.approve!.state).toBe('failed');
    expect(run.tasks.approve!.approval).toMatchObject({ decision: 'rejected', by: 'security' });
    expect(run.tasks.deploy!.state).toBe('upstream_failed');
    // A second decision on the same gate is refused (the first compare-and-set won).
    const again = await call(y!, `/dags/hotfix-release/runs/${key}/tasks/approve/decision`, {
      method: 'POST',
      token: TOKEN,
      body: { decision: 'approve' },
    });
    expect(again.status).toBe(409);
  }, 40_000);

  // ---- 7: backfill ----
  it('7: backfilling orders-etl over a past window runs each instant once; repeating it is a no-op', async () => {
    const [x, y] = live();
    const window = { from: '2026-07-05T09:00:00Z', to: '2026-07-05T09:06:00Z' };
    const first = await call(x!, '/dags/orders-etl/backfill', { method: 'POST', token: TOKEN, body: window });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ ok: true, created: 3 });
    const rows = () =>
      query<{ run_key: string; run_id: string; state: string; kind: string; logical_date: string }>(
        tour.stateDir,
        "SELECT run_key, run_id, state, kind, logical_date FROM dag_runs WHERE dag = 'orders-etl' AND kind = 'backfill' ORDER BY logical_date",
      );
    await waitUntil(() => rows().length === 3 && rows().every((r) => r.state === 'success'), {
      timeoutMs: 45_000,
      label: `three backfill runs to succeed (now ${JSON.stringify(rows())})`,
    });
    const done = rows();
    expect(done.map((r) => r.logical_date)).toEqual([
      '2026-07-05T09:00:00+00:00',
      '2026-07-05T09:03:00+00:00',
      '2026-07-05T09:06:00+00:00',
    ]);
    const launches = () =>
      query<{ n: number }>(
        tour.stateDir,
        "SELECT count(*) AS n FROM dag_tasks WHERE dag = 'orders-etl' AND run_key IN (SELECT run_key FROM dag_runs WHERE dag = 'orders-etl' AND kind = 'backfill')",
      )[0]!.n;
    const tasksBefore = launches();
    // The same window again, from another node: the same documents, nothing new runs.
    const again = await call(y!, '/dags/orders-etl/backfill', { method: 'POST', token: TOKEN, body: window });
    expect(again.status).toBe(200);
    await new Promise((r) => setTimeout(r, 1500));
    expect(rows()).toEqual(done);
    expect(launches()).toBe(tasksBefore);
    for (const r of done) {
      const run = await getRun(y!, 'orders-etl', r.run_key, TOKEN);
      expect(Object.values(run.tasks).every((t) => t.attempt === 0)).toBe(true);
    }
  }, 90_000);

  // ---- 12: the iCal feeds ----
  it('12: the calendar feeds take ?token=, honour days/per_job, and land business-day jobs on the engine dates', async () => {
    const [x, y] = live();
    expect((await call(x!, '/calendar.ics')).status).toBe(401);
    expect((await call(x!, '/calendar.ics?token=wrong')).status).toBe(401);
    // The URL token works for the .ics routes only.
    expect((await call(x!, `/status?token=${TOKEN}`)).status).toBe(401);
    const fleetFeed = await call(x!, `/calendar.ics?token=${TOKEN}`);
    expect(fleetFeed.status).toBe(200);
    expect(fleetFeed.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    // The default window (14 days, 100 per job) is over a megabyte with the tour's second-level
    // probes: count its events rather than parse it.
    expect(fleetFeed.text.startsWith('BEGIN:VCALENDAR\r\n')).toBe(true);
    expect(fleetFeed.text).toContain('\r\nSUMMARY:vacuum-analytics-db\r\n');
    expect(fleetFeed.text.match(/\r\nX-CRONSTABLE-TRUNCATED;CAP=100:pulse-latency\r\n/)).not.toBeNull();
    const from = Date.now();
    const wide = await call(y!, `/calendar.ics?days=30&per_job=20&token=${TOKEN}`);
    expect(wide.status).toBe(200);
    const evs = events(wide.text);
    for (const e of evs) expect(Date.parse(e.start)).toBeLessThan(from + 31 * DAY);
    // per_job caps a busy job (config-lint fires every minute) and says so.
    expect(evs.filter((e) => e.summary === 'config-lint')).toHaveLength(20);
    expect(wide.text).toMatch(/X-CRONSTABLE-TRUNCATED;CAP=20:config-lint\r\n/);

    // The business-day forms land where our engine (src/schedule) says, in each job's frame.
    for (const job of [
      'monthly-close-prep',
      'payroll-file-transmit',
      'invoice-day-run',
      'board-pack-render',
    ]) {
      const engine = engineDates(job, from, 30);
      const feed = evs.filter((e) => e.summary === job).map((e) => e.start);
      // Trim both to the window the two reads share (the feed was asked a moment after `from`).
      const inside = (iso: string) =>
        Date.parse(iso) > from + 60_000 && Date.parse(iso) < from + 30 * DAY - 60_000;
      expect(feed.filter(inside), job).toEqual(engine.filter(inside));
      expect(engine.filter(inside).length, `${job} fires in 30 days`).toBeGreaterThanOrEqual(1);
    }

    // One job's feed: the default 14 days may hold no last weekday, 60 days hold two (and the
    // bearer header works as well as the URL token).
    const one = await call(x!, `/jobs/monthly-close-prep/calendar.ics?token=${TOKEN}`);
    expect(one.status).toBe(200);
    expect(one.text.startsWith('BEGIN:VCALENDAR\r\n')).toBe(true);
    expect(events(one.text).every((e) => e.summary === 'monthly-close-prep')).toBe(true);
    const sixty = await call(x!, '/jobs/monthly-close-prep/calendar.ics?days=60', { token: TOKEN });
    expect(sixty.status).toBe(200);
    const mine = events(sixty.text);
    expect(mine.length).toBeGreaterThanOrEqual(2);
    expect(new Set(mine.map((e) => e.summary))).toEqual(new Set(['monthly-close-prep']));
    expect(mine.map((e) => e.start)).toEqual(
      engineDates('monthly-close-prep', Date.now(), 60).slice(0, mine.length),
    );
  });

  // ---- 10: offline state admin against a node's assembled config dir ----
  it('10: state check, gc --dry-run, backup and -v run against a live node config dir', () => {
    const dir = tour.tour.configDir(live()[0]!.id);
    const check = cli(['-c', dir, 'state', 'check']);
    expect(check.code, check.err).toBe(0);
    expect(check.out).toContain(`store at ${tour.stateDir} is writable`);
    expect(check.out).toMatch(/runs: \d+ record\(s\)/);
    const gc = cli(['-c', dir, 'state', 'gc', '--dry-run']);
    expect(gc.code, gc.err).toBe(0);
    // A store younger than gcGraceSeconds (the tour's 86400) defers; an older one lists what would go.
    expect(gc.out).toMatch(
      /^state: gc (deferred: manifest history spans \d+s, less than the grace window \(86400s\)|.*would remove)/m,
    );
    const file = join(tour.root, 'meridian-state.tar.gz');
    const backup = cli(['-c', dir, 'state', 'backup', '-o', file]);
    expect(backup.code, backup.err).toBe(0);
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).size).toBeGreaterThan(1000);
    expect(readFileSync(file).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    const valid = cli(['-c', dir, '-v'], { WEB_TOKEN: TOKEN });
    expect(valid.code, valid.err).toBe(0);
    expect(valid.out + valid.err).toContain('Configuration is valid.');
  });

  // ---- 8, part two ----
  it('8: a survivor adopts the crashed run and finishes it; no task launched twice', async () => {
    const [x] = live();
    const run = await waitRun(x!, 'orders-etl', crashKey, (r) => r.state !== 'running', {
      token: TOKEN,
      timeoutMs: 75_000,
    });
    expect(run.state).toBe('success');
    expect(run.tasks.verify!.state).toBe('success');
    expect(run.tasks.verify!.host).not.toBe(crashed.id);
    expect(run.tasks.discover!.attempt).toBe(0);
    expect(run.tasks.verify!.attempt).toBe(0);
    // The interrupted loads were reconciled as crashed (one attempt each) and ran once more.
    for (const i of [0, 1, 2]) {
      expect(run.tasks[`load#${i}`]!.state).toBe('success');
      expect(run.tasks[`load#${i}`]!.attempt).toBeLessThanOrEqual(1);
    }
    expect([0, 1, 2].filter((i) => run.tasks[`load#${i}`]!.attempt === 1).length).toBeGreaterThan(0);
    // From the store: each (task, attempt) it counts was launched exactly once fleet-wide, by the
    // nodes' own launch records.
    const attempts = query<{ task_key: string; attempt: number }>(
      tour.stateDir,
      "SELECT task_key, attempt FROM dag_tasks WHERE dag = 'orders-etl' AND run_key = ? AND mapped = 0",
      crashKey,
    );
    const expected = attempts.flatMap((r) =>
      Array.from({ length: r.attempt + 1 }, (_, k) => `${r.task_key} ${k}`),
    );
    const started = taskStarts(tour.nodes, crashKey);
    const launched = started.map((s) => s.slice(s.indexOf(' ') + 1));
    expect(launched.sort()).toEqual(expected.sort());
    expect(new Set(launched).size).toBe(launched.length);
    // The crashed node launched the first attempts, a survivor the rest.
    expect(started.filter((s) => s.startsWith(`${crashed.id} `)).length).toBeGreaterThan(0);
  }, 90_000);
});

/** The fires our engine (src/schedule) gives a tour job in [fromMs, fromMs + days), as ISO instants. */
function engineDates(job: string, fromMs: number, days: number): string[] {
  const jobs = parse(readFileSync(join(EXAMPLE_DIR, 'platform.yaml'), 'utf8')).jobs as {
    name: string;
    schedule: string;
    timezone?: string;
    utc?: boolean;
  }[];
  const j = jobs.find((x) => x.name === job)!;
  const frame = resolveFrame({ timezone: j.timezone, utc: j.utc });
  return occurrences(parseCron(j.schedule), frame, fromMs, { untilMs: fromMs + days * DAY }).map((ms) =>
    new Date(ms).toISOString(),
  );
}

interface Ev {
  summary: string;
  start: string;
}

function events(text: string): Ev[] {
  const cal = new ICAL.Component(ICAL.parse(text));
  expect(cal.name).toBe('vcalendar');
  return cal.getAllSubcomponents('vevent').map((v) => {
    const e = new ICAL.Event(v);
    return { summary: e.summary, start: e.startDate.toJSDate().toISOString() };
  });
}

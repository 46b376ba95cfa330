// The cluster gate (spec 05 §3): the §3.1 decision table over a small in-test backend, the
// retry (§3.2) and @reboot (§3.3) rules, and the scheduler on the fake clock with the gate and
// the store-backed fire claims plugged in (two nodes that both believe they lead share one
// SQLite store: every slot runs once).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreFireClaims } from '../../src/cluster/claims.ts';
import { dagGateName, decideFire, FleetGate, type GateSource } from '../../src/cluster/gate.ts';
import type { ClusterBackend, ClusterReport, GatedPolicy, Leadership } from '../../src/cluster/types.ts';
import { loadConfig } from '../../src/config/load.ts';
import type { JobConfig } from '../../src/config/types.ts';
import type { SchedulerEvent } from '../../src/scheduler/events.ts';
import type { SlotRecord } from '../../src/scheduler/history.ts';
import { Scheduler } from '../../src/scheduler/scheduler.ts';
import { openStore } from '../../src/store/index.ts';
import type { Store } from '../../src/store/types.ts';
import { FakeClock } from '../../src/util/clock.ts';
import { Logger, type LogRecord, setSink } from '../../src/util/log.ts';
import { FakeLauncher } from '../helpers/fake-launcher.ts';
import { writeTree } from '../helpers/tmp.ts';

const START = Date.parse('2026-01-07T12:00:30Z');
const MIN = 60_000;

/** A backend whose answers the test sets: the decision table's input. */
class TableBackend implements ClusterBackend {
  readonly kind = 'gossip' as const;
  answer: Leadership = { run: true };
  readonly perName = new Map<string, Leadership>();
  throws = false;
  ran = new Map<string, boolean | 'unknown'>();
  readonly recorded: string[] = [];
  recordFails = false;
  readonly asked: string[] = [];

  async start(): Promise<void> {}
  async stop(): Promise<void> {}
  decide(name: string, policy: GatedPolicy): Leadership {
    this.asked.push(`${name}/${policy}`);
    if (this.throws) throw new Error('view torn');
    return this.perName.get(name) ?? this.answer;
  }
  ownerOf(): undefined {
    return undefined;
  }
  report(): ClusterReport {
    throw new Error('not used here');
  }
  rebootRan(job: string): boolean | 'unknown' {
    return this.ran.get(job) ?? false;
  }
  async recordRebootRan(job: string): Promise<void> {
    if (this.recordFails) throw new Error('store unreachable');
    this.recorded.push(job);
    this.ran.set(job, true);
  }
}

function sourceOf(backend: ClusterBackend | null, election = true): GateSource & { on: boolean } {
  const s = {
    on: election,
    b: backend,
    electionOn: () => s.on,
    backend: () => s.b,
  };
  return s;
}

const NO_QUORUM: Leadership = { run: false, reason: 'no quorum', transient: true, noQuorum: true };
const ELSEWHERE: Leadership = { run: false, reason: 'owner is node-b', transient: false };

function jobsOf(yaml: string): JobConfig[] {
  const dir = writeTree({ 'c.yaml': `jobs:\n${yaml}` });
  return loadConfig(join(dir, 'c.yaml'), { nowMs: START }).jobs;
}

const job = (name: string, schedule: string, extra = '') =>
  `  - name: ${name}\n    command: echo ${name}\n    schedule: "${schedule}"\n${extra}`;

describe('spec 05 §3.1, row by row', () => {
  const b = new TableBackend();
  b.answer = ELSEWHERE;
  const table: [
    string,
    GateSource,
    'Leader' | 'PreferLeader' | 'EveryNode',
    ReturnType<typeof decideFire>,
  ][] = [
    ['1: election off runs whatever the backend says', sourceOf(b, false), 'Leader', { run: true }],
    ['2: EveryNode runs', sourceOf(b), 'EveryNode', { run: true }],
    ['2: EveryNode runs without a backend', sourceOf(null), 'EveryNode', { run: true }],
    [
      '3: no running backend skips Leader',
      sourceOf(null),
      'Leader',
      { run: false, reason: 'the cluster backend is not running', transient: true },
    ],
    ['3: no running backend runs PreferLeader', sourceOf(null), 'PreferLeader', { run: true }],
    [
      '4-7: the backend decides',
      sourceOf(b),
      'Leader',
      { run: false, reason: 'owner is node-b', transient: false },
    ],
  ];
  for (const [row, source, policy, expected] of table)
    it(row, () => expect(decideFire(source, 'j', policy)).toEqual(expected));

  it('4-7: a running verdict and a transient denial come back as the backend gave them', () => {
    const ok = new TableBackend();
    expect(decideFire(sourceOf(ok), 'j', 'PreferLeader')).toEqual({ run: true });
    ok.answer = NO_QUORUM;
    expect(decideFire(sourceOf(ok), 'j', 'Leader')).toEqual(NO_QUORUM);
    expect(ok.asked).toEqual(['j/PreferLeader', 'j/Leader']);
  });

  it('8: a throwing backend (or source) fails closed', () => {
    const bad = new TableBackend();
    bad.throws = true;
    expect(decideFire(sourceOf(bad), 'j', 'PreferLeader')).toEqual({
      run: false,
      reason: 'cluster gate failed (fail closed): view torn',
      transient: true,
    });
    const broken: GateSource = {
      electionOn: () => {
        throw new Error('config gone');
      },
      backend: () => null,
    };
    expect(decideFire(broken, 'j', 'Leader')).toMatchObject({ run: false, transient: true });
  });

  it('a DAG is gated as dag:<name>', () => {
    const t = new TableBackend();
    t.perName.set('dag:orders-etl', ELSEWHERE);
    const gate = new FleetGate(sourceOf(t), { clock: new FakeClock(START) });
    expect(dagGateName('orders-etl')).toBe('dag:orders-etl');
    expect(gate.decideDag('orders-etl', 'Leader')).toEqual(ELSEWHERE);
    expect(gate.decideDag('other', 'Leader')).toEqual({ run: true });
    expect(t.asked).toEqual(['dag:orders-etl/Leader', 'dag:other/Leader']);
  });
});

describe('FleetGate: scheduled fires, retries (§3.2) and @reboot (§3.3)', () => {
  const [leader, prefer, every] = jobsOf(
    job('l', '* * * * *') +
      job('p', '* * * * *', '    clusterPolicy: PreferLeader\n') +
      job('e', '* * * * *', '    clusterPolicy: EveryNode\n'),
  ) as [JobConfig, JobConfig, JobConfig];
  const clock = new FakeClock(START);

  it('a scheduled fire runs or is skipped with the backend reason (marked when quorum is wanting)', () => {
    const b = new TableBackend();
    const gate = new FleetGate(sourceOf(b), { clock });
    expect(gate.decide(leader, START, 'schedule')).toEqual({ run: true });
    b.answer = NO_QUORUM;
    expect(gate.decide(leader, START, 'schedule')).toEqual({
      run: false,
      reason: 'no quorum',
      noQuorum: true,
    });
    expect(gate.decide(every, START, 'schedule')).toEqual({ run: true });
    b.answer = ELSEWHERE;
    expect(gate.decide(leader, START, 'schedule')).toEqual({ run: false, reason: ELSEWHERE.reason });
  });

  it('a retry is deferred on a transient denial and ended by an ownership move', () => {
    const b = new TableBackend();
    const gate = new FleetGate(sourceOf(b), { clock, recheckMs: 2000 });
    b.answer = NO_QUORUM;
    expect(gate.decide(leader, START, 'retry')).toEqual({
      run: false,
      reason: 'no quorum',
      deferUntil: clock.now() + 2000,
    });
    b.answer = ELSEWHERE;
    expect(gate.decide(leader, START, 'retry')).toEqual({
      run: false,
      reason: 'cluster ownership moved to another node (owner is node-b)',
    });
  });

  it('@reboot: EveryNode and no election run at once; Leader waits for a backend, PreferLeader does not', () => {
    const none = new FleetGate(sourceOf(null), { clock, recheckMs: 1000 });
    expect(none.decide(every, null, 'reboot')).toEqual({ run: true });
    expect(none.decide(prefer, null, 'reboot')).toEqual({ run: true });
    expect(none.decide(leader, null, 'reboot')).toEqual({
      run: false,
      reason: '@reboot pending: the cluster backend is not running',
      deferUntil: clock.now() + 1000,
    });
    const off = new FleetGate(sourceOf(null, false), { clock });
    expect(off.decide(leader, null, 'reboot')).toEqual({ run: true });
  });

  it('@reboot: pending while the fleet record is unknown or the gate denies; recorded before it runs; never twice', async () => {
    const b = new TableBackend();
    const gate = new FleetGate(sourceOf(b), { clock, recheckMs: 1000 });
    b.ran.set('l', 'unknown');
    expect(gate.decide(leader, null, 'reboot')).toMatchObject({
      run: false,
      reason: '@reboot pending: the fleet has not read its record of @reboot runs yet',
    });
    b.ran.delete('l');
    b.answer = NO_QUORUM;
    expect(gate.decide(leader, null, 'reboot')).toMatchObject({ reason: '@reboot pending: no quorum' });
    b.answer = { run: true };
    expect(await gate.decide(leader, null, 'reboot')).toEqual({ run: true });
    expect(b.recorded).toEqual(['l']);
    expect(gate.decide(leader, null, 'reboot')).toEqual({
      run: false,
      reason: 'the fleet already ran this @reboot job under the current job set',
    });
  });

  it('@reboot: a failed record keeps Leader pending; PreferLeader runs anyway with a warning', async () => {
    const b = new TableBackend();
    b.recordFails = true;
    const warnings: string[] = [];
    const gate = new FleetGate(sourceOf(b), { clock, warn: (m) => warnings.push(m) });
    expect(await gate.decide(leader, null, 'reboot')).toMatchObject({
      run: false,
      reason: '@reboot pending: recording the @reboot run failed: store unreachable',
    });
    expect(await gate.decide(prefer, null, 'reboot')).toEqual({ run: true });
    expect(warnings).toEqual([
      'Job p: recording its @reboot run with the cluster failed (store unreachable); PreferLeader runs it anyway',
    ]);
  });
});

// ---- The scheduler with the gate and the claims plugged in (fake clock, real SQLite). ----

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close().catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function sharedStore(): Promise<{ path: string; open(): Promise<Store> }> {
  const path = mkdtempSync(join(tmpdir(), 'cronstable-gate-'));
  dirs.push(path);
  return {
    path,
    async open() {
      const s = await openStore({ path, namespace: 'default', topology: 'single-node', inline: true });
      stores.push(s);
      return s;
    },
  };
}

interface Node {
  name: string;
  backend: TableBackend;
  source: ReturnType<typeof sourceOf>;
  scheduler: Scheduler;
  launcher: FakeLauncher;
  slots: SlotRecord[];
  events: SchedulerEvent[];
}

function nodeOf(
  name: string,
  clock: FakeClock,
  yaml: string,
  opts: {
    store?: Store | null;
    onStoreUnavailable?: 'degrade' | 'fail-closed';
    backend?: TableBackend | null;
  } = {},
): Node {
  const backend = opts.backend === undefined ? new TableBackend() : opts.backend;
  const source = sourceOf(backend);
  const launcher = new FakeLauncher(clock);
  const log = new Logger('cronstable');
  const scheduler = new Scheduler({
    clock,
    log,
    launch: launcher.launch,
    report: async () => undefined,
    gate: new FleetGate(source, { clock, recheckMs: 5000, warn: (m) => log.warning(m) }),
    claims: new StoreFireClaims({
      store: () => opts.store ?? null,
      electionOn: () => source.electionOn(),
      nodeName: () => name,
      onStoreUnavailable: opts.onStoreUnavailable ?? 'fail-closed',
      warn: (m) => log.warning(m),
    }),
  });
  const slots: SlotRecord[] = [];
  const events: SchedulerEvent[] = [];
  scheduler.subscribe((e) => {
    events.push(e);
    if (e.type === 'slot') slots.push(e.slot);
  });
  scheduler.load(jobsOf(yaml));
  return { name, backend: backend ?? new TableBackend(), source, scheduler, launcher, slots, events };
}

const finalOutcomes = (n: Node, jobName: string) => {
  const last = new Map<number, string>();
  for (const s of n.slots) if (s.job === jobName) last.set(s.scheduledAt, s.outcome);
  return [...last.values()];
};

describe('the scheduler behind the cluster gate (fake clock)', () => {
  it('a follower skips Leader slots (recorded skipped:gate, no-quorum without quorum) and runs them once it leads', async () => {
    const clock = new FakeClock(START);
    const logs: string[] = [];
    setSink((r: LogRecord) => logs.push(`${r.levelName} ${r.message}`));
    const n = nodeOf(
      'node-a',
      clock,
      job('l', '* * * * *') + job('e', '* * * * *', '    clusterPolicy: EveryNode\n'),
    );
    n.backend.answer = ELSEWHERE;
    n.scheduler.start();
    await clock.advance(2 * MIN);
    expect(n.launcher.of('l')).toHaveLength(0);
    expect(n.launcher.of('e')).toHaveLength(2);
    expect(n.slots.filter((s) => s.job === 'l').map((s) => [s.outcome, s.detail])).toEqual([
      ['skipped:gate', 'owner is node-b'],
      ['skipped:gate', 'owner is node-b'],
    ]);
    // Without quorum the slot is recorded as no-quorum, an outcome of its own (not a reason to search).
    n.backend.answer = NO_QUORUM;
    await clock.advance(MIN);
    expect(n.slots.filter((s) => s.job === 'l').at(-1)).toMatchObject({
      outcome: 'no-quorum',
      detail: 'no quorum',
    });
    n.backend.answer = { run: true };
    await clock.advance(MIN);
    expect(n.launcher.times('l')).toEqual(['2026-01-07T12:04:00.000Z']);
  });

  it('a failed run retries only once the quorum is back; an ownership move ends the retry', async () => {
    const clock = new FakeClock(START);
    const retry =
      '    onFailure:\n      retry:\n        maximumRetries: 3\n        initialDelay: 10\n        maximumDelay: 10\n        backoffMultiplier: 1\n';
    const n = nodeOf('node-a', clock, job('l', '0 * * * *', retry));
    n.launcher.behave('l', { exitCode: 1, durationMs: 1000 });
    n.scheduler.start();
    await clock.advance(30 * MIN); // 12:30:30, the 13:00 fire is next
    await clock.advance(29 * MIN + 30_000);
    expect(n.launcher.of('l')).toHaveLength(1);
    n.backend.answer = NO_QUORUM;
    await clock.advance(30_000); // retry due at 13:00:11: deferred every 5 s while no quorum
    expect(n.launcher.of('l')).toHaveLength(1);
    n.backend.answer = { run: true };
    await clock.advance(5_000);
    expect(n.launcher.of('l')).toHaveLength(2);
    // The second failure arms retry #2 (10 s); the job's owner moves meanwhile: no relaunch.
    n.backend.answer = ELSEWHERE;
    await clock.advance(60_000);
    expect(n.launcher.of('l')).toHaveLength(2);
    const settled = n.events.filter((e) => e.type === 'retry-settled').map((e) => e.reason);
    expect(settled).toContain('owner-moved');
    // The abandoned retry is a cancelled run that never started (spec 02 §8.4 step 4).
    const last = n.events.filter((e) => e.type === 'run-finished').at(-1);
    expect(last?.type === 'run-finished' && last.run).toMatchObject({
      trigger: 'retry',
      attempt: 2,
      outcome: 'cancelled',
      startedAt: null,
      exitCode: null,
      failReason: 'retry abandoned: cluster ownership moved to another node',
    });
  });

  it('@reboot under Leader is pending at boot and runs once when the gate first allows', async () => {
    const clock = new FakeClock(START);
    const n = nodeOf('node-a', clock, job('boot', '@reboot'));
    n.backend.answer = NO_QUORUM;
    n.scheduler.start();
    await clock.advance(30_000);
    expect(n.launcher.of('boot')).toHaveLength(0);
    n.backend.answer = { run: true };
    await clock.advance(5_000);
    expect(n.launcher.of('boot')).toHaveLength(1);
    expect(n.backend.recorded).toEqual(['boot']);
    await clock.advance(60_000);
    expect(n.launcher.of('boot')).toHaveLength(1);
    // A restart (a new scheduler, the fleet's record kept) does not run it again.
    const again = nodeOf('node-a', clock, job('boot', '@reboot'), { backend: n.backend });
    again.scheduler.start();
    await clock.advance(30_000);
    expect(again.launcher.of('boot')).toHaveLength(0);
  });

  it('two nodes that both believe they lead share one store: each slot runs on exactly one', async () => {
    const shared = await sharedStore();
    const clock = new FakeClock(START);
    const yaml = job('l', '* * * * *') + job('p', '* * * * *', '    clusterPolicy: PreferLeader\n');
    const a = nodeOf('node-a', clock, yaml, { store: await shared.open() });
    const b = nodeOf('node-b', clock, yaml, { store: await shared.open() });
    a.scheduler.start();
    b.scheduler.start();
    await clock.advance(10 * MIN);
    for (const name of ['l', 'p']) {
      const ran = [...a.launcher.times(name), ...b.launcher.times(name)].sort();
      expect(ran).toEqual(
        Array.from({ length: 10 }, (_, i) => new Date(START - 30_000 + (i + 1) * MIN).toISOString()),
      );
      const lost = [...finalOutcomes(a, name), ...finalOutcomes(b, name)].filter(
        (o) => o === 'claimed-elsewhere',
      );
      expect(lost).toHaveLength(10);
    }
    const detail = [...a.slots, ...b.slots].find((s) => s.outcome === 'claimed-elsewhere')?.detail;
    expect(detail).toMatch(/^claimed by node-[ab]$/);
  });

  it('a store that cannot answer: Leader fails closed (or degrades when told), PreferLeader runs', async () => {
    const shared = await sharedStore();
    const clock = new FakeClock(START);
    const store = await shared.open();
    await store.close();
    const yaml = job('l', '* * * * *') + job('p', '* * * * *', '    clusterPolicy: PreferLeader\n');
    const closed = nodeOf('node-a', clock, yaml, { store });
    const lenient = nodeOf('node-b', clock, yaml, { store, onStoreUnavailable: 'degrade' });
    closed.scheduler.start();
    lenient.scheduler.start();
    await clock.advance(MIN);
    expect(closed.launcher.of('l')).toHaveLength(0);
    expect(closed.slots.find((s) => s.job === 'l')).toMatchObject({
      outcome: 'skipped:gate',
      detail: 'its fire claim cannot be made (state store unavailable: the store is closed)',
    });
    expect(closed.launcher.of('p')).toHaveLength(1);
    expect(lenient.launcher.of('l')).toHaveLength(1);
  });

  it('without election no claim is made and every node runs every slot', async () => {
    const shared = await sharedStore();
    const clock = new FakeClock(START);
    const a = nodeOf('node-a', clock, job('l', '* * * * *'), { store: await shared.open() });
    const b = nodeOf('node-b', clock, job('l', '* * * * *'), { store: await shared.open() });
    a.source.on = false;
    b.source.on = false;
    a.scheduler.start();
    b.scheduler.start();
    await clock.advance(3 * MIN);
    expect(a.launcher.of('l')).toHaveLength(3);
    expect(b.launcher.of('l')).toHaveLength(3);
  });
});

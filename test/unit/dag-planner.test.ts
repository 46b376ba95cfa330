// The planner and reducers against the seed DAGs of spec 04 §12 (S1-S7) and the rules of §3 and §5.
import { describe, expect, it } from 'vitest';
import type { DagConfig } from '../../src/config/types.ts';
import {
  canTransition,
  claimPass,
  decodeItems,
  GATE_POLL_SECONDS,
  graphOf,
  IDLE_WAKE_SECONDS,
  plan,
  TASK_TRANSITIONS,
  type TaskState,
  taskStateCounts,
} from '../../src/dag/index.ts';
import { Driver, loadDags, makeDag, T0 } from './dag-fixtures.ts';

const cmd = (id: string, deps: string[] = [], extra = '') =>
  `      - id: ${id}\n        command: echo ${id}\n` +
  (deps.length ? `        dependsOn:\n${deps.map((x) => `          - ${x}\n`).join('')}` : '') +
  extra;

const ORDERS_ETL = `  - name: orders-etl
    schedule: "*/3 * * * *"
    retainRuns: 20
    onMissed: run-all
    startingDeadlineSeconds: 1800
    catchupJitterSeconds: 20
    tasks:
${cmd('discover')}${cmd('load', ['discover'], '        expand:\n          fromTask: discover\n          key: shards\n        retries: 2\n        retryDelaySeconds: 5\n')}${cmd('verify', ['load'])}`;

const NIGHTLY = `  - name: nightly-close
    schedule: "0 1 * * *"
    timezone: America/New_York
    tasks:
${cmd('freeze-ledgers')}${cmd('post-journals', ['freeze-ledgers'])}${cmd('close-books', ['post-journals'])}`;

const DIAMOND = `  - name: data-quality-gate
    schedule: "*/15 * * * *"
    tasks:
${cmd('snapshot')}${cmd('check-nulls', ['snapshot'])}${cmd('check-freshness', ['snapshot'])}${cmd('check-volume', ['snapshot'])}${cmd('certify', ['check-nulls', 'check-freshness', 'check-volume'])}`;

const RELEASE_TRAIN = `  - name: release-train
    tasks:
${cmd('build')}      - id: approve
        type: approval
        onReject: skip
        dependsOn:
          - build
      - id: canary
        type: sensor
        dependsOn:
          - approve
        pokeIntervalSeconds: 10
        pokeTimeoutSeconds: 300
        pokeJitterSeconds: 3
        command: curl -fsS http://127.0.0.1:8080/status
${cmd('publish', ['approve', 'canary'], '        triggerRule: all_done\n')}`;

const HOTFIX = `  - name: hotfix-release
    tasks:
${cmd('build-hotfix')}      - id: approve
        type: approval
        dependsOn:
          - build-hotfix
${cmd('deploy', ['approve'])}`;

const RELEASE = `  - name: release
    tasks:
${cmd('build')}      - id: gate
        type: approval
        onReject: skip
        dependsOn:
          - build
${cmd('publish', ['gate'])}`;

const [ordersEtl, nightly, diamond, releaseTrain, hotfix, release] = loadDags(
  [ORDERS_ETL, NIGHTLY, DIAMOND, RELEASE_TRAIN, HOTFIX, RELEASE].join(''),
) as [DagConfig, DagConfig, DagConfig, DagConfig, DagConfig, DagConfig];

const launchedKeys = (d: Driver) => d.passes.at(-1)!.launches.map((l) => l.taskKey);

describe('state machine table (§3.1)', () => {
  it('has no way out of a terminal state or of expanded', () => {
    for (const s of ['success', 'failed', 'upstream_failed', 'skipped', 'expanded'] as TaskState[])
      expect(TASK_TRANSITIONS[s]).toEqual([]);
  });
  it('allows exactly the moves the spec draws', () => {
    expect(canTransition('pending', 'running')).toBe(true);
    expect(canTransition('pending', 'success')).toBe(false);
    expect(canTransition('up_for_retry', 'running')).toBe(true);
    expect(canTransition('up_for_retry', 'failed')).toBe(false);
    expect(canTransition('running', 'up_for_retry')).toBe(true);
    expect(canTransition('running', 'pending')).toBe(false);
    expect(canTransition('running', 'upstream_failed')).toBe(false);
  });
});

describe('makeDag fixture', () => {
  it('builds tasks with the loader defaults', () => {
    const loaded = loadDags(`  - name: x\n    tasks:\n${cmd('a')}`)[0]!.tasks[0]!;
    const built = makeDag('x', [{ id: 'a' }]).tasks[0]!;
    for (const k of [
      'type',
      'dependsOn',
      'triggerRule',
      'retries',
      'retryDelaySeconds',
      'expand',
      'pokeIntervalSeconds',
      'pokeTimeoutSeconds',
      'pokeJitterSeconds',
      'onReject',
      'launchName',
    ] as const)
      expect(built[k], k).toEqual(loaded[k]);
  });
});

describe('S1 orders-etl: fan-out, retries, fan-in', () => {
  const SHARDS = ['eu', 'us', 'apac'];

  it('expands the pushed list, runs the instances after discover and verify after all of them', () => {
    const d = new Driver(ordersEtl);
    d.pass();
    expect(launchedKeys(d)).toEqual(['discover']);
    expect(d.state('load')).toBe('pending');
    d.now += 1;
    d.complete('discover', true);
    const p = d.pass();
    expect(p.reads).toEqual([{ type: 'expand', taskId: 'load', fromTask: 'discover', key: 'shards' }]);
    expect(p.launches).toEqual([]);
    expect(p.wakeAt).toBe(d.now);
    const expanded = d.pass({ load: SHARDS });
    expect(launchedKeys(d)).toEqual(['load#0', 'load#1', 'load#2']);
    expect(new Set(expanded.touched)).toEqual(new Set(['load', 'load#0', 'load#1', 'load#2']));
    expect(d.run.mapped.load).toEqual({ items: SHARDS, expandedAt: d.now });
    expect(d.run.tasks['load#1']!.mapItem).toBe('us');
    expect(d.state('load')).toBe('expanded');
    d.now += 2;
    d.complete('load#0', true);
    d.complete('load#2', true);
    d.pass();
    expect(d.state('verify')).toBe('pending'); // the barrier: load#1 still running
    d.now += 1;
    d.complete('load#1', true);
    d.pass();
    expect(launchedKeys(d)).toEqual(['verify']);
    d.now += 1;
    d.complete('verify', true);
    const last = d.pass();
    expect(last.actions).toEqual([{ type: 'finish', state: 'success' }]);
    expect(last.wakeAt).toBeNull();
    expect(d.run.state).toBe('success');
    expect(taskStateCounts(d.run)).toEqual({ success: 5, expanded: 1 });
    for (const k of ['discover', 'load#0', 'load#1', 'load#2', 'verify'])
      expect(d.run.tasks[k]!.attempt).toBe(0);
    const t = d.run.tasks;
    for (const k of ['load#0', 'load#1', 'load#2'])
      expect(t[k]!.startedAt!).toBeGreaterThanOrEqual(t.discover!.finishedAt!);
    expect(t.verify!.startedAt!).toBeGreaterThanOrEqual(
      Math.max(...['load#0', 'load#1', 'load#2'].map((k) => t[k]!.finishedAt!)),
    );
  });

  it('retries a failed instance after retryDelaySeconds and the run succeeds', () => {
    const d = new Driver(ordersEtl);
    d.pass();
    d.complete('discover', true);
    d.pass();
    d.pass({ load: SHARDS });
    d.now += 2;
    d.complete('load#0', true);
    d.complete('load#1', false);
    d.complete('load#2', true);
    const e = d.run.tasks['load#1']!;
    expect(e).toMatchObject({ state: 'up_for_retry', attempt: 1, nextRetryAt: d.now + 5, proc: null });
    expect(e.failReason).toBe('failsWhen=nonzeroReturn and retcode=1');
    const wait = d.pass();
    expect(wait.launches).toEqual([]);
    expect(wait.wakeAt).toBe(d.now + 5);
    d.now += 5;
    d.pass();
    expect(d.passes.at(-1)!.launches).toMatchObject([{ taskKey: 'load#1', reason: 'retry', attempt: 1 }]);
    expect(d.run.tasks['load#1']!.startedAt).toBe(T0 + 2 - 2 + 0); // the first claim's time is kept
    d.complete('load#1', true);
    d.pass();
    d.complete('verify', true);
    d.pass();
    expect(d.run.state).toBe('success');
    expect(d.run.tasks['load#1']).toMatchObject({ state: 'success', attempt: 1 });
  });

  it('fails the instance after 3 attempts, verify upstream_failed, run failed', () => {
    const d = new Driver(ordersEtl);
    d.pass();
    d.complete('discover', true);
    d.pass();
    d.pass({ load: SHARDS });
    for (let i = 0; i < 3; i++) {
      d.complete('load#1', false);
      d.now += 5;
      d.pass();
    }
    expect(d.run.tasks['load#1']).toMatchObject({ state: 'failed', attempt: 3, nextRetryAt: null });
    // the group reads running while siblings are still out, so verify waits
    expect(d.state('verify')).toBe('pending');
    expect(d.run.state).toBe('running');
    d.complete('load#0', true);
    d.complete('load#2', true);
    d.pass();
    expect(d.state('verify')).toBe('upstream_failed');
    expect(d.run.tasks.verify!.startedAt).toBeNull();
    expect(d.run.state).toBe('failed');
    expect(d.launched.filter((l) => l.taskKey === 'load#1').map((l) => l.attempt)).toEqual([0, 1, 2]);
  });

  it('an empty list, or a key never pushed, makes the group success and verify runs', () => {
    for (const payload of [new TextEncoder().encode('[]'), null]) {
      const d = new Driver(ordersEtl);
      d.pass();
      d.complete('discover', true);
      d.pass();
      d.pass({ load: decodeItems(payload).items });
      expect(d.state('load')).toBe('expanded');
      expect(launchedKeys(d)).toEqual(['verify']);
      d.complete('verify', true);
      d.pass();
      expect(d.run.state).toBe('success');
      expect(Object.keys(d.run.tasks).some((k) => k.includes('#'))).toBe(false);
    }
  });

  it('1001 items fail the placeholder with the cap message and create no instances', () => {
    const d = new Driver(ordersEtl);
    d.pass();
    d.complete('discover', true);
    d.pass();
    d.pass({ load: Array.from({ length: 1001 }, (_, i) => i) });
    expect(d.run.tasks.load).toMatchObject({
      state: 'failed',
      failReason: 'mapped fan-out of 1001 items exceeds the cap of 1000',
    });
    expect(d.state('verify')).toBe('upstream_failed');
    expect(d.run.state).toBe('failed');
    expect(Object.keys(d.run.tasks).some((k) => k.includes('#'))).toBe(false);
    expect(d.run.mapped.load).toBeUndefined();
  });

  it('ramps a 256-wide fan-out in bursts of 32 launches per pass', () => {
    const d = new Driver(ordersEtl);
    d.pass();
    d.complete('discover', true);
    d.pass();
    const first = d.pass({ load: Array.from({ length: 256 }, (_, i) => `s${i}`) });
    expect(first.launches).toHaveLength(32);
    expect(first.deferred).toBe(true);
    expect(first.wakeAt).toBe(d.now);
    let passes = 1;
    while (d.passes.at(-1)!.deferred) {
      d.pass();
      passes++;
    }
    expect(passes).toBe(8);
    expect(new Set(d.launched.map((l) => l.taskKey)).size).toBe(1 + 256);
  });

  it('the expand source failing resolves the placeholder upstream_failed even under all_done', () => {
    const dag = makeDag('m', [
      { id: 'src' },
      { id: 'map', dependsOn: ['src'], expand: { fromTask: 'src', key: 'k' }, triggerRule: 'all_done' },
      { id: 'after', dependsOn: ['map'], triggerRule: 'all_done' },
    ]);
    const d = new Driver(dag);
    d.pass();
    d.complete('src', false);
    d.pass();
    expect(d.state('map')).toBe('upstream_failed');
    expect(launchedKeys(d)).toEqual(['after']);
  });

  it('the expand source skipped resolves the placeholder skipped', () => {
    const dag = makeDag('m', [
      { id: 'gate', type: 'approval', onReject: 'skip' },
      { id: 'map', dependsOn: ['gate'], expand: { fromTask: 'gate', key: 'k' }, triggerRule: 'all_done' },
    ]);
    const d = new Driver(dag);
    d.pass();
    d.decide('gate', 'reject');
    d.pass();
    expect(d.state('map')).toBe('skipped');
    expect(d.run.state).toBe('success');
  });

  it('other deps gate each instance; a failed other dep cascades every instance', () => {
    const dag = makeDag('m', [
      { id: 'src' },
      { id: 'slow' },
      { id: 'map', dependsOn: ['src', 'slow'], expand: { fromTask: 'src', key: 'k' } },
    ]);
    const d = new Driver(dag);
    d.pass();
    d.complete('src', true);
    d.pass();
    d.pass({ map: [1, 2] });
    expect(d.state('map')).toBe('expanded'); // expanded on the source alone
    expect(d.state('map#0')).toBe('pending'); // but waits for slow
    d.complete('slow', false);
    d.pass();
    expect([d.state('map#0'), d.state('map#1')]).toEqual(['upstream_failed', 'upstream_failed']);
    expect(d.run.state).toBe('failed');
  });

  it('a list that could not be read yet keeps the placeholder pending (never a guessed empty fan-out)', () => {
    const dag = makeDag('m', [
      { id: 'src' },
      { id: 'other' },
      { id: 'map', dependsOn: ['src', 'other'], expand: { fromTask: 'src', key: 'k' } },
    ]);
    const d = new Driver(dag);
    d.pass();
    d.complete('src', true);
    d.complete('other', false);
    for (let i = 0; i < 3; i++) {
      const p = d.pass(); // the store read failed: no list supplied
      expect(p.reads.map((r) => r.taskId)).toEqual(['map']);
      expect(p.wakeAt).toBe(d.now);
      expect(d.state('map')).toBe('pending');
    }
    d.pass({ map: ['a', 'b'] });
    expect([d.state('map'), d.state('map#0'), d.state('map#1')]).toEqual([
      'expanded',
      'upstream_failed',
      'upstream_failed',
    ]);
    expect(d.run.state).toBe('failed');
  });

  it('an expansion is not applied once the placeholder resolved or the source is not a success', () => {
    const d = new Driver(ordersEtl);
    d.pass();
    const early = d.event({ type: 'expansion', taskId: 'load', items: [1], now: d.now });
    expect(early.rejected).toBe('expand source is not a success');
    d.complete('discover', true);
    d.pass({ load: [1] });
    const again = d.event({ type: 'expansion', taskId: 'load', items: [1, 2], now: d.now });
    expect(again.rejected).toBe('already resolved');
    expect(d.run.mapped.load!.items).toEqual([1]);
  });
});

describe('decodeItems (§5 definitive empty)', () => {
  const enc = (s: string) => new TextEncoder().encode(s);
  it('reads a JSON list', () => {
    expect(decodeItems(enc('["eu", "us", {"a": [1, 2.5]}]\n'))).toEqual({
      items: ['eu', 'us', { a: [1, 2.5] }],
      warning: null,
    });
  });
  it.each([
    ['not a list', enc('{"a":1}')],
    ['not JSON', enc('[1,')],
    ['not UTF-8', new Uint8Array([0x5b, 0xff, 0x5d])],
    ['an integer beyond 64 bits', enc('[9223372036854775808]')],
    ['a float that overflows', enc('[1e999]')],
    ['never published', null],
  ])('%s expands to [] with a warning', (_, payload) => {
    const r = decodeItems(payload);
    expect(r.items).toEqual([]);
    expect(r.warning).toMatch(/./);
  });
  it('keeps the largest int64 and big floats, and digits inside strings', () => {
    expect(decodeItems(enc('[9223372036854775807, -9223372036854775808, 1e300]')).warning).toBeNull();
    expect(decodeItems(enc('["99999999999999999999999"]')).warning).toBeNull();
  });
});

describe('S2 nightly-close: linear chain', () => {
  it('runs strictly in order', () => {
    const d = new Driver(nightly);
    for (const k of ['freeze-ledgers', 'post-journals', 'close-books']) {
      d.pass();
      expect(launchedKeys(d)).toEqual([k]);
      d.now += 1;
      d.complete(k, true);
    }
    d.pass();
    expect(d.run.state).toBe('success');
    expect(taskStateCounts(d.run)).toEqual({ success: 3 });
  });
  it('a failed middle task leaves close-books upstream_failed and the run failed', () => {
    const d = new Driver(nightly);
    d.pass();
    d.complete('freeze-ledgers', true);
    d.pass();
    d.complete('post-journals', false);
    d.pass();
    expect(d.state('close-books')).toBe('upstream_failed');
    expect(d.run.state).toBe('failed');
  });
});

describe('S3 data-quality-gate: diamond under all_success', () => {
  it('claims the three checks in one pass; a failed check makes certify upstream_failed', () => {
    const d = new Driver(diamond);
    d.pass();
    d.complete('snapshot', true);
    d.pass();
    expect(launchedKeys(d)).toEqual(['check-nulls', 'check-freshness', 'check-volume']);
    d.complete('check-nulls', true);
    d.complete('check-freshness', true);
    d.complete('check-volume', false, { exitCode: 1 });
    d.pass();
    expect(d.run.tasks['check-volume']).toMatchObject({
      state: 'failed',
      failReason: 'failsWhen=nonzeroReturn and retcode=1',
      exitCode: 1,
      attempt: 1,
    });
    expect(d.run.tasks.certify).toMatchObject({ state: 'upstream_failed', startedAt: null });
    expect(d.run.state).toBe('failed');
  });
});

describe('S4 release-train: gate (skip), sensor, all_done', () => {
  function toGate() {
    const d = new Driver(releaseTrain);
    d.pass();
    d.complete('build', true);
    const p = d.pass();
    expect(p.launches).toEqual([]);
    expect(p.actions).toEqual([{ type: 'park', taskKey: 'approve' }]);
    return d;
  }

  it('parks the gate without a launch and polls every 5 s', () => {
    const d = toGate();
    expect(d.run.tasks.approve).toMatchObject({ state: 'running', awaitingApproval: true, approval: null });
    expect(d.state('canary')).toBe('pending');
    d.now += 1000;
    const p = d.pass();
    expect(p.actions).toEqual([]);
    expect(p.wakeAt).toBe(d.now + GATE_POLL_SECONDS);
    expect(d.run.state).toBe('running');
  });

  it('refuses a decision for a task that is not a waiting gate', () => {
    const d = toGate();
    expect(d.decide('canary', 'approve').rejected).toBe('task is not awaiting approval');
    expect(d.decide('nope', 'approve').rejected).toBe('no such task');
  });

  it('approve: canary pokes until healthy, publish runs, run success; a second decision is refused', () => {
    const d = toGate();
    const r = d.decide('approve', 'approve');
    expect(r.taskState).toBe('success');
    expect(d.run.tasks.approve!.approval).toEqual({ decision: 'approved', by: 'me', at: d.now });
    expect('awaitingApproval' in d.run.tasks.approve!).toBe(false);
    expect(d.decide('approve', 'reject').rejected).toBe('task is not awaiting approval');
    d.pass();
    expect(d.passes.at(-1)!.launches).toMatchObject([
      { taskKey: 'canary', kind: 'sensor', reason: 'first', pokeCount: 0 },
    ]);
    expect(d.run.tasks.canary).toMatchObject({ pokeCount: 0, firstPokeAt: d.now, nextPokeAt: null });
    d.now += 1;
    d.complete('canary', false, { jitter: 0.5 });
    expect(d.run.tasks.canary).toMatchObject({
      state: 'running',
      pokeCount: 1,
      proc: null,
      nextPokeAt: d.now + 10 + 1.5,
    });
    const idle = d.pass();
    expect(idle.launches).toEqual([]);
    expect(idle.wakeAt).toBe(d.now + 11.5);
    d.now += 11.5;
    d.pass();
    expect(d.passes.at(-1)!.launches).toMatchObject([{ taskKey: 'canary', reason: 'repoke', pokeCount: 1 }]);
    d.complete('canary', true);
    expect(d.run.tasks.canary).toMatchObject({ state: 'success', pokeCount: 2 });
    d.pass();
    expect(launchedKeys(d)).toEqual(['publish']);
    d.complete('publish', true);
    d.pass();
    expect(d.run.state).toBe('success');
  });

  it('reject: gate and canary skipped, publish still runs (all_done), run success', () => {
    const d = toGate();
    expect(d.decide('approve', 'reject').taskState).toBe('skipped');
    d.pass();
    expect(d.state('canary')).toBe('skipped');
    expect(launchedKeys(d)).toEqual(['publish']);
    d.complete('publish', true);
    d.pass();
    expect(d.run.state).toBe('success');
  });

  it('a canary never healthy times out once a re-poke is due past 300 s; publish runs; run failed', () => {
    const d = toGate();
    d.decide('approve', 'approve');
    d.pass();
    const first = d.now;
    let pokes = 0;
    while (d.state('canary') === 'running') {
      if (d.run.tasks.canary!.proc !== null) {
        d.now += 1;
        d.complete('canary', false, { jitter: 1 });
        pokes++;
      }
      const p = d.pass();
      d.now = Math.max(d.now, p.wakeAt ?? d.now);
    }
    expect(d.run.tasks.canary).toMatchObject({ state: 'failed', failReason: 'sensor timed out' });
    expect(d.run.tasks.canary!.finishedAt! - first).toBeGreaterThanOrEqual(300);
    expect(d.run.tasks.canary!.finishedAt! - first).toBeLessThanOrEqual(300 + 10 + 3 + 1);
    expect(pokes).toBe(d.run.tasks.canary!.pokeCount);
    // the pass that timed the sensor out already launches publish (all_done)
    expect(d.passes.at(-1)!.actions.map((a) => a.type)).toEqual(['sensor-timeout', 'launch']);
    expect(launchedKeys(d)).toEqual(['publish']);
    d.complete('publish', true);
    d.pass();
    expect(d.run.state).toBe('failed');
  });
});

describe('S5 hotfix-release and S7 release: onReject fail vs skip', () => {
  it('reject with onReject fail: gate failed, deploy upstream_failed, run failed', () => {
    const d = new Driver(hotfix);
    d.pass();
    d.complete('build-hotfix', true);
    d.pass();
    expect(d.decide('approve', 'reject').taskState).toBe('failed');
    expect(d.run.tasks.approve!.approval!.decision).toBe('rejected');
    d.pass();
    expect(d.state('deploy')).toBe('upstream_failed');
    expect(d.run.state).toBe('failed');
  });
  it('approve: deploy runs, run success', () => {
    const d = new Driver(hotfix);
    d.pass();
    d.complete('build-hotfix', true);
    d.pass();
    d.decide('approve', 'approve');
    d.pass();
    d.complete('deploy', true);
    d.pass();
    expect(d.run.state).toBe('success');
  });
  it('reject with onReject skip under all_success: publish skipped without running, run success', () => {
    const d = new Driver(release);
    d.pass();
    d.complete('build', true);
    d.pass();
    d.decide('gate', 'reject');
    d.pass();
    expect(d.run.tasks.publish).toMatchObject({ state: 'skipped', startedAt: null });
    expect(d.run.state).toBe('success');
    expect(d.launched.map((l) => l.taskKey)).toEqual(['build']);
  });
});

describe('launch quota and wake times', () => {
  it('40 independent roots: 32 launch in the first pass, the rest right after', () => {
    const dag = makeDag(
      'wide',
      Array.from({ length: 40 }, (_, i) => ({ id: `t${i}` })),
    );
    const d = new Driver(dag);
    const p1 = d.pass();
    expect(p1.launches.map((l) => l.taskKey)).toEqual(Array.from({ length: 32 }, (_, i) => `t${i}`));
    expect(p1).toMatchObject({ deferred: true, wakeAt: d.now });
    expect(p1.touched.sort()).toEqual(p1.launches.map((l) => l.taskKey).sort());
    const p2 = d.pass();
    expect(p2.launches).toHaveLength(8);
    expect(p2.deferred).toBe(false);
    expect(p2.wakeAt).toBe(d.now + IDLE_WAKE_SECONDS);
  });
  it('gates do not count against the quota, and maxLaunches 0 (shutting down) claims nothing', () => {
    const dag = makeDag('g', [
      ...Array.from({ length: 33 }, (_, i) => ({ id: `g${i}`, type: 'approval' as const })),
      { id: 't' },
    ]);
    const d = new Driver(dag);
    const p = d.pass({}, 1);
    expect(p.actions.filter((a) => a.type === 'park')).toHaveLength(33);
    expect(p.launches.map((l) => l.taskKey)).toEqual(['t']);
    const idle = new Driver(makeDag('z', [{ id: 'a' }])).pass({}, 0);
    expect(idle).toMatchObject({ launches: [], deferred: true });
  });
  it('plan never touches the document it reads', () => {
    const d = new Driver(diamond);
    const before = JSON.stringify(d.run);
    plan(d.run, diamond, d.now);
    expect(JSON.stringify(d.run)).toBe(before);
  });
});

describe('walk order', () => {
  it('is config order when that is topological, upstream-first otherwise; duplicate edges count once', () => {
    const inOrder = makeDag('o', [{ id: 'z' }, { id: 'a', dependsOn: ['z', 'z'] }, { id: 'm' }]);
    expect(graphOf(inOrder).order.map((t) => t.id)).toEqual(['z', 'a', 'm']);
    expect(graphOf(inOrder).deps.get('a')).toEqual(['z']);
    const reversed = makeDag('o', [
      { id: 'c', dependsOn: ['b'] },
      { id: 'x' },
      { id: 'b', dependsOn: ['a'] },
      { id: 'a' },
    ]);
    expect(graphOf(reversed).order.map((t) => t.id)).toEqual(['x', 'a', 'b', 'c']);
  });
  it('settles a cascade in one pass even when config lists downstreams first', () => {
    const dag = makeDag('rev', [{ id: 'c', dependsOn: ['b'] }, { id: 'b', dependsOn: ['a'] }, { id: 'a' }]);
    const d = new Driver(dag);
    d.pass();
    expect(launchedKeys(d)).toEqual(['a']);
    d.complete('a', false);
    const p = d.pass();
    expect(p.actions).toEqual([
      { type: 'cascade', taskKey: 'b', state: 'upstream_failed' },
      { type: 'cascade', taskKey: 'c', state: 'upstream_failed' },
      { type: 'finish', state: 'failed' },
    ]);
  });
  it('an all_done task that ran after a failure leaves the run failed; skipped is no failure', () => {
    const dag = makeDag('r', [{ id: 'a' }, { id: 'cleanup', dependsOn: ['a'], triggerRule: 'all_done' }]);
    const d = new Driver(dag);
    d.pass();
    d.complete('a', false);
    d.pass();
    d.complete('cleanup', true);
    d.pass();
    expect(d.run.state).toBe('failed');
  });
  it('a finished run plans nothing and refuses a second finish', () => {
    const d = new Driver(makeDag('one', [{ id: 'a' }]));
    d.pass();
    d.complete('a', true);
    d.pass();
    expect(d.run.state).toBe('success');
    expect(plan(d.run, d.dag, d.now)).toEqual({ actions: [], deferred: false, wakeAt: null });
    expect(d.event({ type: 'finish', state: 'failed', now: d.now }).rejected).toBe('run is already terminal');
    const again = claimPass(d.run, d.dag, { now: d.now, proc: 'p', host: 'h' });
    expect(again.changed).toBe(false);
    expect(again.run).toBe(d.run);
  });
});

describe('every task kind under every trigger rule and upstream outcome', () => {
  const kinds = ['task', 'sensor', 'approval', 'mapped'] as const;
  const outcomes = ['success', 'failed', 'skipped'] as const;
  type Kind = (typeof kinds)[number];

  /** What `down` (or its one instance) does once `up` ended with `outcome`. */
  function firstMove(kind: Kind, rule: 'all_success' | 'all_done', outcome: (typeof outcomes)[number]) {
    const dag = makeDag('k', [
      { id: 'src' },
      outcome === 'skipped' ? { id: 'up', type: 'approval', onReject: 'skip' } : { id: 'up' },
      {
        id: 'down',
        dependsOn: ['src', 'up'],
        triggerRule: rule,
        ...(kind === 'mapped' ? { expand: { fromTask: 'src', key: 'k' } } : { type: kind }),
      },
    ]);
    const d = new Driver(dag);
    d.pass();
    d.complete('src', true);
    if (outcome === 'skipped') d.decide('up', 'reject');
    else d.complete('up', outcome === 'success');
    d.pass({ down: [7] });
    const key = kind === 'mapped' && d.state('down') === 'expanded' ? 'down#0' : 'down';
    const moves = d.passes.flatMap((p) => p.actions).filter((a) => 'taskKey' in a && a.taskKey === key);
    return { key, move: moves[0] ?? null, state: d.state(key) };
  }

  for (const kind of kinds)
    for (const rule of ['all_success', 'all_done'] as const)
      for (const outcome of outcomes)
        it(`${kind}, ${rule}, upstream ${outcome}`, () => {
          const { key, move, state } = firstMove(kind, rule, outcome);
          const runs = rule === 'all_done' || outcome === 'success';
          // the source succeeded, so a mapped task expands first and its instance takes the verdict
          expect(key).toBe(kind === 'mapped' ? 'down#0' : 'down');
          if (!runs) {
            const to = outcome === 'failed' ? 'upstream_failed' : 'skipped';
            expect(move).toEqual({ type: 'cascade', taskKey: key, state: to });
            expect(state).toBe(to);
            return;
          }
          expect(state).toBe('running');
          if (kind === 'approval') expect(move).toEqual({ type: 'park', taskKey: 'down' });
          else
            expect(move).toMatchObject({
              type: 'launch',
              taskKey: kind === 'mapped' ? 'down#0' : 'down',
              kind: kind === 'sensor' ? 'sensor' : 'task',
              reason: 'first',
              attempt: 0,
              pokeCount: kind === 'sensor' ? 0 : null,
            });
        });
});

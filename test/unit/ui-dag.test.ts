// The dashboard's DAG logic (spec 06 §9.2, spec 04 §9): graph layout by dependency depth, state tones,
// mapped-task node labels, Approve / Reject visibility, card cells, XCom inline values, decision messages.
import { describe, expect, it } from 'vitest';
import {
  type ApiDagRun,
  type ApiTaskEntry,
  backfillMessage,
  canBackfill,
  clockOf,
  dagShapeText,
  decisionMessage,
  dueIn,
  fanOut,
  fanOutText,
  formatDagHash,
  instanceLabel,
  layoutGraph,
  NODE_W,
  nodeView,
  outcomeSegments,
  outcomeText,
  parseDagHash,
  runningCount,
  scheduleText,
  sensorDetail,
  showDecisionButtons,
  stateTone,
  taskDepths,
  taskDetail,
  taskStateSummary,
  tookText,
  XCOM_INLINE_MAX,
  xcomInline,
} from '../../src/dashboard/dag.ts';
import { dagEntry } from '../helpers/dag-entry.ts';

const entry = dagEntry;

function run(tasks: Record<string, ApiTaskEntry>): ApiDagRun {
  return {
    dag: 'd',
    runKey: 'manual-1',
    runId: 'x',
    state: 'running',
    kind: 'manual',
    logicalDate: null,
    createdAt: 0,
    updatedAt: 0,
    tasks,
    mapped: {},
  };
}

const t = (id: string, ...dependsOn: string[]) => ({ id, dependsOn });

describe('taskDepths / layoutGraph', () => {
  it('puts roots at depth 0 and every task one past its deepest upstream', () => {
    const d = taskDepths([t('a'), t('b', 'a'), t('c', 'a'), t('d', 'b', 'c'), t('e', 'a', 'd'), t('lone')]);
    expect(Object.fromEntries(d)).toEqual({ a: 0, b: 1, c: 1, d: 2, e: 3, lone: 0 });
  });

  it('does not depend on config order', () => {
    const d = taskDepths([t('z', 'y'), t('y', 'x'), t('x')]);
    expect(Object.fromEntries(d)).toEqual({ x: 0, y: 1, z: 2 });
  });

  it('treats an unknown upstream as absent and survives a cycle', () => {
    expect(Object.fromEntries(taskDepths([t('a', 'ghost')]))).toEqual({ a: 0 });
    const cyc = taskDepths([t('a', 'b'), t('b', 'a')]);
    expect(cyc.size).toBe(2);
  });

  it('lays columns by depth left to right and rows in config order', () => {
    const g = layoutGraph([t('a'), t('b', 'a'), t('c', 'a'), t('d', 'b', 'c')]);
    const at = Object.fromEntries(g.nodes.map((n) => [n.id, n]));
    expect([at.a!.depth, at.b!.depth, at.c!.depth, at.d!.depth]).toEqual([0, 1, 1, 2]);
    expect(at.b!.x).toBe(at.c!.x);
    expect(at.a!.x).toBeLessThan(at.b!.x);
    expect(at.b!.x).toBeLessThan(at.d!.x);
    expect(at.b!.y).toBeLessThan(at.c!.y);
    expect(at.a!.y).toBe(at.b!.y);
    expect(g.edges).toEqual([
      { from: 'a', to: 'b' },
      { from: 'a', to: 'c' },
      { from: 'b', to: 'd' },
      { from: 'c', to: 'd' },
    ]);
    // Every node fits inside the drawing.
    for (const n of g.nodes) expect(n.x + NODE_W).toBeLessThanOrEqual(g.width);
    expect(g.height).toBeGreaterThan(at.c!.y);
  });

  it('draws nothing for an empty DAG and drops duplicate and unknown edges', () => {
    expect(layoutGraph([])).toEqual({ nodes: [], edges: [], width: 0, height: 0 });
    expect(layoutGraph([t('a'), t('b', 'a', 'a', 'nope')]).edges).toEqual([{ from: 'a', to: 'b' }]);
  });
});

describe('stateTone', () => {
  it('maps every task and run state to a tone', () => {
    expect(stateTone('success')).toBe('ok');
    expect(stateTone('failed')).toBe('fail');
    expect(stateTone('upstream_failed')).toBe('fail');
    expect(stateTone('running')).toBe('run');
    expect(stateTone('expanded')).toBe('run');
    expect(stateTone('up_for_retry')).toBe('wait');
    expect(stateTone('skipped')).toBe('skip');
    expect(stateTone('pending')).toBe('idle');
    expect(stateTone(null)).toBe('idle');
    expect(stateTone(undefined)).toBe('idle');
  });
});

describe('nodeView', () => {
  const mapped = { id: 'load', mapped: true };
  it('shows a plain task with its state, and no state without a run', () => {
    expect(nodeView({ id: 'a', mapped: false }, null)).toEqual({ state: null, label: 'a', awaiting: false });
    expect(nodeView({ id: 'a', mapped: false }, run({ a: entry('a', 'success') }))).toEqual({
      state: 'success',
      label: 'a',
      awaiting: false,
    });
  });

  it('marks an approval gate waiting for a person', () => {
    const v = nodeView(
      { id: 'g', mapped: false },
      run({ g: entry('g', 'running', { awaitingApproval: true }) }),
    );
    expect(v.awaiting).toBe(true);
    expect(v.state).toBe('running');
  });

  it('shows a mapped task with its instance count and progress, coloured by its instances', () => {
    expect(nodeView(mapped, run({ load: entry('load', 'pending') })).label).toBe('load [×?]');
    const r = run({
      load: entry('load', 'expanded', { mapped: true }),
      'load#0': entry('load', 'success', { mapIndex: 0 }),
      'load#1': entry('load', 'running', { mapIndex: 1 }),
      'load#2': entry('load', 'success', { mapIndex: 2 }),
    });
    expect(nodeView(mapped, r)).toEqual({ state: 'running', label: 'load [×3] 2/3', awaiting: false });
    r.tasks['load#1'] = entry('load', 'failed', { mapIndex: 1 });
    expect(nodeView(mapped, r).state).toBe('failed');
    r.tasks['load#1'] = entry('load', 'success', { mapIndex: 1 });
    expect(nodeView(mapped, r)).toEqual({ state: 'success', label: 'load [×3] 3/3', awaiting: false });
  });

  it('shows an all-skipped fan-out as skipped', () => {
    const r = run({ 'load#0': entry('load', 'skipped', { mapIndex: 0 }) });
    expect(nodeView(mapped, r).state).toBe('skipped');
  });
});

describe('showDecisionButtons', () => {
  const approval = { type: 'approval' as const };
  it('shows Approve / Reject only on an approval gate awaiting a decision', () => {
    expect(showDecisionButtons(entry('g', 'running', { awaitingApproval: true }), approval)).toBe(true);
    expect(showDecisionButtons(entry('g', 'pending'), approval)).toBe(false);
    expect(
      showDecisionButtons(
        entry('g', 'running', { awaitingApproval: true, approval: { decision: 'approved', by: 'x', at: 1 } }),
        approval,
      ),
    ).toBe(false);
    expect(
      showDecisionButtons(
        entry('g', 'success', { approval: { decision: 'approved', by: 'x', at: 1 } }),
        approval,
      ),
    ).toBe(false);
    expect(showDecisionButtons(entry('t', 'running', { awaitingApproval: true }), { type: 'task' })).toBe(
      false,
    );
    expect(showDecisionButtons(entry('t', 'running', { awaitingApproval: true }), undefined)).toBe(false);
  });
});

describe('card and table wording', () => {
  it('says how a DAG is scheduled', () => {
    expect(scheduleText({ enabled: true, scheduled: true, schedule: '*/3 * * * *' })).toBe('*/3 * * * *');
    expect(scheduleText({ enabled: true, scheduled: false })).toBe('manual');
    expect(scheduleText({ enabled: false, scheduled: true, schedule: '@daily' })).toBe('disabled');
  });

  it('counts running runs, zero without rollups', () => {
    expect(runningCount({ runCounts: { running: 2, success: 5 } })).toBe(2);
    expect(runningCount({})).toBe(0);
  });

  it('summarises task states worst first and skips zeros', () => {
    expect(taskStateSummary({ success: 4, running: 1, failed: 0, upstream_failed: 2 })).toBe(
      'upstream failed 2 · running 1 · success 4',
    );
    expect(taskStateSummary({})).toBe('');
  });

  it('labels mapped instances with their item', () => {
    expect(instanceLabel('load#1', entry('load', 'success', { mapIndex: 1, mapItem: 'us' }))).toBe(
      'load#1 (us)',
    );
    expect(instanceLabel('load#1', entry('load', 'success', { mapIndex: 1, mapItem: { r: 1 } }))).toBe(
      'load#1 ({"r":1})',
    );
    expect(instanceLabel('build', entry('build', 'success'))).toBe('build');
    const long = instanceLabel('x#0', entry('x', 'success', { mapIndex: 0, mapItem: 'a'.repeat(40) }));
    expect(long).toBe(`x#0 (${'a'.repeat(23)}…)`);
  });

  it('formats clocks and durations from epoch seconds', () => {
    expect(clockOf(Date.UTC(2026, 0, 2, 3, 4, 5) / 1000)).toBe('03:04:05');
    expect(clockOf(null)).toBe('—');
    expect(tookText(100, 102.5, 0)).toBe('2.5s');
    expect(tookText(100, 230, 0)).toBe('2m10s');
    expect(tookText(100, null, 101_000)).toBe('1.0s');
    expect(tookText(null, null, 0)).toBe('—');
  });
});

describe('dagShapeText', () => {
  it('counts tasks, approvals and sensors, and flags a fan-out', () => {
    expect(
      dagShapeText([
        { type: 'task', mapped: false },
        { type: 'approval', mapped: false },
        { type: 'sensor', mapped: false },
        { type: 'task', mapped: false },
      ]),
    ).toBe('4 tasks · 1 approval · 1 sensor');
    expect(
      dagShapeText([
        { type: 'task', mapped: false },
        { type: 'task', mapped: true },
      ]),
    ).toBe('2 tasks · fan-out');
    expect(dagShapeText([{ type: 'task', mapped: false }])).toBe('1 task');
  });
});

describe('xcomInline', () => {
  it('shows small values and hides large or missing ones', () => {
    expect(xcomInline({ taskkey: 'a', key: 'k', sha256: 'ab', size: 4, at: 0, value: '[1]\n' })).toBe('[1]');
    expect(
      xcomInline({ taskkey: 'a', key: 'k', sha256: 'ab', size: XCOM_INLINE_MAX + 1, at: 0, value: 'x' }),
    ).toBeNull();
    expect(xcomInline({ taskkey: 'a', key: 'k', sha256: 'ab', size: 4, at: 0 })).toBeNull();
  });
});

describe('decisionMessage', () => {
  it('shows the server message of a 409 and other failures', () => {
    expect(decisionMessage(200, '{"ok":true,"state":"success"}')).toBe('decision recorded');
    expect(decisionMessage(409, '{"error":"task is not awaiting approval"}')).toBe(
      'Already decided: task is not awaiting approval',
    );
    expect(decisionMessage(404, '{"error":"unknown dag \'x\'"}')).toBe("HTTP 404: unknown dag 'x'");
    expect(decisionMessage(500, 'boom')).toBe('HTTP 500: boom');
    expect(decisionMessage(502, '')).toBe('HTTP 502: no answer');
  });
});

describe('backfill and task detail wording', () => {
  it('allows backfill only for scheduled DAGs', () => {
    expect(canBackfill({ scheduled: true })).toBe(true);
    expect(canBackfill({ scheduled: false })).toBe(false);
  });

  it('words backfill answers', () => {
    expect(backfillMessage(200, '{"ok":true,"created":3}')).toBe(
      'backfill: 3 run(s) in the window (existing runs are kept)',
    );
    expect(backfillMessage(200, '{"ok":true,"created":0}')).toBe('backfill: no instants in that window');
    expect(backfillMessage(400, '{"error":"bad date range"}')).toBe('backfill refused: bad date range');
    expect(backfillMessage(400, 'nope')).toBe('backfill refused: HTTP 400 nope');
  });

  it('says what a task is waiting for or why it failed', () => {
    expect(taskDetail(entry('g', 'running', { awaitingApproval: true }))).toBe('awaiting a decision');
    expect(
      taskDetail(entry('g', 'success', { approval: { decision: 'approved', by: 'dashboard', at: 1 } })),
    ).toBe('approved by dashboard');
    const at = Date.UTC(2026, 0, 1, 1, 2, 3) / 1000;
    expect(
      taskDetail(
        entry('t', 'up_for_retry', { nextRetryAt: at, failReason: 'failsWhen=nonzeroReturn and retcode=3' }),
        (at - 4) * 1000,
      ),
    ).toBe('retry due 01:02:03 (in 4s) after failsWhen=nonzeroReturn and retcode=3');
    expect(taskDetail(entry('t', 'failed', { failReason: 'exit 3' }))).toBe('exit 3');
    expect(taskDetail(entry('t', 'success'))).toBe('');
  });

  it("draws the card's stacked outcome bar over the kept runs", () => {
    expect(outcomeSegments(undefined)).toEqual([]);
    expect(outcomeSegments({ success: 3, failed: 1 })).toEqual([
      { tone: 'ok', label: 'success', count: 3, percent: 75 },
      { tone: 'fail', label: 'failed', count: 1, percent: 25 },
    ]);
    expect(outcomeText(outcomeSegments({ success: 3, failed: 1 }))).toBe('3 success, 1 failed of 4 runs');
    expect(outcomeText(outcomeSegments({ running: 1 }))).toBe('1 running of 1 run');
  });

  it('words due times', () => {
    expect(dueIn(100, 93_000)).toBe('in 7s');
    expect(dueIn(300, 0)).toBe('in 5m00s');
    expect(dueIn(100, 100_000)).toBe('due now');
  });

  it("shows a sensor's poke count, its next poke, a poke in flight, and its outcome", () => {
    const at = Date.UTC(2026, 0, 1, 1, 2, 3) / 1000;
    const sensor = (state: ApiTaskEntry['state'], extra: Partial<ApiTaskEntry>) =>
      entry('canary', state, { pokeCount: 0, nextPokeAt: null, firstPokeAt: null, proc: null, ...extra });
    expect(sensorDetail(entry('t', 'running'), 0)).toBe('');
    expect(sensorDetail(sensor('running', { pokeCount: 2, nextPokeAt: at }), (at - 9) * 1000)).toBe(
      'poke #2 · next poke 01:02:03 (in 9s)',
    );
    expect(taskDetail(sensor('running', { pokeCount: 2, proc: 'abc' }), 0)).toBe('poking (#3)');
    expect(taskDetail(sensor('success', { pokeCount: 4 }), 0)).toBe('succeeded on poke #4');
    expect(taskDetail(sensor('failed', { pokeCount: 30, failReason: 'sensor timed out' }), 0)).toBe(
      'sensor timed out · 30 pokes',
    );
    expect(sensorDetail(sensor('pending', {}), 0)).toBe('');
  });

  it('meters a fan-out from its instances, and not before it expanded', () => {
    const inst = (i: number, state: ApiTaskEntry['state']) => entry('load', state, { mapIndex: i });
    const tasks = {
      load: entry('load', 'expanded', { mapped: true }),
      'load#0': inst(0, 'success'),
      'load#1': inst(1, 'failed'),
      'load#2': inst(2, 'running'),
      'load#3': inst(3, 'up_for_retry'),
      'load#4': inst(4, 'pending'),
      other: entry('other', 'success'),
    };
    const f = fanOut(tasks, 'load')!;
    expect(f).toEqual({ total: 5, done: 2, success: 1, failed: 1, skipped: 0, running: 2, pending: 1 });
    expect(fanOutText(f)).toBe('2/5 done · 1 failed · 2 running · 1 pending');
    expect(fanOut({ load: entry('load', 'pending', { mapped: true }) }, 'load')).toBeNull();
    expect(fanOutText(fanOut({ load: entry('load', 'expanded', { mapped: true }) }, 'load')!)).toBe(
      'fan-out of 0 items (nothing to run)',
    );
  });
});

describe('DAG drawer hash', () => {
  it('round-trips #dag/<name>[/<runKey>] and ignores other hashes', () => {
    expect(parseDagHash('#dag/ship')).toEqual({ name: 'ship', runKey: null });
    expect(parseDagHash(formatDagHash('a b', '2026-07-05T03:00:00_00:00'))).toEqual({
      name: 'a b',
      runKey: '2026-07-05T03:00:00_00:00',
    });
    expect(formatDagHash('ship', null)).toBe('#dag/ship');
    expect(parseDagHash('#job/ship/logs')).toBeNull();
    expect(parseDagHash('#dag/')).toBeNull();
    expect(parseDagHash('')).toBeNull();
    expect(parseDagHash('#dag/%E0%A4%A')).toBeNull();
  });
});

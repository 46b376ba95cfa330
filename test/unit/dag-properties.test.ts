// Property tests over random DAG shapes (spec 04 §3, §5, §7.5): random acyclic graphs of up to 40 tasks
// with every kind, rule and retry count, driven to the end by random outcomes, decisions, expansions and
// crashes through the pure planner and reducers. No instance is launched twice, every run terminates, and
// the final document agrees with §3.2 and §3.8.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DagConfig } from '../../src/config/types.ts';
import {
  canTransition,
  effectiveState,
  graphOf,
  isFailure,
  isTerminal,
  plan,
  type RunState,
  type TaskState,
} from '../../src/dag/index.ts';
import { Driver, type Launch, makeDag, type TaskSpec } from './dag-fixtures.ts';

interface RawTask {
  deps: number[];
  kind: number;
  allDone: boolean;
  retries: number;
  retryDelay: number;
  mapped: boolean;
  interval: number;
  timeout: number;
  jitter: number;
  rejectSkips: boolean;
  order: number;
}

const rawTask = fc.record({
  deps: fc.array(fc.nat(1_000_000), { maxLength: 4 }),
  kind: fc.nat(99),
  allDone: fc.boolean(),
  retries: fc.nat(2),
  retryDelay: fc.nat(10),
  mapped: fc.boolean(),
  interval: fc.nat(20),
  timeout: fc.nat(100),
  jitter: fc.nat(5),
  rejectSkips: fc.boolean(),
  order: fc.nat(1_000_000),
});

/** Task i may only depend on tasks before it (acyclic); config order is then shuffled by `order`. */
function buildDag(raws: RawTask[]): DagConfig {
  const specs: (TaskSpec & { order: number })[] = [];
  raws.forEach((r, i) => {
    const deps = i === 0 ? [] : r.deps.map((p) => `t${p % i}`);
    const type = r.kind < 70 ? 'task' : r.kind < 85 ? 'sensor' : 'approval';
    const spec: TaskSpec & { order: number } = {
      id: `t${i}`,
      type,
      dependsOn: deps, // duplicates kept on purpose: they count as one edge
      triggerRule: r.allDone ? 'all_done' : 'all_success',
      retries: r.retries,
      retryDelaySeconds: r.retryDelay,
      pokeIntervalSeconds: r.interval,
      pokeTimeoutSeconds: r.timeout,
      pokeJitterSeconds: r.jitter,
      onReject: r.rejectSkips ? 'skip' : 'fail',
      order: r.order,
    };
    const source = deps.find((d) => !specs[Number(d.slice(1))]!.expand);
    if (type === 'task' && r.mapped && source) spec.expand = { fromTask: source, key: 'items' };
    specs.push(spec);
  });
  specs.sort((a, b) => a.order - b.order);
  return makeDag(
    'prop',
    specs.map(({ order: _, ...t }) => t),
  );
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface InFlight {
  launch: Launch;
  proc: string;
  doneAt: number;
}

interface Outcome {
  run: RunState;
  steps: number;
  launches: { launch: Launch; proc: string }[];
  staleAccepted: number;
}

/**
 * A step is one claim pass plus the completions and decisions due by the next wake. Observed runs of up
 * to 40 tasks end within ~70 steps; a planner that stalls or loops (a task never claimed, a wake that
 * never comes due, a re-claim cycle) runs into this ceiling instead.
 */
const MAX_STEPS = 2_000;

/**
 * One advancing daemon (or a chain of them, when `crashes`): pass, spawn, complete, decide, repeat, with
 * time jumping to the next completion or wake. Every state change is checked against the §3.1 table.
 */
function simulate(dag: DagConfig, seed: number, crashes: boolean): Outcome {
  const rnd = mulberry32(seed);
  const d = new Driver(dag);
  const inflight: InFlight[] = [];
  const launches: Outcome['launches'] = [];
  let reads: string[] = [];
  let staleAccepted = 0;
  let generation = 0;

  // Plain throws, not expect(): this runs for every entry on every step.
  const checkTransitions = (before: RunState, after: RunState) => {
    if (before === after) return;
    for (const key in after.tasks) {
      const from = before.tasks[key]?.state;
      const to = after.tasks[key]!.state;
      // a new instance starts pending, and the same pass may already claim or cascade it
      const legal =
        from === undefined
          ? to === 'pending' || canTransition('pending', to)
          : from === to || canTransition(from, to);
      if (!legal) throw new Error(`illegal transition of ${key}: ${from} -> ${to}`);
    }
    for (const key in before.tasks) if (!after.tasks[key]) throw new Error(`entry ${key} vanished`);
  };
  const event = (ev: Parameters<Driver['event']>[0]) => {
    const before = d.run;
    const r = d.event(ev);
    checkTransitions(before, r.run);
    return r;
  };

  let steps = 0;
  for (; steps < MAX_STEPS; steps++) {
    const lists: Record<string, unknown[]> = {};
    for (const id of reads) {
      const roll = rnd();
      lists[id] =
        roll < 0.03 ? new Array(1001).fill(0) : Array.from({ length: Math.floor(roll * 5) }, (_, i) => i);
    }
    const before = d.run;
    const p = d.pass(lists);
    checkTransitions(before, p.run);
    reads = p.reads.map((r) => r.taskId);
    for (const l of p.launches) {
      launches.push({ launch: l, proc: d.proc });
      inflight.push({ launch: l, proc: d.proc, doneAt: d.now + 1 + Math.floor(rnd() * 10) });
    }
    if (d.run.state !== 'running') break;

    if (crashes && rnd() < 0.02) {
      // The owner dies: its children are orphaned (their completions may still arrive, and must be
      // fenced out), and the next owner reconciles before its first pass.
      generation++;
      d.proc = `proc-${generation}`;
      d.host = `host-${generation}`;
      event({ type: 'reconcile', proc: d.proc, host: d.host, alive: () => false, now: d.now });
    }

    const gates = Object.keys(d.run.tasks).filter((k) => d.run.tasks[k]!.awaitingApproval);
    const nextDone = Math.min(...inflight.map((f) => f.doneAt));
    const idle = inflight.length === 0 && reads.length === 0 && !p.deferred;
    for (const g of gates) {
      if (idle || rnd() < 0.2) {
        const r = event({
          type: 'decision',
          taskKey: g,
          decision: rnd() < 0.5 ? 'approve' : 'reject',
          by: 'prop',
          now: d.now,
        });
        expect(r.rejected).toBeNull();
      }
    }
    const wake = p.wakeAt ?? d.now;
    d.now = Math.max(d.now, Math.min(wake, nextDone));
    for (let i = inflight.length - 1; i >= 0; i--) {
      const f = inflight[i]!;
      if (f.doneAt > d.now) continue;
      inflight.splice(i, 1);
      const ok = rnd() < (f.launch.kind === 'sensor' ? 0.35 : 0.6);
      const r = event({
        type: 'complete',
        taskKey: f.launch.taskKey,
        proc: f.proc,
        attempt: f.launch.attempt,
        pokeCount: f.launch.pokeCount,
        ok,
        exitCode: ok ? 0 : 1,
        failReason: ok ? null : 'failsWhen=nonzeroReturn and retcode=1',
        jitter: rnd(),
        now: d.now,
      });
      if (f.proc !== d.proc && r.rejected === null) staleAccepted++;
      if (f.proc === d.proc) expect(r.rejected, `${f.launch.taskKey} completion`).toBeNull();
    }
  }
  return { run: d.run, steps, launches, staleAccepted };
}

/** §3.8 restated: the member states of a run, computed independently of the planner. */
function memberStates(run: RunState, dag: DagConfig): TaskState[] {
  const out: TaskState[] = [];
  for (const t of dag.tasks) {
    const e = run.tasks[t.id];
    if (!e) continue;
    if (e.state !== 'expanded') out.push(e.state);
    else {
      const n = run.mapped[t.id]!.items.length;
      for (let i = 0; i < n; i++) out.push(run.tasks[`${t.id}#${i}`]!.state);
    }
  }
  return out;
}

function checkFinal(dag: DagConfig, o: Outcome, crashes: boolean): void {
  const { run } = o;
  expect(run.state, 'the run terminated').not.toBe('running');
  const members = memberStates(run, dag);
  expect(members.every(isTerminal)).toBe(true);
  expect(run.state).toBe(members.some(isFailure) ? 'failed' : 'success');

  // No instance launched twice: one launch per (key, attempt, poke) per owner, and without crashes one
  // per (key, attempt, poke) at all. A plain task never gets more than retries + 1 launches.
  const graph = graphOf(dag);
  const seen = new Set<string>();
  const perKey = new Map<string, number[]>();
  for (const { launch: l, proc } of o.launches) {
    const id = crashes
      ? `${l.taskKey}|${l.attempt}|${l.pokeCount}|${proc}`
      : `${l.taskKey}|${l.attempt}|${l.pokeCount}`;
    expect(seen.has(id), `launched twice: ${id}`).toBe(false);
    seen.add(id);
    if (l.kind === 'task') perKey.set(l.taskKey, [...(perKey.get(l.taskKey) ?? []), l.attempt]);
  }
  for (const [key, attempts] of perKey) {
    const t = graph.byId.get(run.tasks[key]!.id)!;
    expect(new Set(attempts).size).toBe(attempts.length);
    expect(Math.max(...attempts)).toBeLessThan(t.retries + 1);
  }
  expect(o.staleAccepted, 'a crashed owner landed a completion').toBe(0);

  // Trigger rules (§3.2) against the final document: terminal states never change, so an upstream's
  // final effective state is the one its downstream was judged on.
  for (const key in run.tasks) {
    const e = run.tasks[key]!;
    const t = graph.byId.get(e.id)!;
    if (e.mapped) continue;
    const ups = graph.deps
      .get(t.id)!
      .map((dep) => effectiveState(run, dep))
      .filter((s) => s !== null);
    if (e.startedAt !== null) {
      if (t.triggerRule === 'all_success')
        expect(
          ups.every((s) => s === 'success'),
          key,
        ).toBe(true);
      for (const dep of graph.deps.get(t.id)!) {
        const finishes =
          run.tasks[dep]!.state === 'expanded'
            ? Object.values(run.tasks)
                .filter((x) => x.id === dep && x.mapIndex !== null)
                .map((x) => x.finishedAt!)
            : [run.tasks[dep]!.finishedAt!];
        for (const f of finishes)
          expect(e.startedAt, `${key} started before ${dep} finished`).toBeGreaterThanOrEqual(f);
      }
    } else if (e.state === 'upstream_failed') {
      expect(t.triggerRule).toBe('all_success');
      expect(ups.some(isFailure), key).toBe(true);
    } else if (e.state === 'skipped') {
      expect(t.triggerRule).toBe('all_success');
      expect(ups.some((s) => s === 'skipped') && !ups.some(isFailure), key).toBe(true);
    } else expect.unreachable(`${key} is ${e.state} without ever starting`);
  }
}

const shapes = fc.tuple(fc.array(rawTask, { minLength: 1, maxLength: 40, size: 'max' }), fc.nat());

describe('random DAGs driven to the end', () => {
  it('one owner: no double launch, termination, §3.8 and §3.2 hold', () => {
    fc.assert(
      fc.property(shapes, ([raws, seed]) => {
        const dag = buildDag(raws);
        const o = simulate(dag, seed, false);
        expect(o.steps).toBeLessThan(MAX_STEPS);
        checkFinal(dag, o, false);
      }),
      { numRuns: 300 },
    );
  });

  it('owners crashing and adopting mid-run: still terminates, stale completions are fenced out', () => {
    fc.assert(
      fc.property(shapes, ([raws, seed]) => {
        const dag = buildDag(raws);
        const o = simulate(dag, seed, true);
        expect(o.steps).toBeLessThan(MAX_STEPS);
        checkFinal(dag, o, true);
      }),
      { numRuns: 200 },
    );
  });

  it('plan is a function of (document, config, now) and never writes the document', () => {
    fc.assert(
      fc.property(shapes, ([raws, seed]) => {
        const dag = buildDag(raws);
        const d = new Driver(dag);
        const rnd = mulberry32(seed);
        for (let i = 0; i < 5 && d.run.state === 'running'; i++) {
          for (const l of d.pass().launches) if (rnd() < 0.7) d.complete(l.taskKey, rnd() < 0.5);
          d.now += 5;
        }
        const snapshot = JSON.stringify(d.run);
        const a = plan(d.run, dag, d.now);
        const b = plan(structuredClone(d.run), dag, d.now);
        expect(b).toEqual(a);
        expect(JSON.stringify(d.run)).toBe(snapshot);
      }),
      { numRuns: 100 },
    );
  });
});

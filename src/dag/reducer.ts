// Every change to a run document as a pure reducer (spec 04 §3, §7.3, §7.5): body in, body out, plus
// whether it applied. The store runs each inside one write transaction; tests drive whole runs with it.
import type { DagConfig, DagTaskConfig } from '../config/types.ts';
import { capMessage, MAX_MAPPED_ITEMS } from './expand.ts';
import { graphOf } from './graph.ts';
import {
  blankEntry,
  canTransition,
  IllegalTransition,
  type RunState,
  type TaskEntry,
  type TaskState,
} from './model.ts';
import { type Action, type Plan, type PlanOptions, plan } from './planner.ts';
import { effectiveState } from './trigger-rules.ts';

export const RECONCILED_CRASH = 'reconciled-crash';
export const SENSOR_TIMED_OUT = 'sensor timed out';

export type DagEvent =
  /** Claim (pending/up_for_retry -> running), or a sensor's re-poke (idle running -> running). */
  | { type: 'claim'; taskKey: string; proc: string; host: string; now: number }
  | { type: 'park'; taskKey: string; now: number }
  | { type: 'cascade'; taskKey: string; state: 'upstream_failed' | 'skipped'; now: number }
  | { type: 'sensor-timeout'; taskKey: string; now: number }
  | { type: 'finish'; state: 'success' | 'failed'; now: number }
  /** The decoded list for a mapped task (expand.decodeItems); over the cap fails the placeholder. */
  | { type: 'expansion'; taskId: string; items: unknown[]; now: number }
  /** The spawned subprocess's pid, fenced like a completion. */
  | { type: 'pid'; taskKey: string; proc: string; attempt: number; pid: number; now: number }
  /**
   * The verdict of one attempt or poke (a spawn failure is one too: exitCode 127, "launch failed").
   * `jitter` in [0, 1) scales the sensor's `pokeJitterSeconds` (the caller draws it).
   */
  | {
      type: 'complete';
      taskKey: string;
      proc: string;
      attempt: number;
      pokeCount?: number | null;
      ok: boolean;
      exitCode: number | null;
      failReason: string | null;
      resources?: unknown;
      jitter?: number;
      now: number;
    }
  | { type: 'decision'; taskKey: string; decision: 'approve' | 'reject'; by: string; now: number }
  /**
   * §7.3, run by the lease holder: every `running` entry not provably alive is a crash victim. `alive`
   * answers for a pid on this host (the only I/O it needs, asked by the caller).
   */
  | { type: 'reconcile'; proc: string; host: string; alive: (pid: number) => boolean; now: number };

export interface Applied {
  run: RunState;
  changed: boolean;
  /** Why the event was dropped (fenced out, not waiting, ...), or null when it applied. */
  rejected: string | null;
  /** The task keys the event changed (for logs: "reconciled ..."). */
  touched: string[];
  /** For a decision: the gate's new state (the HTTP answer, §9). */
  taskState: TaskState | null;
}

/** Copy-on-write over one run: the entries object is copied once, each changed entry replaced whole. */
class Draft {
  private tasks: Record<string, TaskEntry> | null = null;
  private mapped: RunState['mapped'] | null = null;
  private header: Partial<Pick<RunState, 'state'>> = {};
  readonly touched: string[] = [];

  constructor(
    readonly base: RunState,
    readonly now: number,
  ) {}

  get(key: string): TaskEntry | undefined {
    return (this.tasks ?? this.base.tasks)[key];
  }

  /** Replace an entry by `patch`; a state change must be legal (§3.1) or it is a bug, so it throws. */
  update(key: string, patch: Partial<TaskEntry>): void {
    const cur = this.get(key)!;
    if (patch.state !== undefined && !canTransition(cur.state, patch.state))
      throw new IllegalTransition(key, cur.state, patch.state);
    const next: TaskEntry = { ...cur, ...patch, updatedAt: this.now };
    if ('awaitingApproval' in patch && patch.awaitingApproval === undefined) delete next.awaitingApproval;
    this.put(key, next);
  }

  put(key: string, entry: TaskEntry): void {
    this.tasks ??= { ...this.base.tasks };
    this.tasks[key] = entry;
    this.touched.push(key);
  }

  setMapped(id: string, items: unknown[]): void {
    this.mapped ??= { ...this.base.mapped };
    this.mapped[id] = { items, expandedAt: this.now };
  }

  finish(state: 'success' | 'failed'): void {
    this.header.state = state;
  }

  get changed(): boolean {
    return this.tasks !== null || this.mapped !== null || this.header.state !== undefined;
  }

  result(): RunState {
    if (!this.changed) return this.base;
    return {
      ...this.base,
      ...this.header,
      tasks: this.tasks ?? this.base.tasks,
      mapped: this.mapped ?? this.base.mapped,
      updatedAt: this.now,
    };
  }
}

/** Apply one event. Never throws for a stale or unknown event: it comes back with `rejected` set. */
export function apply(run: RunState, dag: DagConfig, event: DagEvent): Applied {
  const d = new Draft(run, event.now);
  const rejected = applyTo(d, dag, event);
  const taskState = event.type === 'decision' && rejected === null ? d.get(event.taskKey)!.state : null;
  return { run: d.result(), changed: d.changed, rejected, touched: d.touched, taskState };
}

function taskOf(dag: DagConfig, entry: TaskEntry): DagTaskConfig | undefined {
  return graphOf(dag).byId.get(entry.id);
}

function applyTo(d: Draft, dag: DagConfig, ev: DagEvent): string | null {
  const now = ev.now;
  switch (ev.type) {
    case 'finish': {
      if (d.base.state !== 'running') return 'run is already terminal';
      d.finish(ev.state);
      return null;
    }
    case 'reconcile':
      reconcile(d, dag, ev);
      return null;
    case 'expansion':
      return expand(d, dag, ev.taskId, ev.items);
  }
  const e = d.get(ev.taskKey);
  if (!e) return 'no such task';
  const t = taskOf(dag, e);
  // A completion (or anything else) for a task removed from the DAG is dropped (§3.7).
  if (!t) return 'no such task';
  switch (ev.type) {
    case 'claim': {
      // The mechanism only: whether the upstreams allow it is the planner's call.
      if (t.type === 'approval') return 'an approval is parked, not claimed';
      if (e.mapped) return 'a mapped placeholder expands, it is not claimed';
      const base = { proc: ev.proc, host: ev.host, pid: null };
      if (e.state === 'up_for_retry' && t.type === 'task') {
        d.update(ev.taskKey, { ...base, state: 'running' });
      } else if (e.state === 'pending') {
        if (t.type === 'sensor')
          d.update(ev.taskKey, {
            ...base,
            state: 'running',
            startedAt: now,
            pokeCount: 0,
            firstPokeAt: now,
            nextPokeAt: null,
          });
        else d.update(ev.taskKey, { ...base, state: 'running', startedAt: e.startedAt ?? now });
      } else if (e.state === 'running' && t.type === 'sensor' && e.proc === null) {
        d.update(ev.taskKey, { ...base, state: 'running', nextPokeAt: null });
      } else return `not claimable in state ${e.state}`;
      return null;
    }
    case 'park': {
      if (t.type !== 'approval' || e.state !== 'pending') return 'not a pending approval';
      d.update(ev.taskKey, { state: 'running', startedAt: now, awaitingApproval: true, approval: null });
      return null;
    }
    case 'cascade': {
      if (e.state !== 'pending') return `cannot cascade from ${e.state}`;
      d.update(ev.taskKey, { state: ev.state, finishedAt: now, proc: null, pid: null });
      return null;
    }
    case 'sensor-timeout': {
      if (t.type !== 'sensor' || e.state !== 'running' || e.proc !== null) return 'not an idle sensor';
      d.update(ev.taskKey, {
        state: 'failed',
        failReason: SENSOR_TIMED_OUT,
        finishedAt: now,
        nextPokeAt: null,
        pid: null,
      });
      return null;
    }
    case 'pid': {
      if (e.state !== 'running' || e.proc !== ev.proc || e.attempt !== ev.attempt) return 'fenced';
      d.update(ev.taskKey, { pid: ev.pid });
      return null;
    }
    case 'complete':
      return complete(d, t, e, ev);
    case 'decision': {
      if (t.type !== 'approval' || e.state !== 'running' || !e.awaitingApproval)
        return 'task is not awaiting approval';
      const approved = ev.decision === 'approve';
      d.update(ev.taskKey, {
        state: approved ? 'success' : t.onReject === 'skip' ? 'skipped' : 'failed',
        awaitingApproval: undefined,
        approval: { decision: approved ? 'approved' : 'rejected', by: ev.by, at: now },
        finishedAt: now,
      });
      return null;
    }
  }
}

type Completion = Extract<DagEvent, { type: 'complete' }>;

/**
 * §7.5 completion fencing: only the claim this completion belongs to may land it (still running, same
 * proc, same attempt, and for a sensor the same poke). A stale owner, a duplicate delivery or a retried
 * write after success all fail one of these and are dropped, which makes the write idempotent.
 */
function complete(d: Draft, t: DagTaskConfig, e: TaskEntry, ev: Completion): string | null {
  if (e.state !== 'running' || e.proc !== ev.proc || e.attempt !== ev.attempt) return 'fenced';
  if (t.type === 'approval') return 'fenced';
  const now = ev.now;
  const extra = ev.resources === undefined ? {} : { resources: ev.resources };
  if (t.type === 'sensor') {
    const pokes = e.pokeCount ?? 0;
    if ((ev.pokeCount ?? pokes) !== pokes) return 'fenced';
    if (ev.ok) {
      d.update(ev.taskKey, {
        ...extra,
        state: 'success',
        pokeCount: pokes + 1,
        exitCode: ev.exitCode,
        failReason: null,
        finishedAt: now,
        proc: null,
        pid: null,
      });
    } else {
      const jitter = Math.max(0, t.pokeJitterSeconds) * Math.min(1, Math.max(0, ev.jitter ?? 0));
      d.update(ev.taskKey, {
        state: 'running',
        pokeCount: pokes + 1,
        exitCode: ev.exitCode,
        nextPokeAt: now + Math.max(0, t.pokeIntervalSeconds) + jitter,
        proc: null,
        pid: null,
      });
    }
    return null;
  }
  if (ev.ok) {
    d.update(ev.taskKey, {
      ...extra,
      state: 'success',
      finishedAt: now,
      exitCode: ev.exitCode,
      failReason: null,
      proc: null,
      pid: null,
    });
    return null;
  }
  failAttempt(d, t, e, ev.taskKey, ev.failReason, ev.exitCode, now + Math.max(0, t.retryDelaySeconds), extra);
  return null;
}

/** A failed attempt of a plain task or instance: retry while attempts are left, else fail (§3.3). */
function failAttempt(
  d: Draft,
  t: DagTaskConfig,
  e: TaskEntry,
  key: string,
  failReason: string | null,
  exitCode: number | null,
  retryAt: number,
  extra: Partial<TaskEntry> = {},
): void {
  const attempt = e.attempt + 1;
  const common = { ...extra, attempt, failReason, exitCode, proc: null, pid: null };
  if (attempt < t.retries + 1) d.update(key, { ...common, state: 'up_for_retry', nextRetryAt: retryAt });
  else d.update(key, { ...common, state: 'failed', finishedAt: d.now, nextRetryAt: null });
}

function reconcile(d: Draft, dag: DagConfig, ev: Extract<DagEvent, { type: 'reconcile' }>): void {
  for (const key in d.base.tasks) {
    const e = d.base.tasks[key]!;
    if (e.state !== 'running' || e.awaitingApproval || e.proc === null || e.proc === ev.proc) continue;
    if (e.host === ev.host && e.pid !== null && ev.alive(e.pid)) continue; // a live orphan child here
    const t = taskOf(dag, e);
    if (!t || t.type === 'approval') continue; // removed tasks are not part of the run (§3.7)
    if (t.type === 'sensor') {
      // An immediate re-poke; pokeCount and firstPokeAt stay, so the timeout window is not reset.
      d.update(key, { proc: null, pid: null, nextPokeAt: ev.now });
    } else {
      failAttempt(d, t, e, key, RECONCILED_CRASH, e.exitCode, ev.now);
    }
  }
}

function expand(d: Draft, dag: DagConfig, taskId: string, items: unknown[]): string | null {
  const e = d.get(taskId);
  if (!e?.mapped) return 'no such mapped task';
  if (e.state !== 'pending' || d.base.mapped[taskId] !== undefined) return 'already resolved';
  const t = taskOf(dag, e);
  // The CAS re-checks what the pre-read assumed: the source is still a success (§5).
  if (t?.expand && d.base.tasks[t.expand.fromTask] && effectiveState(d.base, t.expand.fromTask) !== 'success')
    return 'expand source is not a success';
  if (items.length > MAX_MAPPED_ITEMS) {
    d.update(taskId, { state: 'failed', failReason: capMessage(items.length), finishedAt: d.now });
    return null;
  }
  d.setMapped(taskId, items);
  d.update(taskId, { state: 'expanded' });
  items.forEach((item, i) => {
    const inst = blankEntry(taskId, i, d.now);
    inst.mapItem = item;
    d.put(`${taskId}#${i}`, inst);
  });
  return null;
}

export interface PassContext {
  now: number;
  /** The advancing daemon's process token and host, stamped on every claim. */
  proc: string;
  host: string;
  /** Lists read for mapped tasks before this pass (decoded; see expand.decodeItems), by task id. */
  expansions?: ReadonlyMap<string, unknown[]>;
  /** Stop launching after this many (default 32); a shutting-down daemon passes 0. */
  maxLaunches?: number;
}

export interface Pass extends Plan {
  run: RunState;
  changed: boolean;
  /** The launches this pass claimed: spawn each, then report `pid` and `complete` events. */
  launches: Extract<Action, { type: 'launch' }>[];
  /** Mapped tasks still waiting for their list: read them and pass them to the next pass. */
  reads: Extract<Action, { type: 'expand' }>[];
  /** Entries this pass created or replaced, so a row-per-entry store writes only those. */
  touched: string[];
}

/**
 * The claim CAS of §7.4 step 4 as one pure transform: apply the expansions read beforehand, plan, apply
 * the plan (claims stamped with this owner), and terminalise the run when every member is terminal.
 */
export function claimPass(run: RunState, dag: DagConfig, ctx: PassContext): Pass {
  let cur = run;
  let changed = false;
  const touched: string[] = [];
  if (run.state === 'running' && ctx.expansions) {
    for (const [taskId, items] of ctx.expansions) {
      const r = apply(cur, dag, { type: 'expansion', taskId, items, now: ctx.now });
      cur = r.run;
      changed ||= r.changed;
      touched.push(...r.touched);
    }
  }
  const opts: PlanOptions = ctx.maxLaunches === undefined ? {} : { maxLaunches: ctx.maxLaunches };
  const p = plan(cur, dag, ctx.now, opts);
  const d = new Draft(cur, ctx.now);
  const launches: Pass['launches'] = [];
  const reads: Pass['reads'] = [];
  for (const a of p.actions) {
    if (a.type === 'expand') {
      reads.push(a); // needs a read first: nothing to apply in this pass
      continue;
    }
    const r = applyTo(d, dag, eventFor(a, ctx));
    if (r !== null) throw new Error(`dag planner produced an inapplicable ${a.type}: ${r}`);
    if (a.type === 'launch') launches.push(a);
  }
  return {
    ...p,
    run: d.result(),
    changed: changed || d.changed,
    launches,
    reads,
    touched: [...touched, ...d.touched],
  };
}

function eventFor(a: Exclude<Action, { type: 'expand' }>, ctx: PassContext): DagEvent {
  const now = ctx.now;
  switch (a.type) {
    case 'launch':
      return { type: 'claim', taskKey: a.taskKey, proc: ctx.proc, host: ctx.host, now };
    case 'park':
      return { type: 'park', taskKey: a.taskKey, now };
    case 'cascade':
      return { type: 'cascade', taskKey: a.taskKey, state: a.state, now };
    case 'sensor-timeout':
      return { type: 'sensor-timeout', taskKey: a.taskKey, now };
    case 'finish':
      return { type: 'finish', state: a.state, now };
  }
}

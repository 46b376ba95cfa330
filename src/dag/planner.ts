// One advance pass decided as data (spec 04 §7.4 steps 4b-4c): given a run document, its DAG and
// the time, which instances to launch, park, cascade or time out, which mapped tasks need their list read,
// and whether the run is over. No I/O: the caller turns the actions into one CAS (see reducer.claimPass).
import type { DagConfig, DagTaskConfig } from '../config/types.ts';
import { graphOf } from './graph.ts';
import { isFailure, isTerminal, type RunState, type TaskEntry, type TaskState } from './model.ts';
import { groupFrom, type Verdict, verdictFrom } from './trigger-rules.ts';

/** At most this many launches (task claims and sensor pokes) per pass; gates do not count (§5). */
export const MAX_LAUNCHES_PER_PASS = 32;
/** Idle re-advance floor, and the gate poll that notices a decision made on another node (§7.6). */
export const IDLE_WAKE_SECONDS = 60;
export const GATE_POLL_SECONDS = 5;

export type LaunchReason = 'first' | 'retry' | 'repoke';

export type Action =
  /**
   * Claim and spawn. `attempt` (and `pokeCount` for a sensor) are what the completion must carry back:
   * the reducer fences on them (§7.5).
   */
  | {
      type: 'launch';
      taskKey: string;
      taskId: string;
      mapIndex: number | null;
      kind: 'task' | 'sensor';
      reason: LaunchReason;
      attempt: number;
      pokeCount: number | null;
    }
  /** An approval whose upstreams are satisfied: park it, waiting for a decision. No process. */
  | { type: 'park'; taskKey: string }
  /** Never runs: upstream failure/skip under `all_success`, or the expand source failed/skipped (§3.6). */
  | { type: 'cascade'; taskKey: string; state: 'upstream_failed' | 'skipped' }
  /** A re-poke came due after the sensor's window closed. */
  | { type: 'sensor-timeout'; taskKey: string }
  /**
   * The expand source succeeded: read its newest XCom `<fromTask>/<key>` outside the CAS and feed the list
   * back as an `expansion` event. `fromTask` is null when the run has no source to read (the config lost the
   * `expand` after the run was created): that is a definitive empty list.
   */
  | { type: 'expand'; taskId: string; fromTask: string | null; key: string | null }
  /** Every member is terminal (§3.8). */
  | { type: 'finish'; state: 'success' | 'failed' };

export interface Plan {
  actions: Action[];
  /** The launch quota was hit: advance again immediately. */
  deferred: boolean;
  /** When this run wants its next advance (epoch s), or null once it is terminal (release the lease). */
  wakeAt: number | null;
}

export interface PlanOptions {
  maxLaunches?: number;
}

/**
 * Decide one pass. Actions are listed in walk order and already see each other: a cascade planned here is
 * what its downstreams are judged against in the same pass, so a failure travels the whole graph at once.
 * The walk is topological with config order breaking ties (see graph.ts), instances in index order.
 */
export function plan(run: RunState, dag: DagConfig, now: number, opts: PlanOptions = {}): Plan {
  if (run.state !== 'running') return { actions: [], deferred: false, wakeAt: null };
  const maxLaunches = opts.maxLaunches ?? MAX_LAUNCHES_PER_PASS;
  const graph = graphOf(dag);
  const { order, depPos, sourcePos } = graph;
  const actions: Action[] = [];
  /**
   * Effective state (§3.2) of each task walked so far, by walk position; undefined when the run has no
   * entry for it. Positions, not ids: this loop is the hot path of a 10k-task run (DESIGN.md §12).
   */
  const effective: (TaskState | undefined)[] = new Array(order.length);
  let launches = 0;
  let deferred = false;
  let needsRead = false;
  let gateWaiting = false;
  let wakeAt = now + IDLE_WAKE_SECONDS;

  /** §3.2 over the walked upstreams of position p (all earlier in the walk). */
  const verdictAt = (p: number, rule: DagTaskConfig['triggerRule']): Verdict => {
    const ds = depPos[p]!;
    return verdictFrom(rule, ds.length, (i) => effective[ds[i]!]);
  };

  const launch = (t: DagTaskConfig, key: string, entry: TaskEntry, reason: LaunchReason): boolean => {
    if (launches >= maxLaunches) {
      deferred = true;
      return false;
    }
    launches++;
    const sensor = t.type === 'sensor';
    actions.push({
      type: 'launch',
      taskKey: key,
      taskId: t.id,
      mapIndex: entry.mapIndex,
      kind: sensor ? 'sensor' : 'task',
      reason,
      attempt: entry.attempt,
      pokeCount: sensor ? (reason === 'first' ? 0 : (entry.pokeCount ?? 0)) : null,
    });
    return true;
  };

  /**
   * One plain task, sensor, approval or mapped instance in state `s`; returns its state after this pass.
   * `v` is the upstream verdict (only read for a pending entry).
   */
  const step = (t: DagTaskConfig, key: string, entry: TaskEntry, s: TaskState, v: Verdict): TaskState => {
    if (s === 'pending') {
      if (v === 'wait') return s;
      if (v !== 'ready') {
        actions.push({ type: 'cascade', taskKey: key, state: v });
        return v;
      }
      if (t.type === 'approval') {
        actions.push({ type: 'park', taskKey: key });
        gateWaiting = true;
        return 'running';
      }
      return launch(t, key, entry, 'first') ? 'running' : s;
    }
    if (s === 'up_for_retry') {
      const due = entry.nextRetryAt ?? now;
      if (due <= now) return launch(t, key, entry, 'retry') ? 'running' : s;
      if (due < wakeAt) wakeAt = due;
      return s;
    }
    if (s === 'running') {
      if (entry.awaitingApproval) gateWaiting = true;
      else if (t.type === 'sensor' && entry.proc === null) {
        const due = entry.nextPokeAt ?? now;
        if (due > now) {
          if (due < wakeAt) wakeAt = due;
        } else if (now - (entry.firstPokeAt ?? now) >= t.pokeTimeoutSeconds) {
          actions.push({ type: 'sensor-timeout', taskKey: key });
          return 'failed';
        } else launch(t, key, entry, 'repoke');
      }
    }
    return s;
  };

  for (let p = 0; p < order.length; p++) {
    const t = order[p]!;
    const entry = run.tasks[t.id];
    if (!entry) continue; // added after this run was created: not part of it (§3.7)
    const s = entry.state;
    if (!entry.mapped) {
      effective[p] = isTerminal(s)
        ? s
        : step(t, t.id, entry, s, s === 'pending' ? verdictAt(p, t.triggerRule) : 'wait');
      continue;
    }
    if (s === 'expanded') {
      const n = run.mapped[t.id]?.items.length ?? 0;
      const v = verdictAt(p, t.triggerRule);
      // groupFrom visits every instance once, in index order: that visit is the instance's step.
      effective[p] = groupFrom(n, (i) => {
        const key = `${t.id}#${i}`;
        const inst = run.tasks[key];
        if (!inst) return 'pending';
        return isTerminal(inst.state) ? inst.state : step(t, key, inst, inst.state, v);
      });
      continue;
    }
    effective[p] = s;
    if (s !== 'pending') continue;
    // An un-expanded placeholder can only expand or resolve to upstream_failed/skipped (§7.4 4b). The
    // source decides first, whatever the rule (§3.6); once it succeeded the list is read and expanded
    // even if another dep already failed (the reference pre-reads before its walk), and the instances
    // then cascade. Without a source in the run the other deps' verdict decides, then an empty list.
    const sp = sourcePos[p]!;
    const source = sp >= 0 ? effective[sp] : undefined;
    let resolved: 'upstream_failed' | 'skipped' | null = null;
    if (source !== undefined && isFailure(source)) resolved = 'upstream_failed';
    else if (source === 'skipped') resolved = 'skipped';
    else if (source === undefined) {
      const v = verdictAt(p, t.triggerRule);
      if (v === 'upstream_failed' || v === 'skipped') resolved = v;
    }
    if (resolved) {
      actions.push({ type: 'cascade', taskKey: t.id, state: resolved });
      effective[p] = resolved;
    } else if (source === 'success' || source === undefined) {
      actions.push({
        type: 'expand',
        taskId: t.id,
        fromTask: source === undefined ? null : t.expand!.fromTask,
        key: source === undefined ? null : t.expand!.key,
      });
      needsRead = true;
    }
  }

  // §3.8: a run's members are what was walked; a mapped group counts through its instances.
  let allTerminal = true;
  let failed = false;
  for (const s of effective) {
    if (s === undefined) continue;
    if (!isTerminal(s)) {
      allTerminal = false;
      break;
    }
    if (isFailure(s)) failed = true;
  }
  if (allTerminal) {
    actions.push({ type: 'finish', state: failed ? 'failed' : 'success' });
    return { actions, deferred: false, wakeAt: null };
  }
  if (deferred || needsRead) wakeAt = now;
  else if (gateWaiting) wakeAt = Math.min(wakeAt, now + GATE_POLL_SECONDS);
  return { actions, deferred, wakeAt };
}

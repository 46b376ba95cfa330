// Dependency resolution (spec 04 §3.2): the two trigger rules and the fan-in barrier of a mapped upstream.
import { isFailure, isTerminal, type RunState, type TaskState } from './model.ts';

export type TriggerRule = 'all_success' | 'all_done';

/** What a pending task should do given its upstreams' effective states. */
export type Verdict = 'wait' | 'ready' | 'upstream_failed' | 'skipped';

/**
 * §3.2: any non-terminal upstream -> wait; `all_done` is then ready whatever the outcomes; `all_success`
 * turns failure into `upstream_failed` before it turns skip into `skipped` (failure wins over skip).
 * Upstreams are read through `at(i)` for i < count so the planner's hot loop allocates nothing;
 * undefined means the run has no entry for that upstream, which then gates nothing (§3.7).
 */
export function verdictFrom(
  rule: TriggerRule,
  count: number,
  at: (i: number) => TaskState | undefined,
): Verdict {
  let failed = false;
  let skipped = false;
  for (let i = 0; i < count; i++) {
    const s = at(i);
    if (s === undefined) continue;
    if (!isTerminal(s)) return 'wait';
    if (isFailure(s)) failed = true;
    else if (s === 'skipped') skipped = true;
  }
  if (rule === 'all_done') return 'ready';
  return failed ? 'upstream_failed' : skipped ? 'skipped' : 'ready';
}

export function verdictOf(rule: TriggerRule, upstream: readonly TaskState[]): Verdict {
  return verdictFrom(rule, upstream.length, (i) => upstream[i]);
}

/**
 * The fan-in barrier (§3.2 table): an expanded group reads `running` until every instance is terminal,
 * even after a sibling failed, so no downstream of either rule starts on a half-finished fan-out. An
 * empty expansion is `success`.
 */
export function groupFrom(count: number, at: (i: number) => TaskState): TaskState {
  let out = false;
  let failed = false;
  let skipped = false;
  for (let i = 0; i < count; i++) {
    const s = at(i);
    if (!isTerminal(s)) out = true;
    else if (isFailure(s)) failed = true;
    else if (s === 'skipped') skipped = true;
  }
  return out ? 'running' : failed ? 'upstream_failed' : skipped ? 'skipped' : 'success';
}

export function groupState(instances: readonly TaskState[]): TaskState {
  return groupFrom(instances.length, (i) => instances[i]!);
}

/**
 * The state a downstream sees for task `id` in this run, or null when the run has no entry for it (a task
 * added after the run was created gates nothing, §3.7).
 */
export function effectiveState(run: RunState, id: string): TaskState | null {
  const entry = run.tasks[id];
  if (!entry) return null;
  if (entry.state !== 'expanded') return entry.state;
  // a missing instance entry reads as pending
  return groupFrom(run.mapped[id]?.items.length ?? 0, (i) => run.tasks[`${id}#${i}`]?.state ?? 'pending');
}

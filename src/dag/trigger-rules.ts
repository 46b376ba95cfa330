// Dependency resolution (spec 04 §3.2): the two trigger rules and the fan-in barrier of a mapped upstream.
import { isFailure, isTerminal, type RunState, type TaskState } from './model.ts';

export type TriggerRule = 'all_success' | 'all_done';

/** What a pending task should do given its upstreams' effective states. */
export type Verdict = 'wait' | 'ready' | 'upstream_failed' | 'skipped';

/**
 * §3.2: any non-terminal upstream -> wait; `all_done` is then ready whatever the outcomes; `all_success`
 * turns failure into `upstream_failed` before it turns skip into `skipped` (failure wins over skip).
 */
export function verdictOf(rule: TriggerRule, upstream: Iterable<TaskState>): Verdict {
  let failed = false;
  let skipped = false;
  for (const s of upstream) {
    if (!isTerminal(s)) return 'wait';
    if (isFailure(s)) failed = true;
    else if (s === 'skipped') skipped = true;
  }
  if (rule === 'all_done') return 'ready';
  if (failed) return 'upstream_failed';
  if (skipped) return 'skipped';
  return 'ready';
}

/**
 * The fan-in barrier (§3.2 table): an expanded group reads `running` until every instance is terminal,
 * even after a sibling failed, so no downstream of either rule starts on a half-finished fan-out.
 */
export function groupState(instances: Iterable<TaskState>): TaskState {
  let failed = false;
  let skipped = false;
  for (const s of instances) {
    if (!isTerminal(s)) return 'running';
    if (isFailure(s)) failed = true;
    else if (s === 'skipped') skipped = true;
  }
  if (failed) return 'upstream_failed';
  if (skipped) return 'skipped';
  return 'success'; // an empty expansion lands here too
}

/**
 * The state a downstream sees for task `id` in this run, or null when the run has no entry for it (a task
 * added after the run was created gates nothing, §3.7).
 */
export function effectiveState(run: RunState, id: string): TaskState | null {
  const entry = run.tasks[id];
  if (!entry) return null;
  if (entry.state !== 'expanded') return entry.state;
  return groupState(instanceStates(run, id));
}

/** The states of an expanded task's instances in index order (a missing entry reads as pending). */
export function* instanceStates(run: RunState, id: string): Generator<TaskState> {
  const n = run.mapped[id]?.items.length ?? 0;
  for (let i = 0; i < n; i++) yield run.tasks[`${id}#${i}`]?.state ?? 'pending';
}

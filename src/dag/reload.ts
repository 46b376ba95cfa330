// Config reloads against live DAGs and existing runs (spec 04 §3.7). The run document, not the config,
// decides what a run is made of: tasks added later are not in it, completions for removed tasks drop.
import type { DagConfig } from '../config/types.ts';
import { graphOf } from './graph.ts';
import type { RunState } from './model.ts';

export type DagChange =
  /** New DAG: seed its next-fire index (and catch-up if durable runs exist). */
  | 'added'
  /** Gone from config: stop advancing its runs and release their leases; documents stay until GC. */
  | 'removed'
  /** Schedule, timezone or UTC flag changed, or re-enabled: re-seed strictly in the future. */
  | 'reseed'
  /** Disabled: drop it from the next-fire index (manual trigger, backfill and advancing still work). */
  | 'disabled'
  /** Anything else: existing runs continue under the new task settings. */
  | 'kept';

export interface DagReload {
  name: string;
  change: DagChange;
}

function scheduleIdentity(d: DagConfig): string {
  return JSON.stringify([d.schedule, d.timezone, d.utc]);
}

/** What a reload means for each DAG name in either config, in the new config's order then removals. */
export function diffDags(prev: readonly DagConfig[], next: readonly DagConfig[]): DagReload[] {
  const before = new Map(prev.map((d) => [d.name, d]));
  const out: DagReload[] = [];
  for (const d of next) {
    const old = before.get(d.name);
    before.delete(d.name);
    let change: DagChange;
    if (!old) change = 'added';
    else if (!d.enabled) change = old.enabled ? 'disabled' : 'kept';
    else if (!old.enabled || scheduleIdentity(old) !== scheduleIdentity(d)) change = 'reseed';
    else change = 'kept';
    out.push({ name: d.name, change });
  }
  for (const name of before.keys()) out.push({ name, change: 'removed' });
  return out;
}

export interface Membership {
  /** Configured tasks the run has entries for: the ones that gate, run and decide termination. */
  members: string[];
  /** Configured tasks added after the run was created: never part of it. */
  notInRun: string[];
  /** Task ids the run has entries for that the config no longer has: their completions are dropped. */
  removed: string[];
}

export function membership(run: RunState, dag: DagConfig): Membership {
  const graph = graphOf(dag);
  const members: string[] = [];
  const notInRun: string[] = [];
  for (const t of dag.tasks) (run.tasks[t.id] ? members : notInRun).push(t.id);
  const removed = new Set<string>();
  for (const key in run.tasks) {
    const id = run.tasks[key]!.id;
    if (!graph.byId.has(id)) removed.add(id);
  }
  return { members, notInRun, removed: [...removed] };
}

/** Whether a completion for `taskKey` may land at all (the reducer also fences it, §7.5). */
export function acceptsCompletion(run: RunState, dag: DagConfig, taskKey: string): boolean {
  const entry = run.tasks[taskKey];
  return entry !== undefined && graphOf(dag).byId.has(entry.id);
}

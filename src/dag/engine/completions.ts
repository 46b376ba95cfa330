// Many completions of one run as one transform (spec 04 §7.5): each is fenced by the reducer against
// its own entry alone, so a fan-in of a thousand instances copies the entries object once instead of
// once per completion. Pure: the engine runs it inside one CAS.
import type { DagConfig } from '../../config/types.ts';
import type { RunState, TaskEntry } from '../model.ts';
import { apply, type DagEvent } from '../reducer.ts';
import { acceptsCompletion } from '../reload.ts';

export type CompleteEvent = Extract<DagEvent, { type: 'complete' }>;

export function applyCompletions(
  run: RunState,
  dag: DagConfig,
  events: readonly CompleteEvent[],
): { run: RunState; changed: boolean; touched: string[] } {
  let tasks: Record<string, TaskEntry> | null = null;
  const touched: string[] = [];
  let now = run.updatedAt;
  for (const ev of events) {
    const entry = (tasks ?? run.tasks)[ev.taskKey];
    if (!entry || !acceptsCompletion(run, dag, ev.taskKey)) continue;
    // The completion reducer reads and writes this one entry only (fencing, verdict, retry).
    const r = apply({ ...run, tasks: { [ev.taskKey]: entry } }, dag, ev);
    if (!r.changed) continue;
    tasks ??= { ...run.tasks };
    tasks[ev.taskKey] = r.run.tasks[ev.taskKey]!;
    touched.push(ev.taskKey);
    now = Math.max(now, ev.now);
  }
  if (!tasks) return { run, changed: false, touched };
  return { run: { ...run, tasks, updatedAt: now }, changed: true, touched };
}

// The two notify events a DAG advance raises (spec 09 §5.2), read off each pass of the node
// advancing the run: a run this pass turned `failed`, and approval gates seen waiting (once per
// gate per node, forgotten when the run turns terminal). A node that only finds a run already
// terminal raises nothing.
import type { RunState } from '../model.ts';
import type { Pass } from '../reducer.ts';
import { runMapKey } from './run-store.ts';

export interface DagRunEventSink {
  runFailed(run: RunState, failedTasks: string[]): void;
  approvalWaiting(run: RunState, taskKey: string): void;
}

/** The task keys of a run in `failed` or `upstream_failed`, sorted. */
export function failedTaskKeys(run: RunState): string[] {
  return Object.entries(run.tasks)
    .filter(([, e]) => e.state === 'failed' || e.state === 'upstream_failed')
    .map(([k]) => k)
    .sort();
}

export class DagRunWatch {
  /** Per run, the gates this node has reported waiting. */
  private readonly gates = new Map<string, Set<string>>();

  constructor(private readonly sink: DagRunEventSink) {}

  afterPass(pass: Pass): void {
    const run = pass.run;
    const key = runMapKey(run.dag, run.runKey);
    if (run.state !== 'running') {
      this.gates.delete(key);
      if (run.state === 'failed' && pass.actions.some((a) => a.type === 'finish' && a.state === 'failed'))
        this.sink.runFailed(run, failedTaskKeys(run));
      return;
    }
    for (const [taskKey, e] of Object.entries(run.tasks)) {
      if (e.state !== 'running' || !e.awaitingApproval) continue;
      const seen = this.gates.get(key) ?? new Set<string>();
      this.gates.set(key, seen);
      if (seen.has(taskKey)) continue;
      seen.add(taskKey);
      this.sink.approvalWaiting(run, taskKey);
    }
  }
}

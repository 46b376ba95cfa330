// The scheduler's one outward stream (DESIGN.md §4 step 4-5): every slot outcome, run start,
// output line, recorded run and retry transition is one typed event. The ledger, metrics,
// statsd, log streams and the dashboard are plain subscribers; none of them can disturb a run.
import type { JobConfig } from '../config/types.ts';
import type { OutputLine, RunResult } from '../exec/types.ts';
import type { RunRecord, RunTrigger, SlotRecord } from './history.ts';
import type { SettleReason } from './ladder.ts';

export type SchedulerEvent =
  /** A scheduled fire came due and is about to go through admission (the SLA monitor's due slot). */
  | { type: 'due'; job: JobConfig; scheduledAt: number }
  /** A slot got its outcome, or changed it (running -> succeeded, deferred -> running): a snapshot. */
  | { type: 'slot'; slot: SlotRecord }
  | {
      type: 'run-started';
      job: JobConfig;
      runId: string;
      trigger: RunTrigger;
      attempt: number;
      scheduledAt: number | null;
      /** null when the process could not be started. */
      pid: number | null;
      startedAt: number;
    }
  | { type: 'output-line'; job: string; runId: string; line: OutputLine }
  /** A run was recorded (every finished run, replaced and cancelled ones included). */
  | { type: 'run-finished'; job: JobConfig; run: RunRecord; result: RunResult }
  | { type: 'retry-armed'; job: JobConfig; attempt: number; notBefore: number; delaySeconds: number }
  /** A ladder that armed a retry ended, or its armed retry is being launched (`launched`). */
  | { type: 'retry-settled'; job: JobConfig; attempt: number; reason: SettleReason | 'launched' };

export type EventOf<T extends SchedulerEvent['type']> = Extract<SchedulerEvent, { type: T }>;
export type EventListener = (event: SchedulerEvent) => void;

/** Synchronous fan-out; a throwing subscriber is isolated from the others and the scheduler. */
export class EventStream {
  private readonly listeners = new Set<EventListener>();

  readonly subscribe = (fn: EventListener): (() => void) => {
    this.listeners.add(fn);
    return () => {
      this.listeners.delete(fn);
    };
  };

  emit(event: SchedulerEvent): void {
    for (const fn of this.listeners) {
      try {
        fn(event);
      } catch {
        // A broken subscriber (a closed HTTP stream, a full disk) must never disturb the scheduler.
      }
    }
  }

  get size(): number {
    return this.listeners.size;
  }
}

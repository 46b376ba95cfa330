// The dag_run document (spec 04 §4) and the task state machine (§3.1) as data: the one place that says
// which states are terminal and which moves between them are legal (the state names are in states.ts).
import type { DagConfig } from '../config/types.ts';
import type { StoredDagTask } from '../store/types.ts';
import type { RunKind, RunStatus, TaskState } from './states.ts';

export type { RunKind, RunStatus, TaskState } from './states.ts';

export interface Approval {
  decision: 'approved' | 'rejected';
  by: string;
  at: number;
}

/**
 * One task instance (§4.3). Every timestamp in the document is epoch **seconds** (float), because the
 * document is compared across nodes and read by people; so is every `now` this module takes.
 */
export interface TaskEntry extends Omit<StoredDagTask, 'state' | 'approval'> {
  state: TaskState;
  /** Approvals only: null until decided. */
  approval?: Approval | null;
}

export interface MappedRecord {
  items: unknown[];
  expandedAt: number;
}

export interface RunState {
  dag: string;
  runKey: string;
  runId: string;
  logicalDate: string | null;
  kind: RunKind;
  state: RunStatus;
  createdAt: number;
  updatedAt: number;
  tasks: Record<string, TaskEntry>;
  /** Written once per mapped task and never recomputed, so a resumed run rebuilds the same instances. */
  mapped: Record<string, MappedRecord>;
}

/** §3.1: the legal moves. `expanded` is bookkeeping on a placeholder; terminal states have no way out. */
export const TASK_TRANSITIONS: Readonly<Record<TaskState, readonly TaskState[]>> = {
  // claim or park -> running; cascade -> upstream_failed/skipped; placeholder -> expanded, or failed (cap)
  pending: ['running', 'upstream_failed', 'skipped', 'expanded', 'failed'],
  // verdicts, retries, sensor re-poke (running -> running), gate decisions, reconcile
  running: ['running', 'success', 'failed', 'skipped', 'up_for_retry'],
  up_for_retry: ['running'],
  success: [],
  failed: [],
  upstream_failed: [],
  skipped: [],
  expanded: [],
};

const TERMINAL: ReadonlySet<TaskState> = new Set(['success', 'failed', 'upstream_failed', 'skipped']);
const FAILURE: ReadonlySet<TaskState> = new Set(['failed', 'upstream_failed']);

export function isTerminal(s: TaskState): boolean {
  return TERMINAL.has(s);
}

/** Whether a terminal state makes the run fail (§3.8): `skipped` does not. */
export function isFailure(s: TaskState): boolean {
  return FAILURE.has(s);
}

export function canTransition(from: TaskState, to: TaskState): boolean {
  return TASK_TRANSITIONS[from].includes(to);
}

/** Thrown for a move the table forbids: always a bug in the caller, never a user error. */
export class IllegalTransition extends Error {
  constructor(
    readonly taskKey: string,
    readonly from: TaskState,
    readonly to: TaskState,
  ) {
    super(`dag task ${taskKey}: illegal transition ${from} -> ${to}`);
  }
}

/** `<id>` for a plain task or placeholder, `<id>#<index>` for a mapped instance (§1). */
export function taskKeyOf(id: string, mapIndex: number | null): string {
  return mapIndex === null ? id : `${id}#${mapIndex}`;
}

export function parseTaskKey(key: string): { id: string; mapIndex: number | null } {
  const hash = key.lastIndexOf('#');
  if (hash < 0) return { id: key, mapIndex: null };
  const index = Number(key.slice(hash + 1));
  return Number.isInteger(index) && index >= 0
    ? { id: key.slice(0, hash), mapIndex: index }
    : { id: key, mapIndex: null };
}

export function blankEntry(id: string, mapIndex: number | null, now: number): TaskEntry {
  return {
    id,
    mapIndex,
    state: 'pending',
    attempt: 0,
    proc: null,
    pid: null,
    host: null,
    startedAt: null,
    finishedAt: null,
    exitCode: null,
    failReason: null,
    resources: null,
    updatedAt: now,
    nextRetryAt: null,
  };
}

export interface NewRun {
  runKey: string;
  /** 32 lowercase hex, random per document (the caller draws it: this module has no randomness). */
  runId: string;
  logicalDate: string | null;
  kind: RunKind;
  now: number;
}

/** A fresh run document: one pending entry per configured task, a placeholder for each mapped one. */
export function newRun(dag: DagConfig, init: NewRun): RunState {
  const tasks: Record<string, TaskEntry> = {};
  for (const t of dag.tasks) {
    const e = blankEntry(t.id, null, init.now);
    if (t.expand) e.mapped = true;
    if (t.type === 'sensor') {
      e.pokeCount = 0;
      e.nextPokeAt = null;
      e.firstPokeAt = null;
    }
    if (t.type === 'approval') e.approval = null;
    tasks[t.id] = e;
  }
  return {
    dag: dag.name,
    runKey: init.runKey,
    runId: init.runId,
    logicalDate: init.logicalDate,
    kind: init.kind,
    state: 'running',
    createdAt: init.now,
    updatedAt: init.now,
    tasks,
    mapped: {},
  };
}

/** `{state: count}` over every entry, placeholders included (the run summary of §9). */
export function taskStateCounts(run: RunState): Partial<Record<TaskState, number>> {
  const out: Partial<Record<TaskState, number>> = {};
  for (const key in run.tasks) {
    const s = run.tasks[key]!.state;
    out[s] = (out[s] ?? 0) + 1;
  }
  return out;
}

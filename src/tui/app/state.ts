// The whole dashboard's state in one immutable snapshot, and the tiny store that holds it. Data from the daemon
// and UI state live side by side so a frame is a pure function of one snapshot (plus the live log tails).

import { type Access, FULL_ACCESS } from '../../dashboard/access.ts';
import type { ApiDag } from '../../dashboard/dag.ts';
import type { Segment } from '../../dashboard/table.ts';
import type { ApiCluster, ApiJob, ApiNode } from '../../dashboard/types.ts';
import type { Prefs } from '../data/prefs.ts';

export type ToastTone = 'ok' | 'fail' | 'warn' | 'info';

export interface Toast {
  id: number;
  text: string;
  tone: ToastTone;
  /** monotonic ms when it goes */
  until: number;
}

/** Sort keys the TUI cycles through with `s` (a subset of the shared table's keys). */
export const TUI_SORTS = ['name', 'status', 'last', 'next', 'took'] as const;
export type TuiSort = (typeof TUI_SORTS)[number];
export const SORT_TEXT: Record<TuiSort, string> = {
  name: 'name',
  status: 'status',
  last: 'last',
  next: 'next',
  took: 'duration',
};

/** An open surface: each view folder defines its own (see views/registry.ts). */
export interface Surface {
  kind: string;
}

export interface DataState {
  jobs: readonly ApiJob[];
  /** monotonic ms of the last good /jobs answer (0 = none yet) */
  fetchedAt: number;
  everConnected: boolean;
  /** header error text while the last poll failed, null when live */
  error: string | null;
  /** consecutive failed polls (for the backoff) and when the next try is due (monotonic) */
  failures: number;
  retryAt: number;
  version: string | null;
  jobSetId: string | null;
  node: ApiNode | null;
  cluster: ApiCluster | null;
  /** jobs whose failure arrived with the latest poll (bold for one poll; alarm) */
  justFailed: ReadonlySet<string>;
  alarmAcked: boolean;
  /** `GET /dags` (first load, the DAGs panel, each poll while it shows); null = not loaded */
  dags: readonly ApiDag[] | null;
  /** what the token may do, from `GET /whoami` (spec 10 §5.4); everything until it answers */
  access: Access;
}

/** One line of the boot self-test (spec 08 §4.14). */
export interface BootLine {
  text: string;
  tone: 'accent' | 'fg' | 'dim' | 'ok' | 'warn' | 'fail';
}

/** The boot self-test while it owns the screen: its lines, and how many characters have been typed. */
export interface BootState {
  lines: readonly BootLine[];
  typed: number;
}

export interface TuiState {
  data: DataState;
  /** wall clock and monotonic clock of the last tick, ms */
  now: number;
  mono: number;
  cols: number;
  rows: number;
  prefs: Prefs;
  /** the poll interval in force (ms, 0 = paused) */
  pollMs: number;
  ascii: boolean;
  filter: string;
  filterFocused: boolean;
  segment: Segment;
  sortKey: TuiSort;
  sortDesc: boolean;
  /** selected job name on the board */
  selected: string | null;
  /** jobs marked with `Space` for a bulk run / cancel (this run only) */
  marked: ReadonlySet<string>;
  /** first board row shown */
  scroll: number;
  /** open surfaces, bottom first; keys go to the last */
  stack: readonly Surface[];
  wallboard: boolean;
  toasts: readonly Toast[];
  /** monotonic ms of the last key (zen idle) */
  lastKeyAt: number;
  /** the boot self-test owns the screen while set */
  boot: BootState | null;
}

export const EMPTY_DATA: DataState = {
  jobs: [],
  fetchedAt: 0,
  everConnected: false,
  error: null,
  failures: 0,
  retryAt: 0,
  version: null,
  jobSetId: null,
  node: null,
  cluster: null,
  justFailed: new Set(),
  alarmAcked: false,
  dags: null,
  access: FULL_ACCESS,
};

/** A fresh dashboard: no data yet, the board on top, sorted by name. */
export function createState(
  base: Pick<TuiState, 'now' | 'mono' | 'cols' | 'rows' | 'prefs' | 'pollMs' | 'ascii'>,
  over: Partial<TuiState> = {},
): TuiState {
  return {
    data: EMPTY_DATA,
    filter: '',
    filterFocused: false,
    segment: 'all',
    sortKey: 'name',
    sortDesc: false,
    selected: null,
    marked: new Set(),
    scroll: 0,
    stack: [],
    wallboard: false,
    toasts: [],
    lastKeyAt: base.mono,
    boot: null,
    ...base,
    ...over,
  };
}

export class Store {
  private state: TuiState;
  private readonly listeners = new Set<() => void>();

  constructor(initial: TuiState) {
    this.state = initial;
  }

  get = (): TuiState => this.state;

  set(patch: Partial<TuiState> | ((s: TuiState) => Partial<TuiState>)): void {
    const p = typeof patch === 'function' ? patch(this.state) : patch;
    this.state = { ...this.state, ...p };
    this.emit();
  }

  setData(patch: Partial<DataState>): void {
    this.set((s) => ({ data: { ...s.data, ...patch } }));
  }

  /** Re-announces the same snapshot (a log tail changed outside it). */
  touch(): void {
    this.state = { ...this.state };
    this.emit();
  }

  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  private emit(): void {
    for (const fn of this.listeners) fn();
  }
}

// Reads a job's slot fates for a window: the edge between the store (the fleet's shared run ledger)
// or a node's in-memory slot history and the pure `slotFates`. Shared by the web routes and the
// `cronstable slots` CLI verb so both print the same rows and the same JSON body.
import type { JobConfig } from '../config/types.ts';
import type { Store } from '../store/types.ts';
import { settledWithoutRun } from '../util/slot-outcomes.ts';
import type { JobHistory } from './history.ts';
import { type LedgerRow, ledgerRow, type SlotsResult, slotFates } from './slots.ts';

/** Widest window a slots query may ask for (a month; beyond it the ledger's keep has pruned it anyway). */
export const MAX_SLOT_WINDOW_MS = 31 * 86_400_000;
/** Most slots one answer lists; older slots of the window are dropped and counted as `truncated`. */
export const MAX_SLOTS = 5000;
/** How many of a job's newest ledger rows are read (the ledger keeps `maxRunsPerJob`, default 1000). */
const LEDGER_READ = 20_000;

export interface WindowError {
  error: string;
}

/** Validates a query window: ISO instants, from < to, at most MAX_SLOT_WINDOW_MS. */
export function slotWindow(
  fromText: string | undefined,
  toText: string | undefined,
  nowMs: number,
  parse: (t: string) => number | null,
): { fromMs: number; toMs: number } | WindowError {
  const toMs = toText === undefined ? nowMs : parse(toText);
  if (toMs === null)
    return { error: `invalid 'to' instant '${toText}': expected ISO-8601, e.g. 2026-03-08T02:00:00Z` };
  const fromMs = fromText === undefined ? toMs - 86_400_000 : parse(fromText);
  if (fromMs === null)
    return { error: `invalid 'from' instant '${fromText}': expected ISO-8601, e.g. 2026-03-08T02:00:00Z` };
  if (fromMs >= toMs)
    return {
      error: `'from' (${new Date(fromMs).toISOString()}) must be before 'to' (${new Date(toMs).toISOString()})`,
    };
  if (toMs - fromMs > MAX_SLOT_WINDOW_MS)
    return { error: `the window is wider than ${MAX_SLOT_WINDOW_MS / 86_400_000} days; narrow 'from'/'to'` };
  return { fromMs, toMs };
}

/** The fleet's ledger rows of `job` (every node writes into the shared store). */
export async function ledgerRows(store: Store, job: string): Promise<LedgerRow[]> {
  const recs = await store.list(`runs/${job}`, { newestFirst: true, limit: LEDGER_READ });
  return recs.map(ledgerRow);
}

/** The slots running on this node now, as rows (the ledger only learns of a run when it ends). */
export function runningRows(history: JobHistory | undefined, node: string): LedgerRow[] {
  if (!history) return [];
  return history
    .recentSlots()
    .filter((s) => s.outcome === 'running')
    .map((s, i) => ({
      id: -1 - i,
      node,
      scheduledAt: new Date(s.scheduledAt).toISOString(),
      outcome: 'running',
      trigger: 'schedule',
      attempt: 0,
      runId: s.runId,
      failReason: null,
    }));
}

/** A node's in-memory history as ledger rows (no store configured: this node's view only). */
export function historyRows(history: JobHistory, node: string): LedgerRow[] {
  let id = 0;
  const rows: LedgerRow[] = [];
  for (const s of history.recentSlots()) {
    // A slot that became a run is told by the run record below (it knows its trigger).
    if (s.runId !== null || !settledWithoutRun(s.outcome)) continue;
    rows.push({
      id: ++id,
      node,
      scheduledAt: new Date(s.scheduledAt).toISOString(),
      outcome: s.outcome,
      trigger: 'schedule',
      attempt: 0,
      runId: s.runId,
      failReason: s.detail,
      missedCount: s.count ?? 1,
      missedUntil: s.lastAt === undefined ? null : new Date(s.lastAt).toISOString(),
    });
  }
  for (const r of history.recentRuns()) {
    if (r.scheduledAt === null) continue;
    rows.push({
      id: ++id,
      node,
      scheduledAt: new Date(r.scheduledAt).toISOString(),
      outcome: r.outcome,
      trigger: r.trigger,
      attempt: r.attempt,
      runId: r.id,
      failReason: r.failReason,
    });
  }
  return rows;
}

export function jobSlots(
  job: JobConfig,
  rows: readonly LedgerRow[],
  window: { fromMs: number; toMs: number },
  nodes: readonly string[],
): SlotsResult {
  if (!job.cron) return { slots: [], counts: {}, truncated: 0, beforeHistory: 0 };
  const everyNode = job.clusterPolicy === 'EveryNode';
  // The ledger's memory of the job starts at its oldest retained slot row (none: it knows nothing).
  let historyStartMs = window.toMs;
  for (const r of rows) {
    const at = r.scheduledAt === null ? Number.NaN : Date.parse(r.scheduledAt);
    if (at < historyStartMs) historyStartMs = at;
  }
  return slotFates({
    cron: job.cron,
    frame: job.frame,
    dst: job.dst,
    everyNode,
    nodes: everyNode ? nodes : [],
    fromMs: window.fromMs,
    toMs: window.toMs,
    rows,
    limit: MAX_SLOTS,
    historyStartMs,
  });
}

/** The body of `GET /jobs/{name}/slots`; `cronstable slots --json` prints the same. */
export function slotsBody(
  job: JobConfig,
  window: { fromMs: number; toMs: number },
  r: SlotsResult,
  source: 'ledger' | 'memory',
) {
  return {
    name: job.name,
    from: new Date(window.fromMs).toISOString(),
    to: new Date(window.toMs).toISOString(),
    source,
    schedule: job.scheduleText,
    clusterPolicy: job.clusterPolicy,
    counts: r.counts,
    unaccounted: r.counts.unaccounted ?? 0,
    truncated: r.truncated,
    before_history: r.beforeHistory,
    slots: r.slots,
  };
}

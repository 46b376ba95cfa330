// Every scheduled slot's fate in a window (issue 15 part 2), pure: the schedule says which slots
// exist, the run ledger (`runs/<job>`, written by every node of a fleet into the shared store) says
// what became of each. A slot the ledger holds nothing for is `unaccounted`: in a healthy fleet
// that never happens, so it is what operators alert on.

import type { CronSchedule, DstPolicy, Frame } from '../schedule/index.ts';
import { occurrences } from '../schedule/index.ts';
import { fateOf, fateWeight, type SlotFate } from '../util/slot-outcomes.ts';
import { dstSkippedInstants } from './dst-notes.ts';

/** One `runs/<job>` ledger row, as the `runs` view / the record body carries it. */
export interface LedgerRow {
  /** Commit order in the store (newer = higher). */
  id: number;
  /** The writing node (the writer's host). */
  node: string;
  scheduledAt: string | null;
  outcome: string;
  trigger: string | null;
  attempt: number | null;
  runId: string | null;
  failReason: string | null;
  /** A folded missed record covers `missedCount` slots up to `missedUntil` (src/scheduler/missed.ts). */
  missedCount?: number | null;
  missedUntil?: string | null;
}

export interface SlotView {
  scheduled_at: string;
  outcome: SlotFate;
  node: string | null;
  run_id: string | null;
  reason: string | null;
  /** The other nodes' rows for the same slot (e.g. their `claimed-elsewhere`), least informative last. */
  others: { node: string; outcome: SlotFate; reason: string | null }[];
}

export interface SlotsResult {
  slots: SlotView[];
  /** Count per outcome over `slots`. */
  counts: Partial<Record<SlotFate, number>>;
  /** Slots of the window left out by `limit` (the oldest are dropped). */
  truncated: number;
  /** Slots of the window before `historyStartMs` (before the ledger knew the job), not listed. */
  beforeHistory: number;
}

export interface SlotsQuery {
  cron: CronSchedule;
  frame: Frame;
  /**
   * The job's DST policy: its fires are the slots, plus the ones `skipped: skip` drops (listed at the
   * instant `shift` would have fired them, where the scheduler records their `dst-skipped` row).
   */
  dst?: DstPolicy;
  /** `EveryNode` jobs: every node has its own slot at each instant; `nodes` lists them. */
  everyNode: boolean;
  /** Nodes expected to run an `EveryNode` job (others seen in the ledger are added). */
  nodes?: readonly string[];
  fromMs: number;
  /** Exclusive. */
  toMs: number;
  rows: readonly LedgerRow[];
  /** Most slots returned (the newest kept). */
  limit: number;
  /**
   * Where the ledger's memory of the job begins (its oldest retained row): earlier slots are not
   * `unaccounted`, they predate the job or were pruned by `maxRunsPerJob`. Absent: the window start.
   */
  historyStartMs?: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

interface Candidate {
  row: LedgerRow;
  fate: SlotFate;
}

/** A run beats a node's own decision, which beats "not mine" (the table's ranks). */
function better(a: Candidate, b: Candidate): boolean {
  const wa = fateWeight(a.fate);
  const wb = fateWeight(b.fate);
  if (wa !== wb) return wa > wb;
  // Within a kind the newest row wins (the last retry attempt of a run).
  return a.row.id > b.row.id;
}

/**
 * The slot instants in [fromMs, toMs): the policy's fires, plus, under `dst.skipped: skip`, each
 * dropped wall time at the instant `shift` would have fired it (where its `dst-skipped` row is).
 */
function scheduledSlots(q: SlotsQuery): number[] {
  const fires = occurrences(q.cron, q.frame, q.fromMs - 1, { untilMs: q.toMs - 1, dst: q.dst });
  if (q.dst?.skipped !== 'skip' || q.frame.kind === 'utc') return fires;
  const dropped = dstSkippedInstants(q.cron, q.frame, q.dst, q.fromMs - 1, q.toMs - 1)
    .map((n) => n.at)
    .filter((at) => at < q.toMs);
  return [...new Set([...fires, ...dropped])].sort((x, y) => x - y);
}

/** Every slot of the schedule in [fromMs, toMs) with its fate from `rows`. */
export function slotFates(q: SlotsQuery): SlotsResult {
  const start = Math.max(q.fromMs, q.historyStartMs ?? q.fromMs);
  const all = q.toMs > q.fromMs ? scheduledSlots(q) : [];
  const instants = start > q.fromMs ? all.filter((at) => at >= start) : all;
  const beforeHistory = all.length - instants.length;
  // Candidates per slot key: the instant, plus the node for EveryNode jobs.
  const byKey = new Map<string, Candidate[]>();
  const key = (at: number, node: string) => (q.everyNode ? `${at}|${node}` : String(at));
  const add = (at: number, c: Candidate) => {
    const k = key(at, c.row.node);
    const list = byKey.get(k);
    if (list) list.push(c);
    else byKey.set(k, [c]);
  };
  const nodes = new Set(q.nodes ?? []);
  const wanted = new Set(instants);
  for (const row of q.rows) {
    if (row.scheduledAt === null) continue;
    const at = Date.parse(row.scheduledAt);
    if (Number.isNaN(at)) continue;
    const fate = fateOf(row);
    if (q.everyNode) nodes.add(row.node);
    const until = row.missedUntil ? Date.parse(row.missedUntil) : at;
    if ((row.missedCount ?? 1) > 1 && until > at) {
      // A folded record stands for every slot from its instant to `missedUntil`.
      for (const s of instants) if (s >= at && s <= until) add(s, { row, fate });
    } else if (wanted.has(at)) add(at, { row, fate });
  }
  const owners = q.everyNode ? [...nodes].sort() : [null];
  const total = instants.length * owners.length;
  const skipSlots = Math.max(0, total - q.limit);
  const firstInstant = Math.floor(skipSlots / Math.max(1, owners.length));
  const slots: SlotView[] = [];
  const counts: Partial<Record<SlotFate, number>> = {};
  for (let i = firstInstant; i < instants.length; i++) {
    const at = instants[i]!;
    for (const owner of owners) {
      const cands = byKey.get(key(at, owner ?? '')) ?? [];
      const sorted = [...cands].sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0));
      const best = sorted[0];
      const view: SlotView = best
        ? {
            scheduled_at: iso(at),
            outcome: best.fate,
            node: best.row.node,
            run_id: best.row.runId,
            reason: best.row.failReason,
            others: sorted
              .slice(1)
              .map((c) => ({ node: c.row.node, outcome: c.fate, reason: c.row.failReason })),
          }
        : {
            scheduled_at: iso(at),
            outcome: 'unaccounted',
            node: owner,
            run_id: null,
            reason: null,
            others: [],
          };
      counts[view.outcome] = (counts[view.outcome] ?? 0) + 1;
      slots.push(view);
    }
  }
  return {
    slots,
    counts,
    truncated: firstInstant * owners.length,
    beforeHistory: beforeHistory * owners.length,
  };
}

/** A `runs/<job>` record (store body + writer) as a ledger row. */
export function ledgerRow(rec: { id: number; writer: string; data: unknown }): LedgerRow {
  const d = (rec.data ?? {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  const num = (v: unknown) => (typeof v === 'number' ? v : null);
  return {
    id: rec.id,
    node: rec.writer.split('#')[0] ?? rec.writer,
    scheduledAt: str(d.scheduled_at),
    outcome: str(d.outcome) ?? 'unknown',
    trigger: str(d.trigger),
    attempt: num(d.attempt),
    runId: str(d.run_id),
    failReason: str(d.fail_reason),
    missedCount: num(d.missed_count),
    missedUntil: str(d.missed_until),
  };
}

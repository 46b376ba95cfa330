// Reads the fleet's shared run ledger (`<state>/cronstable.db`, the `runs` view of the README's
// SQL section) to count what ran where: the cluster tests' exactly-once check and the failover
// bench read runs from the store every node writes, never from logs.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/** Outcomes of a row that stands for a process that was started (the rest are slot fates). */
export const RAN_OUTCOMES = ['success', 'failure', 'cancelled', 'unknown'] as const;

export interface LedgerRow {
  id: number;
  job: string;
  /** Epoch ms of the scheduled instant (null for manual runs). */
  scheduledAt: number | null;
  startedAt: number | null;
  outcome: string;
  node: string;
  trigger: string;
  attempt: number;
  /** Why it failed, or why the slot did not run here (a gate's reason). */
  detail: string | null;
}

interface RawRow {
  id: number;
  job: string;
  scheduled_at: string | null;
  started_at: string | null;
  outcome: string;
  node: string;
  trigger: string | null;
  attempt: number | null;
  fail_reason: string | null;
}

const ms = (iso: string | null): number | null => (iso === null ? null : Date.parse(iso));

/** Every ledger row of the namespace (optionally of some jobs), oldest first. */
export function readRuns(
  stateDir: string,
  opts: { ns?: string; jobs?: string[]; afterId?: number } = {},
): LedgerRow[] {
  const file = join(stateDir, 'cronstable.db');
  if (!existsSync(file)) return [];
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    const where = ['ns = ?', 'id > ?'];
    const args: (string | number)[] = [opts.ns ?? 'default', opts.afterId ?? 0];
    if (opts.jobs) {
      where.push(`job IN (${opts.jobs.map(() => '?').join(',')})`);
      args.push(...opts.jobs);
    }
    const rows = db
      .prepare(
        `SELECT id, job, scheduled_at, started_at, outcome, node, trigger, attempt, fail_reason
         FROM runs WHERE ${where.join(' AND ')} ORDER BY id`,
      )
      .all(...args) as RawRow[];
    return rows.map((r) => ({
      id: r.id,
      job: r.job,
      scheduledAt: ms(r.scheduled_at),
      startedAt: ms(r.started_at),
      outcome: r.outcome,
      node: r.node,
      trigger: r.trigger ?? 'schedule',
      attempt: r.attempt ?? 0,
      detail: r.fail_reason,
    }));
  } finally {
    db.close();
  }
}

export function isRun(row: LedgerRow): boolean {
  return (RAN_OUTCOMES as readonly string[]).includes(row.outcome);
}

/** What became of one scheduled slot across the fleet. */
export interface SlotTally {
  job: string;
  scheduledAt: number;
  /** Nodes that started a process for it (first attempts of scheduled fires), one entry per run. */
  ranOn: string[];
  /** Nodes that recorded `claimed-elsewhere` for it. */
  claimedElsewhere: string[];
  /** Every other slot outcome recorded for it, as `node:outcome`. */
  other: string[];
}

/** Slots of `jobs` scheduled in [fromMs, toMs], keyed `job@epochMs`. */
export function tallySlots(
  rows: LedgerRow[],
  jobs: string[],
  fromMs: number,
  toMs: number,
): Map<string, SlotTally> {
  const out = new Map<string, SlotTally>();
  for (const r of rows) {
    if (!jobs.includes(r.job) || r.scheduledAt === null) continue;
    if (r.scheduledAt < fromMs || r.scheduledAt > toMs) continue;
    if (r.trigger !== 'schedule' && r.trigger !== 'catchup') continue;
    const key = `${r.job}@${r.scheduledAt}`;
    let t = out.get(key);
    if (!t) {
      t = { job: r.job, scheduledAt: r.scheduledAt, ranOn: [], claimedElsewhere: [], other: [] };
      out.set(key, t);
    }
    if (isRun(r)) {
      if (r.attempt === 0) t.ranOn.push(r.node);
    } else if (r.outcome === 'claimed-elsewhere') t.claimedElsewhere.push(r.node);
    else t.other.push(`${r.node}:${r.outcome}${r.detail ? ` [${r.detail}]` : ''}`);
  }
  return out;
}

export interface ExactlyOnceReport {
  /** Slots expected in the window (every `everyMs` from the first whole step), per job. */
  expected: number;
  /** Slots that ran exactly once fleet-wide. */
  once: number;
  /** Slots that ran on more than one node (or twice): `job@iso on a,b`. */
  duplicates: string[];
  /** Expected slots with no run anywhere: `job@iso`, with what the nodes recorded instead. */
  missing: string[];
  /** Nodes that ran at least one slot, per job. */
  runners: Record<string, string[]>;
  /** How many slots recorded a `claimed-elsewhere` loser. */
  claimedElsewhere: number;
}

/**
 * Checks that every slot of `jobs` in [fromMs, toMs] (jobs firing every `everyMs`) ran exactly
 * once across the fleet, from the shared ledger.
 */
export function exactlyOnce(
  stateDir: string,
  opts: { jobs: string[]; fromMs: number; toMs: number; everyMs?: number; ns?: string },
): ExactlyOnceReport {
  const every = opts.everyMs ?? 1000;
  const rows = readRuns(stateDir, { ns: opts.ns, jobs: opts.jobs });
  const tally = tallySlots(rows, opts.jobs, opts.fromMs, opts.toMs);
  const report: ExactlyOnceReport = {
    expected: 0,
    once: 0,
    duplicates: [],
    missing: [],
    runners: {},
    claimedElsewhere: 0,
  };
  const first = Math.ceil(opts.fromMs / every) * every;
  for (const job of opts.jobs) {
    const runners = new Set<string>();
    for (let at = first; at <= opts.toMs; at += every) {
      report.expected++;
      const t = tally.get(`${job}@${at}`);
      const ran = t?.ranOn ?? [];
      for (const n of ran) runners.add(n);
      if (t && t.claimedElsewhere.length > 0) report.claimedElsewhere++;
      if (ran.length === 1) report.once++;
      else if (ran.length === 0)
        report.missing.push(
          `${job}@${new Date(at).toISOString()}${t && t.other.length > 0 ? ` (${t.other.join(', ')})` : ''}`,
        );
      else report.duplicates.push(`${job}@${new Date(at).toISOString()} on ${ran.join(',')}`);
    }
    report.runners[job] = [...runners].sort();
  }
  return report;
}

/** The first run of `job` scheduled at or after `afterMs` on a node other than `notOn`. */
export function firstRunElsewhere(
  stateDir: string,
  opts: { job: string; afterMs: number; notOn: string; ns?: string },
): LedgerRow | null {
  const rows = readRuns(stateDir, { ns: opts.ns, jobs: [opts.job] });
  let best: LedgerRow | null = null;
  for (const r of rows) {
    if (!isRun(r) || r.scheduledAt === null || r.scheduledAt < opts.afterMs || r.node === opts.notOn)
      continue;
    if (!best || r.scheduledAt < (best.scheduledAt ?? 0)) best = r;
  }
  return best;
}

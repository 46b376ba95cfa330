// The one table of slot outcomes (DESIGN.md §4 step 5): every way a scheduled slot can end, with the
// fate the slots view, the API, the metrics and both dashboards show, the words the scheduler records
// for it (its in-memory slot record, and the run ledger's `outcome`), how much a ledger row of it tells
// about its slot, and the tone a dashboard paints it. `fateOf` below and the `slots` SQL view
// (src/store/slot-view.ts generates its CASE from `FATE_RULES`) both read the ledger through it.
// It sits in util, pure, because every layer reads it: the store for the view, the scheduler, the
// API's wire schema, the metrics, and the browser bundle through the dashboard model.

/**
 * How much a ledger row says about its slot: a run is what happened; a node's own decision about the
 * slot (Forbid, missed, DST...) comes next; a row that only says "not mine" (another node won the
 * claim, the cluster gate sent it elsewhere) says least.
 */
export type SlotRank = 'run' | 'decision' | 'not-mine' | 'none';
/** How a dashboard cell is coloured: what happened, not which gate said so. */
export type SlotTone = 'ok' | 'fail' | 'late' | 'skip' | 'other' | 'run' | 'dst' | 'lost';

interface OutcomeRow {
  /** The name the slots view, `GET /jobs/{name}/slots`, the metric label and the dashboards use. */
  readonly fate: string;
  /**
   * run: the slot's ledger row is its run record; settled: the slot ended without a run and its
   * ledger row carries the slot record's word; live: in flight on the node answering; none: never
   * recorded (the schedule says the slot existed and no row names it).
   */
  readonly kind: 'run' | 'settled' | 'live' | 'none';
  /** The words of the scheduler's slot record (`SlotRecord.outcome`) that end in this fate. */
  readonly slot: readonly string[];
  /**
   * The run ledger's words (`runs/<job>` `outcome`) for a run; a settled row's are its `slot` words,
   * plus these when its ledger row is written as a run-shaped row of its own (a pause's `skipped`).
   */
  readonly ledger?: readonly string[];
  readonly rank: SlotRank;
  readonly tone: SlotTone;
  /**
   * Rows written before this fate had a word of its own: a ledger row with outcome `ledger` whose
   * reason contains `reason` (case-insensitive). Read as this fate; nothing writes them any more.
   * Tested in table order (a reason naming both quorum and a pause reads as no-quorum).
   */
  readonly legacy?: { readonly ledger: string; readonly reason: string };
}

export const SLOT_OUTCOMES = [
  { fate: 'running', kind: 'live', slot: ['running'], ledger: ['running'], rank: 'run', tone: 'run' },
  { fate: 'ran', kind: 'run', slot: ['succeeded'], ledger: ['success'], rank: 'run', tone: 'ok' },
  {
    fate: 'failed',
    kind: 'run',
    slot: ['failed'],
    // `unknown`: a run a crash interrupted (spec 03 §8.3), reconciled at the next start.
    ledger: ['failure', 'unknown'],
    rank: 'run',
    tone: 'fail',
  },
  {
    fate: 'cancelled',
    kind: 'run',
    slot: ['cancelled', 'cancelled:replaced'],
    ledger: ['cancelled'],
    rank: 'run',
    tone: 'fail',
  },
  /** A run of the start-up catch-up (trigger `catchup`), whatever its outcome. */
  { fate: 'caught-up', kind: 'run', slot: [], ledger: [], rank: 'run', tone: 'late' },
  /** concurrencyPolicy Forbid: the previous run was still going. */
  { fate: 'skipped-overlap', kind: 'settled', slot: ['skipped:overlap'], rank: 'decision', tone: 'skip' },
  /** The cluster gate sent it elsewhere, a store it needed failed, or the daemon was stopping. */
  {
    fate: 'skipped-gate',
    kind: 'settled',
    slot: ['skipped:gate', 'skipped:already-ran-this-boot'],
    rank: 'not-mine',
    tone: 'other',
  },
  {
    fate: 'skipped-only-if-last-succeeded',
    kind: 'settled',
    slot: ['skipped:only-if-last-succeeded'],
    rank: 'decision',
    tone: 'skip',
  },
  /** Another node won the slot's fire claim. */
  {
    fate: 'claimed-elsewhere',
    kind: 'settled',
    slot: ['claimed-elsewhere'],
    rank: 'not-mine',
    tone: 'other',
  },
  /** Due while no daemon ran it (downtime) and not run by the catch-up plan. */
  { fate: 'missed', kind: 'settled', slot: ['missed'], rank: 'decision', tone: 'lost' },
  /** The node could not start it within the late-fire window (backlog, stall, clock jump). */
  { fate: 'missed-overload', kind: 'settled', slot: ['missed-overload'], rank: 'decision', tone: 'lost' },
  /**
   * DST policy notes, a ledger row each: a skipped wall time fired at the shifted instant, one
   * dropped by `dst.skipped: skip`, the second-occurrence fire of a repeated wall time.
   */
  { fate: 'dst-shifted', kind: 'settled', slot: ['dst-shifted'], rank: 'decision', tone: 'dst' },
  { fate: 'dst-skipped', kind: 'settled', slot: ['dst-skipped'], rank: 'decision', tone: 'dst' },
  { fate: 'dst-repeated', kind: 'settled', slot: ['dst-repeated'], rank: 'decision', tone: 'dst' },
  /** A Leader job the cluster gate held back because the fleet had no quorum. */
  {
    fate: 'no-quorum',
    kind: 'settled',
    slot: ['no-quorum'],
    rank: 'decision',
    tone: 'lost',
    legacy: { ledger: 'skipped:gate', reason: 'quorum' },
  },
  /**
   * The job was paused (spec 10 §1.3): the pause gate (scheduler/admission.ts) settles the slot so,
   * and the ledger records it as the synthetic run row `skipped` (`skip_reason: paused`); rows of
   * builds before that carry the slot word `paused`.
   */
  {
    fate: 'paused',
    kind: 'settled',
    slot: ['paused'],
    ledger: ['skipped'],
    rank: 'decision',
    tone: 'skip',
    legacy: { ledger: 'skipped:gate', reason: 'paused' },
  },
  { fate: 'disabled', kind: 'settled', slot: ['skipped:disabled'], rank: 'decision', tone: 'skip' },
  /** Due by the schedule and recorded by nobody: never in a healthy fleet. */
  { fate: 'unaccounted', kind: 'none', slot: [], rank: 'none', tone: 'lost' },
] as const satisfies readonly OutcomeRow[];

type Row = (typeof SLOT_OUTCOMES)[number];
export type SlotFate = Row['fate'];
export const SLOT_FATES = SLOT_OUTCOMES.map((r) => r.fate) as unknown as readonly [SlotFate, ...SlotFate[]];

/** A slot a gate deferred: it is admitted again later, and has no fate until then. */
export const SLOT_DEFERRED = 'deferred';
/** What the scheduler's slot record says of a slot (`SlotRecord.outcome`). */
export type SlotOutcome = Row['slot'][number] | typeof SLOT_DEFERRED;

const SETTLED = new Set<string>(SLOT_OUTCOMES.flatMap((r) => (r.kind === 'settled' ? r.slot : [])));

/** A final slot outcome without a run record of its own: the slot gets a ledger row of its own. */
export function settledWithoutRun(outcome: string): boolean {
  return SETTLED.has(outcome);
}

/** The run ledger's words for a run (success, failure, cancelled, unknown): each counts as an attempt. */
export const RUN_LEDGER_OUTCOMES: readonly string[] = SLOT_OUTCOMES.flatMap((r) =>
  r.kind === 'run' ? r.ledger : [],
);

/**
 * One rule of the ledger-row-to-fate mapping; the first rule that matches decides. `ledger`: the
 * row's outcome is one of these words (absent: any); `prefix`: its outcome starts with it; `trigger`:
 * the row's trigger; `reason`: its reason contains this (case-insensitive).
 */
export interface FateRule {
  readonly ledger?: readonly string[];
  readonly prefix?: string;
  readonly trigger?: string;
  readonly reason?: string;
  readonly fate: SlotFate;
}

/** The table as ordered rules: what `fateOf` walks and what the SQL view's CASE is generated from. */
export const FATE_RULES: readonly FateRule[] = [
  { ledger: RUN_LEDGER_OUTCOMES, trigger: 'catchup', fate: 'caught-up' },
  ...SLOT_OUTCOMES.flatMap((r): FateRule[] =>
    'legacy' in r ? [{ ledger: [r.legacy.ledger], reason: r.legacy.reason, fate: r.fate }] : [],
  ),
  ...SLOT_OUTCOMES.flatMap((r): FateRule[] => {
    const ledger: readonly string[] = 'ledger' in r ? r.ledger : [];
    const words: readonly string[] = r.kind === 'settled' ? [...r.slot, ...ledger] : ledger;
    return words.length > 0 ? [{ ledger: words, fate: r.fate }] : [];
  }),
  // A skip word this build does not know (a newer node's) is a gate's refusal; anything else a run's.
  { prefix: 'skipped:', fate: 'skipped-gate' },
  { fate: 'failed' },
];

/** What a ledger row (or a synthetic row of this node's memory) says became of its slot. */
export interface LedgerFacts {
  outcome: string;
  trigger: string | null;
  failReason: string | null;
}

function matches(rule: FateRule, row: LedgerFacts): boolean {
  if (rule.ledger && !rule.ledger.includes(row.outcome)) return false;
  if (rule.prefix !== undefined && !row.outcome.startsWith(rule.prefix)) return false;
  if (rule.trigger !== undefined && row.trigger !== rule.trigger) return false;
  if (rule.reason !== undefined && !(row.failReason ?? '').toLowerCase().includes(rule.reason)) return false;
  return true;
}

/** Maps one ledger row (outcome, trigger, reason) onto its slot fate. */
export function fateOf(row: LedgerFacts): SlotFate {
  for (const rule of FATE_RULES) if (matches(rule, row)) return rule.fate;
  return 'failed';
}

const BY_FATE = new Map<string, Row>(SLOT_OUTCOMES.map((r) => [r.fate, r]));
const WEIGHT: Record<SlotRank, number> = { run: 3, decision: 2, 'not-mine': 1, none: 0 };

/** How much a row of this fate tells about its slot (3 a run ... 1 "not mine"); higher wins. */
export function fateWeight(fate: string): number {
  const row = BY_FATE.get(fate);
  return row ? WEIGHT[row.rank] : WEIGHT.decision;
}

/** The dashboard tone of a fate; a fate this build does not know paints as a skip. */
export function fateTone(fate: string): SlotTone {
  return BY_FATE.get(fate)?.tone ?? 'skip';
}

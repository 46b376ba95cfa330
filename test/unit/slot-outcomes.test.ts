// The one table of slot outcomes (src/util/slot-outcomes.ts) against everything built from it: the
// rules `fateOf` walks, the `slots` SQL view generated from them (src/store/slot-view.ts) as the
// migrations created it in a real SQLite store, and the pure slot view the API answers from. A row of
// every outcome goes into a real store; the view must read back what `fateOf` and `slotFates` say.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCron, UTC_FRAME } from '../../src/schedule/index.ts';
import { ledgerRow, slotFates } from '../../src/scheduler/slots.ts';
import { openStore } from '../../src/store/index.ts';
import { SLOT_FATE_SQL, SLOT_WEIGHT_SQL, SLOTS_VIEW_SQL } from '../../src/store/slot-view.ts';
import {
  FATE_RULES,
  fateOf,
  fateTone,
  fateWeight,
  RUN_LEDGER_OUTCOMES,
  SLOT_FATES,
  SLOT_OUTCOMES,
  settledWithoutRun,
} from '../../src/util/slot-outcomes.ts';
import { writeTree } from '../helpers/tmp.ts';

const Database = createRequire(import.meta.url)('better-sqlite3') as typeof import('better-sqlite3');

interface Sample {
  outcome: string;
  trigger: string;
  reason: string | null;
}

/**
 * One ledger row per way the table reads a row: every word of every outcome (a settled slot's word,
 * a run's word, the live `running`), each run word again under the catch-up trigger, the legacy
 * reason-text rows, and words this build does not know (a newer node's skip, anything else).
 */
function samples(): Sample[] {
  const out: Sample[] = [];
  for (const row of SLOT_OUTCOMES) {
    const ledger: readonly string[] = 'ledger' in row ? row.ledger : [];
    const words: readonly string[] = row.kind === 'settled' ? [...row.slot, ...ledger] : ledger;
    for (const w of words) out.push({ outcome: w, trigger: 'schedule', reason: null });
    if ('legacy' in row)
      out.push({ outcome: row.legacy.ledger, trigger: 'schedule', reason: `No ${row.legacy.reason} here` });
  }
  for (const w of RUN_LEDGER_OUTCOMES) out.push({ outcome: w, trigger: 'catchup', reason: null });
  out.push({ outcome: 'skipped:gate', trigger: 'schedule', reason: 'no quorum — Leader jobs paused' });
  out.push({ outcome: 'skipped:something-newer', trigger: 'schedule', reason: null });
  out.push({ outcome: 'exploded', trigger: 'schedule', reason: null });
  return out;
}

const T0 = Date.parse('2026-03-01T00:00:00.000Z');
const minute = (i: number) => new Date(T0 + i * 60_000).toISOString();

async function storeWith(rows: { at: string; s: Sample; writer: string }[]) {
  const dir = writeTree({ 'keep.txt': '' });
  const stores = new Map<string, Awaited<ReturnType<typeof openStore>>>();
  for (const r of rows) {
    let store = stores.get(r.writer);
    if (!store) {
      store = await openStore({
        path: dir,
        namespace: 'default',
        topology: 'auto',
        inline: true,
        writer: r.writer,
      });
      stores.set(r.writer, store);
    }
    await store.append('runs/job', {
      outcome: r.s.outcome,
      trigger: r.s.trigger,
      fail_reason: r.s.reason,
      scheduled_at: r.at,
      finished_at: r.at,
      attempt: 0,
      run_id: null,
    });
  }
  const recs = await [...stores.values()][0]!.list('runs/job', { limit: 100_000 });
  for (const s of stores.values()) await s.close();
  return { db: new Database(join(dir, 'cronstable.db'), { readonly: true }), recs };
}

describe('the table of slot outcomes', () => {
  it('names each fate once, gives each recorded word one fate, and knows every fate the view sends', () => {
    expect(new Set(SLOT_FATES).size).toBe(SLOT_FATES.length);
    const words = SLOT_OUTCOMES.flatMap((r) => [...r.slot, ...('ledger' in r ? r.ledger : [])]);
    const owner = new Map<string, string>();
    for (const r of SLOT_OUTCOMES)
      for (const w of [...r.slot, ...('ledger' in r ? r.ledger : [])]) {
        expect(owner.get(w) ?? r.fate, `${w} in two rows`).toBe(r.fate);
        owner.set(w, r.fate);
      }
    expect(words).toContain('no-quorum');
    expect(words).toContain('paused');
    for (const f of SLOT_FATES) expect(fateTone(f)).toMatch(/^(ok|fail|late|skip|other|run|dst|lost)$/);
  });

  it('settles without a run exactly the slot words whose ledger row is the slot’s own', () => {
    for (const r of SLOT_OUTCOMES)
      for (const w of r.slot) expect(settledWithoutRun(w), w).toBe(r.kind === 'settled');
    expect(settledWithoutRun('deferred')).toBe(false);
    expect(settledWithoutRun('no-quorum')).toBe(true);
  });

  it('maps each word to its fate, runs of the catch-up to caught-up, old reason-text rows to their fate', () => {
    const f = (outcome: string, trigger = 'schedule', failReason: string | null = null) =>
      fateOf({ outcome, trigger, failReason });
    for (const r of SLOT_OUTCOMES) {
      const ledger: readonly string[] = 'ledger' in r ? r.ledger : [];
      const words: readonly string[] = r.kind === 'settled' ? [...r.slot, ...ledger] : ledger;
      for (const w of words) expect(f(w), w).toBe(r.fate);
    }
    for (const w of RUN_LEDGER_OUTCOMES) expect(f(w, 'catchup')).toBe('caught-up');
    expect(f('no-quorum')).toBe('no-quorum');
    expect(f('paused')).toBe('paused');
    // A pause's synthetic run row (spec 10 §1.3) is the slot's paused fate, never a failure.
    expect(f('skipped')).toBe('paused');
    expect(settledWithoutRun('skipped')).toBe(false);
    // Rows written before no-quorum and paused were recorded outcomes: the reason told.
    expect(f('skipped:gate', 'schedule', 'No quorum (lease store unreachable)')).toBe('no-quorum');
    expect(f('skipped:gate', 'schedule', 'paused until noon')).toBe('paused');
    expect(f('skipped:gate', 'schedule', 'no quorum — Leader jobs paused')).toBe('no-quorum');
    expect(f('skipped:gate', 'schedule', 'leader is node-b')).toBe('skipped-gate');
    expect(f('skipped:something-newer')).toBe('skipped-gate');
    expect(f('exploded')).toBe('failed');
  });

  it('generates one WHEN per rule, in rule order, for the fate and for the weight', () => {
    const whens = (sql: string) => sql.split('\n').filter((l) => l.trim().startsWith('WHEN'));
    const fates = whens(SLOT_FATE_SQL).map((l) => /THEN '([a-z-]+)'$/.exec(l)?.[1]);
    const weights = whens(SLOT_WEIGHT_SQL).map((l) => Number(/THEN (\d)$/.exec(l)?.[1]));
    const conditional = FATE_RULES.slice(0, -1);
    expect(fates).toEqual(conditional.map((r) => r.fate));
    expect(weights).toEqual(conditional.map((r) => fateWeight(r.fate)));
    expect(SLOT_FATE_SQL.trim().endsWith(`ELSE '${FATE_RULES.at(-1)!.fate}' END`)).toBe(true);
  });

  it('a real store’s slots view is the generated one and reads every outcome back as fateOf does', async () => {
    const all = samples();
    const { db, recs } = await storeWith(all.map((s, i) => ({ at: minute(i), s, writer: 'node-a#1' })));
    try {
      const view = db
        .prepare("SELECT sql FROM sqlite_master WHERE type = 'view' AND name = 'slots'")
        .get() as {
        sql: string;
      };
      expect(view.sql).toBe(`CREATE VIEW \`slots\` AS ${SLOTS_VIEW_SQL}`);
      const rows = db
        .prepare('SELECT scheduled_at, outcome, ledger_outcome, attempts FROM slots ORDER BY scheduled_at')
        .all() as { scheduled_at: string; outcome: string; ledger_outcome: string; attempts: number }[];
      expect(rows).toEqual(
        all.map((s, i) => ({
          scheduled_at: minute(i),
          outcome: fateOf({ outcome: s.outcome, trigger: s.trigger, failReason: s.reason }),
          ledger_outcome: s.outcome,
          attempts: RUN_LEDGER_OUTCOMES.includes(s.outcome) ? 1 : 0,
        })),
      );
      const seen = new Set(rows.map((r) => r.outcome));
      for (const f of SLOT_FATES) if (f !== 'unaccounted') expect(seen, f).toContain(f);
      // The pure view the API answers from agrees row for row.
      const pure = slotFates({
        cron: parseCron('* * * * *'),
        frame: UTC_FRAME,
        everyNode: false,
        fromMs: T0,
        toMs: T0 + all.length * 60_000,
        limit: 100_000,
        rows: recs.map(ledgerRow),
      });
      expect(pure.slots.map((s) => [s.scheduled_at, s.outcome])).toEqual(
        rows.map((r) => [r.scheduled_at, r.outcome]),
      );
    } finally {
      db.close();
    }
  });

  it('picks the same row per slot as the pure view when two nodes recorded it, whatever the order', async () => {
    // Pairs across the ranks: a run, a decision, a "not mine" row, a legacy row; both orders each.
    const kinds: Sample[] = [
      { outcome: 'success', trigger: 'schedule', reason: null },
      { outcome: 'failure', trigger: 'catchup', reason: null },
      { outcome: 'skipped:overlap', trigger: 'schedule', reason: null },
      { outcome: 'no-quorum', trigger: 'schedule', reason: 'no quorum' },
      { outcome: 'skipped:gate', trigger: 'schedule', reason: 'no quorum' },
      { outcome: 'skipped:gate', trigger: 'schedule', reason: 'leader is node-b' },
      { outcome: 'claimed-elsewhere', trigger: 'schedule', reason: 'claimed by node-b' },
      { outcome: 'missed', trigger: 'schedule', reason: null },
      { outcome: 'dst-shifted', trigger: 'schedule', reason: null },
    ];
    const rows: { at: string; s: Sample; writer: string }[] = [];
    let slot = 0;
    for (const a of kinds)
      for (const b of kinds) {
        if (a === b) continue;
        rows.push(
          { at: minute(slot), s: a, writer: 'node-a#1' },
          { at: minute(slot), s: b, writer: 'node-b#2' },
        );
        slot++;
      }
    const { db, recs } = await storeWith(rows);
    try {
      const view = db
        .prepare('SELECT scheduled_at, outcome, node, records FROM slots ORDER BY scheduled_at')
        .all() as { scheduled_at: string; outcome: string; node: string; records: number }[];
      const pure = slotFates({
        cron: parseCron('* * * * *'),
        frame: UTC_FRAME,
        everyNode: false,
        fromMs: T0,
        toMs: T0 + slot * 60_000,
        limit: 100_000,
        rows: recs.map(ledgerRow),
      });
      expect(view).toEqual(
        pure.slots.map((s) => ({
          scheduled_at: s.scheduled_at,
          outcome: s.outcome,
          node: s.node,
          records: 2,
        })),
      );
    } finally {
      db.close();
    }
  });
});

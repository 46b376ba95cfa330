// The `slots` view's SQL, generated from the one table of slot outcomes (src/util/slot-outcomes.ts):
// its fate CASE walks `FATE_RULES` in order as `fateOf` does, its rank CASE gives each rule's fate
// its weight, and its attempt count sums the run words. A change to the table changes this text,
// and `npm run db:generate` turns that into a migration (drizzle-kit compares the view definitions).
import { FATE_RULES, type FateRule, fateWeight, RUN_LEDGER_OUTCOMES } from '../util/slot-outcomes.ts';

/**
 * A word of the table as an SQL literal (inside `pre`/`post`, for LIKE patterns). The table holds
 * plain words only (no quote, no LIKE wildcard), checked here.
 */
function literal(word: string, pre = '', post = ''): string {
  if (!/^[a-z][a-z:-]*$/.test(word)) throw new Error(`slot table word '${word}' is not a plain word`);
  return `'${pre}${word}${post}'`;
}

const inList = (words: readonly string[]) =>
  words.length === 1
    ? `"outcome" = ${literal(words[0]!)}`
    : `"outcome" IN (${words.map((w) => literal(w)).join(', ')})`;

/** A rule's condition over the `runs` view's columns, or null when it matches every row. */
function condition(rule: FateRule): string | null {
  const parts: string[] = [];
  if (rule.ledger) parts.push(inList(rule.ledger));
  if (rule.prefix !== undefined) parts.push(`"outcome" LIKE ${literal(rule.prefix, '', '%')}`);
  if (rule.trigger !== undefined) parts.push(`"trigger" = ${literal(rule.trigger)}`);
  if (rule.reason !== undefined) parts.push(`lower("fail_reason") LIKE ${literal(rule.reason, '%', '%')}`);
  return parts.length > 0 ? parts.join(' AND ') : null;
}

/** One CASE over the rules, each rule's value given by `value`. */
function caseOf(value: (rule: FateRule) => string): string {
  const lines = ['CASE'];
  for (const rule of FATE_RULES) {
    const when = condition(rule);
    if (when === null) {
      lines.push(`  ELSE ${value(rule)} END`);
      return lines.join('\n');
    }
    lines.push(`  WHEN ${when} THEN ${value(rule)}`);
  }
  throw new Error('the slot fate rules end without a rule that matches every row');
}

/** A `runs` row's slot fate (`fateOf` in SQL). */
export const SLOT_FATE_SQL = caseOf((rule) => literal(rule.fate));
/** How much a `runs` row tells about its slot (`fateWeight` of its fate). */
export const SLOT_WEIGHT_SQL = caseOf((rule) => String(fateWeight(rule.fate)));
/** Whether a `runs` row is a run (an attempt at its slot). */
export const SLOT_ATTEMPT_SQL = `"outcome" IN (${RUN_LEDGER_OUTCOMES.map((w) => literal(w)).join(', ')})`;

/**
 * The view's query: per (ns, job, scheduled_at) the most informative row (weight, then newest id;
 * SQLite takes the bare columns from the row holding the max).
 */
export const SLOTS_VIEW_SQL = `select "ns", "job", "scheduled_at", "outcome", "ledger_outcome", "node", "run_id", "reason", "finished_at", "attempts", "records", "id" from (select "ns", "job", "scheduled_at", ${SLOT_FATE_SQL} as "outcome", "outcome" as "ledger_outcome", "node", "run_id", "fail_reason" as "reason", "finished_at", sum(${SLOT_ATTEMPT_SQL}) as "attempts", count(*) as "records", "id", max(${SLOT_WEIGHT_SQL} * 1000000000000 + "id") as "rank" from "runs" where "scheduled_at" IS NOT NULL group by "ns", "job", "scheduled_at")`;

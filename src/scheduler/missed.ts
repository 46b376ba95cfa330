// The compact record of dropped slots (issue 14 item 9): a stall can drop thousands of slots of one
// job at once. Each becomes a `missed-overload` slot, but only the first few as single records; the
// rest is one record with a count and the last instant it covers, so the slot history, the ledger
// and the log stay readable and bounded while the counter stays exact.
import type { SlotRecord } from './history.ts';

/** Single records per batch before the rest is folded into one counted record. */
export const MISSED_SINGLE_RECORDS = 3;

/** The slot records of `instants` (ascending) that will never fire; `atLeast` marks a capped count. */
export function compactMissed(
  job: string,
  instants: readonly number[],
  atLeast: boolean,
  why: string,
  outcome: 'missed-overload' | 'missed' = 'missed-overload',
): SlotRecord[] {
  const single = (at: number): SlotRecord => ({
    job,
    scheduledAt: at,
    outcome,
    runId: null,
    detail: why,
  });
  if (instants.length <= MISSED_SINGLE_RECORDS && !atLeast) return instants.map(single);
  const head = instants.slice(0, MISSED_SINGLE_RECORDS - 1).map(single);
  const rest = instants.slice(MISSED_SINGLE_RECORDS - 1);
  const first = rest[0]!;
  const last = rest[rest.length - 1]!;
  head.push({
    job,
    scheduledAt: first,
    outcome,
    runId: null,
    detail: `${atLeast ? 'at least ' : ''}${rest.length} slots from ${new Date(first).toISOString()} to ${new Date(last).toISOString()}: ${why}`,
    count: rest.length,
    lastAt: last,
  });
  return head;
}

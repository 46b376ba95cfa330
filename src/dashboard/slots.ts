// The slot strip's pure side: the `/jobs/{name}/slots` body (inferred from the wire schema), each outcome's
// tone (from the table of slot outcomes), a cell's hover text.

import type {
  JobSlot as ApiSlot,
  JobSlots as ApiSlots,
  Unaccounted as ApiUnaccounted,
} from '../api/wire/slots.schema.ts';
import { fateTone } from '../util/slot-outcomes.ts';

export type { ApiSlot, ApiSlots, ApiUnaccounted };

/** How a cell is coloured: the tone the table of slot outcomes gives its fate. */
export { fateTone as slotTone };

/** The hover text of one cell: instant, outcome, node, reason and the other nodes' rows. */
export function slotTitle(s: ApiSlot): string {
  const parts = [`${s.scheduled_at.replace('.000Z', 'Z')} ${s.outcome}`];
  if (s.node) parts.push(`on ${s.node}`);
  if (s.reason) parts.push(s.reason);
  for (const o of s.others) parts.push(`${o.node}: ${o.outcome}`);
  return parts.join(' · ');
}

/** The newest `max` slots, oldest first (the strip reads left to right in time). */
export function stripCells(slots: readonly ApiSlot[], max: number): ApiSlot[] {
  return slots.slice(Math.max(0, slots.length - max));
}

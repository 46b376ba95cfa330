// The slot strip's pure side: the `/jobs/{name}/slots` body (inferred from the wire schema), each outcome's
// tone, a cell's hover text.

import type {
  JobSlot as ApiSlot,
  JobSlots as ApiSlots,
  Unaccounted as ApiUnaccounted,
} from '../api/wire/slots.schema.ts';

export type { ApiSlot, ApiSlots, ApiUnaccounted };

export type SlotTone = 'ok' | 'fail' | 'late' | 'skip' | 'other' | 'run' | 'dst' | 'lost';

/** How a cell is coloured: what happened, not which gate said so. */
export function slotTone(outcome: string): SlotTone {
  if (outcome === 'ran') return 'ok';
  if (outcome === 'running') return 'run';
  if (outcome === 'failed' || outcome === 'cancelled') return 'fail';
  if (outcome === 'caught-up') return 'late';
  if (outcome === 'claimed-elsewhere' || outcome === 'skipped-gate') return 'other';
  if (outcome.startsWith('dst-')) return 'dst';
  if (
    outcome === 'unaccounted' ||
    outcome === 'missed' ||
    outcome === 'missed-overload' ||
    outcome === 'no-quorum'
  )
    return 'lost';
  return 'skip';
}

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

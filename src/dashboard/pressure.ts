// ▥ pressure (spec 06 §5.11, §9.2): the shapes of `/schedule/pressure`, `/duplicates` and `/suggest` (inferred
// from the wire schemas in src/api/wire), and the pure helpers the grid, the minute histogram and the slot suggestions draw from.
import type { ApiDuplicates, ApiPressure, ApiSlot, ApiSuggest } from '../api/wire/schedule.schema.ts';

export type { ApiDuplicates, ApiPressure, ApiSlot, ApiSuggest };

export type PressureFrame = 'utc' | 'local';

/** Query string of the pressure routes for a frame: `local` names the viewer's zone. */
export function frameQuery(frame: PressureFrame, viewerZone: string): string {
  return frame === 'local' && viewerZone !== 'UTC' ? `tz=${encodeURIComponent(viewerZone)}` : '';
}

/** The busiest cell of the grid (first in hour, minute order on ties), or null on an empty grid. */
export function busiestCell(
  grid: readonly (readonly number[])[],
): { hour: number; minute: number; fires: number } | null {
  let best: { hour: number; minute: number; fires: number } | null = null;
  for (let hour = 0; hour < grid.length; hour++) {
    const row = grid[hour]!;
    for (let minute = 0; minute < row.length; minute++) {
      const fires = row[minute]!;
      if (fires > 0 && (best === null || fires > best.fires)) best = { hour, minute, fires };
    }
  }
  return best;
}

/**
 * Shade 0..5 of a cell: 0 empty, else 1..5 between the quietest and the busiest non-empty cell. Relative to the
 * floor, not to zero, so a per-second job's steady 30 fires a minute reads as background and the minutes where
 * other jobs pile on top of it stand out.
 */
export function cellShade(fires: number, range: { min: number; max: number }): number {
  if (fires <= 0 || range.max <= 0) return 0;
  if (range.max === range.min) return 3;
  return 1 + Math.round(((fires - range.min) / (range.max - range.min)) * 4);
}

/** Quietest and busiest non-empty cell counts (0, 0 on an empty grid). */
export function shadeRange(grid: readonly (readonly number[])[]): { min: number; max: number } {
  let min = Number.POSITIVE_INFINITY;
  let max = 0;
  for (const row of grid)
    for (const f of row) {
      if (f <= 0) continue;
      if (f < min) min = f;
      if (f > max) max = f;
    }
  return max === 0 ? { min: 0, max: 0 } : { min, max };
}

/** Bar heights (0..1) of the minute histogram, linear against its maximum. */
export function histogram(values: readonly number[]): number[] {
  const max = Math.max(0, ...values);
  return values.map((v) => (max > 0 ? v / max : 0));
}

/** "14:05" for a cell. */
export function cellLabel(hour: number, minute: number): string {
  return `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`;
}

// Bar charts in text cells: each column a value, `height` rows tall with eighth-cell steps (`▁`…`█`), so a
// 3-row chart has 24 levels instead of a sparkline's 8.
import type { Glyphs } from './glyphs.ts';

/** Rows of the chart, top first; `max` is the value of a full column (values above it are clipped). */
export function blockChart(values: readonly number[], max: number, height: number, g: Glyphs): string[] {
  const top = max > 0 ? max : 1;
  const eighths = values.map((v) =>
    Number.isFinite(v) && v > 0 ? Math.max(1, Math.round((Math.min(v, top) / top) * height * 8)) : 0,
  );
  const rows: string[] = [];
  for (let r = height - 1; r >= 0; r--) {
    let line = '';
    for (const e of eighths) {
      const fill = Math.max(0, Math.min(8, e - r * 8));
      line += fill === 0 ? ' ' : g.spark[fill - 1]!;
    }
    rows.push(line);
  }
  return rows;
}

/** The last `width` values, left-padded with NaN so the newest sits at the right edge. */
export function lastColumns(values: readonly number[], width: number): number[] {
  const tail = values.slice(-width);
  return [...Array.from({ length: width - tail.length }, () => Number.NaN), ...tail];
}

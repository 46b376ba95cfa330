// Node resources card and the drawer's Resources tab (spec 06 §5.6): shapes of `/node/history` and
// `/jobs/{name}/resources`, byte formatting and the SVG paths of their charts (pure).
import type { NodeHistoryBody as ApiNodeHistory } from '../api/wire/core.schema.ts';
import type {
  ApiLiveResources,
  ApiResourceStats,
  ApiResourceSummary,
  JobResources,
  JobResourcesRun,
  ResourceSeries,
} from '../api/wire/jobs.schema.ts';
import type { Flat } from './types.ts';

export type { ApiLiveResources, ApiNodeHistory, ApiResourceStats, ApiResourceSummary, ResourceSeries };

/** One sampled run of `/jobs/{name}/resources`, joined to its run record or bare, read as one object. */
export type ApiRunResources = Flat<JobResourcesRun>;

/** `GET /jobs/{name}/resources`, its runs read flattened. */
export type ApiJobResources = Omit<JobResources, 'runs'> & { runs: ApiRunResources[] };

export const RESOURCE_INTERVALS = ['1', '2', '5', '10'] as const;
export type ResourceInterval = (typeof RESOURCE_INTERVALS)[number];

/** A percentage already in percent (`12.3%`), one decimal; `—` when unknown. */
export function formatPercentValue(v: number | null | undefined): string {
  return v === null || v === undefined ? '—' : `${v.toFixed(1)}%`;
}

/** 1536 -> "1.5 KiB", 5.3 MiB, … */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes) || bytes < 0) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${Math.round(v)} B` : `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[u]}`;
}

/**
 * Polyline points ("x,y x,y …") of one column of a time series in a `w`×`h` box: x spans the series' time range,
 * y runs from `max` (top) to 0 (bottom).
 */
export function chartPoints(
  series: readonly (readonly number[])[],
  column: number,
  w: number,
  h: number,
  max: number,
): string {
  if (series.length === 0) return '';
  const t0 = series[0]![0]!;
  const t1 = series[series.length - 1]![0]!;
  const span = t1 - t0 || 1;
  const top = max > 0 ? max : 1;
  return series
    .map((p) => {
      const x = series.length === 1 ? w : ((p[0]! - t0) / span) * w;
      const y = h - (Math.max(0, Math.min(top, p[column]!)) / top) * h;
      return `${round1(x)},${round1(y)}`;
    })
    .join(' ');
}

const round1 = (n: number): number => Math.round(n * 10) / 10;

/** Min / mean / max / last of one column, or null on an empty series. */
export function columnStats(
  series: readonly (readonly number[])[],
  column: number,
): { min: number; mean: number; max: number; last: number } | null {
  if (series.length === 0) return null;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  let sum = 0;
  for (const p of series) {
    const v = p[column]!;
    min = Math.min(min, v);
    max = Math.max(max, v);
    sum += v;
  }
  return { min, mean: sum / series.length, max, last: series[series.length - 1]![column]! };
}

/** Axis ceiling for a CPU-percent chart: 100 unless a multi-core process goes over it (then the next 100). */
export function cpuCeiling(series: readonly (readonly number[])[], column: number): number {
  const peak = Math.max(0, ...series.map((p) => p[column]!));
  return Math.max(100, Math.ceil(peak / 100) * 100);
}

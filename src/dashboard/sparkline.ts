// Trend sparkline of a job's recent runs: one bar per history entry, height = duration, colour = outcome.
import { formatDuration } from './format.ts';
import { OUTCOME_STATUS, STATUS_TONE, type Tone } from './health.ts';
import type { ApiHistoryEntry, Outcome } from './types.ts';

export interface SparkBar {
  x: number;
  y: number;
  width: number;
  height: number;
  outcome: Outcome;
}

export interface Sparkline {
  bars: SparkBar[];
  /** accessible summary, e.g. "20 runs: 18 ok, 2 failed; slowest 3.10s" */
  label: string;
}

export const SPARK_SLOTS = 20;

/**
 * Bars for the last `slots` runs (oldest left), right-aligned so the newest run is always at the right edge.
 * Runs without a duration get a minimal bar; every bar is at least 2 px tall so outcomes stay visible.
 */
export function sparkline(
  history: readonly ApiHistoryEntry[],
  width: number,
  height: number,
  slots = SPARK_SLOTS,
): Sparkline {
  const runs = history.slice(-slots);
  const pitch = width / slots;
  const barWidth = Math.max(1, pitch - 1);
  let max = 0;
  for (const r of runs) if (r.duration !== null && r.duration > max) max = r.duration;
  const minH = 2;
  const bars = runs.map((r, i) => {
    const d = r.duration ?? 0;
    const h = max > 0 ? Math.max(minH, Math.round((d / max) * height * 100) / 100) : minH;
    return {
      x: Math.round((width - (runs.length - i) * pitch) * 100) / 100,
      y: Math.round((height - h) * 100) / 100,
      width: barWidth,
      height: h,
      outcome: r.outcome,
    };
  });
  return { bars, label: sparkLabel(runs, max) };
}

function sparkLabel(runs: readonly ApiHistoryEntry[], max: number): string {
  if (runs.length === 0) return 'no runs yet';
  const count = (o: Outcome): number => runs.filter((r) => r.outcome === o).length;
  const parts = [`${count('success')} ok`];
  const failed = count('failure');
  const cancelled = count('cancelled');
  const unknown = count('unknown');
  const skipped = count('skipped');
  if (failed) parts.push(`${failed} failed`);
  if (cancelled) parts.push(`${cancelled} cancelled`);
  if (unknown) parts.push(`${unknown} interrupted`);
  if (skipped) parts.push(`${skipped} skipped (paused)`);
  const slowest = max > 0 ? `; slowest ${formatDuration(max)}` : '';
  return `${runs.length} run${runs.length === 1 ? '' : 's'}: ${parts.join(', ')}${slowest}`;
}

/** Block characters from the lowest to the highest bar, for a terminal's one-row sparkline. */
export const SPARK_BLOCKS = '▁▂▃▄▅▆▇█';

/** Bar colour per outcome (spec 08 §3.7): the tone of the status that outcome leaves a job in. */
export const OUTCOME_TONE: Record<Outcome, Tone> = {
  success: STATUS_TONE[OUTCOME_STATUS.success],
  failure: STATUS_TONE[OUTCOME_STATUS.failure],
  cancelled: STATUS_TONE[OUTCOME_STATUS.cancelled],
  unknown: STATUS_TONE[OUTCOME_STATUS.unknown],
  // A skipped slot paints neutral (spec 10 §1.5), not in the pending colour of a job left Skipped.
  skipped: 'off',
};

export interface SparkCell {
  /** 0 (lowest block) to 7 (full block) */
  level: number;
  block: string;
  outcome: Outcome;
  tone: Tone;
}

/**
 * The same bars as `sparkline`, one character cell each: the last `width` runs, oldest left, each scaled to
 * the slowest shown (round(duration / max × 7)); a run without a duration, or all zero, gets the lowest block.
 */
export function sparkCells(history: readonly ApiHistoryEntry[], width: number): SparkCell[] {
  if (width <= 0) return [];
  const runs = history.slice(-width);
  let max = 0;
  for (const r of runs) if (r.duration !== null && r.duration > max) max = r.duration;
  return runs.map((r) => {
    const level = max > 0 && r.duration !== null ? Math.round((r.duration / max) * 7) : 0;
    return { level, block: SPARK_BLOCKS[level]!, outcome: r.outcome, tone: OUTCOME_TONE[r.outcome] };
  });
}

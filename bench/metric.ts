export interface Metric {
  metric: string;
  value: number;
  unit: string;
  budget?: number;
}

/** Runs fn `repeat` times and returns the fastest wall time in seconds (least noisy on shared machines). */
export async function bestOf(repeat: number, fn: () => unknown | Promise<unknown>): Promise<number> {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < repeat; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    if (s < best) best = s;
  }
  return best;
}

/** The `q` quantile (0..1) of the samples by nearest rank; NaN when there are none. */
export function percentile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? Number.NaN;
}

export const p99 = (values: readonly number[]): number => percentile(values, 0.99);

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

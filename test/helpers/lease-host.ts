// A ClusterHost for lease-backend tests: the real clock, a fixed job-set id, captured log lines.
import type { ClusterHost } from '../../src/cluster/types.ts';
import { type Clock, RealClock } from '../../src/util/clock.ts';

export interface TestHost extends ClusterHost {
  lines: string[];
  setJobSetId(id: string): void;
}

export function leaseTestHost(nodeName: string, clock: Clock = new RealClock()): TestHost {
  let jobSetId = 'v1:test';
  const lines: string[] = [];
  return {
    nodeName,
    clock,
    jobSetId: () => jobSetId,
    setJobSetId: (id) => {
      jobSetId = id;
    },
    jobSummaries: () => ({}),
    nodeStats: () => null,
    store: null,
    lines,
    log: {
      info: (m) => lines.push(`INFO ${m}`),
      warning: (m) => lines.push(`WARNING ${m}`),
      error: (m) => lines.push(`ERROR ${m}`),
    },
  };
}

/** Polls `check` every 50 ms until it returns true; rejects with `what` after `timeoutMs`. */
export async function waitFor(check: () => boolean, timeoutMs: number, what: string): Promise<number> {
  const start = performance.now();
  while (!check()) {
    if (performance.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return performance.now() - start;
}

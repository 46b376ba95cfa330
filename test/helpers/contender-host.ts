// What a contender process (a cluster backend run on its own, so a test can SIGKILL it) tells its
// backend about itself: a fixed job set, no jobs, no store, and logs wherever the process reports them.
import type { ClusterHost } from '../../src/cluster/types.ts';
import { RealClock } from '../../src/util/clock.ts';

export function contenderHost(nodeName: string, log: ClusterHost['log']): ClusterHost {
  return {
    nodeName,
    clock: new RealClock(),
    jobSetId: () => 'v1:contender',
    jobSummaries: () => ({}),
    nodeStats: () => null,
    store: null,
    log,
  };
}

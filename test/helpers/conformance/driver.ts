// What the lease-backend conformance suite (cases.ts) needs from a backend under test: a fleet
// of started contenders on one election, and the few faults only that backend's store knows how
// to cause. One driver per backend (filesystem.ts, etcd.ts, ...); the cases are the same for all.
import type { BackendKind, ClusterBackend } from '../../../src/cluster/types.ts';
import { leaseTestHost, type TestHost } from '../lease-host.ts';
import { ContenderClock } from './clock.ts';

export interface Contender {
  name: string;
  backend: ClusterBackend;
  clock: ContenderClock;
  host: TestHost;
  /** Gone for good (crashed and not sampled any more). */
  dead: boolean;
}

/** A fence as the holder held it, in its store's own terms (lease row, lease id, Lease object). */
export type Fence = unknown;

export interface ConformanceFleet {
  nodes: Contender[];
  /** The store stops answering every node (gossip: every link of the mesh is refused). */
  cut(): Promise<void>;
  heal(): Promise<void>;
  /**
   * The holder loses the lease behind its back: another writer takes it in the store (gossip:
   * the holder is partitioned from its peers, its majority goes on without it).
   */
  steal(holder: Contender): Promise<void>;
  /** The holder's fence now, for a stale write later. */
  fenceOf(holder: Contender): Promise<Fence>;
  /**
   * The holder stalls (a SIGSTOP): no rounds, no answers. Lease backends: its timers are held;
   * gossip: its timers are held and its links cut, as a stopped process's would be.
   */
  freeze(node: Contender): Promise<void>;
  thaw(node: Contender): Promise<void>;
  /**
   * After a takeover, a write carrying the stale holder's `fence`, straight at the store. Every
   * backend must refuse it: 'refused' or 'accepted'. Gossip has no store: its fence is the
   * majority, and it refuses when no peer still counts the stale holder in its agreeing set.
   */
  staleWrite(holder: Contender, fence: Fence): Promise<'refused' | 'accepted'>;
  /** Dies without a goodbye: no release. */
  crash(node: Contender): Promise<void>;
  /**
   * What `node`'s `/cluster` lease block holds (toMatchObject) once `leader` leads, in its
   * store's own terms; null for a backend that holds no lease (gossip).
   */
  leaseBlock(node: Contender, leader: Contender): Record<string, unknown> | null;
  close(): Promise<void>;
}

export interface ConformanceTiming {
  /** A first leader among fresh contenders. */
  acquireMs: number;
  /** The lease's life (gossip: the failure-detection time, interval + connectTimeout). */
  ttlMs: number;
  /** A stalled or crashed holder replaced: from the fault to a new leader. */
  failoverMs: number;
  /** A holder that stopped gracefully (released its lease) replaced: from the stop to a new leader. */
  releaseMs: number;
  /** With the store gone: no node leads after this. */
  demoteMs: number;
  /** With the store gone: no node is quorate after this. */
  quorumLossMs: number;
  /** After the store returns: one leader again. */
  recoverMs: number;
  /**
   * The longest two nodes may both claim leadership after a fault: 0 for a lease (never), about
   * one interval for gossip (spec 05 §5.7 residual: a partitioned live leader).
   */
  overlapMs: number;
}

export interface ConformanceDriver {
  kind: BackendKind;
  /** Why the backend cannot run on this machine, or null. The suite fails under CI instead. */
  unavailable(): string | null;
  setup?(): Promise<void>;
  teardown?(): Promise<void>;
  /** Started contenders on one fresh election; `skewsMs[i]` shifts node i's wall clock. */
  fleet(names: string[], skewsMs?: number[]): Promise<ConformanceFleet>;
  timing: ConformanceTiming;
  /** The WARNING a node logs when its store (gossip: its peers) stops answering. */
  failureLog: RegExp;
  /** The INFO a node logs once its store (gossip: a peer) answers again. */
  recoveryLog: RegExp;
  /** The INFO a leader logs when a graceful stop releases its lease; null when it holds none. */
  releaseLog: RegExp | null;
}

/** A contender's parts, before its backend exists. */
export function contenderParts(name: string, skewMs = 0): { clock: ContenderClock; host: TestHost } {
  const clock = new ContenderClock(skewMs);
  return { clock, host: leaseTestHost(name, clock) };
}

/** Starts what a fleet built, and stops it on close (thawed first, so a stop can finish). */
export async function startAll(nodes: Contender[]): Promise<void> {
  await Promise.all(nodes.map((n) => n.backend.start()));
}

export async function stopAll(nodes: Contender[]): Promise<void> {
  for (const n of nodes) n.clock.thaw();
  await Promise.all(nodes.map((n) => n.backend.stop().catch(() => undefined)));
}

/** What a lease driver writes itself: the faults of its store, and how to let go of it. */
export type StoreFaults = Pick<
  ConformanceFleet,
  'cut' | 'heal' | 'steal' | 'fenceOf' | 'staleWrite' | 'leaseBlock'
> & {
  dispose(): Promise<void>;
};

/**
 * A lease backend's fleet: `nodes` started, its store's faults, and what every lease backend
 * shares: a stall is a frozen clock (no rounds, no release), a crash one that never thaws.
 */
export async function leaseFleet(
  nodes: Contender[],
  store: (nodes: Contender[]) => Promise<StoreFaults>,
): Promise<ConformanceFleet> {
  await startAll(nodes);
  const faults = await store(nodes);
  return {
    ...faults,
    nodes,
    freeze: async (n) => n.clock.freeze(),
    thaw: async (n) => n.clock.thaw(),
    crash: async (n) => n.clock.freeze(),
    async close() {
      await faults.heal();
      await stopAll(nodes);
      await faults.dispose();
    },
  };
}

/**
 * The bounds of a lease of `ttl` seconds (spec 05 §7): the holder demotes itself ttl − 1 s after
 * its last renew, quorum lapses a ttl after the last answer, and two holders never overlap.
 */
export function leaseTiming(
  ttl: number,
  failover: number,
  recover: number,
  release: number,
): ConformanceTiming {
  return {
    acquireMs: 3000,
    ttlMs: ttl * 1000,
    failoverMs: failover * 1000,
    releaseMs: release * 1000,
    demoteMs: (ttl - 1) * 1000,
    quorumLossMs: ttl * 1000 + 1000,
    recoverMs: recover * 1000,
    overlapMs: 0,
  };
}

// The operation table shared by the inline executor and the worker lanes: one name per Store
// method, the lane it runs on, whether it writes (writes may share a group commit), and the
// primitive that implements it.

import * as artifacts from './primitives/artifacts.ts';
import type { Ctx } from './primitives/common.ts';
import * as cursor from './primitives/cursor.ts';
import * as dagRuns from './primitives/dag-runs.ts';
import * as fireClaims from './primitives/fire-claims.ts';
import * as idem from './primitives/idempotency.ts';
import * as inventory from './primitives/inventory.ts';
import * as kv from './primitives/kv.ts';
import * as leases from './primitives/leases.ts';
import { recentRuns } from './primitives/recent-runs.ts';
import * as records from './primitives/records.ts';
import { sleepSync } from './topology.ts';
import type { Json, Lease } from './types.ts';

export type LaneName = 'bulk' | 'lease';

interface OpSpec {
  lane: LaneName;
  write: boolean;
  // biome-ignore lint/suspicious/noExplicitAny: each entry's own signature is kept by `typeof OPERATIONS`.
  fn: (c: Ctx, ...args: any[]) => unknown;
}

function op<A extends unknown[], R>(lane: LaneName, write: boolean, fn: (c: Ctx, ...args: A) => R) {
  return { lane, write, fn } satisfies OpSpec;
}

export const OPERATIONS = {
  append: op('bulk', true, (c, stream: string, data: Json, opts?: { keep?: number }) =>
    records.append(c, stream, data, opts),
  ),
  list: op('bulk', false, (c, stream: string, opts?: { newestFirst?: boolean; limit?: number }) =>
    records.list(c, stream, opts),
  ),
  newest: op('bulk', false, records.newest),
  maxField: op('bulk', false, records.maxField),
  streams: op('bulk', false, records.streams),
  recentRuns: op('bulk', false, recentRuns),
  deleteStream: op('bulk', true, records.deleteStream),
  kvGet: op('bulk', false, kv.kvGet),
  kvSet: op('bulk', true, kv.kvSet),
  kvDelete: op('bulk', true, kv.kvDelete),
  kvList: op('bulk', false, kv.kvList),
  cursorGet: op('bulk', false, cursor.cursorGet),
  cursorAdvance: op('bulk', true, cursor.cursorAdvance),
  idempotencyClaim: op('bulk', true, idem.idempotencyClaim),
  idempotencyRelease: op('bulk', true, idem.idempotencyRelease),
  artifactPut: op('bulk', true, (c, scope: string, name: string, bytes: Uint8Array, meta?: Json) =>
    artifacts.artifactPut(c, scope, name, bytes, meta),
  ),
  artifactGet: op('bulk', false, artifacts.artifactGet),
  artifactList: op('bulk', false, artifacts.artifactList),
  leaseAcquire: op('lease', true, leases.leaseAcquire),
  leaseRenew: op('lease', true, leases.leaseRenew),
  leaseRelease: op('lease', true, (c, lease: Lease) => leases.leaseRelease(c, lease)),
  leaseRead: op('lease', false, leases.leaseRead),
  semaphoreAcquire: op('lease', true, leases.semaphoreAcquire),
  // On the lease lane: a fire waits for its claim, so it must not queue behind bulk writes.
  fireClaim: op('lease', true, fireClaims.fireClaim),
  dagRunCreate: op('bulk', true, dagRuns.dagRunCreate),
  dagRunGet: op('bulk', false, dagRuns.dagRunGet),
  dagRunVersion: op('bulk', false, dagRuns.dagRunVersion),
  dagRunWrite: op('bulk', true, dagRuns.dagRunWrite),
  dagRunList: op('bulk', false, dagRuns.dagRunList),
  dagRunsActive: op('bulk', false, dagRuns.dagRunsActive),
  dagRunStats: op('bulk', false, dagRuns.dagRunStats),
  dagRunPrune: op('bulk', true, dagRuns.dagRunPrune),
  dagRunPruneRemoved: op('bulk', true, dagRuns.dagRunPruneRemoved),
  docNamespaces: op('bulk', false, inventory.docNamespaces),
  docList: op('bulk', false, inventory.docList),
  leaseList: op('bulk', false, inventory.leaseList),
  /** Test hook: blocks the lane's thread for `ms` (simulates a hung filesystem call). */
  testStallBulk: op('bulk', false, (_c, ms: number) => sleepSync(ms)),
  testStallLease: op('lease', false, (_c, ms: number) => sleepSync(ms)),
};

export type OpName = keyof typeof OPERATIONS;
type Fn<K extends OpName> = (typeof OPERATIONS)[K]['fn'];
export type OpArgs<K extends OpName> = Fn<K> extends (c: Ctx, ...args: infer A) => unknown ? A : never;
export type OpResult<K extends OpName> = ReturnType<Fn<K>>;

export function isOpName(name: string): name is OpName {
  return Object.hasOwn(OPERATIONS, name);
}

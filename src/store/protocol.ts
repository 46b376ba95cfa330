// Messages between the store's main-thread client (./lanes.ts) and a lane worker (./lane.ts).
import { errorText } from '../util/errors.ts';
import type { IsolateMemory } from '../util/isolates.ts';
import type { LaneName, OpName } from './ops.ts';
import { StoreLockedError, StoreRequestError, StoreUnavailableError, type Topology } from './types.ts';

export const STORE_LANE_TASK = 'cronstable:store-lane';

/** How one lane's connection waits on a lock held by another connection. */
export interface LaneSettings {
  busyTimeoutMs: number;
  /** Retry SQLITE_BUSY in the app until the call's deadline (see ./executor.ts). */
  busyRetry: boolean;
}

/**
 * A lane worker holds one connection per lane it has been given calls for (./lane-pool.ts
 * decides which worker a lane's calls go to); it opens `first` at start and the other on its
 * first call (pragmas only: the store is set up by then).
 */
export interface LaneWorkerData {
  task: typeof STORE_LANE_TASK;
  first: LaneName;
  dir: string;
  topology: Topology;
  ns: string;
  writer: string;
  lanes: Record<LaneName, LaneSettings>;
  /** `first` applies migrations and stamps the namespace (the store's first connection). */
  setUp: boolean;
}

export type SerializedError =
  | { kind: 'request'; status: number; message: string }
  | { kind: 'unavailable'; message: string }
  | { kind: 'locked'; message: string };

export type ToLane =
  | {
      type: 'call';
      id: number;
      lane: LaneName;
      op: OpName;
      args: unknown[];
      nowMs: number;
      deadlineMs: number;
    }
  | { type: 'close' }
  /** The debug memory report asks what the lane's isolate holds (src/util/isolates.ts). */
  | { type: 'memory'; id: number };

export type LaneResult =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: SerializedError };

export type FromLane =
  | { type: 'ready'; journalMode: string; version: string; runtime: string; warnings: string[] }
  | { type: 'failed'; error: SerializedError }
  | { type: 'results'; items: LaneResult[] }
  | { type: 'closed' }
  | { type: 'memory'; id: number; report: IsolateMemory };

export function serializeError(e: unknown): SerializedError {
  if (e instanceof StoreRequestError) return { kind: 'request', status: e.status, message: e.message };
  if (e instanceof StoreLockedError) return { kind: 'locked', message: e.message };
  const code = (e as { code?: unknown })?.code;
  const message = errorText(e);
  return {
    kind: 'unavailable',
    message: typeof code === 'string' && code.startsWith('SQLITE') ? `${message} (${code})` : message,
  };
}

export function deserializeError(e: SerializedError): Error {
  if (e.kind === 'request') return new StoreRequestError(e.status, e.message);
  if (e.kind === 'locked') return new StoreLockedError(e.message);
  return new StoreUnavailableError(e.message);
}

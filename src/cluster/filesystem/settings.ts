// The filesystem backend's effective settings (spec 05 §2.3, §8.3) from the `cluster:` section:
// defaults applied, the round cadence derived. Pure.
import { resolve } from 'node:path';
import type { ClusterSection } from '../../config/file-schema.ts';
import { type LeaseCadence, leaseCadence } from '../lease-state.ts';

export const DEFAULT_ELECTION_NAME = 'cluster/leader';
export const DEFAULT_TTL_SECONDS = 15;
export const DEFAULT_CONNECT_TIMEOUT_SECONDS = 10;
/** Test-only: milliseconds added to the wall clock that writes and judges lease expiry. */
export const CLOCK_SKEW_ENV = 'CRONSTABLE_TEST_CLOCK_SKEW_MS';

export interface FilesystemSettings {
  /** Absolute directory holding `cronstable.db`. */
  path: string;
  /** Store namespace: `filesystem.deploymentId`, else `default`. */
  namespace: string;
  electionName: string;
  ttlSeconds: number;
  topology: 'auto' | 'single-node' | 'shared';
  cadence: LeaseCadence;
  /** Test-only wall-clock offset (spec 05 §14 "Clock skew"); 0 in production. */
  skewMs: number;
}

export function filesystemSettings(
  cluster: ClusterSection,
  env: Record<string, string | undefined> = process.env,
): FilesystemSettings {
  const fs = cluster.filesystem;
  if (!fs?.path) throw new Error('cluster.backend filesystem needs cluster.filesystem.path');
  const ttlSeconds = fs.ttl ?? DEFAULT_TTL_SECONDS;
  if (!Number.isFinite(ttlSeconds) || ttlSeconds < 3)
    throw new Error(`cluster.filesystem.ttl must be a finite number >= 3, got ${ttlSeconds}`);
  const connectTimeout = cluster.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT_SECONDS;
  return {
    path: resolve(fs.path),
    namespace: fs.deploymentId || 'default',
    electionName: fs.electionName || DEFAULT_ELECTION_NAME,
    ttlSeconds,
    topology: fs.topology ?? 'auto',
    cadence: leaseCadence(ttlSeconds, connectTimeout > 0 ? connectTimeout : DEFAULT_CONNECT_TIMEOUT_SECONDS),
    skewMs: parseSkew(env[CLOCK_SKEW_ENV]),
  };
}

function parseSkew(text: string | undefined): number {
  if (text === undefined || text.trim() === '') return 0;
  const n = Number(text);
  return Number.isFinite(n) ? n : 0;
}

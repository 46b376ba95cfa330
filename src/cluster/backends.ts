// The leadership backends this build carries, by `cluster.backend` (spec 05 §2.1). Each entry
// loads its module lazily: a node pays only for the backend it runs. The kinds are the tuple of
// src/util/backend-kinds.ts, which the config schema reads too: a kind there without a loader here
// does not type-check, so a config never names a kind this build cannot start (issue 10 item 1:
// never silently double-fire).
import type { BackendFactory, BackendKind } from './types.ts';

export type BackendLoader = () => Promise<BackendFactory>;

export const BACKENDS: Record<BackendKind, BackendLoader> = {
  gossip: async () => (await import('./gossip/index.ts')).createGossipBackend,
  filesystem: async () => (await import('./filesystem/index.ts')).createFilesystemBackend,
  etcd: async () => (await import('./etcd/index.ts')).createEtcdBackend,
  kubernetes: async () => (await import('./kubernetes/index.ts')).createKubernetesBackend,
};

/**
 * The election-inert gossip mesh a lease backend runs beside it for `/fleet` when
 * `cluster.observability` is set (spec 05 §11); it reads the lease backend's own section.
 */
export const FLEET_MESH: BackendLoader | null = async () =>
  (await import('./gossip/index.ts')).createFleetMesh;

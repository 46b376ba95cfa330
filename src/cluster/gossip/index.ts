// The gossip backend's entry points: the election backend for `backend: gossip`, and the
// election-inert fleet mesh a lease backend runs from `cluster.observability` (spec 05 §11).
import type { ClusterSection } from '../../config/file-schema.ts';
import type { BackendFactory, ClusterBackend, ClusterHost } from '../types.ts';
import { GossipBackend } from './backend.ts';
import { fleetMeshSettings, gossipSettings } from './settings.ts';

export { GossipBackend } from './backend.ts';
export type { FleetNode, FleetView } from './views.ts';

export const createGossipBackend: BackendFactory = (cluster, host) =>
  new GossipBackend(gossipSettings(cluster, host.nodeName), host);

/** A second gossip mesh purely for `/fleet` data: electLeader false, single-leader. */
export function createFleetMesh(cluster: ClusterSection, host: ClusterHost): ClusterBackend {
  return new GossipBackend(fleetMeshSettings(cluster, host.nodeName), host);
}

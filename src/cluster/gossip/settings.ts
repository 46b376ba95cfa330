// The gossip backend's resolved settings. A gossip mesh is configured by one block shape, the
// MeshBlock: the `cluster:` section's own transport keys for the election backend, or its
// `observability:` block for the election-inert fleet mesh beside a lease backend (spec 05 §11).
// Both resolve through meshSettings; they differ only in where the block sits and in election.
import type { ClusterSection } from '../../config/file-schema.ts';
import type { Distribution } from '../types.ts';
import { peerHosts } from './address.ts';

export interface GossipSettings {
  nodeName: string;
  listen: string;
  tls: { ca: string; cert: string; key: string };
  /** Peers to poll, after the self-listing drop rules. */
  peers: string[];
  intervalS: number;
  driftAfter: number;
  connectTimeoutS: number;
  electLeader: boolean;
  distribution: Distribution;
  shareNodeStats: boolean;
}

/** The keys a mesh is configured by (the `observability` block's shape; spec 05 §2.2, §11). */
export type MeshBlock = NonNullable<ClusterSection['observability']>;

const DEFAULTS = { interval: 30, driftAfter: 3, connectTimeout: 10 };

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`cluster: the gossip mesh needs ${what}`);
  return value;
}

/** One mesh's settings from its block; `prefix` names where the block sits, for errors. */
function meshSettings(
  block: MeshBlock,
  prefix: string,
  nodeName: string,
  election: Pick<GossipSettings, 'electLeader' | 'distribution'>,
): GossipSettings {
  const name = block.nodeName ?? nodeName;
  const listen = required(block.listen, `'${prefix}listen'`);
  return {
    nodeName: name,
    listen,
    tls: required(block.tls, `'${prefix}tls'`),
    peers: peerHosts(
      listen,
      required(block.peers, `'${prefix}peers'`).map((p) => p.host),
      name,
    ),
    intervalS: block.interval ?? DEFAULTS.interval,
    driftAfter: block.driftAfter ?? DEFAULTS.driftAfter,
    connectTimeoutS: block.connectTimeout ?? DEFAULTS.connectTimeout,
    ...election,
    shareNodeStats: block.shareNodeStats ?? true,
  };
}

/** `backend: gossip`: the transport keys sit at the top of the `cluster:` section. */
export function gossipSettings(cluster: ClusterSection, nodeName: string): GossipSettings {
  const block: MeshBlock = {
    listen: cluster.listen,
    tls: cluster.tls,
    peers: cluster.peers,
    interval: cluster.interval,
    driftAfter: cluster.driftAfter,
    connectTimeout: cluster.connectTimeout,
    shareNodeStats: cluster.observability?.shareNodeStats,
  };
  return meshSettings(block, '', nodeName, {
    electLeader: cluster.electLeader ?? false,
    distribution: cluster.distribution ?? 'single-leader',
  });
}

/**
 * The observability mesh of a lease backend: gossip for `/fleet` only, never gating a job. Takes
 * the lease backend's section; the mesh lives in its `observability` block, and only the
 * connect timeout falls back to the section's own.
 */
export function fleetMeshSettings(cluster: ClusterSection, nodeName: string): GossipSettings {
  const obs = required(cluster.observability, "an 'observability' block");
  return meshSettings(
    { ...obs, connectTimeout: obs.connectTimeout ?? cluster.connectTimeout },
    'observability.',
    nodeName,
    { electLeader: false, distribution: 'single-leader' },
  );
}

// The gossip backend's resolved settings, from the `cluster:` section (the election backend) or
// from its `observability:` block (the election-inert fleet mesh beside a lease backend, §11).
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

const DEFAULTS = { interval: 30, driftAfter: 3, connectTimeout: 10 };

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`cluster: the gossip mesh needs ${what}`);
  return value;
}

export function gossipSettings(cluster: ClusterSection, nodeName: string): GossipSettings {
  const listen = required(cluster.listen, "'listen'");
  return {
    nodeName,
    listen,
    tls: required(cluster.tls, "'tls'"),
    peers: peerHosts(
      listen,
      required(cluster.peers, "'peers'").map((p) => p.host),
      nodeName,
    ),
    intervalS: cluster.interval ?? DEFAULTS.interval,
    driftAfter: cluster.driftAfter ?? DEFAULTS.driftAfter,
    connectTimeoutS: cluster.connectTimeout ?? DEFAULTS.connectTimeout,
    electLeader: cluster.electLeader ?? false,
    distribution: cluster.distribution ?? 'single-leader',
    shareNodeStats: cluster.observability?.shareNodeStats ?? true,
  };
}

/**
 * The observability mesh of a lease backend: gossip for `/fleet` only, never gating a job. Takes
 * the lease backend's section (the mesh lives in its `observability` block), or a gossip section
 * already lifted out of it (transport keys at the top): either way election stays off.
 */
export function fleetMeshSettings(cluster: ClusterSection, nodeName: string): GossipSettings {
  if (cluster.observability?.listen === undefined && cluster.listen !== undefined)
    return { ...gossipSettings(cluster, nodeName), electLeader: false, distribution: 'single-leader' };
  const obs = required(cluster.observability, "an 'observability' block");
  const name = obs.nodeName ?? nodeName;
  const listen = required(obs.listen, "'observability.listen'");
  return {
    nodeName: name,
    listen,
    tls: required(obs.tls, "'observability.tls'"),
    peers: peerHosts(
      listen,
      required(obs.peers, "'observability.peers'").map((p) => p.host),
      name,
    ),
    intervalS: obs.interval ?? DEFAULTS.interval,
    driftAfter: obs.driftAfter ?? DEFAULTS.driftAfter,
    connectTimeoutS: obs.connectTimeout ?? cluster.connectTimeout ?? DEFAULTS.connectTimeout,
    electLeader: false,
    distribution: 'single-leader',
    shareNodeStats: obs.shareNodeStats ?? true,
  };
}

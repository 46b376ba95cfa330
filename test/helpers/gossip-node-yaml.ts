// One node's `state:`, `cluster:` and `web:` sections for the end-to-end three-daemon gossip clusters
// (dashboard and TUI): mutual TLS from a generateClusterCerts directory, one shared state directory,
// leader election with spread distribution, a 1 s gossip interval and node stats shared, so that the
// cluster converges (and notices a lost peer) within a few seconds.
import { join } from 'node:path';

export interface GossipNodeYaml {
  name: string;
  /** host:port this node's gossip listens on. */
  listen: string;
  webPort: number;
  /** host:port of every other member (and any extra address that raises the cluster size). */
  peers: string[];
  certDir: string;
  stateDir: string;
}

export function gossipNodeYaml(n: GossipNodeYaml): string {
  return `state:
  path: ${n.stateDir}
  topology: shared
cluster:
  backend: gossip
  nodeName: ${n.name}
  electLeader: true
  distribution: spread
  interval: 1
  driftAfter: 2
  connectTimeout: 1
  observability:
    shareNodeStats: true
  listen: ${n.listen}
  tls:
    ca: ${join(n.certDir, 'ca.pem')}
    cert: ${join(n.certDir, `${n.name}.pem`)}
    key: ${join(n.certDir, `${n.name}.key`)}
  peers:
${n.peers.map((host) => `    - host: ${host}`).join('\n')}
web:
  listen:
    - http://127.0.0.1:${n.webPort}
`;
}

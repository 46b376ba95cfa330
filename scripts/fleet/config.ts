// The per-node configuration of a local fleet (DESIGN.md §10, spec 05 §14 "Testing nine nodes on
// one machine"): each node gets its own config directory holding the shared job set plus one
// generated file with its `state:`, `web:` and `cluster:` sections. Pure: specs in, YAML text out.

export type FleetBackend = 'gossip' | 'filesystem' | 'etcd' | 'none';
export type FleetDistribution = 'single-leader' | 'spread';

export interface TlsFiles {
  ca: string;
  cert: string;
  key: string;
}

/** Cluster settings every node of one fleet shares. */
export interface FleetTimings {
  /** Gossip (and observability mesh) seconds between rounds. */
  interval: number;
  driftAfter: number;
  connectTimeout: number;
  /** Lease ttl of the filesystem and etcd backends. */
  ttl: number;
}

/** Everything that makes one node's generated config; tests mutate it and restart the node. */
export interface NodeSpec {
  /** Stable handle inside the fleet (`node-a`...): the config dir name. */
  id: string;
  /** `cluster.nodeName` and `HOSTNAME` (equal to `id` unless a test makes a twin). */
  nodeName: string;
  index: number;
  /** The node's loopback alias: its `/peer` listener binds here and its cert names it. */
  ip: string;
  peerPort: number;
  webPort: number;
  /** `peers[].host` entries: every other member, as this node reaches it. */
  peers: string[];
  /** The node id each `peers` entry stands for (same order). */
  peerIds: string[];
  tls: TlsFiles | null;
  /** The job set file's text (jobs, defaults, dags: no singleton sections). */
  jobsYaml: string;
  /** Merged last into the generated `cluster:` section (null deletes a key). */
  clusterOverrides: Record<string, unknown>;
}

export interface FleetShape {
  backend: FleetBackend;
  distribution: FleetDistribution;
  electLeader: boolean;
  timings: FleetTimings;
  /** The one state directory every node shares (`state.path`, `filesystem.path`). */
  stateDir: string;
  deploymentId: string;
  etcdEndpoints: string[];
  /** Extra keys for the `state:` section. */
  stateExtra: Record<string, unknown>;
}

type Yaml = string | number | boolean | null | Yaml[] | { [k: string]: Yaml };

function scalar(v: string | number | boolean | null): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v); // a YAML double-quoted scalar
  return String(v);
}

/** Block-style YAML of plain data; strings always double-quoted so nothing is re-typed. */
export function toYaml(value: Yaml, indent = ''): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return '';
    return value
      .map((item) => {
        if (item !== null && typeof item === 'object') {
          const body = toYaml(item, `${indent}  `);
          return `${indent}- ${body.slice(indent.length + 2)}`;
        }
        return `${indent}- ${scalar(item)}\n`;
      })
      .join('');
  }
  if (value !== null && typeof value === 'object') {
    return Object.entries(value)
      .map(([k, v]) => {
        if (v !== null && typeof v === 'object' && (!Array.isArray(v) || v.length > 0))
          return `${indent}${k}:\n${toYaml(v, `${indent}  `)}`;
        // An empty list is a blank value: the config's strict YAML refuses flow style `[]`.
        if (Array.isArray(v)) return `${indent}${k}:\n`;
        return `${indent}${k}: ${scalar(v as string | number | boolean | null)}\n`;
      })
      .join('');
  }
  return `${indent}${scalar(value)}\n`;
}

function mesh(shape: FleetShape, node: NodeSpec): Record<string, Yaml> {
  if (!node.tls) throw new Error(`${node.id}: a gossip mesh needs TLS files`);
  return {
    listen: `${node.ip}:${node.peerPort}`,
    tls: { ...node.tls },
    peers: node.peers.map((host) => ({ host })),
    interval: shape.timings.interval,
    driftAfter: shape.timings.driftAfter,
    connectTimeout: shape.timings.connectTimeout,
  };
}

/** The `cluster:` section of one node, or null for a fleet without clustering. */
export function clusterSection(shape: FleetShape, node: NodeSpec): Record<string, Yaml> | null {
  let cluster: Record<string, Yaml>;
  switch (shape.backend) {
    case 'none':
      return null;
    case 'gossip':
      cluster = {
        backend: 'gossip',
        nodeName: node.nodeName,
        electLeader: shape.electLeader,
        distribution: shape.distribution,
        ...mesh(shape, node),
      };
      break;
    case 'filesystem':
      cluster = {
        backend: 'filesystem',
        nodeName: node.nodeName,
        connectTimeout: shape.timings.connectTimeout,
        filesystem: {
          path: shape.stateDir,
          ttl: shape.timings.ttl,
          deploymentId: shape.deploymentId,
          topology: 'shared',
        },
        // The grand tour's filesystem mode: an election-inert gossip mesh for `/fleet`.
        observability: { shareNodeStats: true, ...mesh(shape, node) },
      };
      break;
    case 'etcd':
      cluster = {
        backend: 'etcd',
        nodeName: node.nodeName,
        connectTimeout: shape.timings.connectTimeout,
        etcd: { endpoints: shape.etcdEndpoints, ttl: Math.max(3, Math.round(shape.timings.ttl)) },
      };
      break;
  }
  for (const [k, v] of Object.entries(node.clusterOverrides)) {
    if (v === null) delete cluster[k];
    else cluster[k] = v as Yaml;
  }
  return cluster;
}

/** The generated `node.yaml`: state, web and cluster sections of one node. */
export function nodeYaml(shape: FleetShape, node: NodeSpec): string {
  const doc: Record<string, Yaml> = {
    state: {
      path: shape.stateDir,
      // One directory several processes share: rollback journal and worker lanes, as on a
      // shared mount (WAL would work on one host, but the fleet stands in for many hosts).
      topology: 'shared',
      deploymentId: shape.deploymentId,
      maxRunsPerJob: 100_000,
      ...(shape.stateExtra as Record<string, Yaml>),
    },
    web: { listen: [`http://127.0.0.1:${node.webPort}`] },
  };
  const cluster = clusterSection(shape, node);
  if (cluster) doc.cluster = cluster;
  return `# Generated by scripts/fleet for ${node.id}: regenerated at every (re)start.\n${toYaml(doc)}`;
}

/** `node-a`, `node-b`, ... `node-z`, `node-aa`, ... (or `<prefix>-a`, ...) */
export function nodeId(index: number, prefix = 'node'): string {
  let s = '';
  let i = index;
  do {
    s = String.fromCharCode(97 + (i % 26)) + s;
    i = Math.floor(i / 26) - 1;
  } while (i >= 0);
  return `${prefix}-${s}`;
}

/** The loopback alias of node `index`: 127.0.0.11, .12, ... (all of 127/8 routes to `lo`). */
export function nodeIp(index: number): string {
  if (index > 243) throw new Error('a local fleet has at most 244 nodes (127.0.0.11-254)');
  return `127.0.0.${11 + index}`;
}

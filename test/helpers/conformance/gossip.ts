// The gossip backend's conformance driver: three nodes in this process over real mutual TLS, on
// loopback aliases, each directed link through its own fault proxy (test/cluster/proxy.ts). Gossip
// has no store: its "store" is the mesh. Unreachable = every link refused; lose = the holder
// partitioned from its majority; a stall = the node's timers held and its links cut, as a
// stopped process's; the stale write = the stale holder's claim, which no peer counts any more.
// Leadership is a view, not a lease, so a partitioned live leader may overlap the new one for
// about an interval (spec 05 §5.7, a documented residual): overlapMs says so.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ClusterCerts, generateClusterCerts } from '../../../scripts/fleet/certs.ts';
import { freePort } from '../../../scripts/fleet/ports.ts';
import { createGossipBackend } from '../../../src/cluster/gossip/index.ts';
import type { ClusterSection } from '../../../src/config/file-schema.ts';
import { LinkProxy } from '../../cluster/proxy.ts';
import {
  type ConformanceDriver,
  type ConformanceFleet,
  type Contender,
  contenderParts,
  startAll,
  stopAll,
} from './driver.ts';

const INTERVAL = 1;
const CONNECT_TIMEOUT = 1;
const NAMES = ['node-a', 'node-b', 'node-c'];
const IPS = ['127.0.0.31', '127.0.0.32', '127.0.0.33'];
let dir: string | null = null;
let certs: ClusterCerts | null = null;

export const gossipDriver: ConformanceDriver = {
  kind: 'gossip',
  unavailable: () => null,
  async setup() {
    dir = mkdtempSync(join(tmpdir(), 'cronstable-conformance-gossip-'));
    certs = generateClusterCerts(
      dir,
      NAMES.map((name, i) => ({ name, sans: [`IP:${IPS[i]}`] })),
    );
  },
  async teardown() {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = null;
  },
  // A dead or cut-off peer reads unreachable on the next poll (refused links fail fast); a
  // new view needs a round on each side: about two intervals plus a connect timeout.
  timing: {
    acquireMs: 5 * INTERVAL * 1000,
    ttlMs: (2 * INTERVAL + CONNECT_TIMEOUT) * 1000,
    failoverMs: (3 * INTERVAL + CONNECT_TIMEOUT) * 1000,
    releaseMs: (2 * INTERVAL + CONNECT_TIMEOUT) * 1000,
    demoteMs: (2 * INTERVAL + CONNECT_TIMEOUT) * 1000,
    quorumLossMs: (2 * INTERVAL + CONNECT_TIMEOUT) * 1000,
    recoverMs: 5 * INTERVAL * 1000,
    overlapMs: (2 * INTERVAL + CONNECT_TIMEOUT) * 1000,
  },
  failureLog: /cluster: peer \S+ is unreachable/,
  recoveryLog: /cluster: peer \S+ agrees again/,
  releaseLog: null,

  async fleet(names, skews = []): Promise<ConformanceFleet> {
    const set = certs!;
    const idx = names.map((n) => NAMES.indexOf(n));
    if (idx.some((i) => i < 0)) throw new Error(`the gossip driver has certificates for ${NAMES.join(', ')}`);
    const listen = await Promise.all(idx.map(async (i) => `${IPS[i]}:${await freePort(IPS[i])}`));
    // links[i][j]: node i polling node j, listening on j's alias so j's certificate verifies.
    const links: LinkProxy[][] = [];
    const peers: string[][] = [];
    for (let i = 0; i < names.length; i++) {
      links[i] = [];
      peers[i] = [];
      for (let j = 0; j < names.length; j++) {
        if (i === j) continue;
        const [host, port] = listen[j]!.split(':') as [string, string];
        const link = new LinkProxy(names[i]!, names[j]!, { host, port: Number(port) });
        links[i]![j] = link;
        peers[i]!.push(await link.listen(host));
      }
    }
    const nodes: Contender[] = names.map((name, i) => {
      const leaf = set.nodes[name]!;
      const cluster: ClusterSection = {
        backend: 'gossip',
        electLeader: true,
        distribution: 'single-leader',
        interval: INTERVAL,
        connectTimeout: CONNECT_TIMEOUT,
        driftAfter: 2,
        listen: listen[i]!,
        tls: { ca: set.ca, cert: leaf.cert, key: leaf.key },
        peers: peers[i]!.map((host) => ({ host })),
      };
      const { clock, host } = contenderParts(name, skews[i] ?? 0);
      return { name, backend: createGossipBackend(cluster, host), clock, host, dead: false };
    });
    const all = links.flat().filter(Boolean);
    const isolate = (n: Contender) => {
      const i = nodes.indexOf(n);
      for (let j = 0; j < nodes.length; j++)
        if (j !== i) {
          links[i]![j]!.set('refuse');
          links[j]![i]!.set('refuse');
        }
    };
    await startAll(nodes);
    return {
      nodes,
      cut: async () => {
        for (const l of all) l.set('refuse');
      },
      heal: async () => {
        for (const l of all) l.set('pass');
      },
      steal: async (holder) => isolate(holder),
      fenceOf: async () => null,
      leaseBlock: () => null,
      async staleWrite(holder) {
        const counted = nodes.some(
          (n) =>
            n !== holder &&
            !n.dead &&
            n.backend.report().peers.some((p) => p.node_name === holder.name && p.status === 'agreed'),
        );
        return counted ? 'accepted' : 'refused';
      },
      async freeze(n) {
        n.clock.freeze();
        isolate(n);
      },
      // It wakes still cut off: it must find that out by itself, on its own next round.
      thaw: async (n) => n.clock.thaw(),
      async crash(n) {
        n.dead = true;
        await n.backend.stop();
      },
      async close() {
        await stopAll(nodes);
        await Promise.all(all.map((l) => l.close()));
      },
    };
  },
};

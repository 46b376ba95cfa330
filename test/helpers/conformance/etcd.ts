// The etcd backend's conformance driver, against a real etcd (Debian's etcd-server; CI installs
// it): one server per fleet, so the cases can run side by side and one stopping its store (the
// unreachable case) stops no other's. Unreachable = the server stopped; lose = the holder's lease
// revoked and the key taken by another client's lease; the stale write = a campaign on the
// revoked (or expired) lease id, which etcd refuses.
import { EtcdClient } from '../../../src/cluster/etcd/client.ts';
import { EtcdBackend } from '../../../src/cluster/etcd/index.ts';
import { JsonTransport } from '../../../src/cluster/json-transport.ts';
import type { ClusterSection } from '../../../src/config/file-schema.ts';
import { etcdBinary, startEtcd } from '../etcd.ts';
import { type ConformanceDriver, type Contender, contenderParts, leaseFleet, leaseTiming } from './driver.ts';

const TTL = 5;
const ELECTION = 'conformance/election';

export const etcdDriver: ConformanceDriver = {
  kind: 'etcd',
  unavailable: () => (etcdBinary() ? null : 'no `etcd` on PATH (apt-get install etcd-server)'),
  // ttl 5: a holder renews every 5/3 s; followers campaign every second, so a crashed holder's
  // key is gone with its lease at ttl and taken within about a second of that, and a released
  // (revoked) one on a follower's next campaign.
  timing: leaseTiming(TTL, TTL + 2, TTL * 3, 2),
  failureLog: /etcd election round failed/,
  recoveryLog: /cluster: etcd election rounds succeed again/,
  releaseLog: /^INFO cluster: released conformance\/election$/,

  async fleet(names, skews = []) {
    const server = await startEtcd();
    const cluster: ClusterSection = {
      backend: 'etcd',
      connectTimeout: 2,
      etcd: { endpoints: [server.url], electionName: ELECTION, ttl: TTL },
    };
    const nodes: Contender[] = names.map((name, i) => {
      const { clock, host } = contenderParts(name, skews[i] ?? 0);
      return { name, backend: new EtcdBackend(cluster, host), clock, host, dead: false };
    });
    const leaseOf = (n: Contender) => (n.backend as EtcdBackend).currentLeaseId();
    return leaseFleet(nodes, async () => {
      const transport = new JsonTransport();
      const client = new EtcdClient(transport, [server.url], null, 2000);
      return {
        cut: () => server.stop(),
        heal: () => server.start(),
        async steal(holder) {
          await client.revoke(leaseOf(holder)!);
          const thief = await client.grant(TTL);
          const r = await client.campaign(ELECTION, 'thief', thief.id);
          if (!r.won) throw new Error(`the thief did not get the key: ${JSON.stringify(r)}`);
        },
        fenceOf: async (holder) => leaseOf(holder),
        leaseBlock: (n, leader) => ({
          electionName: ELECTION,
          identity: n.name,
          holder: leader.name,
          ...(n === leader ? { leaseId: leaseOf(leader) } : {}),
        }),
        async staleWrite(_holder, fence) {
          // By now the stale lease has expired on the server (a survivor holds the key).
          try {
            return (await client.campaign(ELECTION, 'stale', fence as string)).won ? 'accepted' : 'refused';
          } catch (e) {
            if (/lease not found/.test((e as Error).message)) return 'refused';
            throw e;
          }
        },
        async dispose() {
          transport.close();
          await server.destroy();
        },
      };
    });
  },
};

// The Kubernetes backend's conformance driver, against the Lease API server of
// k8s-lease-server.ts (real HTTPS, bearer tokens, resourceVersion conflicts): a fresh server per
// fleet. Unreachable = the server goes away; lose = another writer's PUT names a new holder; the
// stale write = a renew carrying the resourceVersion the stale holder last saw, which gets 409.
import { JsonTransport } from '../../../src/cluster/json-transport.ts';
import { LeaseClient } from '../../../src/cluster/kubernetes/client.ts';
import { resolveCredentials } from '../../../src/cluster/kubernetes/credentials.ts';
import { KubernetesBackend } from '../../../src/cluster/kubernetes/index.ts';
import { type LeaseObject, writeBody } from '../../../src/cluster/kubernetes/lease-object.ts';
import { kubernetesSettings } from '../../../src/cluster/kubernetes/settings.ts';
import type { ClusterSection } from '../../../src/config/file-schema.ts';
import { startLeaseServer } from '../k8s-lease-server.ts';
import { type ConformanceDriver, type Contender, contenderParts, leaseFleet, leaseTiming } from './driver.ts';

const NS = 'cronstable-conformance';
const DURATION = 4;
const RETRY = 1;
const LEASE = 'cronstable-leader';

export const kubernetesDriver: ConformanceDriver = {
  kind: 'kubernetes',
  unavailable: () => null,
  // duration 4, retry 1: a follower takes over once the record sat unchanged for a duration, or
  // at its next round once the holder cleared it (a release).
  timing: leaseTiming(DURATION, DURATION + RETRY + 1, DURATION + 3, 2 * RETRY),
  failureLog: /kubernetes election round failed/,
  recoveryLog: /cluster: kubernetes election rounds succeed again/,
  releaseLog: /^INFO cluster: released cronstable-conformance\/cronstable-leader$/,

  async fleet(names, skews = []) {
    const api = await startLeaseServer({ namespace: NS });
    const env = {
      KUBERNETES_SERVICE_HOST: '127.0.0.1',
      KUBERNETES_SERVICE_PORT: String(api.port),
      CRONSTABLE_K8S_SERVICEACCOUNT_DIR: api.serviceAccountDir,
    };
    const cluster: ClusterSection = {
      backend: 'kubernetes',
      connectTimeout: 2,
      kubernetes: {
        leaseName: LEASE,
        leaseDurationSeconds: DURATION,
        renewDeadlineSeconds: 2,
        retryPeriodSeconds: RETRY,
      },
    };
    const nodes: Contender[] = names.map((name, i) => {
      const { clock, host } = contenderParts(name, skews[i] ?? 0);
      return { name, backend: new KubernetesBackend(cluster, host, env), clock, host, dead: false };
    });
    return leaseFleet(nodes, async () => {
      // An outside writer with the same service account: another process in the namespace.
      const settings = kubernetesSettings(cluster, 'outsider');
      const creds = await resolveCredentials(settings, env);
      const transport = new JsonTransport(creds.tls);
      const client = new LeaseClient(transport, creds, settings.leaseName, 2000, () => performance.now());
      const write = (lease: LeaseObject, token: string) =>
        client.replace(writeBody(lease, 'acquire', { token, durationSeconds: DURATION, nowMs: Date.now() }));
      return {
        cut: () => api.goAway(),
        heal: () => api.comeBack(),
        async steal() {
          // The holder renews every retry period, and a renew between the thief's read and its
          // write makes the write conflict (a stale resourceVersion): read again and retry, as a
          // real writer does.
          for (let i = 0; i < 5; i++)
            if ((await write((await client.get())!, 'thief#0123456789ab')).ok) return;
          throw new Error('the thief’s write conflicted five times');
        },
        fenceOf: () => client.get(),
        leaseBlock: (n, leader) => ({ name: LEASE, namespace: NS, identity: n.name, holder: leader.name }),
        async staleWrite(_holder, fence) {
          const stale = fence as LeaseObject;
          return (await write(stale, stale.spec.holderIdentity ?? 'stale')).ok ? 'accepted' : 'refused';
        },
        async dispose() {
          transport.close();
          await api.close();
        },
      };
    });
  },
};

// The `cluster.backend` kinds (spec 05 §2.1), spelled once. The config schema's enum and its checks,
// the backend registry (src/cluster/backends.ts, a type error until every kind has its loader), the
// cluster's types, the `/cluster` wire schema and the dashboards derive from these tuples. In util
// because the config layer and the browser bundle both read them.

/** The lease backends: one holder of a lease in an external store leads (no peers to gossip with). */
export const LEASE_BACKENDS = ['filesystem', 'etcd', 'kubernetes'] as const;
/** Every kind: the gossip mesh (the default) and the lease backends. */
export const CLUSTER_BACKENDS = ['gossip', ...LEASE_BACKENDS] as const;

export type BackendKind = (typeof CLUSTER_BACKENDS)[number];
export type LeaseBackendKind = (typeof LEASE_BACKENDS)[number];

/** Whether a kind (as a config or a `/cluster` body names it) is a lease backend. */
export function isLeaseBackendKind(kind: string | undefined): kind is LeaseBackendKind {
  return (LEASE_BACKENDS as readonly string[]).includes(kind as string);
}

// The `cluster.backend` kinds this build carries. src/cluster/backends.ts registers the same
// kinds (a unit test keeps the two equal); the config layer keeps its own copy so that it never
// imports the cluster modules. A `cluster:` naming a kind outside this list fails at load: a
// node that cannot elect must not run every Leader job as if it were alone (issue 10 item 1).
export const BUILT_CLUSTER_BACKENDS: readonly string[] = ['gossip', 'filesystem', 'etcd', 'kubernetes'];

// The six conflict fields of a `/cluster` report (spec 06) when this node agrees with every peer on
// the job set, the cluster size and the cluster policies. Fresh arrays on every call: a fixture that
// one test mutates must not leak into the next.
export function noConflicts() {
  return {
    conflict: false,
    conflict_names: [],
    size_conflict: false,
    conflicting_sizes: [],
    policy_conflict: false,
    conflicting_policies: [],
  };
}

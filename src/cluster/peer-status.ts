// The gossip peer states as one plain list: zod-free, so the `/cluster` schema builds its enum from it
// and the dashboards read the type without loading anything of the cluster.

/**
 * A peer's state in the gossip status machine (spec 05 §5.4). The one list: the cluster backends, the
 * metrics, the `/cluster` schema and both dashboards read it from here.
 */
export const PEER_STATUSES = [
  'unknown',
  'agreed',
  'syncing',
  'drifted',
  'unreachable',
  'untrusted',
  'conflict',
  'self',
] as const;
export type PeerStatus = (typeof PEER_STATUSES)[number];

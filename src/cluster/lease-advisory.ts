// The one start-time advisory every lease backend owes (spec 05 §7): gossip-only keys in the
// `cluster:` block do nothing there, and `cluster.tls` in particular does not secure the store.
import type { ClusterSection } from '../config/file-schema.ts';

const GOSSIP_ONLY = ['listen', 'tls', 'peers', 'interval', 'driftAfter'] as const;

/** The advisory text, or null when no gossip-only key is set. */
export function gossipKeysAdvisory(cluster: ClusterSection, backend: string): string | null {
  const present = GOSSIP_ONLY.filter((k) => cluster[k] !== undefined);
  if (present.length === 0) return null;
  const tlsNote = present.includes('tls')
    ? `; cluster.tls does not secure the ${backend} store (configure the ${backend} block's own credentials)`
    : '';
  return `cluster: ${present.join(', ')} ${present.length === 1 ? 'is' : 'are'} ignored by the ${backend} backend${tlsNote}`;
}

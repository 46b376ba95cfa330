// Rendezvous (highest-random-weight) hashing for `distribution: spread` (spec 05 §6.1). The
// inputs are exact so every node computes the same owner from the same candidate set. Pure.
import { createHash } from 'node:crypto';

const SEPARATOR = Buffer.from([0]);

/** The first 8 bytes, big-endian, of SHA-256(UTF-8(job) ‖ 0x00 ‖ UTF-8(node)). */
export function rendezvousScore(job: string, node: string): bigint {
  const digest = createHash('sha256')
    .update(Buffer.from(job, 'utf8'))
    .update(SEPARATOR)
    .update(Buffer.from(node, 'utf8'))
    .digest();
  return digest.readBigUInt64BE(0);
}

// A (job, node) score never changes, while `/jobs` asks for every job's owner after each round:
// remembering scores turns that from thousands of SHA-256 runs into map lookups. Bounded, and
// simply dropped when full (a refill costs one pass).
const SCORE_CACHE_MAX = 200_000;
const scores = new Map<string, bigint>();

function cachedScore(job: string, node: string): bigint {
  const key = `${job}\u0000${node}`;
  let score = scores.get(key);
  if (score === undefined) {
    if (scores.size >= SCORE_CACHE_MAX) scores.clear();
    score = rendezvousScore(job, node);
    scores.set(key, score);
  }
  return score;
}

/** Plain code-point string order, as the election uses for names (never locale order). */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The member scoring highest for `job`; a tie goes to the higher name. Null for no members.
 * Duplicates in `members` are harmless (they score the same).
 */
export function rendezvousOwner(job: string, members: Iterable<string>): string | null {
  let best: string | null = null;
  let bestScore = -1n;
  for (const node of members) {
    const score = cachedScore(job, node);
    if (score > bestScore || (score === bestScore && best !== null && compareNames(node, best) > 0)) {
      best = node;
      bestScore = score;
    }
  }
  return best;
}

// Retention and GC of DAG runs across a fleet (spec 04 §10), as pure functions. Each node keeps one
// manifest in the shared store: the DAG names its config has had, each with when it last had it
// and its `retainRuns`. A node deletes runs of a DAG it does not configure only when no manifest
// has advertised that DAG for the whole grace window, so a node on an older config never collects
// runs that a node on a newer config still has (and the reverse); per-DAG retention keeps the
// largest `retainRuns` any node advertises, so a node with a smaller setting cannot cut a peer's.

/** What one node advertises about one DAG. */
export interface ManifestDag {
  /** Epoch s when this node last had the DAG in its config. */
  seenAt: number;
  retainRuns: number;
}

/** One node's manifest (stream `dagmanifests/<host>`, newest record only). */
export interface DagManifest {
  host: string;
  /** Epoch s of this node's first manifest, carried forward: how far back its knowledge reaches. */
  since: number;
  dags: Record<string, ManifestDag>;
}

export const MANIFEST_PREFIX = 'dagmanifests/';

/**
 * This node's next manifest: its configured DAGs stamped `now`, plus DAGs it had earlier and
 * dropped, kept (with their old `seenAt`) until they fall out of the grace window.
 */
export function nextManifest(
  host: string,
  prev: DagManifest | null,
  configured: readonly { name: string; retainRuns: number }[],
  now: number,
  graceSeconds: number,
): DagManifest {
  const dags: Record<string, ManifestDag> = {};
  const cutoff = now - Math.max(0, graceSeconds);
  for (const [name, d] of Object.entries(prev?.dags ?? {}))
    if (d.seenAt >= cutoff) dags[name] = { seenAt: d.seenAt, retainRuns: d.retainRuns };
  for (const d of configured) dags[d.name] = { seenAt: now, retainRuns: d.retainRuns };
  return { host, since: Math.min(prev?.since ?? now, now), dags };
}

/** A manifest record's data, or null when it is not one (an unreadable manifest means "unknown"). */
export function parseManifest(host: string, data: unknown): DagManifest | null {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return null;
  const o = data as { since?: unknown; dags?: unknown };
  if (typeof o.since !== 'number' || !Number.isFinite(o.since)) return null;
  if (o.dags === null || typeof o.dags !== 'object' || Array.isArray(o.dags)) return null;
  const dags: Record<string, ManifestDag> = {};
  for (const [name, v] of Object.entries(o.dags as Record<string, unknown>)) {
    const d = v as { seenAt?: unknown; retainRuns?: unknown } | null;
    if (!d || typeof d.seenAt !== 'number' || typeof d.retainRuns !== 'number') return null;
    dags[name] = { seenAt: d.seenAt, retainRuns: d.retainRuns };
  }
  return { host, since: o.since, dags };
}

/** Per-DAG retention (§10): the largest `retainRuns` this config or any recent manifest gives it. */
export function effectiveRetain(
  name: string,
  own: number,
  manifests: readonly DagManifest[],
  now: number,
  graceSeconds: number,
): number {
  const cutoff = now - Math.max(0, graceSeconds);
  let keep = own;
  for (const m of manifests) {
    const d = m.dags[name];
    if (d && d.seenAt >= cutoff && Number.isInteger(d.retainRuns) && d.retainRuns > keep) keep = d.retainRuns;
  }
  return keep;
}

export type RemovedGcPlan =
  | { collect: true; keep: string[]; cutoff: number }
  | { collect: false; reason: string };

/**
 * Removed DAGs (§10): which names are still known (this config, or advertised by any node within
 * the grace window) and the `updatedAt` cutoff for the runs of every other DAG. Nothing is
 * collected while GC is disabled, while any manifest could not be read, or while the fleet's
 * manifest history is shorter than the grace window (a node down since before it could still come
 * back with the DAG configured).
 */
export function planRemovedGc(input: {
  configured: readonly string[];
  manifests: readonly DagManifest[];
  unreadable: readonly string[];
  now: number;
  graceSeconds: number;
}): RemovedGcPlan {
  const { now, graceSeconds } = input;
  if (!(graceSeconds > 0)) return { collect: false, reason: 'gc is disabled (state.gcGraceSeconds <= 0)' };
  if (input.unreadable.length > 0)
    return { collect: false, reason: `unreadable dag manifest(s): ${input.unreadable.join(', ')}` };
  const cutoff = now - graceSeconds;
  if (input.manifests.length === 0) return { collect: false, reason: 'no dag manifest recorded yet' };
  const since = Math.min(...input.manifests.map((m) => m.since));
  if (since > cutoff)
    return {
      collect: false,
      reason: `dag manifest history spans ${Math.round(now - since)} s, less than the grace window (${graceSeconds} s)`,
    };
  const keep = new Set(input.configured);
  for (const m of input.manifests)
    for (const [name, d] of Object.entries(m.dags)) if (d.seenAt >= cutoff) keep.add(name);
  return { collect: true, keep: [...keep].sort(), cutoff };
}

/**
 * Spec 09 §9.3: `catchup-dag/<dag>` checkpoint streams are DAG-managed. One goes with the removed-DAG
 * collection: its DAG is in no kept set and the stream has not been written for the grace window.
 */
export function staleCheckpointStreams(
  streams: readonly { stream: string; newestAt: number }[],
  keep: readonly string[],
  cutoff: number,
  prefix = 'catchup-dag/',
): string[] {
  const kept = new Set(keep);
  return streams
    .filter(
      (s) => s.stream.startsWith(prefix) && !kept.has(s.stream.slice(prefix.length)) && s.newestAt < cutoff,
    )
    .map((s) => s.stream);
}

// ⛁ state (spec 06 §5.14, §9.2): shapes of the read-only state inspector routes and the pure pieces of its
// sub-tabs — which record streams each tab lists, which KV scopes to ask for, and paging.

import type {
  StateArtifacts as ApiArtifacts,
  StateDocument as ApiDocument,
  StateDocuments as ApiDocuments,
  StateRecord as ApiRecord,
  StateRecords as ApiRecords,
  StateOverview as ApiState,
  StreamInfo as ApiStreamInfo,
} from '../api/wire/state.schema.ts';

export type { ApiArtifacts, ApiDocument, ApiDocuments, ApiRecord, ApiRecords, ApiState, ApiStreamInfo };

export type StateTab =
  | 'overview'
  | 'retries'
  | 'slots'
  | 'locks'
  | 'kv'
  | 'cursor'
  | 'idem'
  | 'artifacts'
  | 'runs'
  | 'reboot'
  | 'counters';

export const STATE_TABS: readonly { id: StateTab; label: string }[] = [
  { id: 'overview', label: 'overview' },
  { id: 'retries', label: 'retries' },
  { id: 'slots', label: 'slots' },
  { id: 'locks', label: 'locks' },
  { id: 'kv', label: 'KV' },
  { id: 'cursor', label: 'cursors' },
  { id: 'idem', label: 'idempotency' },
  { id: 'artifacts', label: 'artifacts' },
  { id: 'runs', label: 'runs' },
  { id: 'reboot', label: '@reboot' },
  { id: 'counters', label: 'counters' },
];

/** Record-stream prefix each stream-backed tab lists. */
export const TAB_PREFIX: Partial<Record<StateTab, string>> = {
  retries: 'retries/',
  slots: 'slots/',
  artifacts: 'artifacts/',
  runs: 'runs/',
  reboot: 'reboot/',
  counters: 'counters/',
};

/** Document-namespace prefix of the document tabs. */
export const DOC_PREFIX: Partial<Record<StateTab, 'kv/' | 'cursor/' | 'idem/'>> = {
  kv: 'kv/',
  cursor: 'cursor/',
  idem: 'idem/',
};

/** Streams under a prefix, busiest first then by name. */
export function streamsUnder(state: ApiState, prefix: string): ApiStreamInfo[] {
  return (state.records?.list ?? [])
    .filter((s) => s.stream.startsWith(prefix))
    .sort((a, b) => b.count - a.count || (a.stream < b.stream ? -1 : 1));
}

/**
 * Document namespaces to list for a tab. From the store's own document inventory when `/state` carries one;
 * otherwise the scopes a job could have used: `global`, every job's own name and the scopes the daemons
 * advertised in their `manifests/<host>` records.
 */
export function docNamespaces(
  state: ApiState,
  prefix: 'kv/' | 'cursor/' | 'idem/',
  jobNames: readonly string[],
  manifestScopes: readonly string[],
): string[] {
  if (state.documents) {
    return state.documents
      .filter((d) => d.namespace.startsWith(prefix))
      .map((d) => d.namespace)
      .sort();
  }
  const scopes = new Set<string>(['global', ...manifestScopes, ...jobNames]);
  return [...scopes].sort().map((s) => prefix + s);
}

/** The scopes named by manifest records (`{scopes: [...]}`), deduplicated. */
export function scopesOfManifests(records: readonly ApiRecord[]): string[] {
  const out = new Set<string>();
  for (const r of records) {
    const scopes = (r.data as { scopes?: unknown } | null)?.scopes;
    if (Array.isArray(scopes)) for (const s of scopes) if (typeof s === 'string') out.add(s);
  }
  return [...out];
}

export const PAGE_SIZE = 20;

/** One page of a list (pages count from 0; out-of-range pages clamp). */
export function pageOf<T>(
  items: readonly T[],
  page: number,
  size = PAGE_SIZE,
): { rows: T[]; page: number; pages: number } {
  const pages = Math.max(1, Math.ceil(items.length / size));
  const p = Math.max(0, Math.min(pages - 1, page));
  return { rows: items.slice(p * size, p * size + size), page: p, pages };
}

/** Epoch seconds (float) as `YYYY-MM-DD HH:MM:SS` UTC, or "—". */
export function epochText(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds <= 0) return '—';
  return new Date(seconds * 1000).toISOString().replace('T', ' ').slice(0, 19);
}

/** A record's body on one line, cut to `max` characters. */
export function recordSummary(data: unknown, max = 160): string {
  let text: string;
  try {
    text = JSON.stringify(data) ?? 'null';
  } catch {
    text = String(data);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Lease state at `nowSec`: held until expiry, `released` (expiresAt 0) or `expired`. */
export function leaseState(expiresAt: number, nowSec: number): 'held' | 'released' | 'expired' {
  if (expiresAt === 0) return 'released';
  return expiresAt > nowSec ? 'held' : 'expired';
}

// The read-only state inspector (spec 06 §5.14) that `/state*` and the MCP `cron_inspect_state` tool
// share: metadata of the durable store, never secrets, never archived output. The REST view replaces
// KV and cursor values by their type and size; the model view (spec 07 §7) does the same for KV values
// with the reference's type names and keeps cursor and idempotency documents whole.
import type { z } from 'zod';
import type { Json, Store } from '../store/types.ts';
import { errorText } from '../util/errors.ts';
import type { WebContext } from './context.ts';
import { isoUtcOrNull } from './timefmt.ts';
import { type ApiResult, fail, ok } from './types.ts';
import type {
  inventorySchema,
  ModelDocuments,
  StateArtifacts,
  StateDocuments,
  StateOverview,
  StateRecords,
} from './wire/state.schema.ts';

const STORE_WAIT_MS = 5_000;
/** Lease rows listed by /state (job locks, slots, retry claims, DAG advance); more are cut. */
const LEASE_LIMIT = 1000;

function within<T>(p: Promise<T>, ms = STORE_WAIT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the state store did not answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

function valueType(v: Json): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** Bytes of the value's compact JSON, null when it has none (spec 07 §7). */
export function valueSize(v: unknown): number | null {
  try {
    const text = JSON.stringify(v);
    return text === undefined ? null : Buffer.byteLength(text, 'utf8');
  } catch {
    return null;
  }
}

/** A JSON value's type under the reference's names (spec 07 §7): str, int, float, bool, list, dict, NoneType. */
export function modelValueType(v: unknown): string {
  if (v === null || v === undefined) return 'NoneType';
  if (Array.isArray(v)) return 'list';
  switch (typeof v) {
    case 'string':
      return 'str';
    case 'boolean':
      return 'bool';
    case 'number':
      return Number.isInteger(v) ? 'int' : 'float';
    case 'object':
      return 'dict';
    default:
      return typeof v;
  }
}

/** A cursor or idempotency document as metadata: a cursor's value becomes its type and size, like KV values. */
function docMeta(kind: string, d: { key: string; body: Json; updatedAt: number }): Record<string, unknown> {
  const body = d.body !== null && typeof d.body === 'object' && !Array.isArray(d.body) ? d.body : {};
  if (kind === 'idem') {
    return {
      key: d.key,
      updatedAt: d.updatedAt,
      claimedAt: typeof body.claimedAt === 'number' ? body.claimedAt : d.updatedAt,
      expiresAt: typeof body.expiresAt === 'number' ? body.expiresAt : null,
    };
  }
  const value = body.value ?? null;
  return {
    key: d.key,
    updatedAt: d.updatedAt,
    valueType: valueType(value),
    valueSize: valueSize(value) ?? 4,
  };
}

/**
 * A lease holder without its hold token: job-lock holders are `<host>#<proc>#<hold>` and the hold token is what
 * `lock release` takes, so the inspector shows the host and a short process id only.
 */
export function holderLabel(holder: string): string {
  const parts = holder.split('#');
  if (parts.length < 3) return holder;
  return `${parts[0]}#${parts[1]!.slice(0, 8)}`;
}

export const NO_STORE = 'state store is not configured';

async function inventory(store: Store): Promise<z.infer<typeof inventorySchema>> {
  const streams = await within(store.streams(''));
  const prefixes: Record<string, { streams: number; records: number }> = {};
  let records = 0;
  for (const s of streams) {
    const prefix = s.stream.includes('/') ? s.stream.slice(0, s.stream.indexOf('/')) : s.stream;
    const p = prefixes[prefix] ?? { streams: 0, records: 0 };
    prefixes[prefix] = p;
    p.streams++;
    p.records += s.count;
    records += s.count;
  }
  return {
    streams: streams.length,
    records,
    prefixes,
    list: streams.map((s) => ({ stream: s.stream, count: s.count, newestAt: s.newestAt })),
  };
}

/** `GET /state`: `{"enabled": false}` without a store, else the inventory (store trouble lands in `error`). */
export async function stateOverview(ctx: WebContext): Promise<StateOverview> {
  const store = ctx.store;
  if (!store) return { enabled: false };
  const retries = ctx.scheduler
    .status()
    .filter((s) => s.retry)
    .map((s) => ({
      job: s.name,
      attempt: s.retry!.attempt,
      nextRetryAt: isoUtcOrNull(s.retry!.nextRetryAt),
      delaySeconds: s.retry!.delaySeconds,
    }));
  let stats: StateOverview['stats'] = null;
  try {
    stats = store.stats?.() ?? null;
  } catch {
    stats = null;
  }
  const body: StateOverview = {
    enabled: true,
    view: 'metadata',
    backend: stats?.backend ?? 'sqlite',
    namespace: store.namespace,
    topology: store.topology,
    stats,
    enumerable: true,
    node: { host: ctx.hostname, retries, slots: [] },
  };
  try {
    body.records = await inventory(store);
  } catch (e) {
    body.records = null;
    body.error = errorText(e);
  }
  // Document namespaces and lease rows: metadata the inspector's KV / cursor / idempotency and locks tabs list.
  try {
    if (store.docNamespaces) body.documents = await within(store.docNamespaces());
    if (store.leaseList) {
      const rows = await within(store.leaseList(LEASE_LIMIT + 1));
      body.leases = rows.slice(0, LEASE_LIMIT).map((l) => ({ ...l, holder: holderLabel(l.holder) }));
      if (rows.length > LEASE_LIMIT) body.leasesTruncated = true;
    }
  } catch (e) {
    body.error ??= errorText(e);
  }
  return body;
}

const NS = /^(kv|cursor|idem)\/(.+)$/;

/** One document namespace, unredacted: KV entries carry `value`, cursor and idempotency ones `body`. */
async function readDocuments(
  store: Store,
  kind: string,
  scope: string,
  ns: string,
): Promise<{ enumerable: boolean; docs: { key: string; updatedAt: number; value?: Json; body?: Json }[] }> {
  if (kind === 'kv') return { enumerable: true, docs: await within(store.kvList(scope)) };
  if (!store.docList) return { enumerable: false, docs: [] };
  return { enumerable: true, docs: await within(store.docList(ns)) };
}

/** `GET /state/documents?ns=`: KV and cursor values as type and size, idempotency claims as their times. */
export async function stateDocuments(
  ctx: WebContext,
  ns: string | undefined,
): Promise<ApiResult<StateDocuments>> {
  const store = ctx.store;
  if (!store) return fail(404, NO_STORE);
  if (!ns) return fail(400, 'missing ?ns= query parameter');
  const m = NS.exec(ns);
  if (!m) return fail(400, 'ns must start with kv/, cursor/ or idem/');
  try {
    const { enumerable, docs } = await readDocuments(store, m[1]!, m[2]!, ns);
    const documents = docs.map((d) =>
      m[1] === 'kv'
        ? {
            key: d.key,
            updatedAt: d.updatedAt,
            valueType: valueType(d.value ?? null),
            valueSize: valueSize(d.value) ?? 4,
          }
        : docMeta(m[1]!, { key: d.key, updatedAt: d.updatedAt, body: d.body ?? null }),
    );
    return ok({ namespace: ns, enumerable, documents } as StateDocuments);
  } catch (e) {
    return fail(503, errorText(e));
  }
}

export const NS_REFUSAL = 'ns must be a kv/, cursor/ or idem/ namespace';

/**
 * The model's view of one namespace (spec 07 §7): a KV value becomes `valueSize` (bytes of its compact
 * JSON) and `valueType` (reference type names); cursor and idempotency documents are shown whole.
 * At most `limit` documents (sorted by key), with `total` and `returned`.
 */
export async function modelDocuments(
  ctx: WebContext,
  ns: string,
  limit = Number.POSITIVE_INFINITY,
): Promise<ApiResult<ModelDocuments>> {
  const store = ctx.store;
  if (!store) return fail(404, NO_STORE);
  const m = NS.exec(ns);
  if (!m) return fail(400, NS_REFUSAL);
  let read: Awaited<ReturnType<typeof readDocuments>>;
  try {
    read = await readDocuments(store, m[1]!, m[2]!, ns);
  } catch (e) {
    return fail(503, errorText(e));
  }
  const documents = read.docs.slice(0, limit).map((d) => redactForModel(m[1]!, d));
  return ok({ namespace: ns, documents, total: read.docs.length, returned: documents.length });
}

/** One document as the model sees it. Pure. */
export function redactForModel(
  kind: string,
  d: { key: string; updatedAt: number; value?: unknown; body?: unknown },
): ModelDocuments['documents'][number] {
  if (kind === 'kv')
    return {
      key: d.key,
      updatedAt: d.updatedAt,
      valueType: modelValueType(d.value),
      valueSize: valueSize(d.value),
    };
  return { key: d.key, updatedAt: d.updatedAt, body: d.body ?? null };
}

/** Streams of archived output (`logs`, `logs/...`): the inspector never serves them. */
export const isLogStream = (stream: string) => stream === 'logs' || stream.startsWith('logs/');

/** `GET /state/records?stream=&limit=`: newest first; `total` is the stream's length. */
export async function stateRecords(
  ctx: WebContext,
  stream: string | undefined,
  limit: number,
): Promise<ApiResult<StateRecords>> {
  const store = ctx.store;
  if (!store) return fail(404, NO_STORE);
  if (!stream) return fail(400, 'missing ?stream= query parameter');
  if (stream.startsWith('logs/')) return fail(403, 'archived output is not served by the state inspector');
  try {
    const records = await within(store.list(stream, { newestFirst: true, limit }));
    return ok({
      stream,
      records: records.map((rec) => ({
        id: rec.id,
        writtenAt: rec.writtenAt,
        writer: rec.writer,
        data: rec.data,
      })),
    });
  } catch (e) {
    return fail(503, errorText(e));
  }
}

/** How many records `stream` holds (the inventory's count; 0 when unknown). */
export async function streamLength(ctx: WebContext, stream: string): Promise<number> {
  if (!ctx.store) return 0;
  const all = await within(ctx.store.streams(stream));
  return all.find((s) => s.stream === stream)?.count ?? 0;
}

/** `GET /state/artifacts?scope=`. */
export async function stateArtifacts(
  ctx: WebContext,
  scope: string | undefined,
): Promise<ApiResult<StateArtifacts>> {
  const store = ctx.store;
  if (!store) return fail(404, NO_STORE);
  if (!scope) return fail(400, 'missing ?scope= query parameter');
  try {
    const list = await within(store.artifactList(scope));
    return ok({
      scope,
      artifacts: list.map((a) => ({ name: a.name, sha256: a.sha256, size: a.size, at: a.at })),
    });
  } catch (e) {
    return fail(503, errorText(e));
  }
}

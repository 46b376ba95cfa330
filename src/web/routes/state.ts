// The read-only state inspector (spec 06 §5.14): metadata of the durable store, never secrets,
// never archived output. KV values are replaced by their type and size.
import type { Hono } from 'hono';
import type { Json, Store } from '../../store/types.ts';
import type { WebDeps } from '../deps.ts';
import { intParam, json, jsonError, type WebEnv } from '../respond.ts';
import { isoUtcOrNull } from '../timefmt.ts';

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
    valueSize: Buffer.byteLength(JSON.stringify(value) ?? 'null', 'utf8'),
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

const noStore = () => jsonError(404, 'state store is not configured');

async function inventory(store: Store): Promise<Record<string, unknown>> {
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

export function stateRoutes(app: Hono<WebEnv>, d: WebDeps): void {
  const { ctx } = d;

  app.get('/state', async () => {
    const store = ctx.store;
    if (!store) return json({ enabled: false });
    const retries = ctx.scheduler
      .status()
      .filter((s) => s.retry)
      .map((s) => ({
        job: s.name,
        attempt: s.retry!.attempt,
        nextRetryAt: isoUtcOrNull(s.retry!.nextRetryAt),
        delaySeconds: s.retry!.delaySeconds,
      }));
    let stats: unknown = null;
    try {
      stats = store.stats?.() ?? null;
    } catch {
      stats = null;
    }
    const body: Record<string, unknown> = {
      enabled: true,
      view: 'metadata',
      backend: (stats as { backend?: string } | null)?.backend ?? 'sqlite',
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
      body.error = (e as Error).message;
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
      body.error ??= (e as Error).message;
    }
    return json(body);
  });

  app.get('/state/documents', async (c) => {
    const store = ctx.store;
    if (!store) return noStore();
    const ns = c.req.query('ns');
    if (!ns) return jsonError(400, 'missing ?ns= query parameter');
    const m = /^(kv|cursor|idem)\/(.+)$/.exec(ns);
    if (!m) return jsonError(400, 'ns must start with kv/, cursor/ or idem/');
    try {
      if (m[1] !== 'kv') {
        if (!store.docList) return json({ namespace: ns, enumerable: false, documents: [] });
        const docs = await within(store.docList(ns));
        return json({ namespace: ns, enumerable: true, documents: docs.map((d) => docMeta(m[1]!, d)) });
      }
      const entries = await within(store.kvList(m[2]!));
      return json({
        namespace: ns,
        enumerable: true,
        documents: entries.map((e) => ({
          key: e.key,
          updatedAt: e.updatedAt,
          valueType: valueType(e.value),
          valueSize: Buffer.byteLength(JSON.stringify(e.value) ?? 'null', 'utf8'),
        })),
      });
    } catch (e) {
      return jsonError(503, (e as Error).message);
    }
  });

  app.get('/state/records', async (c) => {
    const store = ctx.store;
    if (!store) return noStore();
    const stream = c.req.query('stream');
    if (!stream) return jsonError(400, 'missing ?stream= query parameter');
    if (stream.startsWith('logs/'))
      return jsonError(403, 'archived output is not served by the state inspector');
    const limit = intParam(c.req.query('limit'), 100, 1, 500);
    try {
      const records = await within(store.list(stream, { newestFirst: true, limit }));
      return json({
        stream,
        records: records.map((rec) => ({
          id: rec.id,
          writtenAt: rec.writtenAt,
          writer: rec.writer,
          data: rec.data,
        })),
      });
    } catch (e) {
      return jsonError(503, (e as Error).message);
    }
  });

  app.get('/state/artifacts', async (c) => {
    const store = ctx.store;
    if (!store) return noStore();
    const scope = c.req.query('scope');
    if (!scope) return jsonError(400, 'missing ?scope= query parameter');
    try {
      const list = await within(store.artifactList(scope));
      return json({
        scope,
        artifacts: list.map((a) => ({ name: a.name, sha256: a.sha256, size: a.size, at: a.at })),
      });
    } catch (e) {
      return jsonError(503, (e as Error).message);
    }
  });
}

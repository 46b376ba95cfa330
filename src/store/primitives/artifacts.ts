// Artifacts (spec 03 §6.5): content-addressed blobs plus an `artifacts/<scope>` record per put,
// written in ONE transaction (no window with an unreferenced blob). The put deletes the name's
// superseded records in that transaction, so a stream holds one record per name (spec 09 §9.2);
// get and list still read the newest. A record whose blob was swept reads as 'gone'.
import { and, desc, eq, lt, sql } from 'drizzle-orm';
import { sha256Hex } from '../../util/hash.ts';
import type { Orm } from '../driver.ts';
import { blobs, records } from '../schema.ts';
import { type ArtifactInfo, type Json, StoreRequestError } from '../types.ts';
import { assertPortable, type Ctx, parseBody, requireName, SCHEMA_VERSION } from './common.ts';
import { insertRecord } from './records.ts';

export const artifactStream = (scope: string) => `artifacts/${scope}`;

const p = sql.placeholder;

const putBlobQ = (o: Orm) =>
  o
    .insert(blobs)
    .values({ ns: p('ns'), sha256: p('sha256'), size: p('size'), data: p('data'), touchedAt: p('now') })
    .onConflictDoUpdate({
      target: [blobs.ns, blobs.sha256],
      set: { touchedAt: sql`max(${blobs.touchedAt}, excluded.touched_at)` },
    })
    .prepare();

/** Stores (or re-touches) a blob; the caller owns the transaction. */
export function putBlob(c: Ctx, sha256: string, bytes: Uint8Array): void {
  // better-sqlite3 binds Buffers, not bare Uint8Arrays (a view, no copy).
  const data = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  c.db.prepared(putBlobQ).run({ ns: c.ns, sha256, size: bytes.byteLength, data, now: c.now });
}

const inScope = and(
  eq(records.ns, p('ns')),
  eq(records.stream, p('stream')),
  eq(records.schemaVersion, SCHEMA_VERSION),
);
/** A record of the placeholder `name`; the CASE keeps json_extract off a malformed body. */
const nameIs = sql`(CASE WHEN json_valid(${records.data}) THEN json_extract(${records.data}, '$.name') END) = ${p('name')}`;

/**
 * The name's older v1 records. Rows of another schema version (a newer peer's) or with an
 * unreadable body stay, as everywhere. Blobs left unreferenced go to the orphan sweep.
 */
const supersededQ = (o: Orm) =>
  o
    .delete(records)
    .where(and(inScope, lt(records.id, p('id')), nameIs))
    .prepare();

export function artifactPut(
  c: Ctx,
  scope: string,
  name: string,
  bytes: Uint8Array,
  meta?: Json,
): { sha256: string; size: number } {
  requireName(name, 'name');
  if (!(bytes instanceof Uint8Array)) throw new StoreRequestError(400, 'artifact payload must be bytes');
  if (meta !== undefined) assertPortable(meta, 'meta');
  const sha256 = sha256Hex(bytes);
  const size = bytes.byteLength;
  const data: { [k: string]: Json } = { name, sha256, size, at: c.now };
  if (meta !== undefined) data.meta = meta;
  c.db.transaction(() => {
    putBlob(c, sha256, bytes);
    const rec = insertRecord(c, artifactStream(scope), data);
    c.db.prepared(supersededQ).run({ ns: c.ns, stream: artifactStream(scope), name, id: rec.id });
  });
  return { sha256, size };
}

interface ArtifactRecord {
  name: string;
  sha256: string;
  size: number;
  at: number;
}

function asArtifact(data: string): ArtifactRecord | null {
  const body = parseBody(data);
  if (!body.ok) return null;
  const v = body.value;
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return null;
  const { name, sha256, size, at } = v;
  if (typeof name !== 'string' || typeof sha256 !== 'string' || typeof size !== 'number') return null;
  return { name, sha256, size, at: typeof at === 'number' ? at : 0 };
}

const versionsQ = (o: Orm) =>
  o
    .select({ data: records.data })
    .from(records)
    .where(and(inScope, nameIs))
    .orderBy(desc(records.id))
    .prepare();
const blobQ = (o: Orm) =>
  o
    .select({ data: blobs.data })
    .from(blobs)
    .where(and(eq(blobs.ns, p('ns')), eq(blobs.sha256, p('sha256'))))
    .prepare();

export function artifactGet(
  c: Ctx,
  scope: string,
  name: string,
): { sha256: string; size: number; bytes: Uint8Array } | null | 'gone' {
  requireName(name, 'name');
  const rows = c.db.prepared(versionsQ).all({ ns: c.ns, stream: artifactStream(scope), name });
  let rec: ArtifactRecord | null = null;
  for (const row of rows) {
    rec = asArtifact(row.data);
    if (rec) break;
  }
  if (!rec) return null;
  const blob = c.db.prepared(blobQ).get({ ns: c.ns, sha256: rec.sha256 });
  if (!blob) return 'gone';
  return { sha256: rec.sha256, size: blob.data.byteLength, bytes: blob.data };
}

const allVersionsQ = (o: Orm) =>
  o.select({ data: records.data }).from(records).where(inScope).orderBy(desc(records.id)).prepare();

/** Newest version per name, sorted by name. */
export function artifactList(c: Ctx, scope: string): ArtifactInfo[] {
  const rows = c.db.prepared(allVersionsQ).all({ ns: c.ns, stream: artifactStream(scope) });
  const newest = new Map<string, ArtifactInfo>();
  for (const row of rows) {
    const rec = asArtifact(row.data);
    if (rec && !newest.has(rec.name)) newest.set(rec.name, rec);
  }
  return [...newest.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

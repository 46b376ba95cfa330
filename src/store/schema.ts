// The store's tables (spec 03 §13.1), as drizzle-orm `sqlite-core` definitions. This file is
// the source of truth for the DDL: `npx drizzle-kit generate` turns a change here into a new
// SQL migration under drizzle/, and `node scripts/embed-migrations.mjs` embeds it into
// src/store/migrations.ts (what the runner applies). The primitives themselves use plain SQL
// through src/store/driver.ts so that one code path serves better-sqlite3, bun:sqlite and
// node:sqlite; the row types below keep that SQL honest.
//
// Every table is keyed by `ns` (the deployment id): namespaces never see each other's rows.
import { blob, index, integer, primaryKey, real, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** Per-namespace facts: `storeVersion`, `createdAt`. */
export const storeMeta = sqliteTable(
  'store_meta',
  {
    ns: text('ns').notNull(),
    key: text('key').notNull(),
    value: text('value').notNull(),
  },
  (t) => [primaryKey({ columns: [t.ns, t.key] })],
);

/** Append-only record streams (`runs/<job>`, `artifacts/<scope>`, ...); newest = highest id. */
export const records = sqliteTable(
  'records',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    ns: text('ns').notNull(),
    stream: text('stream').notNull(),
    schemaVersion: text('schema_version').notNull(),
    /** Epoch seconds (float). */
    writtenAt: real('written_at').notNull(),
    /** `<host>#<proc>` of the writing process. */
    writer: text('writer').notNull(),
    /** The record body, JSON text. */
    data: text('data').notNull(),
  },
  (t) => [index('records_ns_stream_id').on(t.ns, t.stream, t.id)],
);

/**
 * Number of v1 records per stream, kept by triggers on `records` (drizzle/0001_stream_counts.sql)
 * so that prune-to-keep after an append costs O(log n) instead of an O(keep) index scan.
 */
export const streamCounts = sqliteTable(
  'stream_counts',
  {
    ns: text('ns').notNull(),
    stream: text('stream').notNull(),
    v1Records: integer('v1_records').notNull(),
  },
  (t) => [primaryKey({ columns: [t.ns, t.stream] })],
);

/** Mutable documents: `kv/<scope>`, `cursor/<scope>`, `idem/<scope>`, `dagrun/<dag>`. */
export const documents = sqliteTable(
  'documents',
  {
    ns: text('ns').notNull(),
    docNs: text('doc_ns').notNull(),
    key: text('key').notNull(),
    schemaVersion: text('schema_version').notNull(),
    /** The document body, JSON text. */
    data: text('data').notNull(),
    updatedAt: real('updated_at').notNull(),
  },
  // The primary key's index also serves "all keys of one doc namespace" (ns, doc_ns prefix).
  (t) => [primaryKey({ columns: [t.ns, t.docNs, t.key] })],
);

/** Content-addressed payloads shared by every artifact scope of a namespace. */
export const blobs = sqliteTable(
  'blobs',
  {
    ns: text('ns').notNull(),
    sha256: text('sha256').notNull(),
    size: integer('size').notNull(),
    data: blob('data', { mode: 'buffer' }).notNull(),
    /** Last put of these bytes (epoch seconds): guards the orphan sweep. */
    touchedAt: real('touched_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.ns, t.sha256] }), index('blobs_ns_touched').on(t.ns, t.touchedAt)],
);

/** TTL leases with fences; rows are never deleted on release (the fence's only home). */
export const leases = sqliteTable(
  'leases',
  {
    ns: text('ns').notNull(),
    name: text('name').notNull(),
    holder: text('holder').notNull(),
    fence: integer('fence').notNull(),
    /** Epoch seconds; 0 = released. */
    expiresAt: real('expires_at').notNull(),
    updatedAt: real('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.ns, t.name] })],
);

export type RecordRow = typeof records.$inferSelect;
export type DocumentRow = typeof documents.$inferSelect;
export type BlobRow = typeof blobs.$inferSelect;
export type LeaseRow = typeof leases.$inferSelect;

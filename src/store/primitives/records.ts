// Record streams (spec 03 §2, §13.2): append-only JSON records ordered by commit id.
// Rows of an unknown schema_version (a newer peer) are skipped by ordinary reads, fail strict
// reads, are never pruned and never rewritten.
import { and, asc, count, desc, eq, gt, gte, inArray, lt, lte, sql } from 'drizzle-orm';
import type { Orm } from '../driver.ts';
import { type RecordRow, records, streamCounts } from '../schema.ts';
import { type Json, type StoredRecord, StoreRequestError } from '../types.ts';
import {
  type Ctx,
  compareStrings,
  parseBody,
  prefixUpperBound,
  requireName,
  SCHEMA_VERSION,
  strictFailure,
} from './common.ts';

const p = sql.placeholder;

type RecordRowOut = Pick<RecordRow, 'id' | 'stream' | 'schemaVersion' | 'writtenAt' | 'writer' | 'data'>;

const COLS = {
  id: records.id,
  stream: records.stream,
  schemaVersion: records.schemaVersion,
  writtenAt: records.writtenAt,
  writer: records.writer,
  data: records.data,
};

const inStream = and(eq(records.ns, p('ns')), eq(records.stream, p('stream')));
const inStreamV1 = and(inStream, eq(records.schemaVersion, SCHEMA_VERSION));

function toRecord(row: RecordRowOut): StoredRecord | null {
  if (row.schemaVersion !== SCHEMA_VERSION) return null;
  const body = parseBody(row.data);
  if (!body.ok) return null;
  return { id: row.id, stream: row.stream, writtenAt: row.writtenAt, writer: row.writer, data: body.value };
}

function toRecords(rows: RecordRowOut[]): StoredRecord[] {
  const out: StoredRecord[] = [];
  for (const row of rows) {
    const r = toRecord(row);
    if (r) out.push(r);
  }
  return out;
}

const insertQ = (o: Orm) =>
  o
    .insert(records)
    .values({
      ns: p('ns'),
      stream: p('stream'),
      schemaVersion: SCHEMA_VERSION,
      writtenAt: p('now'),
      writer: p('writer'),
      data: p('data'),
    })
    .prepare();

/** Inserts one record; the caller owns the transaction (artifacts add a blob in the same one). */
export function insertRecord(c: Ctx, stream: string, data: Json): StoredRecord {
  const text = JSON.stringify(data);
  if (text === undefined) throw new StoreRequestError(400, 'record data must be JSON');
  const r = c.db.prepared(insertQ).run({ ns: c.ns, stream, now: c.now, writer: c.writer, data: text });
  return {
    id: Number(r.lastInsertRowid),
    stream,
    writtenAt: c.now,
    writer: c.writer,
    data: JSON.parse(text) as Json,
  };
}

const deleteV1Q = (o: Orm) => o.delete(records).where(inStreamV1).prepare();
const countV1Q = (o: Orm) =>
  o
    .select({ n: streamCounts.v1Records })
    .from(streamCounts)
    .where(and(eq(streamCounts.ns, p('ns')), eq(streamCounts.stream, p('stream'))))
    .prepare();
const deleteOldestQ = (o: Orm) =>
  o
    .delete(records)
    .where(
      inArray(
        records.id,
        o.select({ id: records.id }).from(records).where(inStreamV1).orderBy(asc(records.id)).limit(p('n')),
      ),
    )
    .prepare();

/**
 * Keeps the newest `keep` (v1) records of a stream; `keep <= 0` deletes every v1 record.
 * The v1 count comes from `stream_counts` (kept by triggers), so the common case (one over)
 * deletes the single oldest row without scanning the stream. Returns the number deleted.
 */
export function pruneStream(c: Ctx, stream: string, keep: number): number {
  if (keep <= 0) return c.db.prepared(deleteV1Q).run({ ns: c.ns, stream }).changes;
  const count = c.db.prepared(countV1Q).get({ ns: c.ns, stream })?.n ?? 0;
  const excess = count - Math.floor(keep);
  if (excess <= 0) return 0;
  return c.db.prepared(deleteOldestQ).run({ ns: c.ns, stream, n: excess }).changes;
}

/**
 * Appends one record and, with `keep > 0`, prunes the stream to its newest `keep` records in
 * the same transaction. `keep` absent or <= 0: unbounded (maxRunsPerJob <= 0).
 */
export function append(c: Ctx, stream: string, data: Json, opts?: { keep?: number }): StoredRecord {
  requireName(stream, 'stream');
  const keep = opts?.keep ?? 0;
  return c.db.transaction(() => {
    const rec = insertRecord(c, stream, data);
    if (keep > 0) pruneStream(c, stream, keep);
    return rec;
  });
}

/** One page of a stream, oldest or newest first, optionally after (before) a record id. */
function pageQuery(order: 'asc' | 'desc', after: boolean) {
  return (o: Orm) => {
    const past = order === 'asc' ? gt(records.id, p('after')) : lt(records.id, p('after'));
    return o
      .select(COLS)
      .from(records)
      .where(after ? and(inStream, past) : inStream)
      .orderBy(order === 'asc' ? asc(records.id) : desc(records.id))
      .limit(p('limit'))
      .prepare();
  };
}

const PAGES = {
  asc: { first: pageQuery('asc', false), after: pageQuery('asc', true) },
  desc: { first: pageQuery('desc', false), after: pageQuery('desc', true) },
};

export function list(
  c: Ctx,
  stream: string,
  opts?: { newestFirst?: boolean; limit?: number },
): StoredRecord[] {
  const pages = PAGES[opts?.newestFirst ? 'desc' : 'asc'];
  const limit = opts?.limit !== undefined && opts.limit >= 0 ? Math.floor(opts.limit) : -1;
  if (limit === 0) return [];
  // Skipped rows must not eat the limit: read in pages until enough v1 rows were found.
  const out: StoredRecord[] = [];
  const page = limit < 0 ? -1 : Math.max(limit, 64);
  let after: number | null = null;
  for (;;) {
    const rows: RecordRowOut[] =
      after === null
        ? c.db.prepared(pages.first).all({ ns: c.ns, stream, limit: page })
        : c.db.prepared(pages.after).all({ ns: c.ns, stream, after, limit: page });
    for (const r of toRecords(rows)) {
      out.push(r);
      if (limit >= 0 && out.length >= limit) return out;
    }
    if (page < 0 || rows.length < page) return out;
    after = rows[rows.length - 1]!.id;
  }
}

const newestQ = (o: Orm) =>
  o.select(COLS).from(records).where(inStreamV1).orderBy(desc(records.id)).limit(1).prepare();

export function newest(c: Ctx, stream: string): StoredRecord | null {
  const row = c.db.prepared(newestQ).get({ ns: c.ns, stream });
  return row ? toRecord(row) : null;
}

/**
 * Max of a top-level field over a stream (strict read): numbers numerically, strings by code
 * point, other values skipped. When a stream mixes numbers and strings, the type of the newest
 * record's value wins. Unknown schema versions or unreadable rows fail the read.
 */
export function maxField(c: Ctx, stream: string, field: string): Json {
  requireName(field, 'field');
  const values = field.includes('"') ? fieldValuesParsed(c, stream, field) : fieldValuesSql(c, stream, field);
  let bestNumber: number | null = null;
  let bestString: string | null = null;
  let newestKind: 'number' | 'string' | null = null;
  for (const v of values) {
    if (typeof v === 'number') {
      newestKind ??= 'number';
      if (bestNumber === null || v > bestNumber) bestNumber = v;
    } else if (typeof v === 'string') {
      newestKind ??= 'string';
      if (bestString === null || compareStrings(v, bestString) > 0) bestString = v;
    }
  }
  return newestKind === 'number' ? bestNumber : newestKind === 'string' ? bestString : null;
}

const fieldValuesQ = (o: Orm) => {
  const valid = sql`json_valid(${records.data})`;
  return o
    .select({
      sv: records.schemaVersion,
      ok: sql<number>`${valid}`,
      t: sql<string | null>`CASE WHEN ${valid} THEN json_type(${records.data}, ${p('path')}) END`,
      v: sql<unknown>`CASE WHEN ${valid} THEN json_extract(${records.data}, ${p('path')}) END`,
    })
    .from(records)
    .where(inStream)
    .orderBy(desc(records.id))
    .prepare();
};

/** The field's scalar values, newest first, extracted by SQLite (no JSON parse per record). */
function fieldValuesSql(c: Ctx, stream: string, field: string): unknown[] {
  const rows = c.db.prepared(fieldValuesQ).all({ ns: c.ns, stream, path: `$."${field}"` });
  return rows.map((row) => {
    if (row.sv !== SCHEMA_VERSION)
      throw strictFailure(`stream ${stream} holds a record of unknown schema version '${row.sv}'`);
    if (!row.ok) throw strictFailure(`stream ${stream} holds an unreadable record`);
    return row.t === 'integer' || row.t === 'real' || row.t === 'text' ? row.v : undefined;
  });
}

const bodiesQ = (o: Orm) =>
  o
    .select({ sv: records.schemaVersion, data: records.data })
    .from(records)
    .where(inStream)
    .orderBy(desc(records.id))
    .prepare();

/** Same, parsing each record (field names SQLite's JSON paths cannot quote). */
function fieldValuesParsed(c: Ctx, stream: string, field: string): unknown[] {
  const rows = c.db.prepared(bodiesQ).all({ ns: c.ns, stream });
  return rows.map((row) => {
    if (row.sv !== SCHEMA_VERSION)
      throw strictFailure(`stream ${stream} holds a record of unknown schema version '${row.sv}'`);
    const body = parseBody(row.data);
    if (!body.ok) throw strictFailure(`stream ${stream} holds an unreadable record`);
    const data = body.value;
    return data !== null && typeof data === 'object' && !Array.isArray(data) ? data[field] : undefined;
  });
}

export interface StreamInfo {
  stream: string;
  count: number;
  newestAt: number;
}

function streamsQuery(bounded: boolean) {
  return (o: Orm) => {
    const from = and(eq(records.ns, p('ns')), gte(records.stream, p('prefix')));
    return o
      .select({ stream: records.stream, count: count(), newestAt: sql<number>`max(${records.writtenAt})` })
      .from(records)
      .where(bounded ? and(from, lt(records.stream, p('upper'))) : from)
      .groupBy(records.stream)
      .orderBy(records.stream)
      .prepare();
  };
}
const streamsFromQ = streamsQuery(false);
const streamsRangeQ = streamsQuery(true);

/** Streams whose name starts with `prefix`, sorted by name; counts include every row. */
export function streams(c: Ctx, prefix: string): StreamInfo[] {
  const upper = prefixUpperBound(prefix);
  const rows =
    upper === null
      ? c.db.prepared(streamsFromQ).all({ ns: c.ns, prefix })
      : c.db.prepared(streamsRangeQ).all({ ns: c.ns, prefix, upper });
  return rows.filter((s) => s.stream.startsWith(prefix));
}

const deleteStreamQ = (o: Orm) => o.delete(records).where(inStream).prepare();
const dropEmptyCountQ = (o: Orm) =>
  o
    .delete(streamCounts)
    .where(
      and(eq(streamCounts.ns, p('ns')), eq(streamCounts.stream, p('stream')), lte(streamCounts.v1Records, 0)),
    )
    .prepare();

/** Deletes a whole stream (every row, any schema version); returns the number of rows. */
export function deleteStream(c: Ctx, stream: string): number {
  return c.db.transaction(() => {
    const n = c.db.prepared(deleteStreamQ).run({ ns: c.ns, stream }).changes;
    c.db.prepared(dropEmptyCountQ).run({ ns: c.ns, stream });
    return n;
  });
}

// Record streams (spec 03 §2, §13.2): append-only JSON records ordered by commit id.
// Rows of an unknown schema_version (a newer peer) are skipped by ordinary reads, fail strict
// reads, are never pruned and never rewritten.
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

interface RecordRowOut {
  id: number;
  stream: string;
  schema_version: string;
  written_at: number;
  writer: string;
  data: string;
}

const COLS = 'id, stream, schema_version, written_at, writer, data';

function toRecord(row: RecordRowOut): StoredRecord | null {
  if (row.schema_version !== SCHEMA_VERSION) return null;
  const body = parseBody(row.data);
  if (!body.ok) return null;
  return { id: row.id, stream: row.stream, writtenAt: row.written_at, writer: row.writer, data: body.value };
}

function toRecords(rows: RecordRowOut[]): StoredRecord[] {
  const out: StoredRecord[] = [];
  for (const row of rows) {
    const r = toRecord(row);
    if (r) out.push(r);
  }
  return out;
}

/** Inserts one record; the caller owns the transaction (artifacts add a blob in the same one). */
export function insertRecord(c: Ctx, stream: string, data: Json): StoredRecord {
  const text = JSON.stringify(data);
  if (text === undefined) throw new StoreRequestError(400, 'record data must be JSON');
  const r = c.db
    .prepare(
      'INSERT INTO records (ns, stream, schema_version, written_at, writer, data) VALUES (?, ?, ?, ?, ?, ?)',
    )
    .run(c.ns, stream, SCHEMA_VERSION, c.now, c.writer, text);
  return {
    id: r.lastInsertRowid,
    stream,
    writtenAt: c.now,
    writer: c.writer,
    data: JSON.parse(text) as Json,
  };
}

/**
 * Keeps the newest `keep` (v1) records of a stream; `keep <= 0` deletes every v1 record.
 * The v1 count comes from `stream_counts` (kept by triggers), so the common case (one over)
 * deletes the single oldest row without scanning the stream. Returns the number deleted.
 */
export function pruneStream(c: Ctx, stream: string, keep: number): number {
  if (keep <= 0)
    return c.db
      .prepare('DELETE FROM records WHERE ns = ? AND stream = ? AND schema_version = ?')
      .run(c.ns, stream, SCHEMA_VERSION).changes;
  const count =
    c.db
      .prepare('SELECT v1_records AS n FROM stream_counts WHERE ns = ? AND stream = ?')
      .get<{ n: number }>(c.ns, stream)?.n ?? 0;
  const excess = count - Math.floor(keep);
  if (excess <= 0) return 0;
  return c.db
    .prepare(
      `DELETE FROM records WHERE id IN (
         SELECT id FROM records WHERE ns = ? AND stream = ? AND schema_version = ? ORDER BY id ASC LIMIT ?)`,
    )
    .run(c.ns, stream, SCHEMA_VERSION, excess).changes;
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

export function list(
  c: Ctx,
  stream: string,
  opts?: { newestFirst?: boolean; limit?: number },
): StoredRecord[] {
  const order = opts?.newestFirst ? 'DESC' : 'ASC';
  const limit = opts?.limit !== undefined && opts.limit >= 0 ? Math.floor(opts.limit) : -1;
  if (limit === 0) return [];
  // Skipped rows must not eat the limit: read in pages until enough v1 rows were found.
  const out: StoredRecord[] = [];
  const page = limit < 0 ? -1 : Math.max(limit, 64);
  let after: number | null = null;
  for (;;) {
    const cursor: string = after === null ? '' : order === 'ASC' ? 'AND id > ?' : 'AND id < ?';
    const params: (string | number)[] = after === null ? [c.ns, stream, page] : [c.ns, stream, after, page];
    const rows: RecordRowOut[] = c.db
      .prepare(
        `SELECT ${COLS} FROM records WHERE ns = ? AND stream = ? ${cursor} ORDER BY id ${order} LIMIT ?`,
      )
      .all<RecordRowOut>(...params);
    for (const r of toRecords(rows)) {
      out.push(r);
      if (limit >= 0 && out.length >= limit) return out;
    }
    if (page < 0 || rows.length < page) return out;
    after = rows[rows.length - 1]!.id;
  }
}

export function newest(c: Ctx, stream: string): StoredRecord | null {
  const row = c.db
    .prepare(
      `SELECT ${COLS} FROM records WHERE ns = ? AND stream = ? AND schema_version = ? ORDER BY id DESC LIMIT 1`,
    )
    .get<RecordRowOut>(c.ns, stream, SCHEMA_VERSION);
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

/** The field's scalar values, newest first, extracted by SQLite (no JSON parse per record). */
function fieldValuesSql(c: Ctx, stream: string, field: string): unknown[] {
  const path = `$."${field}"`;
  const rows = c.db
    .prepare(
      `SELECT schema_version AS sv, json_valid(data) AS ok,
         CASE WHEN json_valid(data) THEN json_type(data, ?) END AS t,
         CASE WHEN json_valid(data) THEN json_extract(data, ?) END AS v
       FROM records WHERE ns = ? AND stream = ? ORDER BY id DESC`,
    )
    .all<{ sv: string; ok: number; t: string | null; v: unknown }>(path, path, c.ns, stream);
  return rows.map((row) => {
    if (row.sv !== SCHEMA_VERSION)
      throw strictFailure(`stream ${stream} holds a record of unknown schema version '${row.sv}'`);
    if (!row.ok) throw strictFailure(`stream ${stream} holds an unreadable record`);
    return row.t === 'integer' || row.t === 'real' || row.t === 'text' ? row.v : undefined;
  });
}

/** Same, parsing each record (field names SQLite's JSON paths cannot quote). */
function fieldValuesParsed(c: Ctx, stream: string, field: string): unknown[] {
  const rows = c.db
    .prepare('SELECT schema_version AS sv, data FROM records WHERE ns = ? AND stream = ? ORDER BY id DESC')
    .all<{ sv: string; data: string }>(c.ns, stream);
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

/** Streams whose name starts with `prefix`, sorted by name; counts include every row. */
export function streams(c: Ctx, prefix: string): StreamInfo[] {
  const upper = prefixUpperBound(prefix);
  const sql = `SELECT stream, count(*) AS count, max(written_at) AS newestAt FROM records
     WHERE ns = ? AND stream >= ?${upper === null ? '' : ' AND stream < ?'} GROUP BY stream ORDER BY stream`;
  const params = upper === null ? [c.ns, prefix] : [c.ns, prefix, upper];
  return c.db
    .prepare(sql)
    .all<StreamInfo>(...params)
    .filter((s) => s.stream.startsWith(prefix));
}

/** Deletes a whole stream (every row, any schema version); returns the number of rows. */
export function deleteStream(c: Ctx, stream: string): number {
  return c.db.transaction(() => {
    const n = c.db.prepare('DELETE FROM records WHERE ns = ? AND stream = ?').run(c.ns, stream).changes;
    c.db
      .prepare('DELETE FROM stream_counts WHERE ns = ? AND stream = ? AND v1_records <= 0')
      .run(c.ns, stream);
    return n;
  });
}

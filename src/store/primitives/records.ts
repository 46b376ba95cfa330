// Record streams (spec 03 §2, §13.2): append-only JSON records ordered by commit id.
// Rows of an unknown schema_version (a newer peer) are skipped by ordinary reads, fail strict
// reads, are never pruned and never rewritten.
import { type Json, StoreRequestError, type StoredRecord } from '../types.ts';
import { compareJson, type Ctx, parseBody, prefixUpperBound, requireName, SCHEMA_VERSION, strictFailure } from './common.ts';

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
    .prepare('INSERT INTO records (ns, stream, schema_version, written_at, writer, data) VALUES (?, ?, ?, ?, ?, ?)')
    .run(c.ns, stream, SCHEMA_VERSION, c.now, c.writer, text);
  return { id: r.lastInsertRowid, stream, writtenAt: c.now, writer: c.writer, data: JSON.parse(text) as Json };
}

/**
 * Keeps the newest `keep` (v1) records of a stream; `keep <= 0` deletes every v1 record.
 * Returns the number deleted.
 */
export function pruneStream(c: Ctx, stream: string, keep: number): number {
  if (keep <= 0)
    return c.db
      .prepare('DELETE FROM records WHERE ns = ? AND stream = ? AND schema_version = ?')
      .run(c.ns, stream, SCHEMA_VERSION).changes;
  return c.db
    .prepare(
      `DELETE FROM records WHERE ns = ? AND stream = ? AND schema_version = ? AND id <= (
         SELECT id FROM records WHERE ns = ? AND stream = ? AND schema_version = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`,
    )
    .run(c.ns, stream, SCHEMA_VERSION, c.ns, stream, SCHEMA_VERSION, Math.floor(keep)).changes;
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

export function list(c: Ctx, stream: string, opts?: { newestFirst?: boolean; limit?: number }): StoredRecord[] {
  const order = opts?.newestFirst ? 'DESC' : 'ASC';
  const limit = opts?.limit !== undefined && opts.limit >= 0 ? Math.floor(opts.limit) : -1;
  if (limit === 0) return [];
  // Skipped rows must not eat the limit: read in pages until enough v1 rows were found.
  const out: StoredRecord[] = [];
  const page = limit < 0 ? -1 : Math.max(limit, 64);
  let after: number | null = null;
  for (;;) {
    const cursor = after === null ? '' : order === 'ASC' ? 'AND id > ?' : 'AND id < ?';
    const params = after === null ? [c.ns, stream, page] : [c.ns, stream, after, page];
    const rows = c.db
      .prepare(`SELECT ${COLS} FROM records WHERE ns = ? AND stream = ? ${cursor} ORDER BY id ${order} LIMIT ?`)
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
  const rows = c.db
    .prepare('SELECT schema_version, data FROM records WHERE ns = ? AND stream = ? ORDER BY id DESC')
    .all<{ schema_version: string; data: string }>(c.ns, stream);
  let best: { number: number | null; string: string | null } = { number: null, string: null };
  let newestKind: 'number' | 'string' | null = null;
  for (const row of rows) {
    if (row.schema_version !== SCHEMA_VERSION)
      throw strictFailure(`stream ${stream} holds a record of unknown schema version '${row.schema_version}'`);
    const body = parseBody(row.data);
    if (!body.ok) throw strictFailure(`stream ${stream} holds an unreadable record`);
    const data = body.value;
    if (data === null || typeof data !== 'object' || Array.isArray(data)) continue;
    const v = data[field];
    if (typeof v === 'number') {
      newestKind ??= 'number';
      if (best.number === null || v > best.number) best = { ...best, number: v };
    } else if (typeof v === 'string') {
      newestKind ??= 'string';
      if (best.string === null || (compareJson(v, best.string) ?? 0) > 0) best = { ...best, string: v };
    }
  }
  if (newestKind === 'number') return best.number;
  if (newestKind === 'string') return best.string;
  return null;
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
  return c.db.prepare('DELETE FROM records WHERE ns = ? AND stream = ?').run(c.ns, stream).changes;
}

// Documents (spec 03 §2, §3.2): mutable JSON bodies keyed by (doc namespace, key). Ordinary
// reads skip rows they cannot interpret; read-modify-write is strict (unknown version or an
// unreadable body fails the mutation instead of overwriting what a newer peer wrote).
import type { Json } from '../types.ts';
import { type Ctx, parseBody, SCHEMA_VERSION, strictFailure } from './common.ts';

export type DocRead =
  | { state: 'absent' }
  | { state: 'ok'; body: Json; updatedAt: number }
  | { state: 'unreadable'; reason: string };

interface DocRow {
  key: string;
  schema_version: string;
  data: string;
  updated_at: number;
}

function interpret(row: DocRow | undefined): DocRead {
  if (!row) return { state: 'absent' };
  if (row.schema_version !== SCHEMA_VERSION)
    return { state: 'unreadable', reason: `unknown schema version '${row.schema_version}'` };
  const body = parseBody(row.data);
  if (!body.ok) return { state: 'unreadable', reason: 'unparseable body' };
  return { state: 'ok', body: body.value, updatedAt: row.updated_at };
}

export function readDoc(c: Ctx, docNs: string, key: string): DocRead {
  return interpret(
    c.db
      .prepare(
        'SELECT key, schema_version, data, updated_at FROM documents WHERE ns = ? AND doc_ns = ? AND key = ?',
      )
      .get<DocRow>(c.ns, docNs, key),
  );
}

/** The strict read of a read-modify-write: absent → null; anything doubtful throws. */
export function readDocStrict(c: Ctx, docNs: string, key: string): { body: Json; updatedAt: number } | null {
  const doc = readDoc(c, docNs, key);
  if (doc.state === 'absent') return null;
  if (doc.state === 'unreadable') throw strictFailure(`document ${docNs}/${key} has an ${doc.reason}`);
  return doc;
}

export function writeDoc(c: Ctx, docNs: string, key: string, body: Json): void {
  c.db
    .prepare(
      `INSERT INTO documents (ns, doc_ns, key, schema_version, data, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (ns, doc_ns, key) DO UPDATE SET schema_version = excluded.schema_version,
         data = excluded.data, updated_at = excluded.updated_at`,
    )
    .run(c.ns, docNs, key, SCHEMA_VERSION, JSON.stringify(body), c.now);
}

export function deleteDoc(c: Ctx, docNs: string, key: string): boolean {
  return (
    c.db.prepare('DELETE FROM documents WHERE ns = ? AND doc_ns = ? AND key = ?').run(c.ns, docNs, key)
      .changes > 0
  );
}

/** Every readable document of a doc namespace, sorted by key (unreadable ones skipped). */
export function listDocs(c: Ctx, docNs: string): { key: string; body: Json; updatedAt: number }[] {
  const rows = c.db
    .prepare(
      'SELECT key, schema_version, data, updated_at FROM documents WHERE ns = ? AND doc_ns = ? ORDER BY key',
    )
    .all<DocRow>(c.ns, docNs);
  const out: { key: string; body: Json; updatedAt: number }[] = [];
  for (const row of rows) {
    const doc = interpret(row);
    if (doc.state === 'ok') out.push({ key: row.key, body: doc.body, updatedAt: doc.updatedAt });
  }
  return out;
}

/** Body field access for `{...}` documents. */
export function field(body: Json, name: string): Json | undefined {
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? body[name] : undefined;
}

// Documents (spec 03 §2, §3.2): mutable JSON bodies keyed by (doc namespace, key). Ordinary
// reads skip rows they cannot interpret; read-modify-write is strict (unknown version or an
// unreadable body fails the mutation instead of overwriting what a newer peer wrote).
import { and, eq, sql } from 'drizzle-orm';
import type { Orm } from '../driver.ts';
import { type DocumentRow, documents } from '../schema.ts';
import type { Json } from '../types.ts';
import { type Ctx, parseBody, SCHEMA_VERSION, strictFailure } from './common.ts';

const p = sql.placeholder;

export type DocRead =
  | { state: 'absent' }
  | { state: 'ok'; body: Json; updatedAt: number }
  | { state: 'unreadable'; reason: string };

type DocRow = Pick<DocumentRow, 'key' | 'schemaVersion' | 'data' | 'updatedAt'>;

const COLS = {
  key: documents.key,
  schemaVersion: documents.schemaVersion,
  data: documents.data,
  updatedAt: documents.updatedAt,
};
const inDocNs = and(eq(documents.ns, p('ns')), eq(documents.docNs, p('docNs')));
const byKey = and(inDocNs, eq(documents.key, p('key')));

function interpret(row: DocRow | undefined): DocRead {
  if (!row) return { state: 'absent' };
  if (row.schemaVersion !== SCHEMA_VERSION)
    return { state: 'unreadable', reason: `unknown schema version '${row.schemaVersion}'` };
  const body = parseBody(row.data);
  if (!body.ok) return { state: 'unreadable', reason: 'unparseable body' };
  return { state: 'ok', body: body.value, updatedAt: row.updatedAt };
}

const readQ = (o: Orm) => o.select(COLS).from(documents).where(byKey).prepare();

export function readDoc(c: Ctx, docNs: string, key: string): DocRead {
  return interpret(c.db.prepared(readQ).get({ ns: c.ns, docNs, key }));
}

/** The strict read of a read-modify-write: absent → null; anything doubtful throws. */
export function readDocStrict(c: Ctx, docNs: string, key: string): { body: Json; updatedAt: number } | null {
  const doc = readDoc(c, docNs, key);
  if (doc.state === 'absent') return null;
  if (doc.state === 'unreadable') throw strictFailure(`document ${docNs}/${key} has an ${doc.reason}`);
  return doc;
}

const writeQ = (o: Orm) =>
  o
    .insert(documents)
    .values({
      ns: p('ns'),
      docNs: p('docNs'),
      key: p('key'),
      schemaVersion: SCHEMA_VERSION,
      data: p('data'),
      updatedAt: p('now'),
    })
    .onConflictDoUpdate({
      target: [documents.ns, documents.docNs, documents.key],
      set: {
        schemaVersion: sql`excluded.schema_version`,
        data: sql`excluded.data`,
        updatedAt: sql`excluded.updated_at`,
      },
    })
    .prepare();

export function writeDoc(c: Ctx, docNs: string, key: string, body: Json): void {
  c.db.prepared(writeQ).run({ ns: c.ns, docNs, key, data: JSON.stringify(body), now: c.now });
}

const deleteQ = (o: Orm) => o.delete(documents).where(byKey).prepare();

export function deleteDoc(c: Ctx, docNs: string, key: string): boolean {
  return c.db.prepared(deleteQ).run({ ns: c.ns, docNs, key }).changes > 0;
}

const listQ = (o: Orm) => o.select(COLS).from(documents).where(inDocNs).orderBy(documents.key).prepare();

/** Every readable document of a doc namespace, sorted by key (unreadable ones skipped). */
export function listDocs(c: Ctx, docNs: string): { key: string; body: Json; updatedAt: number }[] {
  const out: { key: string; body: Json; updatedAt: number }[] = [];
  for (const row of c.db.prepared(listQ).all({ ns: c.ns, docNs })) {
    const doc = interpret(row);
    if (doc.state === 'ok') out.push({ key: row.key, body: doc.body, updatedAt: doc.updatedAt });
  }
  return out;
}

/** Body field access for `{...}` documents. */
export function field(body: Json, name: string): Json | undefined {
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? body[name] : undefined;
}

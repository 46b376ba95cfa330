// Read-only inventory for the state inspector (spec 06 §5.14): which document namespaces exist and how big
// they are, every lease row, and the documents of one namespace. Metadata readers only; no writes.
import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { Orm } from '../driver.ts';
import { documents, leases } from '../schema.ts';
import type { Json, Lease } from '../types.ts';
import type { Ctx } from './common.ts';
import { listDocs } from './documents.ts';

const p = sql.placeholder;

export interface DocNamespaceInfo {
  namespace: string;
  count: number;
  /** epoch seconds of the newest write */
  updatedAt: number;
}

const docNamespacesQ = (o: Orm) =>
  o
    .select({
      namespace: documents.docNs,
      count: count(),
      updatedAt: sql<number>`max(${documents.updatedAt})`,
    })
    .from(documents)
    .where(eq(documents.ns, p('ns')))
    .groupBy(documents.docNs)
    .orderBy(asc(documents.docNs))
    .prepare();

/** Every document namespace (`kv/<scope>`, `cursor/<scope>`, `idem/<scope>`, `dagrun/<dag>`) with its size. */
export function docNamespaces(c: Ctx): DocNamespaceInfo[] {
  return c.db.prepared(docNamespacesQ).all({ ns: c.ns });
}

const leaseListQ = (o: Orm) =>
  o
    .select({ name: leases.name, holder: leases.holder, fence: leases.fence, expiresAt: leases.expiresAt })
    .from(leases)
    .where(and(eq(leases.ns, p('ns'))))
    .orderBy(asc(leases.name))
    .limit(p('limit'))
    .prepare();

/** Lease rows by name (held, expired and released alike: rows are never deleted), at most `limit`. */
export function leaseList(c: Ctx, limit: number): Lease[] {
  return c.db.prepared(leaseListQ).all({ ns: c.ns, limit: Math.max(0, Math.floor(limit)) });
}

/** The readable documents of one namespace with their bodies (the web layer reduces them to metadata). */
export function docList(c: Ctx, docNs: string): { key: string; body: Json; updatedAt: number }[] {
  return listDocs(c, docNs);
}

// Idempotency claims `idem/<scope>` (spec 03 §6.5): create-if-absent (or expired) under one
// BEGIN IMMEDIATE transaction. Body `{key, claimedAt, expiresAt?}`; ttl 0 = permanent.
import { and, eq, gte, lt } from 'drizzle-orm';
import type { Database } from '../driver.ts';
import { documents } from '../schema.ts';
import { type Ctx, parseBody, requireName, requireTtl, SCHEMA_VERSION } from './common.ts';
import { deleteDoc, field, readDocStrict, writeDoc } from './documents.ts';

const docNs = (scope: string) => `idem/${scope}`;

export function idempotencyClaim(
  c: Ctx,
  scope: string,
  key: string,
  ttlSeconds: number,
): { fresh: boolean; claimedAt: number } {
  requireName(key, 'key');
  const ttl = requireTtl(ttlSeconds, 'ttl', true);
  return c.db.transaction(() => {
    const current = readDocStrict(c, docNs(scope), key);
    if (current) {
      const expiresAt = field(current.body, 'expiresAt');
      const claimedAt = field(current.body, 'claimedAt');
      const live = typeof expiresAt !== 'number' || expiresAt > c.now;
      if (live)
        return { fresh: false, claimedAt: typeof claimedAt === 'number' ? claimedAt : current.updatedAt };
    }
    writeDoc(
      c,
      docNs(scope),
      key,
      ttl > 0 ? { key, claimedAt: c.now, expiresAt: c.now + ttl } : { key, claimedAt: c.now },
    );
    return { fresh: true, claimedAt: c.now };
  });
}

export function idempotencyRelease(c: Ctx, scope: string, key: string): boolean {
  requireName(key, 'key');
  return c.db.transaction(() => {
    readDocStrict(c, docNs(scope), key);
    return deleteDoc(c, docNs(scope), key);
  });
}

/** The `expiresAt` of a stored claim body; null for a permanent or unreadable one. */
function expiryOf(schemaVersion: string, data: string): number | null {
  if (schemaVersion !== SCHEMA_VERSION) return null;
  const body = parseBody(data);
  if (!body.ok) return null;
  const expiresAt = field(body.value, 'expiresAt');
  return typeof expiresAt === 'number' ? expiresAt : null;
}

/**
 * GC (spec 09 §9.1): the namespace's `idem/<scope>` claims that expired at or before `cutoff`
 * (epoch seconds). Scan and delete share one transaction, so a claim re-won meanwhile (its new
 * `expiresAt` past the cutoff) is never deleted; permanent and unreadable claims stay. An
 * expired claim was already re-winnable, so no outcome changes: only storage shrinks.
 */
export function pruneExpiredClaims(db: Database, ns: string, cutoff: number, dryRun: boolean): number {
  return db.transaction(() => {
    const o = db.orm;
    const inIdem = and(eq(documents.ns, ns), gte(documents.docNs, 'idem/'), lt(documents.docNs, 'idem0'));
    const expired = o
      .select({
        docNs: documents.docNs,
        key: documents.key,
        schemaVersion: documents.schemaVersion,
        data: documents.data,
      })
      .from(documents)
      .where(inIdem)
      .all()
      .filter((d) => {
        const at = expiryOf(d.schemaVersion, d.data);
        return at !== null && at <= cutoff;
      });
    if (!dryRun)
      for (const d of expired)
        o.delete(documents)
          .where(and(eq(documents.ns, ns), eq(documents.docNs, d.docNs), eq(documents.key, d.key)))
          .run();
    return expired.length;
  });
}

// Idempotency claims `idem/<scope>` (spec 03 §6.5): create-if-absent (or expired) under one
// BEGIN IMMEDIATE transaction. Body `{key, claimedAt, expiresAt?}`; ttl 0 = permanent.
import { type Ctx, requireName, requireTtl } from './common.ts';
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

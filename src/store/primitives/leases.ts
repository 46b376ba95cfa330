// Leases (spec 03 §5, §13.2): TTL + fence rows in `leases`. Fences only grow; release marks
// the row expired in place (expires_at = 0) and never deletes it (the fence's only home).
import { and, eq, gt, sql } from 'drizzle-orm';
import type { Orm } from '../driver.ts';
import { type LeaseRow, leases } from '../schema.ts';
import { type Lease, StoreRequestError } from '../types.ts';
import { type Ctx, requireName, requireTtl } from './common.ts';
import { MAX_PERMITS } from './permit-limit.ts';

const p = sql.placeholder;

type LeaseRowOut = Pick<LeaseRow, 'name' | 'holder' | 'fence' | 'expiresAt'>;

const toLease = (r: LeaseRowOut): Lease => ({
  name: r.name,
  holder: r.holder,
  fence: r.fence,
  expiresAt: r.expiresAt,
});

const byName = and(eq(leases.ns, p('ns')), eq(leases.name, p('name')));
const heldAs = and(byName, eq(leases.holder, p('holder')), eq(leases.fence, p('fence')));

const readQ = (o: Orm) =>
  o
    .select({ name: leases.name, holder: leases.holder, fence: leases.fence, expiresAt: leases.expiresAt })
    .from(leases)
    .where(byName)
    .prepare();

function readRow(c: Ctx, name: string): LeaseRowOut | undefined {
  return c.db.prepared(readQ).get({ ns: c.ns, name });
}

const upsertQ = (o: Orm) =>
  o
    .insert(leases)
    .values({
      ns: p('ns'),
      name: p('name'),
      holder: p('holder'),
      fence: p('fence'),
      expiresAt: p('expiresAt'),
      updatedAt: p('now'),
    })
    .onConflictDoUpdate({
      target: [leases.ns, leases.name],
      set: {
        holder: sql`excluded.holder`,
        fence: sql`excluded.fence`,
        expiresAt: sql`excluded.expires_at`,
        updatedAt: sql`excluded.updated_at`,
      },
    })
    .prepare();

/** The acquire rule on one row, inside the caller's transaction; null = held by another. */
function tryAcquire(c: Ctx, name: string, holder: string, ttl: number): Lease | null {
  const row = readRow(c, name);
  let fence: number;
  if (!row) fence = 1;
  else if (row.holder !== holder && row.expiresAt > c.now) return null;
  else if (row.holder === holder && row.expiresAt > c.now) fence = row.fence;
  else fence = row.fence + 1;
  const expiresAt = c.now + ttl;
  c.db.prepared(upsertQ).run({ ns: c.ns, name, holder, fence, expiresAt, now: c.now });
  return { name, holder, fence, expiresAt };
}

/**
 * Free (no row, expired or released) → taken with fence+1 (1 for a new row); still held by the
 * same holder → renewed with the same fence; held by another → null.
 */
export function leaseAcquire(c: Ctx, name: string, holder: string, ttlSeconds: number): Lease | null {
  requireName(name, 'lease name');
  requireName(holder, 'holder');
  const ttl = requireTtl(ttlSeconds);
  return c.db.transaction(() => tryAcquire(c, name, holder, ttl));
}

const renewQ = (o: Orm) =>
  o
    .update(leases)
    .set({ expiresAt: sql`${p('expiresAt')}`, updatedAt: sql`${p('now')}` })
    .where(and(heldAs, gt(leases.expiresAt, 0)))
    .prepare();

/** Same holder, same fence, not released (slightly past expiry is fine if nobody took over). */
export function leaseRenew(c: Ctx, lease: Lease, ttlSeconds: number): Lease | null {
  const ttl = requireTtl(ttlSeconds);
  const expiresAt = c.now + ttl;
  const { name, holder, fence } = lease;
  const changed = c.db.prepared(renewQ).run({ ns: c.ns, name, holder, fence, expiresAt, now: c.now }).changes;
  return changed === 1 ? { name, holder, fence, expiresAt } : null;
}

const releaseQ = (o: Orm) =>
  o
    .update(leases)
    .set({ expiresAt: 0, updatedAt: sql`${p('now')}` })
    .where(heldAs)
    .prepare();

export function leaseRelease(c: Ctx, lease: Lease): void {
  c.db
    .prepared(releaseQ)
    .run({ ns: c.ns, name: lease.name, holder: lease.holder, fence: lease.fence, now: c.now });
}

/** Best-effort read; a released lease reads as absent. */
export function leaseRead(c: Ctx, name: string): Lease | null {
  const row = readRow(c, name);
  return row && row.expiresAt > 0 ? toLease(row) : null;
}

/** One pass over `<base>#0..permits-1` in one transaction: the lowest free slot wins. */
export function semaphoreAcquire(
  c: Ctx,
  base: string,
  permits: number,
  holder: string,
  ttlSeconds: number,
): { lease: Lease; slot: number } | null {
  requireName(base, 'lock name');
  requireName(holder, 'holder');
  if (!Number.isInteger(permits) || permits < 1 || permits > MAX_PERMITS)
    throw new StoreRequestError(400, `permits must be an integer between 1 and ${MAX_PERMITS}`);
  const ttl = requireTtl(ttlSeconds);
  return c.db.transaction(() => {
    for (let slot = 0; slot < permits; slot++) {
      const lease = tryAcquire(c, `${base}#${slot}`, holder, ttl);
      if (lease) return { lease, slot };
    }
    return null;
  });
}

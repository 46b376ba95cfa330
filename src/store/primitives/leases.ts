// Leases (spec 03 §5, §13.2): TTL + fence rows in `leases`. Fences only grow; release marks
// the row expired in place (expires_at = 0) and never deletes it (the fence's only home).
import { type Lease, StoreRequestError } from '../types.ts';
import { type Ctx, requireName, requireTtl } from './common.ts';

interface LeaseRowOut {
  name: string;
  holder: string;
  fence: number;
  expires_at: number;
}

const toLease = (r: LeaseRowOut): Lease => ({
  name: r.name,
  holder: r.holder,
  fence: r.fence,
  expiresAt: r.expires_at,
});

function readRow(c: Ctx, name: string): LeaseRowOut | undefined {
  return c.db
    .prepare('SELECT name, holder, fence, expires_at FROM leases WHERE ns = ? AND name = ?')
    .get<LeaseRowOut>(c.ns, name);
}

/** The acquire rule on one row, inside the caller's transaction; null = held by another. */
function tryAcquire(c: Ctx, name: string, holder: string, ttl: number): Lease | null {
  const row = readRow(c, name);
  let fence: number;
  if (!row) fence = 1;
  else if (row.holder !== holder && row.expires_at > c.now) return null;
  else if (row.holder === holder && row.expires_at > c.now) fence = row.fence;
  else fence = row.fence + 1;
  const expiresAt = c.now + ttl;
  c.db
    .prepare(
      `INSERT INTO leases (ns, name, holder, fence, expires_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (ns, name) DO UPDATE SET holder = excluded.holder, fence = excluded.fence,
         expires_at = excluded.expires_at, updated_at = excluded.updated_at`,
    )
    .run(c.ns, name, holder, fence, expiresAt, c.now);
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

/** Same holder, same fence, not released (slightly past expiry is fine if nobody took over). */
export function leaseRenew(c: Ctx, lease: Lease, ttlSeconds: number): Lease | null {
  const ttl = requireTtl(ttlSeconds);
  const expiresAt = c.now + ttl;
  const changed = c.db
    .prepare(
      `UPDATE leases SET expires_at = ?, updated_at = ?
       WHERE ns = ? AND name = ? AND holder = ? AND fence = ? AND expires_at > 0`,
    )
    .run(expiresAt, c.now, c.ns, lease.name, lease.holder, lease.fence).changes;
  return changed === 1 ? { name: lease.name, holder: lease.holder, fence: lease.fence, expiresAt } : null;
}

export function leaseRelease(c: Ctx, lease: Lease): void {
  c.db
    .prepare(
      'UPDATE leases SET expires_at = 0, updated_at = ? WHERE ns = ? AND name = ? AND holder = ? AND fence = ?',
    )
    .run(c.now, c.ns, lease.name, lease.holder, lease.fence);
}

/** Best-effort read; a released lease reads as absent. */
export function leaseRead(c: Ctx, name: string): Lease | null {
  const row = readRow(c, name);
  return row && row.expires_at > 0 ? toLease(row) : null;
}

export const MAX_PERMITS = 1024;

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

// Fire claims (DESIGN.md §4 step 3): the exactly-once backstop of a fleet. Every node that
// believes it should run a leader-gated slot inserts `(ns, job, scheduled_at)`; the primary key
// lets exactly one insert land, whatever the election believed. Claims are never updated.
import { and, eq, lt, sql } from 'drizzle-orm';
import type { Orm } from '../driver.ts';
import { fireClaims } from '../schema.ts';
import { StoreRequestError } from '../types.ts';
import { type Ctx, requireName } from './common.ts';

const p = sql.placeholder;

export interface FireClaimResult {
  /** This call's insert landed: the caller runs the slot. */
  won: boolean;
  /** The node holding the claim (the caller's own name when it won). */
  node: string;
}

/** The slot instant as stored: ISO-8601 UTC, the same text the run ledger's `scheduled_at` holds. */
export function claimInstant(scheduledAtMs: number): string {
  if (!Number.isFinite(scheduledAtMs))
    throw new StoreRequestError(400, 'scheduled_at must be a finite instant');
  return new Date(scheduledAtMs).toISOString();
}

const insertQ = (o: Orm) =>
  o
    .insert(fireClaims)
    .values({
      ns: p('ns'),
      job: p('job'),
      scheduledAt: p('scheduledAt'),
      node: p('node'),
      claimedAt: p('now'),
    })
    .onConflictDoNothing()
    .prepare();

const holderQ = (o: Orm) =>
  o
    .select({ node: fireClaims.node })
    .from(fireClaims)
    .where(
      and(
        eq(fireClaims.ns, p('ns')),
        eq(fireClaims.job, p('job')),
        eq(fireClaims.scheduledAt, p('scheduledAt')),
      ),
    )
    .prepare();

/** Claims the fire `(job, scheduledAt)` for `node`: one tiny transaction, insert-or-nothing then read. */
export function fireClaim(c: Ctx, job: string, scheduledAtMs: number, node: string): FireClaimResult {
  requireName(job, 'job name');
  requireName(node, 'node name');
  const scheduledAt = claimInstant(scheduledAtMs);
  return c.db.transaction(() => {
    const inserted = c.db.prepared(insertQ).run({ ns: c.ns, job, scheduledAt, node, now: c.now }).changes;
    if (inserted === 1) return { won: true, node };
    const holder = c.db.prepared(holderQ).get({ ns: c.ns, job, scheduledAt });
    // The row cannot vanish inside the transaction; an absent one means a broken table.
    if (!holder) throw new Error('fire claim neither inserted nor found');
    return { won: false, node: holder.node };
  });
}

/** Deletes the namespace's claims written before `cutoff` (epoch seconds); returns how many. */
export function pruneFireClaims(o: Orm, ns: string, cutoff: number, dryRun: boolean): number {
  const old = and(eq(fireClaims.ns, ns), lt(fireClaims.claimedAt, cutoff));
  if (dryRun) return o.select({ n: sql<number>`count(*)` }).from(fireClaims).where(old).get()?.n ?? 0;
  return o.delete(fireClaims).where(old).run().changes;
}

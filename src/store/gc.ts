// `cronstable state gc` (spec 03 §9): one garbage-collection pass over a namespace.

import { and, count, eq, gte, lt, lte, sql } from 'drizzle-orm';
import {
  type AdminOptions,
  type AdminResult,
  fail,
  nowSeconds,
  nsOf,
  openAdmin,
  plural,
} from './admin-common.ts';
import type { Database } from './driver.ts';
import { SCHEMA_VERSION } from './primitives/common.ts';
import { pruneFireClaims } from './primitives/fire-claims.ts';
import { pruneExpiredClaims } from './primitives/idempotency.ts';
import { blobs, leases, records, streamCounts } from './schema.ts';

/** Rows of `column` starting with `prefix` (ending in '/'), as an index range. */
function startsWith(column: typeof records.stream | typeof leases.name, prefix: string) {
  return and(gte(column, prefix), lt(column, `${prefix.slice(0, -1)}0`));
}

/** Streams kept per job name (spec 03 §9 managed prefixes). */
export const JOB_PREFIXES = ['runs', 'logs', 'catchup', 'retries', 'reboot', 'inflight', 'slots'];

export interface GcOptions {
  dryRun: boolean;
  /** Job names of this configuration. */
  keepJobs: Iterable<string>;
  /**
   * Artifact scopes of this configuration (`global` and job names are always kept). Without
   * it, artifact streams are not managed at all.
   */
  keepScopes?: Iterable<string>;
  graceSeconds: number;
}

export interface GcResult extends AdminResult {
  deferred: string | null;
  removedStreams: string[];
  removedRecords: number;
  keptStreams: number;
  removedBlobs: number;
  blobSweepSkipped: string | null;
  removedLeases: number;
  /** Fire claims older than the grace window (their slots are long settled). */
  removedFireClaims: number;
  /** Idempotency claims expired for longer than the grace window (spec 09 §9.1). */
  removedIdempotencyClaims: number;
}

interface ManifestFacts {
  streams: number;
  oldest: number | null;
  jobs: Set<string>;
  scopes: Set<string>;
}

/** Jobs and scopes advertised by `manifests/<host>` records newer than the cutoff. */
function readManifests(db: Database, ns: string, cutoff: number): ManifestFacts {
  const rows = db.orm
    .select({
      stream: records.stream,
      writtenAt: records.writtenAt,
      schemaVersion: records.schemaVersion,
      data: records.data,
    })
    .from(records)
    .where(and(eq(records.ns, ns), startsWith(records.stream, 'manifests/')))
    .all();
  const facts: ManifestFacts = {
    streams: new Set(rows.map((r) => r.stream)).size,
    oldest: null,
    jobs: new Set(),
    scopes: new Set(),
  };
  for (const r of rows) {
    if (facts.oldest === null || r.writtenAt < facts.oldest) facts.oldest = r.writtenAt;
    if (r.writtenAt < cutoff || r.schemaVersion !== SCHEMA_VERSION) continue;
    try {
      const data = JSON.parse(r.data) as { jobs?: unknown; scopes?: unknown };
      if (Array.isArray(data.jobs)) for (const j of data.jobs) if (typeof j === 'string') facts.jobs.add(j);
      if (Array.isArray(data.scopes))
        for (const s of data.scopes) if (typeof s === 'string') facts.scopes.add(s);
    } catch {
      // An unreadable manifest adds nothing.
    }
  }
  return facts;
}

/**
 * One GC pass (spec 03 §9) with this configuration's jobs/scopes as the keep-set (plus those of
 * manifests newer than grace). Deletes each stale stream in its own small transaction, dead
 * `dagadvance/` leases, and orphan blobs after a strict reference scan.
 */
export async function stateGc(opts: AdminOptions, gc: GcOptions): Promise<GcResult> {
  const empty = {
    deferred: null,
    removedStreams: [],
    removedRecords: 0,
    keptStreams: 0,
    removedBlobs: 0,
    blobSweepSkipped: null,
    removedLeases: 0,
    removedFireClaims: 0,
    removedIdempotencyClaims: 0,
  };
  if (!(gc.graceSeconds > 0)) return { ...empty, ...fail('gc is disabled (state.gcGraceSeconds <= 0)') };
  const ns = nsOf(opts);
  const now = nowSeconds(opts);
  const cutoff = now - gc.graceSeconds;
  const verb = gc.dryRun ? 'would remove' : 'removed';
  const { db } = await openAdmin(opts);
  try {
    const manifests = readManifests(db, ns, cutoff);
    if (manifests.streams > 0 && manifests.oldest !== null && manifests.oldest > cutoff) {
      const span = Math.max(0, Math.round(now - manifests.oldest));
      const deferred = `manifest history spans ${span}s, less than the grace window (${gc.graceSeconds}s)`;
      return { ...empty, ok: true, deferred, lines: [`state: gc deferred: ${deferred}`] };
    }
    const keepJobs = new Set([...gc.keepJobs, ...manifests.jobs]);
    const keepScopes = gc.keepScopes
      ? new Set(['global', ...gc.keepScopes, ...keepJobs, ...manifests.scopes])
      : null;
    const o = db.orm;
    const all = o
      .select({ stream: records.stream, n: count(), newest: sql<number>`max(${records.writtenAt})` })
      .from(records)
      .where(eq(records.ns, ns))
      .groupBy(records.stream)
      .orderBy(records.stream)
      .all();
    const remove: { stream: string; n: number }[] = [];
    let kept = 0;
    for (const s of all) {
      const slash = s.stream.indexOf('/');
      if (slash < 0) continue; // `meta` and other bare names: never touched.
      const prefix = s.stream.slice(0, slash);
      const subject = s.stream.slice(slash + 1);
      let managed: boolean;
      let keep: boolean;
      if (JOB_PREFIXES.includes(prefix)) {
        managed = true;
        keep = keepJobs.has(subject);
      } else if (prefix === 'artifacts' && keepScopes && !subject.startsWith('dagxcom/')) {
        managed = true;
        keep = keepScopes.has(subject);
      } else {
        managed = false;
        keep = true;
      }
      if (!managed) continue;
      if (keep || s.newest >= cutoff) kept++;
      else remove.push(s);
    }
    let removedRecords = 0;
    const removedStreams: string[] = [];
    for (const s of remove) {
      if (gc.dryRun) {
        removedStreams.push(s.stream);
        removedRecords += s.n;
        continue;
      }
      // Re-check inside the transaction: a record appended meanwhile keeps the stream.
      const n = db.transaction(() => {
        const inStream = and(eq(records.ns, ns), eq(records.stream, s.stream));
        const newest = o
          .select({ newest: sql<number | null>`max(${records.writtenAt})` })
          .from(records)
          .where(inStream)
          .get()?.newest;
        if (newest === null || newest === undefined || newest >= cutoff) return -1;
        const deleted = o.delete(records).where(inStream).run().changes;
        o.delete(streamCounts)
          .where(
            and(eq(streamCounts.ns, ns), eq(streamCounts.stream, s.stream), lte(streamCounts.v1Records, 0)),
          )
          .run();
        return deleted;
      });
      if (n < 0) kept++;
      else {
        removedStreams.push(s.stream);
        removedRecords += n;
      }
    }

    const dead = and(lt(leases.expiresAt, cutoff), lt(leases.updatedAt, cutoff));
    const deadLeases = o
      .select({ name: leases.name })
      .from(leases)
      .where(and(eq(leases.ns, ns), startsWith(leases.name, 'dagadvance/'), dead))
      .all();
    if (!gc.dryRun)
      db.transaction(() => {
        for (const l of deadLeases)
          o.delete(leases)
            .where(and(eq(leases.ns, ns), eq(leases.name, l.name), dead))
            .run();
      });

    const removedFireClaims = gc.dryRun
      ? pruneFireClaims(o, ns, cutoff, true)
      : db.transaction(() => pruneFireClaims(o, ns, cutoff, false));

    const removedIdempotencyClaims = pruneExpiredClaims(db, ns, cutoff, gc.dryRun);

    const sweep = sweepBlobs(db, ns, cutoff, gc.dryRun ? new Set(removedStreams) : new Set(), gc.dryRun);
    const lines = [
      `state: gc ${verb} ${plural(removedStreams.length, 'stream')} (${plural(removedRecords, 'record')}), ${plural(0, 'temp file')}, ${plural(0, 'quarantined record')}; kept ${plural(kept, 'stream')}`,
      sweep.skipped
        ? `state: gc orphan-blob sweep skipped: ${sweep.skipped}`
        : `state: gc ${verb} ${plural(sweep.count, 'orphan blob')} (${plural(sweep.bytes, 'byte')})`,
    ];
    if (deadLeases.length > 0)
      lines.push(`state: gc ${verb} ${plural(deadLeases.length, 'dead dagadvance lease')}`);
    if (removedFireClaims > 0) lines.push(`state: gc ${verb} ${plural(removedFireClaims, 'old fire claim')}`);
    // The reference computes this count but never prints it; the TS reports it (spec 09 §9.1).
    lines.push(`state: gc ${verb} ${plural(removedIdempotencyClaims, 'expired idempotency claim')}`);
    for (const s of removedStreams) lines.push(`  - ${s}`);
    return {
      ok: true,
      lines,
      deferred: null,
      removedStreams,
      removedRecords,
      keptStreams: kept,
      removedBlobs: sweep.count,
      blobSweepSkipped: sweep.skipped,
      removedLeases: deadLeases.length,
      removedFireClaims,
      removedIdempotencyClaims,
    };
  } finally {
    db.close();
  }
}

/**
 * Blobs referenced by no surviving artifact record and untouched since the cutoff. The
 * reference scan is strict: any unreadable artifact record stands the sweep down. Scan and
 * delete share one transaction, so a put landing meanwhile cannot lose its blob.
 */
function sweepBlobs(
  db: Database,
  ns: string,
  cutoff: number,
  goingAway: Set<string>,
  dryRun: boolean,
): { count: number; bytes: number; skipped: string | null } {
  return db.transaction(() => {
    const o = db.orm;
    const rows = o
      .select({ stream: records.stream, schemaVersion: records.schemaVersion, data: records.data })
      .from(records)
      .where(and(eq(records.ns, ns), startsWith(records.stream, 'artifacts/')))
      .all();
    const referenced = new Set<string>();
    for (const r of rows) {
      if (goingAway.has(r.stream)) continue;
      if (r.schemaVersion !== SCHEMA_VERSION)
        return { count: 0, bytes: 0, skipped: `${r.stream} holds a record of unknown schema version` };
      let sha: unknown;
      try {
        sha = (JSON.parse(r.data) as { sha256?: unknown }).sha256;
      } catch {
        return { count: 0, bytes: 0, skipped: `${r.stream} holds an unreadable record` };
      }
      if (typeof sha !== 'string')
        return { count: 0, bytes: 0, skipped: `${r.stream} holds a record without sha256` };
      referenced.add(sha);
    }
    const orphans = o
      .select({ sha256: blobs.sha256, size: blobs.size })
      .from(blobs)
      .where(and(eq(blobs.ns, ns), lt(blobs.touchedAt, cutoff)))
      .all()
      .filter((b) => !referenced.has(b.sha256));
    let bytes = 0;
    for (const b of orphans) {
      bytes += b.size;
      if (!dryRun)
        o.delete(blobs)
          .where(and(eq(blobs.ns, ns), eq(blobs.sha256, b.sha256)))
          .run();
    }
    return { count: orphans.length, bytes, skipped: null };
  });
}

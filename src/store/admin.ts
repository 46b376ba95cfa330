// Offline state administration (spec 03 §9, §11): check, gc, backup, restore, migrate. Runs
// SQLite inline on the calling thread. Each command returns the lines to print and whether it
// succeeded (the CLI maps ok=false to exit 1); unexpected failures throw.
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, openSync, realpathSync, unlinkSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { and, count, eq, ne, sql } from 'drizzle-orm';
import { errorText } from '../util/errors.ts';
import {
  type AdminOptions,
  type AdminResult,
  fail,
  nowSeconds,
  nsOf,
  openAdmin,
  plural,
} from './admin-common.ts';
import { DB_FILE } from './connection.ts';
import { type ResolvedStorePlace, resolveStorePlace } from './index.ts';
import { SCHEMA_VERSION } from './primitives/common.ts';
import { blobs, documents, leases, records, storeMeta } from './schema.ts';
import { probeMount } from './topology.ts';

export type { AdminOptions, AdminResult } from './admin-common.ts';
export {
  BACKUP_FORMAT,
  BACKUP_FORMAT_VERSION,
  type BackupManifest,
  type MigrateOptions,
  type RestoreOptions,
  stateBackup,
  stateMigrate,
  stateRestore,
} from './archive.ts';
export { type GcOptions, type GcResult, JOB_PREFIXES, stateGc } from './gc.ts';

// ---- check ----------------------------------------------------------------------------------

export interface CheckResult extends AdminResult {
  integrity: string;
  prefixes: Record<string, number>;
}

/** Writability probe (a file and a row), record counts per stream prefix, integrity check. */
export async function stateCheck(opts: AdminOptions): Promise<CheckResult> {
  const ns = nsOf(opts);
  const file = join(resolve(opts.path), DB_FILE);
  // Checking must not create: an empty new database would hide that the store is gone.
  if (!existsSync(file)) return { ...fail(`no store at ${file}`), integrity: 'n/a', prefixes: {} };
  let place: ResolvedStorePlace;
  try {
    place = await resolveStorePlace(opts);
    const probe = join(place.dir, `.cronstable-probe-${process.pid}-${randomBytes(4).toString('hex')}`);
    const fd = openSync(probe, 'wx', 0o600);
    try {
      writeSync(fd, 'probe');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
      unlinkSync(probe);
    }
  } catch (e) {
    return {
      ...fail(`store at ${resolve(opts.path)} is not writable: ${errorText(e)}`),
      integrity: 'n/a',
      prefixes: {},
    };
  }
  const { db, description } = await openAdmin(opts, place);
  try {
    const o = db.orm;
    db.transaction(() => {
      o.insert(storeMeta)
        .values({ ns, key: 'probe', value: String(process.pid) })
        .run();
      o.delete(storeMeta)
        .where(and(eq(storeMeta.ns, ns), eq(storeMeta.key, 'probe')))
        .run();
    });
    // PRAGMAs are not queries drizzle's builder can express.
    const integrityRows = db.prepare('PRAGMA integrity_check').all<{ integrity_check: string }>();
    const integrity = integrityRows.map((r) => r.integrity_check).join('; ');
    const mount = probeMount(realpathSync(place.dir));
    const streams = o
      .select({ stream: records.stream, n: count() })
      .from(records)
      .where(eq(records.ns, ns))
      .groupBy(records.stream)
      .all();
    const prefixes: Record<string, number> = {};
    let total = 0;
    for (const s of streams) {
      const slash = s.stream.indexOf('/');
      const prefix = slash < 0 ? s.stream : s.stream.slice(0, slash);
      prefixes[prefix] = (prefixes[prefix] ?? 0) + s.n;
      total += s.n;
    }
    const unknown =
      o
        .select({ n: count() })
        .from(records)
        .where(and(eq(records.ns, ns), ne(records.schemaVersion, SCHEMA_VERSION)))
        .get()?.n ?? 0;
    const kind = sql<string>`substr(${documents.docNs}, 1, instr(${documents.docNs} || '/', '/') - 1)`;
    const docs = o
      .select({ kind, n: count() })
      .from(documents)
      .where(eq(documents.ns, ns))
      .groupBy(kind)
      .orderBy(kind)
      .all();
    const blobStats = o
      .select({ n: count(), bytes: sql<number>`coalesce(sum(${blobs.size}), 0)` })
      .from(blobs)
      .where(eq(blobs.ns, ns))
      .get()!;
    const leaseStats = o
      .select({ n: count(), live: sql<number>`coalesce(sum(${leases.expiresAt} > ${nowSeconds(opts)}), 0)` })
      .from(leases)
      .where(eq(leases.ns, ns))
      .get()!;
    const journal = db.prepare('PRAGMA journal_mode').get<{ journal_mode: string }>()?.journal_mode ?? '?';
    const locking =
      place.topology !== 'shared'
        ? 'n/a (single-node)'
        : mount.locksHostLocal
          ? 'UNSAFE: the mount uses host-local locks (nolock/local_lock)'
          : `posix locks via ${mount.fsType ?? 'the filesystem'}`;
    const docTotal = docs.reduce((a, d) => a + d.n, 0);
    const lines = [
      `state: store at ${place.dir} is writable`,
      `  backend: ${description}`,
      `  namespace: ${ns}`,
      `  topology: ${place.topology}${mount.fsType ? ` (${mount.fsType} at ${mount.mountPoint})` : ''}`,
      `  shared_locking: ${locking}`,
      `  journal_mode: ${journal}`,
      `  integrity: ${integrity}`,
      `streams: ${streams.length} (${plural(total, 'record')})`,
      ...Object.keys(prefixes)
        .sort()
        .map((p) => `${p}: ${plural(prefixes[p]!, 'record')}`),
      `documents: ${docTotal}${docs.length ? ` (${docs.map((d) => `${d.kind}: ${d.n}`).join(', ')})` : ''}`,
      `blobs: ${blobStats.n} (${plural(blobStats.bytes, 'byte')})`,
      `leases: ${leaseStats.n} (${leaseStats.live} live)`,
      `unknown_schema: ${plural(unknown, 'record')}`,
      `quarantined: ${plural(0, 'record')}`,
    ];
    // The inventory is a summary (stdout); a failed integrity check is also an error (stderr).
    if (integrity !== 'ok') lines.push(fail(`integrity check failed: ${integrity}`).lines[0]!);
    return { ok: integrity === 'ok', lines, integrity, prefixes };
  } finally {
    db.close();
  }
}

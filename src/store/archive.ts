// `cronstable state backup|restore|migrate` (spec 03 §11): namespace snapshots through the
// online backup API, packaged as .tar.gz; restore/migrate merge row-wise per namespace under
// the admin lock, and never let a lease fence regress.
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
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
import { acquireAdminLock } from './adminlock.ts';
import { DB_FILE } from './connection.ts';
import { type Database, openDatabase } from './driver.ts';
import { BULK_BUSY_TIMEOUT_MS, resolveStorePlace } from './index.ts';
import { readTarGz, writeTarGz } from './tar.ts';
import { StoreLockedError } from './types.ts';

export const BACKUP_FORMAT = 'cronstable-state-backup';
export const BACKUP_FORMAT_VERSION = 1;
const MANIFEST = 'manifest.json';

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  formatVersion: number;
  namespace: string;
  /** ISO-8601 UTC. */
  createdAt: string;
  counts: Counts;
}

interface Counts {
  records: number;
  documents: number;
  blobs: number;
  leases: number;
}

const total = (c: Counts) => c.records + c.documents + c.blobs + c.leases;
const describeCounts = (c: Counts) =>
  `${plural(c.records, 'record')}, ${plural(c.documents, 'document')}, ${plural(c.blobs, 'blob')}, ${plural(c.leases, 'lease')}`;

// Raw SQL in this module: it works on an ATTACHed snapshot (`src.` / `main.` tables, INSERT …
// SELECT across them, a table list), which drizzle's builder cannot address.
function countNamespace(db: Database, ns: string, schema = 'main'): Counts {
  const n = (table: string) =>
    db.prepare(`SELECT count(*) AS n FROM ${schema}.${table} WHERE ns = ?`).get<{ n: number }>(ns)?.n ?? 0;
  return { records: n('records'), documents: n('documents'), blobs: n('blobs'), leases: n('leases') };
}

const NS_TABLES = ['records', 'documents', 'blobs', 'leases', 'store_meta', 'stream_counts'];

/**
 * A consistent copy of one namespace: the online backup API into `workDir`, then every other
 * namespace's rows dropped, rollback-journal mode (one self-contained file) and VACUUM.
 */
async function snapshotNamespace(
  db: Database,
  ns: string,
  workDir: string,
): Promise<{ file: string; counts: Counts }> {
  const file = join(workDir, DB_FILE);
  await db.backup(file);
  const snap = await openDatabase(file, { busyTimeoutMs: BULK_BUSY_TIMEOUT_MS });
  try {
    snap.transaction(() => {
      for (const t of NS_TABLES) snap.prepare(`DELETE FROM ${t} WHERE ns != ?`).run(ns);
    });
    snap.prepare('PRAGMA journal_mode = DELETE').get();
    snap.exec('VACUUM');
    return { file, counts: countNamespace(snap, ns) };
  } finally {
    snap.close();
  }
}

/** Online snapshot of the namespace packaged as `.tar.gz` (DB + manifest.json), mode 0600. */
export async function stateBackup(opts: AdminOptions, file: string): Promise<AdminResult> {
  const dir = resolve(opts.path);
  const ns = nsOf(opts);
  if (!existsSync(join(dir, DB_FILE))) return fail(`nothing to back up: no store at ${dir}`);
  const out = resolve(file);
  const work = mkdtempSync(join(tmpdir(), 'cronstable-backup-'));
  const { db } = await openAdmin(opts);
  try {
    const snap = await snapshotNamespace(db, ns, work);
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      formatVersion: BACKUP_FORMAT_VERSION,
      namespace: ns,
      createdAt: new Date(nowSeconds(opts) * 1000).toISOString(),
      counts: snap.counts,
    };
    writeFileSync(join(work, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
    await mkdir(dirname(out), { recursive: true });
    const tmp = `${out}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      await writeTarGz(tmp, [
        { name: MANIFEST, path: join(work, MANIFEST) },
        { name: DB_FILE, path: snap.file },
      ]);
      chmodSync(tmp, 0o600);
      renameSync(tmp, out);
    } catch (e) {
      rmSync(tmp, { force: true });
      throw e;
    }
    chmodSync(out, 0o600);
    return {
      ok: true,
      lines: [
        `state: backed up ${plural(total(snap.counts), 'item')} (${describeCounts(snap.counts)}) of namespace ${ns} from ${dir} to ${out}`,
      ],
    };
  } finally {
    db.close();
    rmSync(work, { recursive: true, force: true });
  }
}

interface MergeResult extends Counts {
  leasesKept: number;
}

/**
 * Merges namespace `fromNs` of the snapshot file into namespace `toNs` of `db`, in one
 * transaction: records appended (identical ones skipped), documents and blobs replaced,
 * leases only where the archived fence >= the current one (fences never regress).
 */
function mergeSnapshot(db: Database, snapshot: string, fromNs: string, toNs: string): MergeResult {
  db.prepare('ATTACH DATABASE ? AS src').run(snapshot);
  try {
    return db.transaction(() => {
      const records = db
        .prepare(
          `INSERT INTO main.records (ns, stream, schema_version, written_at, writer, data)
           SELECT ?, s.stream, s.schema_version, s.written_at, s.writer, s.data FROM src.records s
           WHERE s.ns = ? AND NOT EXISTS (SELECT 1 FROM main.records m WHERE m.ns = ? AND m.stream = s.stream
             AND m.written_at = s.written_at AND m.writer = s.writer AND m.data = s.data)
           ORDER BY s.id`,
        )
        .run(toNs, fromNs, toNs).changes;
      const documents = db
        .prepare(
          `INSERT INTO main.documents (ns, doc_ns, key, schema_version, data, updated_at)
           SELECT ?, doc_ns, key, schema_version, data, updated_at FROM src.documents WHERE ns = ?
           ON CONFLICT (ns, doc_ns, key) DO UPDATE SET schema_version = excluded.schema_version,
             data = excluded.data, updated_at = excluded.updated_at`,
        )
        .run(toNs, fromNs).changes;
      const blobs = db
        .prepare(
          `INSERT INTO main.blobs (ns, sha256, size, data, touched_at)
           SELECT ?, sha256, size, data, touched_at FROM src.blobs WHERE ns = ?
           ON CONFLICT (ns, sha256) DO UPDATE SET touched_at = max(touched_at, excluded.touched_at)`,
        )
        .run(toNs, fromNs).changes;
      const archived = db
        .prepare('SELECT name, holder, fence, expires_at, updated_at FROM src.leases WHERE ns = ?')
        .all<{ name: string; holder: string; fence: number; expires_at: number; updated_at: number }>(fromNs);
      let leases = 0;
      let leasesKept = 0;
      for (const l of archived) {
        const current = db
          .prepare('SELECT fence FROM main.leases WHERE ns = ? AND name = ?')
          .get<{ fence: number }>(toNs, l.name);
        if (current && l.fence < current.fence) {
          leasesKept++;
          continue;
        }
        db.prepare(
          `INSERT INTO main.leases (ns, name, holder, fence, expires_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (ns, name) DO UPDATE SET holder = excluded.holder, fence = excluded.fence,
             expires_at = excluded.expires_at, updated_at = excluded.updated_at`,
        ).run(toNs, l.name, l.holder, l.fence, l.expires_at, l.updated_at);
        leases++;
      }
      db.prepare(
        "INSERT OR IGNORE INTO main.store_meta (ns, key, value) SELECT ?, key, value FROM src.store_meta WHERE ns = ? AND key != 'probe'",
      ).run(toNs, fromNs);
      return { records, documents, blobs, leases, leasesKept };
    });
  } finally {
    db.prepare('DETACH DATABASE src').run();
  }
}

function lockedOrThrow(e: unknown): AdminResult {
  if (e instanceof StoreLockedError) return fail(e.message);
  throw e;
}

export interface RestoreOptions {
  force: boolean;
}

/**
 * Restores a backup into this configuration's namespace (stop the fleet first). Refuses a
 * non-empty namespace without `force`; with it, merges (fence-max for leases).
 */
export async function stateRestore(
  opts: AdminOptions,
  file: string,
  ro: RestoreOptions,
): Promise<AdminResult> {
  const archive = resolve(file);
  if (!existsSync(archive)) return fail(`no such backup file: ${archive}`);
  const place = await resolveStorePlace(opts);
  const ns = nsOf(opts);
  let release: () => void;
  try {
    release = acquireAdminLock(place.dir, 'restore');
  } catch (e) {
    return lockedOrThrow(e);
  }
  const work = mkdtempSync(join(tmpdir(), 'cronstable-restore-'));
  try {
    try {
      await readTarGz(archive, work, new Set([MANIFEST, DB_FILE]));
    } catch (e) {
      return fail(`${archive} is not a cronstable state backup: ${errorText(e)}`);
    }
    let manifest: BackupManifest;
    try {
      manifest = JSON.parse(readFileSync(join(work, MANIFEST), 'utf8')) as BackupManifest;
    } catch {
      return fail(`${archive} has no readable ${MANIFEST}`);
    }
    if (manifest.format !== BACKUP_FORMAT || !existsSync(join(work, DB_FILE)))
      return fail(`${archive} is not a cronstable state backup`);
    if (manifest.formatVersion > BACKUP_FORMAT_VERSION)
      return fail(
        `${archive} has backup format ${manifest.formatVersion}; this cronstable reads up to ${BACKUP_FORMAT_VERSION}`,
      );
    const { db } = await openAdmin(opts, place);
    try {
      const present = countNamespace(db, ns);
      if (total(present) > 0 && !ro.force)
        return fail(
          `the store at ${place.dir} already holds data in namespace ${ns} (${describeCounts(present)}); stop the fleet and pass --force to merge the backup into it`,
        );
      const merged = mergeSnapshot(db, join(work, DB_FILE), manifest.namespace, ns);
      return {
        ok: true,
        lines: [
          `state: restored ${plural(total(merged), 'item')} (${describeCounts(merged)}) from ${archive} into ${place.dir} (namespace ${ns}); kept ${plural(merged.leasesKept, 'lease')} with a higher current fence`,
        ],
      };
    } finally {
      db.close();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
    release();
  }
}

export interface MigrateOptions {
  dest: string;
  /** Namespace at the destination; default: the source namespace. */
  destNamespace?: string;
  force: boolean;
}

function inside(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Copies this namespace to another store directory (and/or namespace). Stop the fleet first. */
export async function stateMigrate(opts: AdminOptions, mo: MigrateOptions): Promise<AdminResult> {
  const src = resolve(opts.path);
  const dest = resolve(mo.dest);
  const ns = nsOf(opts);
  const destNs = mo.destNamespace || ns;
  if (inside(dest, src) || inside(realOrSelf(dest), realOrSelf(src)))
    return fail(
      dest === src || realOrSelf(dest) === realOrSelf(src)
        ? `the destination ${dest} is the source store`
        : `the destination ${dest} is inside the source store ${src}`,
    );
  if (!existsSync(join(src, DB_FILE))) return fail(`nothing to migrate: no store at ${src}`);
  await mkdir(dest, { recursive: true, mode: 0o700 });
  let releaseSrc: () => void;
  let releaseDest: () => void;
  try {
    releaseSrc = acquireAdminLock(src, 'migrate');
  } catch (e) {
    return lockedOrThrow(e);
  }
  try {
    releaseDest = acquireAdminLock(dest, 'migrate');
  } catch (e) {
    releaseSrc();
    return lockedOrThrow(e);
  }
  const work = mkdtempSync(join(tmpdir(), 'cronstable-migrate-'));
  try {
    const source = await openAdmin(opts);
    let snap: { file: string; counts: Counts };
    try {
      snap = await snapshotNamespace(source.db, ns, work);
    } finally {
      source.db.close();
    }
    const target = await openAdmin({ ...opts, path: dest, namespace: destNs, topology: 'auto' });
    try {
      const present = countNamespace(target.db, destNs);
      if (total(present) > 0 && !mo.force)
        return fail(
          `the destination ${dest} already holds data in namespace ${destNs} (${describeCounts(present)}); pass --force to merge into it`,
        );
      const merged = mergeSnapshot(target.db, snap.file, ns, destNs);
      const lines = [
        `state: migrated ${plural(total(merged), 'item')} (${describeCounts(merged)}) from ${src} (namespace ${ns}) to ${dest} (namespace ${destNs}); kept ${plural(merged.leasesKept, 'lease')} with a higher current fence`,
        `state: point state.path at ${dest}${destNs !== ns ? ` and state.deploymentId at ${destNs}` : ''} before starting the fleet again`,
      ];
      return { ok: true, lines };
    } finally {
      target.db.close();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
    releaseDest();
    releaseSrc();
  }
}

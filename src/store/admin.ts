// Offline state administration (spec 03 §9, §11): check, gc, backup, restore, migrate. Runs
// SQLite inline on the calling thread. Each command returns the lines to print and whether it
// succeeded (the CLI maps ok=false to exit 1); unexpected failures throw.
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, realpathSync, unlinkSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  type AdminOptions,
  type AdminResult,
  fail,
  nowSeconds,
  nsOf,
  openAdmin,
  plural,
} from './admin-common.ts';
import { type ResolvedStorePlace, resolveStorePlace } from './index.ts';
import { SCHEMA_VERSION } from './primitives/common.ts';
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
      ...fail(`store at ${resolve(opts.path)} is not writable: ${(e as Error).message}`),
      integrity: 'n/a',
      prefixes: {},
    };
  }
  const { db, description } = await openAdmin(opts, place);
  try {
    db.transaction(() => {
      db.prepare("INSERT INTO store_meta (ns, key, value) VALUES (?, 'probe', ?)").run(
        ns,
        String(process.pid),
      );
      db.prepare("DELETE FROM store_meta WHERE ns = ? AND key = 'probe'").run(ns);
    });
    const integrityRows = db.prepare('PRAGMA integrity_check').all<{ integrity_check: string }>();
    const integrity = integrityRows.map((r) => r.integrity_check).join('; ');
    const mount = probeMount(realpathSync(place.dir));
    const streams = db
      .prepare('SELECT stream, count(*) AS n FROM records WHERE ns = ? GROUP BY stream')
      .all<{ stream: string; n: number }>(ns);
    const prefixes: Record<string, number> = {};
    let total = 0;
    for (const s of streams) {
      const slash = s.stream.indexOf('/');
      const prefix = slash < 0 ? s.stream : s.stream.slice(0, slash);
      prefixes[prefix] = (prefixes[prefix] ?? 0) + s.n;
      total += s.n;
    }
    const unknown =
      db
        .prepare('SELECT count(*) AS n FROM records WHERE ns = ? AND schema_version != ?')
        .get<{ n: number }>(ns, SCHEMA_VERSION)?.n ?? 0;
    const docs = db
      .prepare(
        "SELECT substr(doc_ns, 1, instr(doc_ns || '/', '/') - 1) AS kind, count(*) AS n FROM documents WHERE ns = ? GROUP BY kind ORDER BY kind",
      )
      .all<{ kind: string; n: number }>(ns);
    const blobs = db
      .prepare('SELECT count(*) AS n, coalesce(sum(size), 0) AS bytes FROM blobs WHERE ns = ?')
      .get<{ n: number; bytes: number }>(ns)!;
    const leases = db
      .prepare('SELECT count(*) AS n, coalesce(sum(expires_at > ?), 0) AS live FROM leases WHERE ns = ?')
      .get<{ n: number; live: number }>(nowSeconds(opts), ns)!;
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
      `blobs: ${blobs.n} (${plural(blobs.bytes, 'byte')})`,
      `leases: ${leases.n} (${leases.live} live)`,
      `unknown_schema: ${plural(unknown, 'record')}`,
      `quarantined: ${plural(0, 'record')}`,
    ];
    return { ok: integrity === 'ok', lines, integrity, prefixes };
  } finally {
    db.close();
  }
}

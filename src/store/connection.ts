// One configured SQLite connection: driver, pragmas for the topology, migrations, and the
// namespace's one-time `storeVersion` stamp. Used by the worker lanes and by inline mode.
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { and, eq, sql } from 'drizzle-orm';
import { type Database, type Orm, openDatabase } from './driver.ts';
import { migrate } from './migrate.ts';
import { storeMeta } from './schema.ts';
import { applyPragmas } from './topology.ts';
import type { Topology } from './types.ts';

export const DB_FILE = 'cronstable.db';
export const LOCK_FILE = 'cronstable.lock';
export const STORE_VERSION = 'v1';

export interface ConnectionSpec {
  /** Directory holding cronstable.db. */
  dir: string;
  topology: Topology;
  busyTimeoutMs: number;
  ns: string;
  /**
   * Apply migrations and stamp the namespace (default true). False for a further connection of
   * a store this process already opened: pragmas only, so opening it never waits for another
   * connection's write lock (a lease read on a WAL store while someone else writes).
   */
  setUp?: boolean;
}

export interface Connection {
  db: Database;
  journalMode: string;
  warnings: string[];
}

/**
 * Creates the directory (0700) and returns the database path. The file itself is created by
 * SQLite and then chmod'ed to 0600 by path: opening and closing it with node:fs would drop
 * every POSIX lock this process holds on it (another lane's open transaction included).
 */
export function prepareFiles(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return join(dir, DB_FILE);
}

/** Owner-only database file (journals inherit the mode), by path, never through an fd. */
function restrictMode(file: string): void {
  try {
    if ((statSync(file).mode & 0o777) !== 0o600) chmodSync(file, 0o600);
  } catch {
    // Not ours to chmod (another user's file): SQLite reports real access problems itself.
  }
}

export async function openConnection(spec: ConnectionSpec): Promise<Connection> {
  const file = prepareFiles(spec.dir);
  const db = await openDatabase(file, { busyTimeoutMs: spec.busyTimeoutMs });
  restrictMode(file);
  try {
    const warnings: string[] = [];
    const journalMode = applyPragmas(db, spec.topology, spec.busyTimeoutMs);
    const wanted = spec.topology === 'shared' ? 'delete' : 'wal';
    if (journalMode !== wanted)
      warnings.push(
        `store journal mode is '${journalMode}', wanted '${wanted}' for topology ${spec.topology} (another process holds the database in the other mode?)`,
      );
    if (spec.setUp === false) return { db, journalMode, warnings };
    const result = migrate(db);
    if (result.unknown.length > 0)
      warnings.push(
        `the store has migrations this version does not know (${result.unknown.join(', ')}): a newer cronstable wrote it`,
      );
    const version = stampMeta(db, spec.ns);
    if (version !== STORE_VERSION)
      warnings.push(
        `namespace '${spec.ns}' is stamped storeVersion '${version}' (this build writes '${STORE_VERSION}'); consider \`cronstable state migrate-schema\``,
      );
    return { db, journalMode, warnings };
  } catch (e) {
    db.close();
    throw e;
  }
}

const metaQ = (o: Orm) =>
  o
    .select({ value: storeMeta.value })
    .from(storeMeta)
    .where(and(eq(storeMeta.ns, sql.placeholder('ns')), eq(storeMeta.key, 'storeVersion')))
    .prepare();
const stampQ = (o: Orm) =>
  o
    .insert(storeMeta)
    .values({ ns: sql.placeholder('ns'), key: sql.placeholder('key'), value: sql.placeholder('value') })
    .onConflictDoNothing()
    .prepare();

/** Stamps `storeVersion` and `createdAt` once per namespace; returns the stamped version. */
export function stampMeta(db: Database, ns: string): string {
  const read = () => db.prepared(metaQ).get({ ns })?.value;
  const existing = read();
  if (existing !== undefined) return existing;
  db.transaction(() => {
    const insert = db.prepared(stampQ);
    insert.run({ ns, key: 'storeVersion', value: STORE_VERSION });
    insert.run({ ns, key: 'createdAt', value: String(Date.now() / 1000) });
  });
  return read() ?? STORE_VERSION;
}

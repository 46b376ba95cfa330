// Start-up checks of the filesystem backend (spec 05 §8.4 as mapped to SQLite by §14): the
// mount must give real cross-host locks, and SQLite's locks on the store file must exclude.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { DB_FILE } from '../../store/connection.ts';
import { type Database, isBusyError, openDatabase } from '../../store/driver.ts';
import type { MountProbe } from '../../store/topology.ts';
import { errorText } from '../../util/errors.ts';

function refusing(path: string, why: string): string {
  return `cluster.backend filesystem: refusing to elect over ${path}: ${why}`;
}

/** An NFS mount whose locks are host-local cannot fence other nodes: the refusal, or null. */
export function mountRefusal(path: string, probe: MountProbe): string | null {
  if (!probe.fsType?.startsWith('nfs') || !probe.locksHostLocal) return null;
  return refusing(
    path,
    `the ${probe.fsType} mount ${probe.mountPoint} uses nolock or local_lock=flock|all: its locks are host-local and cannot fence other nodes`,
  );
}

/** Locks that exclude only this host: a warning unless the store is declared shared. */
export function topologyWarning(path: string, topology: 'single-node' | 'shared'): string | null {
  if (topology === 'shared') return null;
  return `cluster.backend filesystem: ${path} resolves to topology '${topology}': its locks only exclude processes on this host; set cluster.filesystem.topology: shared when several hosts mount it`;
}

export type FidelityVerdict =
  | { verdict: 'ok' }
  | { verdict: 'refuse'; message: string }
  | { verdict: 'inconclusive'; why: string };

function closeQuietly(db: Database | null): void {
  try {
    db?.close();
  } catch {
    // Closing is best effort.
  }
}

/** A second connection's try at the write lock while the first one holds it. */
export type LockAttempt = 'granted' | 'busy' | { error: string };

/** Either contender getting the lock too means the locks are no-ops; one clean BUSY is proof. */
export function fidelityVerdict(dir: string, attempts: LockAttempt[]): FidelityVerdict {
  const where = `${dir}/${DB_FILE}`;
  if (attempts.includes('granted'))
    return {
      verdict: 'refuse',
      message: refusing(dir, `${where} grants two exclusive locks on one file (its locks are no-ops)`),
    };
  if (attempts.includes('busy')) return { verdict: 'ok' };
  const why = attempts.map((a) => (typeof a === 'object' ? a.error : a)).join('; ');
  return { verdict: 'inconclusive', why: why || 'no second connection could try the lock' };
}

function attemptHere(db: Database): LockAttempt {
  try {
    db.exec('BEGIN IMMEDIATE');
    db.exec('ROLLBACK');
    return 'granted';
  } catch (e) {
    return isBusyError(e) ? 'busy' : { error: `second lock: ${errorText(e)}` };
  }
}

const CHILD_PROBE = `
const Database = require(process.argv[1]);
let db;
try {
  db = new Database(process.argv[2], { timeout: 0, fileMustExist: true });
  db.exec('BEGIN IMMEDIATE');
  db.exec('ROLLBACK');
  process.stdout.write('granted');
} catch (e) {
  process.stdout.write(String(e.code || '').startsWith('SQLITE_BUSY') ? 'busy' : 'error ' + e.message);
} finally {
  try { db && db.close(); } catch {}
}`;

/**
 * The same try from another process: SQLite settles two connections of one process in memory
 * before asking the filesystem, so only another process meets the filesystem's own locks.
 * Node with better-sqlite3 only; elsewhere (Bun, Deno) null: the in-process try stands alone.
 */
export function lockAttemptFromAnotherProcess(file: string, timeoutMs: number): Promise<LockAttempt | null> {
  if (process.versions.bun || 'Deno' in globalThis) return Promise.resolve(null);
  let driver: string;
  try {
    driver = createRequire(import.meta.url).resolve('better-sqlite3');
  } catch {
    return Promise.resolve(null);
  }
  return new Promise((resolveAttempt) => {
    execFile(
      process.execPath,
      ['-e', CHILD_PROBE, driver, file],
      { timeout: timeoutMs, env: {}, windowsHide: true },
      (err, stdout) => {
        const out = String(stdout).trim();
        if (out === 'granted' || out === 'busy') resolveAttempt(out);
        else resolveAttempt({ error: `lock probe process: ${out || err?.message || 'no answer'}` });
      },
    );
  });
}

/**
 * Two independent connections to the store file (spec 05 §8.4 as §14 maps it): the first
 * takes `BEGIN IMMEDIATE`; a second one, with busy_timeout 0, must then fail SQLITE_BUSY, both
 * in this process and in another. If one also gets the write lock, the filesystem's locks are
 * no-ops and electing over it would fence nothing. Anything else (the file busy already, an
 * I/O error) is inconclusive: the election proceeds.
 */
export async function probeLockFidelity(dir: string, childTimeoutMs = 5000): Promise<FidelityVerdict> {
  const file = `${dir}/${DB_FILE}`;
  let first: Database | null = null;
  let second: Database | null = null;
  try {
    first = await openDatabase(file, { busyTimeoutMs: 0 });
    second = await openDatabase(file, { busyTimeoutMs: 0 });
    try {
      first.exec('BEGIN IMMEDIATE');
    } catch (e) {
      return { verdict: 'inconclusive', why: `first lock: ${errorText(e)}` };
    }
    try {
      const here = attemptHere(second);
      const there = await lockAttemptFromAnotherProcess(file, childTimeoutMs);
      return fidelityVerdict(dir, there === null ? [here] : [here, there]);
    } finally {
      try {
        first.exec('ROLLBACK');
      } catch {
        // The transaction may already be gone with a failed connection.
      }
    }
  } catch (e) {
    return { verdict: 'inconclusive', why: errorText(e) };
  } finally {
    closeQuietly(second);
    closeQuietly(first);
  }
}

// Start-up checks of the filesystem backend (spec 05 §8.4 as mapped to SQLite by §14): the
// mount must give real cross-host locks, and SQLite's locks on the store file must exclude.
import { DB_FILE } from '../../store/connection.ts';
import { type Database, isBusyError, openDatabase } from '../../store/driver.ts';
import type { MountProbe } from '../../store/topology.ts';

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

/**
 * Two independent connections to the store file: the first takes `BEGIN IMMEDIATE`; the
 * second, with busy_timeout 0, must then fail SQLITE_BUSY. If it also gets the write lock,
 * the filesystem's locks are no-ops and electing over it would fence nothing. Anything else
 * (the file busy already, an I/O error) is inconclusive: the election proceeds.
 */
export async function probeLockFidelity(dir: string): Promise<FidelityVerdict> {
  const file = `${dir}/${DB_FILE}`;
  let first: Database | null = null;
  let second: Database | null = null;
  try {
    first = await openDatabase(file, { busyTimeoutMs: 0 });
    second = await openDatabase(file, { busyTimeoutMs: 0 });
    try {
      first.exec('BEGIN IMMEDIATE');
    } catch (e) {
      return { verdict: 'inconclusive', why: `first lock: ${(e as Error).message}` };
    }
    try {
      second.exec('BEGIN IMMEDIATE');
      second.exec('ROLLBACK');
      return {
        verdict: 'refuse',
        message: refusing(dir, `${file} grants two exclusive locks on one file (its locks are no-ops)`),
      };
    } catch (e) {
      if (isBusyError(e)) return { verdict: 'ok' };
      return { verdict: 'inconclusive', why: `second lock: ${(e as Error).message}` };
    } finally {
      try {
        first.exec('ROLLBACK');
      } catch {
        // The transaction may already be gone with a failed connection.
      }
    }
  } catch (e) {
    return { verdict: 'inconclusive', why: (e as Error).message };
  } finally {
    closeQuietly(second);
    closeQuietly(first);
  }
}

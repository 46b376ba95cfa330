// The admin lock `<state.path>/cronstable.lock` (DESIGN.md §5): held exclusively by restore and
// migrate so no daemon opens the store meanwhile. Protocol: exclusive create (O_EXCL) of a file
// holding {pid, host, op, at, token}. A lock left by a dead process on this host is stale and
// broken by the next taker; a lock from another host is honoured until removed by hand.
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { pidAlive } from '../util/pid.ts';
import { LOCK_FILE } from './connection.ts';
import { StoreLockedError } from './types.ts';

export interface AdminLockInfo {
  pid: number;
  host: string;
  op: string;
  /** Epoch seconds. */
  at: number;
  token: string;
}

/** An unreadable lock file younger than this is being written right now. */
const UNREADABLE_GRACE_MS = 60_000;

type LockState =
  | { state: 'free' }
  | { state: 'held'; info: AdminLockInfo | null; raw: string }
  | { state: 'stale'; raw: string };

function inspect(path: string): LockState {
  let raw: string;
  let mtimeMs: number;
  try {
    raw = readFileSync(path, 'utf8');
    mtimeMs = statSync(path).mtimeMs;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'free' };
    throw e;
  }
  let info: AdminLockInfo | null = null;
  try {
    const v = JSON.parse(raw) as AdminLockInfo;
    if (typeof v.pid === 'number' && typeof v.host === 'string') info = v;
  } catch {
    info = null;
  }
  if (!info)
    return Date.now() - mtimeMs > UNREADABLE_GRACE_MS
      ? { state: 'stale', raw }
      : { state: 'held', info, raw };
  if (info.host === hostname() && !pidAlive(info.pid)) return { state: 'stale', raw };
  return { state: 'held', info, raw };
}

function describe(path: string, info: AdminLockInfo | null): string {
  const who = info
    ? `'${info.op}' by pid ${info.pid} on ${info.host} since ${new Date(info.at * 1000).toISOString()}`
    : 'an admin operation';
  return `the state store is locked by ${who} (${path}); wait for it to finish, or remove the file if no admin operation is running`;
}

/** Throws StoreLockedError while a live admin lock is held (the daemon's open check). */
export function assertNotAdminLocked(dir: string): void {
  const path = join(dir, LOCK_FILE);
  const s = inspect(path);
  if (s.state === 'held') throw new StoreLockedError(describe(path, s.info));
}

/** Moves a stale lock aside; puts it back if it turned out to be a fresh one (lost race). */
function breakStale(path: string, staleRaw: string): void {
  const aside = `${path}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch {
    return;
  }
  let raw = '';
  try {
    raw = readFileSync(aside, 'utf8');
  } catch {
    // Vanished: nothing to restore.
  }
  if (raw !== staleRaw) {
    try {
      linkSync(aside, path);
    } catch {
      // Someone took the lock meanwhile; theirs stands.
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    // Already gone.
  }
}

/** Takes the admin lock (throws StoreLockedError if held); returns its release function. */
export function acquireAdminLock(dir: string, op: string): () => void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, LOCK_FILE);
  const info: AdminLockInfo = {
    pid: process.pid,
    host: hostname(),
    op,
    at: Date.now() / 1000,
    token: randomBytes(16).toString('hex'),
  };
  const text = `${JSON.stringify(info)}\n`;
  for (let attempt = 0; attempt < 5; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, 'wx', 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const s = inspect(path);
      if (s.state === 'held') throw new StoreLockedError(describe(path, s.info));
      if (s.state === 'stale') breakStale(path, s.raw);
      continue;
    }
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    return () => {
      try {
        if (readFileSync(path, 'utf8') === text) unlinkSync(path);
      } catch {
        // Already gone.
      }
    };
  }
  throw new StoreLockedError(describe(path, null));
}

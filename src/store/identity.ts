// The store file's identity (device + inode), so an open connection notices when the file it
// writes was deleted or replaced under it: SQLite keeps writing to an unlinked inode without
// complaint, and every acknowledged write after that is lost at the next open.
import { statSync } from 'node:fs';

export interface FileId {
  dev: number;
  ino: number;
}

/** The identity at `path` now, or null when nothing (or not a regular file) is there. */
export function fileIdAt(path: string): FileId | null {
  try {
    const s = statSync(path);
    return s.isFile() ? { dev: s.dev, ino: s.ino } : null;
  } catch {
    return null;
  }
}

/**
 * Whether `path` holds something worth reopening as a store: a non-empty regular file. Read by
 * stat only: opening the file with node:fs and closing it would drop POSIX locks another
 * connection of this process holds on it.
 */
export function holdsStore(path: string): boolean {
  try {
    const s = statSync(path);
    return s.isFile() && s.size > 0;
  } catch {
    return false;
  }
}

export type FileFault = 'deleted' | 'replaced';

/** Compares the identity recorded at open with the path's current one. */
export function faultOf(recorded: FileId, path: string): FileFault | null {
  const now = fileIdAt(path);
  if (!now) return 'deleted';
  return now.dev === recorded.dev && now.ino === recorded.ino ? null : 'replaced';
}

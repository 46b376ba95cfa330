// Topology resolution (spec 03 §1.1 `topology: auto`, §13.3) and the per-topology pragmas.
import { readFileSync } from 'node:fs';
import type { Database } from './driver.ts';
import type { Topology } from './types.ts';

/** Filesystems several hosts mount at once: SQLite must use a rollback journal there. */
const SHARED_FS = new Set([
  'nfs',
  'nfs4',
  'cifs',
  'smb',
  'smb3',
  'smbfs',
  'lustre',
  'glusterfs',
  'ceph',
  'fuse.sshfs',
]);

export interface MountProbe {
  /** Filesystem type of the mount holding the path; null when undecidable. */
  fsType: string | null;
  mountPoint: string | null;
  /** `nolock` / `local_lock=flock|all`: POSIX locks are host-local, SQLite cannot coordinate hosts. */
  locksHostLocal: boolean;
  /** What `auto` resolves to. */
  topology: Topology;
}

/** `\040`-style octal escapes of /proc/self/mountinfo. */
function unescapeMount(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(Number.parseInt(oct, 8)));
}

/** Probes /proc/self/mountinfo for the longest mount point containing `realPath`. */
export function probeMount(realPath: string, mountinfo?: string): MountProbe {
  let text = mountinfo;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/mountinfo', 'utf8');
    } catch {
      return { fsType: null, mountPoint: null, locksHostLocal: false, topology: 'single-node' };
    }
  }
  let best: { point: string; fsType: string; opts: string } | null = null;
  for (const line of text.split('\n')) {
    const sep = line.indexOf(' - ');
    if (sep < 0) continue;
    const left = line.slice(0, sep).split(' ');
    const right = line.slice(sep + 3).split(' ');
    const point = unescapeMount(left[4] ?? '');
    const fsType = right[0] ?? '';
    if (!point || !fsType) continue;
    const inside =
      point === '/' || realPath === point || realPath.startsWith(point.endsWith('/') ? point : `${point}/`);
    // Later lines of the same mount point shadow earlier ones (over-mounts).
    if (inside && (!best || point.length >= best.point.length))
      best = { point, fsType, opts: `${left[5] ?? ''},${right[2] ?? ''}` };
  }
  if (!best) return { fsType: null, mountPoint: null, locksHostLocal: false, topology: 'single-node' };
  const opts = best.opts.split(',');
  const locksHostLocal =
    opts.includes('nolock') || opts.includes('local_lock=flock') || opts.includes('local_lock=all');
  return {
    fsType: best.fsType,
    mountPoint: best.point,
    locksHostLocal,
    topology: SHARED_FS.has(best.fsType) ? 'shared' : 'single-node',
  };
}

/** Explicit topology wins; `auto` takes the probe's answer. Returns a warning on mismatch. */
export function resolveTopology(
  wanted: 'auto' | Topology,
  probe: MountProbe,
): { topology: Topology; warning: string | null } {
  if (wanted === 'auto') return { topology: probe.topology, warning: null };
  if (probe.fsType && wanted !== probe.topology)
    return {
      topology: wanted,
      warning: `state.topology is '${wanted}' but the store's filesystem (${probe.fsType} at ${probe.mountPoint}) looks ${probe.topology}; using '${wanted}'`,
    };
  return { topology: wanted, warning: null };
}

/**
 * Connection pragmas (spec 03 §13.3). `shared`: rollback journal, full sync, no mmap (WAL's
 * shared-memory index does not work across hosts). `single-node`: WAL. Both keep
 * synchronous=FULL so an acknowledged write survives power loss; the lanes' group commit
 * keeps that affordable. Returns the journal mode actually in force. (Raw SQL: drizzle's builder
 * has no PRAGMA.)
 */
export function applyPragmas(db: Database, topology: Topology, busyTimeoutMs: number): string {
  db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
  db.exec('PRAGMA locking_mode = NORMAL');
  if (topology === 'shared') db.exec('PRAGMA mmap_size = 0');
  const wanted = topology === 'shared' ? 'delete' : 'wal';
  const mode = setJournalMode(db, wanted);
  db.exec('PRAGMA synchronous = FULL');
  return mode;
}

/** Changing the journal mode needs a moment of exclusive access: retry briefly on BUSY. */
function setJournalMode(db: Database, wanted: string): string {
  const current = (
    db.prepare('PRAGMA journal_mode').get<{ journal_mode: string }>()?.journal_mode ?? ''
  ).toLowerCase();
  if (current === wanted) return current;
  const deadline = Date.now() + 5000;
  for (;;) {
    try {
      const row = db.prepare(`PRAGMA journal_mode = ${wanted.toUpperCase()}`).get<{ journal_mode: string }>();
      return (row?.journal_mode ?? '').toLowerCase();
    } catch (e) {
      if (Date.now() > deadline) throw e;
      sleepSync(10 + Math.random() * 20);
    }
  }
}

const sleepCell = new Int32Array(new SharedArrayBuffer(4));

/** Blocks the calling thread (worker lanes, admin CLI, open-time retries only). */
export function sleepSync(ms: number): void {
  Atomics.wait(sleepCell, 0, 0, ms);
}

// The host's compiled tz database (/usr/share/zoneinfo, or $TZDIR): zone files by name, cached per zone,
// and the host's own zone from TZ or /etc/localtime. The one place in the schedule engine that reads
// files; reading them spares the process ICU's zone data (~5 MB resident, plus ICU objects on the heap).
// The engine also runs in the browser dashboard, so node:fs is looked up at run time, not imported: where
// there is no file system (or a Node older than 20.16) every zone simply stays on Intl.
import { parseTzif, type TzifZone } from './tzif.ts';
import { isListedZoneName } from './tznames.ts';

const DEFAULT_DIR = '/usr/share/zoneinfo';

interface FsLike {
  readFileSync(path: string): Uint8Array;
  readlinkSync(path: string): string;
}
interface ProcessLike {
  env: Record<string, string | undefined>;
  getBuiltinModule?: (id: string) => unknown;
}

const proc = (globalThis as { process?: ProcessLike }).process;
let fs: FsLike | null | undefined;

function nodeFs(): FsLike | null {
  if (fs === undefined) fs = (proc?.getBuiltinModule?.('node:fs') as FsLike | undefined) ?? null;
  return fs;
}

/** An absolute path with '.', '..' and repeated slashes folded away (relative paths are read from base). */
function normalize(path: string, base: string): string {
  const out: string[] = [];
  for (const part of `${path.startsWith('/') ? '' : `${base}/`}${path}`.split('/')) {
    if (part === '..') out.pop();
    else if (part !== '' && part !== '.') out.push(part);
  }
  return `/${out.join('/')}`;
}

let files = new Map<string, TzifZone | null>();
let filesDir = '';

/** The zoneinfo directory: $TZDIR when set, else the usual Linux location. */
export function zoneinfoDir(): string {
  const dir = proc?.env.TZDIR;
  return normalize(dir !== undefined && dir !== '' ? dir : DEFAULT_DIR, '/');
}

/** The path of a zone's file inside dir, or null when the name could lead anywhere else. */
function zonePath(dir: string, name: string): string | null {
  // Names come from the tz list (tznames.ts) already; this guards the file system on its own anyway.
  if (
    !isListedZoneName(name) ||
    name.includes('\0') ||
    name.split('/').some((p) => p === '..' || p === '.')
  ) {
    return null;
  }
  const path = normalize(name, dir);
  return path.startsWith(`${dir}/`) ? path : null;
}

/** A listed zone's parsed file, or null (no such file, unreadable, or not a TZif file we trust). */
export function zoneFile(name: string): TzifZone | null {
  const dir = zoneinfoDir();
  if (dir !== filesDir) {
    files = new Map();
    filesDir = dir;
  }
  let z = files.get(name);
  if (z !== undefined) return z;
  z = null;
  const path = zonePath(dir, name);
  const reader = nodeFs();
  if (path !== null && reader !== null) {
    try {
      z = parseTzif(reader.readFileSync(path));
    } catch {
      z = null;
    }
  }
  files.set(name, z);
  return z;
}

/** Forgets every parsed zone file (cold-start measurements, tests that switch TZDIR). */
export function clearZoneFiles(): void {
  files = new Map();
}

/** A listed zone name for a path inside the zoneinfo tree (or one of its usual spellings), else null. */
function nameFromPath(path: string): string | null {
  const dir = zoneinfoDir();
  const abs = normalize(path, '/etc');
  const rel = abs.startsWith(`${dir}/`) ? abs.slice(dir.length + 1) : null;
  if (rel !== null && isListedZoneName(rel)) return rel;
  // /etc/localtime often points into /usr/share/zoneinfo while TZDIR (or a distro) names another tree.
  const at = path.lastIndexOf('/zoneinfo/');
  if (at < 0) return null;
  const tail = path.slice(at + '/zoneinfo/'.length).replace(/^(posix|right)\//, '');
  return isListedZoneName(tail) ? tail : null;
}

/**
 * The host's zone name from TZ (a name, ':name', or a path into the zoneinfo tree) or, with TZ unset, the
 * /etc/localtime symlink; null when neither names a listed zone with a readable file (callers ask Intl).
 */
export function hostZoneFromSystem(env: Record<string, string | undefined> = proc?.env ?? {}): string | null {
  const tz = env.TZ;
  let name: string | null;
  if (tz !== undefined) {
    const v = tz.startsWith(':') ? tz.slice(1) : tz;
    name = v.startsWith('/') ? nameFromPath(v) : isListedZoneName(v) ? v : null;
  } else {
    try {
      const link = nodeFs()?.readlinkSync('/etc/localtime');
      name = link === undefined ? null : nameFromPath(link);
    } catch {
      name = null;
    }
  }
  return name !== null && zoneFile(name) !== null ? name : null;
}

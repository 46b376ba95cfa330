// `workingDirectory` and `priority` (spec 09 §3): where a job's process starts and at what nice.
// Both are resolved at load; pure apart from the injected home-directory lookup.
import { isAbsolute, normalize, resolve } from 'node:path';

export const PRIORITY_LEVELS = ['idle', 'below-normal', 'normal', 'above-normal', 'high'] as const;
export type PriorityLevel = (typeof PRIORITY_LEVELS)[number];

/** The absolute POSIX nice of a level; null for `normal` (the job keeps the daemon's own nice). */
export function niceOf(level: PriorityLevel): number | null {
  switch (level) {
    case 'idle':
      return 19;
    case 'below-normal':
      return 10;
    case 'above-normal':
      return -5;
    case 'high':
      return -10;
    default:
      return null;
  }
}

/** Home directories: the daemon user's (`~`) and a named user's (`~user`); null = unknown. */
export interface HomeLookup {
  own(): string | null;
  of(user: string): string | null;
}

/**
 * Null, `""` or blank inherit the daemon's cwd (a blank value opts out of a `defaults:` one).
 * Otherwise `~` and `~user` expand, the path is made absolute against the daemon's cwd at load
 * and normalised lexically: symlinks are the kernel's business at chdir time.
 */
export function resolveWorkingDirectory(raw: string | null, cwd: string, homes: HomeLookup): string | null {
  if (raw === null || raw.trim() === '') return null;
  let path = raw;
  const tilde = /^~([^/]*)(\/.*)?$/.exec(raw);
  if (tilde) {
    const home = tilde[1] === '' ? homes.own() : homes.of(tilde[1] ?? '');
    if (home !== null) path = home + (tilde[2] ?? '');
  }
  return isAbsolute(path) ? normalize(path) : resolve(cwd, path);
}

/**
 * The load-time advisory: a level that would raise priority above the daemon's own nice needs
 * CAP_SYS_NICE (root) or RLIMIT_NICE headroom; the job still runs where the kernel refuses.
 */
export function priorityRaiseWarning(
  owner: string,
  level: PriorityLevel,
  ownNice: number,
  euid: number | null,
): string | null {
  const nice = niceOf(level);
  if (nice === null || euid === 0 || nice >= ownNice) return null;
  return `job '${owner}' asks for priority '${level}' (nice ${nice}), a raise from cronstable's own nice ${ownNice}, which needs CAP_SYS_NICE or RLIMIT_NICE headroom; where the kernel refuses it the job still runs, at the priority it inherited`;
}

/** This host's homes: `HOME` (else the passwd entry of the daemon's uid) and passwd by name. */
export function systemHomes(readPasswd: () => string): HomeLookup {
  let entries: string[][] | null = null;
  const passwd = () => {
    if (entries === null) {
      try {
        entries = readPasswd()
          .split('\n')
          .map((l) => l.split(':'));
      } catch {
        entries = [];
      }
    }
    return entries;
  };
  return {
    own: () => {
      if (process.env.HOME) return process.env.HOME;
      const uid = String(process.getuid?.() ?? -1);
      return passwd().find((f) => f[2] === uid)?.[5] ?? null;
    },
    of: (user) => passwd().find((f) => f[0] === user)?.[5] ?? null,
  };
}

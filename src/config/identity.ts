// `user` / `group` resolution from the passwd and group databases (spec 02 §3.5).
import { readFileSync } from 'node:fs';
import { quote } from './errors.ts';
import type { RunAs } from './types.ts';

export interface IdentityDb {
  passwd: { name: string; uid: number; gid: number }[];
  groups: { name: string; gid: number }[];
}

function readLines(path: string): string[][] {
  try {
    return readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => l.split(':'));
  } catch {
    return [];
  }
}

export function systemIdentityDb(): IdentityDb {
  return {
    passwd: readLines('/etc/passwd').map((f) => ({ name: f[0] ?? '', uid: Number(f[2]), gid: Number(f[3]) })),
    groups: readLines('/etc/group').map((f) => ({ name: f[0] ?? '', gid: Number(f[2]) })),
  };
}

/** Returns the uid/gid to switch to, or throws an Error whose message is the config error text. */
export function resolveRunAs(
  jobName: string,
  user: number | string | null,
  group: number | string | null,
  opts: { db: IdentityDb; euid: number | null; platform: string },
): RunAs | null {
  if (user === null && group === null) return null;
  if (opts.platform === 'win32')
    throw new Error(`Job ${jobName}: changing user/group is not supported on Windows`);
  let uid: number | null = null;
  let gid: number | null = null;
  let login: string | null = null;
  if (typeof user === 'number') {
    uid = user;
    const entry = opts.db.passwd.find((p) => p.uid === user);
    if (entry) {
      gid = entry.gid;
      login = entry.name;
    }
  } else if (user !== null) {
    const entry = opts.db.passwd.find((p) => p.name === user);
    if (!entry) throw new Error(`User not found: ${quote(user)}`);
    uid = entry.uid;
    gid = entry.gid;
    login = entry.name;
  }
  if (typeof group === 'number') gid = group;
  else if (group !== null) {
    const entry = opts.db.groups.find((g) => g.name === group);
    if (!entry) throw new Error(`Group not found: ${quote(group)}`);
    gid = entry.gid;
  }
  if ((uid !== null || gid !== null) && opts.euid !== 0)
    throw new Error(
      `Job ${jobName} wants to change user or group, but cronstable is not running as superuser`,
    );
  return { uid, gid, login };
}

// `env_file` parsing (spec 01 §1.7): KEY=value lines, no quote processing, later duplicates win.
import { resolve } from 'node:path';
import { errorText } from '../util/errors.ts';
import { quote } from './errors.ts';
import { ConfigReadError, readConfigFile } from './read.ts';
import type { EnvVar } from './types.ts';

export class EnvFileError extends Error {}

function trimSpaces(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && s[a] === ' ') a++;
  while (b > a && s[b - 1] === ' ') b--;
  return s.slice(a, b);
}

export function parseEnvFile(text: string): EnvVar[] {
  const vars = new Map<string, string>();
  for (const raw of text.split('\n')) {
    const line = trimSpaces(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq < 0) throw new EnvFileError(`Invalid line in env_file: ${quote(line)}`);
    vars.set(trimSpaces(line.slice(0, eq)), trimSpaces(line.slice(eq + 1)));
  }
  return [...vars].map(([key, value]) => ({ key, value }));
}

/** Reads an env_file relative to the daemon's working directory; returns the absolute path too. */
export function loadEnvFile(path: string, cwd: string): { file: string; vars: EnvVar[] } {
  const file = resolve(cwd, path);
  let text: string;
  try {
    text = readConfigFile(file);
  } catch (e) {
    throw new EnvFileError(
      `Could not load env_file: ${e instanceof ConfigReadError ? e.message : osMessage(e)}`,
    );
  }
  return { file, vars: parseEnvFile(text) };
}

/** File variables first, then the job's own entries override or extend them. */
export function overlayEnvironment(fileVars: EnvVar[], own: EnvVar[]): EnvVar[] {
  const out = new Map(fileVars.map((v) => [v.key, v.value]));
  for (const v of own) out.set(v.key, v.value);
  return [...out].map(([key, value]) => ({ key, value }));
}

/** The OS error text in the reference's shape: `[Errno 2] No such file or directory: '<path>'`. */
export function osMessage(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  const texts: Record<string, [number, string]> = {
    ENOENT: [2, 'No such file or directory'],
    EACCES: [13, 'Permission denied'],
    EISDIR: [21, 'Is a directory'],
    ENOTDIR: [20, 'Not a directory'],
  };
  const known = err?.code ? texts[err.code] : undefined;
  if (known && err.path) return `[Errno ${known[0]}] ${known[1]}: '${err.path}'`;
  return errorText(e);
}

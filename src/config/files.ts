// Which front end reads a file, and which directory entries are config files (spec 01 §1.2-1.3).
import { basename, extname } from 'node:path';
import { looksLikeCrontabLine } from '../schedule/index.ts';

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\s*=\s*.*$/;

/** POSIX extension: a dot-file such as `.crontab` has none. */
function extensionOf(name: string): string {
  return extname(name).toLowerCase();
}

export function isCrontabByName(path: string): boolean {
  const name = basename(path);
  const ext = extensionOf(name);
  return name.toLowerCase() === 'crontab' || ext === '.crontab' || ext === '.cron';
}

/** Content sniff for files that are neither named as crontab nor `.yml`/`.yaml`. */
export function sniffCrontab(text: string): boolean {
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    return ASSIGNMENT.test(line) || line.startsWith('@') || looksLikeCrontabLine(line);
  }
  return false;
}

export function isCrontabFile(path: string, text: string): boolean {
  if (isCrontabByName(path)) return true;
  const ext = extensionOf(basename(path));
  if (ext.toLowerCase() === '.yml' || ext.toLowerCase() === '.yaml') return false;
  return sniffCrontab(text);
}

/** Directory mode: keep `.yml`/`.yaml` (any case, spec 09 §7.5) and crontab-named entries, skip `_x`/`.x`. */
export function isDirectoryEntryLoaded(name: string): boolean {
  const ext = extname(name);
  const stem = ext ? name.slice(0, -ext.length) : name;
  if (stem.startsWith('_') || stem.startsWith('.') || name.startsWith('.')) return false;
  const lower = ext.toLowerCase(); // spec 09 §7.5: `JOBS.YAML` loads
  return lower === '.yml' || lower === '.yaml' || isCrontabByName(name);
}

/** Plain code-point order, not locale order: upper case < `_` < lower case. */
export function sortEntryNames(names: string[]): string[] {
  return [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

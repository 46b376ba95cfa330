// The load-time side of `workingDirectory` and `priority` (spec 09 §3): resolve the directory
// against the daemon's cwd, and warn (never fail) where a priority raise needs privileges.
import { readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { priorityRaiseWarning, resolveWorkingDirectory, systemHomes } from './launch-place.ts';
import type { CommandSettings, LoadWarning } from './types.ts';

const homes = systemHomes(() => readFileSync('/etc/passwd', 'utf8'));

/** The daemon's nice, read once per process: a load compares every job against the same value. */
let ownNice: number | null = null;

export function launchPlaceOf(
  owner: string,
  opts: Pick<CommandSettings, 'workingDirectory' | 'priority'>,
  ctx: { cwd: string; euid: number | null; warnings: LoadWarning[] },
): string | null {
  if (opts.priority !== 'normal') {
    ownNice ??= safeNice();
    const warning = priorityRaiseWarning(owner, opts.priority, ownNice, ctx.euid);
    if (warning) ctx.warnings.push({ level: 'warning', logger: 'cronstable.config', message: warning });
  }
  return resolveWorkingDirectory(opts.workingDirectory, ctx.cwd, homes);
}

function safeNice(): number {
  try {
    return getPriority();
  } catch {
    return 0;
  }
}
